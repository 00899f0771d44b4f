package arch

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// checkInst asserts what every decoded instruction must satisfy: a length
// the machine allows and no more than the bytes given, a known class, a
// target only on direct branches, and stack operations that never filled
// Ops (so none was dropped) with known kinds.
func checkInst(t *testing.T, code []byte, in *Inst, lens ...int) {
	t.Helper()
	ok := false
	for _, n := range lens {
		ok = ok || in.Len == n
	}
	if !ok || in.Len > len(code) {
		t.Fatalf("%x: Len %d (allowed %v, %d bytes given)", code, in.Len, lens, len(code))
	}
	if in.Class > Unknown {
		t.Fatalf("%x: Class %d", code, in.Class)
	}
	if in.Target != 0 && in.Class != Call && in.Class != Jump && in.Class != CondJump {
		t.Fatalf("%x: Target %#x on class %d", code, in.Target, in.Class)
	}
	if in.NOps < 0 || in.NOps >= MaxOps {
		t.Fatalf("%x: NOps %d (MaxOps %d: an operation may have been dropped)", code, in.NOps, MaxOps)
	}
	for _, op := range in.Ops[:in.NOps] {
		if op.Kind < OpPush || op.Kind > OpAddSPReg {
			t.Fatalf("%x: op kind %d", code, op.Kind)
		}
	}
	if in.Class == Unknown && in.Why == "" {
		t.Fatalf("%x: Unknown without a reason", code)
	}
}

func FuzzARM64Decode(f *testing.F) {
	for _, c := range arm64Cases {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], c.word)
		f.Add(b[:], uint64(0x400000))
	}
	f.Add([]byte{1, 2}, uint64(0))
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		var d ARM64
		var in Inst
		err := d.Decode(code, pc, &in)
		_ = d.Text(code, pc)
		if err != nil {
			if len(code) >= 4 {
				t.Fatalf("%x: %v", code, err)
			}
			return
		}
		checkInst(t, code, &in, 4)
	})
}

func FuzzS390XDecode(f *testing.F) {
	for _, c := range s390xCases {
		b, _ := hex.DecodeString(c.hex)
		f.Add(b, uint64(0x1000000))
	}
	f.Add([]byte{0xeb}, uint64(0))
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		var d S390X
		var in Inst
		err := d.Decode(code, pc, &in)
		_ = d.Text(code, pc)
		if err != nil {
			if len(code) >= 6 {
				t.Fatalf("%x: %v", code, err)
			}
			return
		}
		checkInst(t, code, &in, 2, 4, 6)
	})
}

// benchText returns the .text of a fixture, or skips.
func benchText(b *testing.B, file string) ([]byte, uint64) {
	f, err := elf.Open(file)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		b.Skip("no .text")
	}
	d, err := s.Data()
	if err != nil {
		b.Fatal(err)
	}
	return d, s.Addr
}

// benchDecode decodes text from start to end b.N times and reports
// instructions per second (wall and process CPU time).
func benchDecode(b *testing.B, dec Decoder, text []byte, addr uint64) {
	var in Inst
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(text); {
			if err := dec.Decode(text[off:], addr+uint64(off), &in); err != nil {
				off += 2
				continue
			}
			off += in.Len
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insns/s")
	// CPU time, not wall time: the shared machine is loaded.
	if c := cpuSeconds() - cpu0; c > 0 {
		b.ReportMetric(float64(n)/c, "insns/cpu-s")
	}
}

// BenchmarkARM64Decode decodes the .text of a static AArch64 glibc program.
func BenchmarkARM64Decode(b *testing.B) {
	text, addr := benchText(b, "../../testdata/cores/crash-aarch64-pac-v3")
	benchDecode(b, ARM64{}, text, addr)
}

// BenchmarkS390XDecode decodes the .text of a static s390x glibc program.
func BenchmarkS390XDecode(b *testing.B) {
	text, addr := benchText(b, "../../testdata/cores/crash-s390x-v3")
	benchDecode(b, S390X{}, text, addr)
}
