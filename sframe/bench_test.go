package sframe_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// Benchmarks over a large section: the SQLite fixture (testdata/bin/sqlite-v3,
// about 117 KB of .sframe) when present, and always a synthetic v3 section
// of 100,000 functions with a -O2-like mix of FREs. Run them with
//
//	go test ./sframe -run XXX -bench . -benchtime 2s

type benchSection struct {
	name string
	data []byte
	addr uint64
}

var (
	synthOnce sync.Once
	synthData []byte
)

// synthetic returns a sorted v3 AMD64 section of 100,000 functions:
// 1 to 12 FREs each (push/sub prologues, epilogues), functions of 16 bytes
// to 4 KiB (some needing 2-byte start offsets), some frame-pointer
// functions, 1% FLEX (DRAP) functions.
func synthetic(tb testing.TB) []byte {
	synthOnce.Do(func() {
		r := rand.New(rand.NewPCG(1, 2))
		b := &sframetest.Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8,
			Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel, Addr: 0x4000000}
		pc := uint64(0x100000)
		for i := 0; i < 100000; i++ {
			size := uint32(16 + r.IntN(400))
			if r.IntN(20) == 0 {
				size = uint32(400 + r.IntN(3700))
			}
			f := sframetest.FDESpec{Start: pc, Size: size}
			switch {
			case r.IntN(100) == 0:
				f.Type = sframe.FDETypeFlex
				size = max(size, 32)
				f.Size = size
				f.FREs = []sframetest.FRESpec{
					{StartOff: 0, Words: []int32{0x39, 8}},
					{StartOff: 5, Words: []int32{0x51, 0}},
					{StartOff: 17, Words: []int32{0x51, 0, 0, 0x33, 0}},
					{StartOff: 19, Words: []int32{0x33, -8, 0, 0x33, 0}},
					{StartOff: size - 6, Words: []int32{0x51, 0, 0, 0x33, 0}},
					{StartOff: size - 1, Words: []int32{0x39, 8, 0, 0x33, 0}},
				}
			case r.IntN(4) == 0:
				f.FREs = sframetest.AMD64Func(pc, size).FREs
			default:
				n := 1 + r.IntN(6) // pushes
				cfa := int32(8)
				off := uint32(0)
				f.FREs = append(f.FREs, sframetest.FRESpec{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{cfa}})
				for k := 0; k < n && off+2 < size/2; k++ {
					off += 1 + uint32(r.IntN(2))
					cfa += 8
					f.FREs = append(f.FREs, sframetest.FRESpec{StartOff: off, BaseReg: sframe.BaseRegSP, Words: []int32{cfa}})
				}
				if r.IntN(2) == 0 {
					off += 4
					f.FREs = append(f.FREs, sframetest.FRESpec{StartOff: off, BaseReg: sframe.BaseRegSP, Words: []int32{cfa + int32(8*r.IntN(64))}})
				}
				for k := len(f.FREs) - 1; k > 0 && off < size-1; k-- {
					off = max(off+1, size-uint32(len(f.FREs)-k)-1)
					if off >= size {
						break
					}
					f.FREs = append(f.FREs, sframetest.FRESpec{StartOff: off, BaseReg: sframe.BaseRegSP, Words: []int32{f.FREs[k-1].Words[0]}})
				}
			}
			b.FDEs = append(b.FDEs, f)
			pc += uint64(size) + uint64(r.IntN(16))
		}
		d, err := b.Encode()
		if err != nil {
			panic(err)
		}
		synthData = d
	})
	return synthData
}

func benchSections(b *testing.B) []benchSection {
	out := []benchSection{{name: "synthetic-100k", data: synthetic(b), addr: 0x4000000}}
	for _, fx := range loadFixtures(b) {
		if fx.name == "sqlite-v3" {
			out = append([]benchSection{{name: fx.name, data: fx.data, addr: fx.addr}}, out...)
		}
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	for _, bs := range benchSections(b) {
		b.Run(bs.name, func(b *testing.B) {
			b.SetBytes(int64(len(bs.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sframe.ParseAt(bs.data, bs.addr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, bs := range benchSections(b) {
		b.Run(bs.name, func(b *testing.B) {
			s, err := sframe.ParseAt(bs.data, bs.addr)
			if err != nil {
				b.Fatal(err)
			}
			if ps := s.Validate(); count(ps, sframe.SeverityError) > 0 {
				b.Fatalf("benchmark section has errors: %v", ps)
			}
			b.SetBytes(int64(len(bs.data)))
			b.ReportAllocs()
			for b.Loop() {
				s.Validate()
			}
		})
	}
}

// randomPCs returns n PCs, each at a random offset in a random function.
func randomPCs(s *sframe.Section, n int) []uint64 {
	r := rand.New(rand.NewPCG(3, 4))
	pcs := make([]uint64, n)
	fdes := s.FDEs()
	for i := range pcs {
		f := &fdes[r.IntN(len(fdes))]
		pcs[i] = f.Start + uint64(r.IntN(int(max(f.Size, 1))))
	}
	return pcs
}

// BenchmarkLookup looks up random PCs inside the functions of the section
// (FindFDE, FindFRE and Row); ns/op is per PC. The FindFDE and FindFRE
// sub-benchmarks time the two searches alone.
func BenchmarkLookup(b *testing.B) {
	for _, bs := range benchSections(b) {
		s, err := sframe.ParseAt(bs.data, bs.addr)
		if err != nil {
			b.Fatal(err)
		}
		pcs := randomPCs(s, 4096)
		b.Run(bs.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, _, err := lookup(s, pcs[i&(len(pcs)-1)]); err != nil && err != sframe.ErrNoFRE {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(bs.name+"/FindFDE", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.FindFDE(pcs[i&(len(pcs)-1)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(bs.name+"/FindFRE", func(b *testing.B) {
			fdes := make([]*sframe.FDE, len(pcs))
			for i, pc := range pcs {
				fdes[i], _ = s.FindFDE(pc)
			}
			b.ReportAllocs()
			var fre sframe.FRE
			i := 0
			for b.Loop() {
				k := i & (len(pcs) - 1)
				if err := s.FindFRE(fdes[k], pcs[k], &fre); err != nil && err != sframe.ErrNoFRE {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
