#!/usr/bin/env bash
# hostile.sh: runs sfdbg dump and check on a family of hostile inputs made
# from the fixtures in testdata/bin (truncations, huge counts, offsets past
# EOF, unsorted and overlapping FDEs, self-looping CIE pointers, random
# byte flips, sparse files, special files) and fails on a panic, a run
# over the time limit, a run over the RSS limit, or an exit status other
# than 0, 1 or 2. Every run has a 10 s limit and a 2 GiB address-space
# limit (ulimit -v). Prints the number of inputs and runs, the worst time
# and the worst RSS. Not run by .ci/run (which runs go test ./...).
#
# Mutant mode (-m SEED) instead makes N seeded mutants (-n, default 400)
# of the .sframe of five fixtures (cet-v3 deep-v2-O2 features-v1
# aarch64be-v3 sqlite-v3): half by 1-8 random byte flips in the section,
# half by setting 1-3 FDEs' function start, size, FRE count or repetition
# size to a large or random value. It runs dump and check on each, and a
# run fails over 2 s of CPU time (user+sys: wall time on the shared
# machine measures its load) or 256 MiB RSS (killed at 10 s). The same seed makes
# the same mutants; each input is named after its seed, index, fixture and
# mutation, so a failure is reproduced with -k.
#
#   scripts/hostile.sh [-k] [-j N]    -k keeps the inputs, -j N runs N at once (default: nproc)
#   scripts/hostile.sh -m SEED [-n N] [-k] [-j N]    the mutant mode: 2*N runs
#   SFDBG=/path/to/sfdbg scripts/hostile.sh    runs that binary instead of building one
set -euo pipefail

keep=0
jobs=$(nproc 2>/dev/null || echo 2)
seed=""
mutants=400
while getopts "kj:m:n:" o; do
	case $o in
	k) keep=1 ;;
	j) jobs=$OPTARG ;;
	m) seed=$OPTARG ;;
	n) mutants=$OPTARG ;;
	*) echo "usage: $0 [-k] [-j N] [-m SEED [-n N]]" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sfdbg-hostile.XXXXXX")
if [ "$keep" = 0 ]; then trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT; else echo "inputs kept in $work"; fi
in=$work/in
mkdir -p "$in" "$work/gen"

export TIME_LIMIT=10        # seconds per run
export VMEM_LIMIT=2097152   # KiB of address space per run (ulimit -v): 2 GiB
export MALLOC_ARENA_MAX=2   # glibc reserves 64 MiB of address space per thread arena otherwise
export RSS_LIMIT=262144     # KiB of resident memory per run (256 MiB)
export SLOW_LIMIT=0         # CPU seconds over which a run fails though it ended (mutant mode: 2)
if [ -n "$seed" ]; then SLOW_LIMIT=2; fi

if [ -z "${SFDBG:-}" ]; then # SFDBG=path runs another build
	echo "building sfdbg"
	(cd "$root" && go build -o "$work/sfdbg" ./cmd/sfdbg)
	SFDBG=$work/sfdbg
fi
export SFDBG

# The generator: standard library only, run outside the module.
cat >"$work/gen/gen.go" <<'EOF'
package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
)

var out string
var count int

func emit(name string, b []byte) {
	if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
		panic(err)
	}
	count++
}

type sec struct{ hdr, off, size, addr uint64 }

type fixture struct {
	name string
	b    []byte
	bo   binary.ByteOrder
	secs map[string]sec
	f    *elf.File
}

func (x *fixture) copy() []byte { return append([]byte(nil), x.b...) }

// patch emits a copy of the fixture changed by fn.
func (x *fixture) patch(name string, fn func(b []byte)) {
	b := x.copy()
	fn(b)
	emit(x.name+"-"+name, b)
}

func (x *fixture) u16(b []byte, at uint64, v uint16) { x.bo.PutUint16(b[at:], v) }
func (x *fixture) u32(b []byte, at uint64, v uint32) { x.bo.PutUint32(b[at:], v) }
func (x *fixture) u64(b []byte, at uint64, v uint64) { x.bo.PutUint64(b[at:], v) }

func load(dir, name string) *fixture {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil || f.Class != elf.ELFCLASS64 {
		return nil
	}
	x := &fixture{name: name, b: b, bo: f.ByteOrder, secs: map[string]sec{}, f: f}
	shoff := x.bo.Uint64(b[0x28:])
	shent := uint64(x.bo.Uint16(b[0x3a:]))
	for i, s := range f.Sections {
		x.secs[s.Name] = sec{hdr: shoff + uint64(i)*shent, off: s.Offset, size: s.Size, addr: s.Addr}
	}
	return x
}

// sframe returns the .sframe layout: header length, FDE sub-section
// start, FDE entry size, FRE sub-section start (section offsets).
func (x *fixture) sframe() (s sec, ver byte, hl, fdeStart, entSize, freStart, n uint64, ok bool) {
	s, ok = x.secs[".sframe"]
	if !ok || s.size < 28 {
		return s, 0, 0, 0, 0, 0, 0, false
	}
	d := x.b[s.off:]
	ver = d[2]
	hl = 28 + uint64(d[7])
	fdeStart = hl + uint64(x.bo.Uint32(d[20:]))
	freStart = hl + uint64(x.bo.Uint32(d[24:]))
	n = uint64(x.bo.Uint32(d[8:]))
	entSize = map[byte]uint64{1: 17, 2: 20, 3: 16}[ver]
	return s, ver, hl, fdeStart, entSize, freStart, n, entSize > 0
}

// eachFDE calls fn with the file offset of each SFrame FDE entry.
func (x *fixture) eachFDE(b []byte, fn func(at uint64, i int)) {
	s, _, _, fdeStart, ent, _, n, ok := x.sframe()
	if !ok {
		return
	}
	for i := uint64(0); i < n && fdeStart+(i+1)*ent <= s.size; i++ {
		fn(s.off+fdeStart+i*ent, int(i))
	}
}

// ehRecords calls fn with the file offset and length of each .eh_frame
// record (32-bit lengths only).
func (x *fixture) ehRecords(fn func(at, n uint64, cie bool)) {
	s, ok := x.secs[".eh_frame"]
	if !ok {
		return
	}
	for off := uint64(0); off+8 <= s.size; {
		n := uint64(x.bo.Uint32(x.b[s.off+off:]))
		if n == 0 || n == 0xffffffff || off+4+n > s.size {
			return
		}
		fn(s.off+off, n, x.bo.Uint32(x.b[s.off+off+4:]) == 0)
		off += 4 + n
	}
}

func (x *fixture) generate(rng *rand.Rand, flips int) {
	b := x.b
	size := uint64(len(b))
	// Truncations.
	cuts := []uint64{0, 1, 3, 4, 16, 40, 63, 64, 100, 200, size / 2, size - 1}
	for _, name := range []string{".sframe", ".eh_frame", ".eh_frame_hdr", ".text", ".symtab", ".shstrtab"} {
		if s, ok := x.secs[name]; ok && s.size > 0 {
			cuts = append(cuts, s.off, s.off+1, s.off+s.size/2, s.off+s.size-1)
		}
	}
	cuts = append(cuts, x.bo.Uint64(b[0x28:])+10)
	for _, c := range cuts {
		if c < size {
			emit(fmt.Sprintf("%s-cut-%d", x.name, c), b[:c])
		}
	}
	// ELF header fields.
	x.patch("shnum-ffff", func(b []byte) { x.u16(b, 0x3c, 0xffff) })
	x.patch("phnum-ffff", func(b []byte) { x.u16(b, 0x38, 0xffff) })
	x.patch("shoff-past-eof", func(b []byte) { x.u64(b, 0x28, 1<<40) })
	x.patch("phoff-past-eof", func(b []byte) { x.u64(b, 0x20, 1<<40) })
	x.patch("shstrndx-bad", func(b []byte) { x.u16(b, 0x3e, 0xfffe) })
	x.patch("shentsize-0", func(b []byte) { x.u16(b, 0x3a, 0) })
	x.patch("extended-shnum-huge", func(b []byte) {
		x.u16(b, 0x3c, 0)
		x.u64(b, x.bo.Uint64(b[0x28:])+0x20, 0xffffffff)
	})
	x.patch("extended-shnum-max-allowed", func(b []byte) {
		x.u16(b, 0x3c, 0)
		x.u64(b, x.bo.Uint64(b[0x28:])+0x20, 1<<18)
	})
	// Section headers: sizes and offsets past EOF.
	for _, name := range []string{".sframe", ".text", ".eh_frame", ".eh_frame_hdr", ".symtab", ".strtab", ".shstrtab", ".debug_frame"} {
		s, ok := x.secs[name]
		if !ok {
			continue
		}
		x.patch("size-2g"+name, func(b []byte) { x.u64(b, s.hdr+0x20, 2<<30) })
		x.patch("off-past-eof"+name, func(b []byte) { x.u64(b, s.hdr+0x18, 1<<40) })
		x.patch("size-max"+name, func(b []byte) { x.u64(b, s.hdr+0x20, ^uint64(0)) })
		x.patch("nobits"+name, func(b []byte) { x.u32(b, s.hdr+4, uint32(elf.SHT_NOBITS)) })
	}
	// Program headers: PT_GNU_SFRAME past EOF, and as the only SFrame data.
	phoff, phent, phnum := x.bo.Uint64(b[0x20:]), uint64(x.bo.Uint16(b[0x36:])), uint64(x.bo.Uint16(b[0x38:]))
	for i := uint64(0); i < phnum; i++ {
		p := phoff + i*phent
		if x.bo.Uint32(b[p:]) != 0x6474e554 {
			continue
		}
		if s, ok := x.secs[".sframe"]; ok {
			hide := func(b []byte) { b[x.secs[".shstrtab"].off+uint64(x.bo.Uint32(b[s.hdr:]))+1] = 'x' }
			x.patch("segment-only", hide)
			x.patch("segment-only-filesz-2g", func(b []byte) { hide(b); x.u64(b, p+0x20, 2<<30) })
			x.patch("segment-only-off-past-eof", func(b []byte) { hide(b); x.u64(b, p+0x8, 1<<40) })
		}
	}
	x.sframeCases(rng, flips)
	x.cfiCases(rng, flips)
}

func (x *fixture) sframeCases(rng *rand.Rand, flips int) {
	s, ver, _, fdeStart, ent, freStart, n, ok := x.sframe()
	if !ok {
		return
	}
	o := s.off
	// Header counts and offsets.
	for _, h := range []struct {
		name string
		at   uint64
		v    uint32
	}{{"num-fdes", 8, 0xffffffff}, {"num-fres", 12, 0xffffffff}, {"fre-len", 16, 0xffffffff},
		{"fde-off", 20, 0xffffffff}, {"fre-off", 24, 0xffffffff}, {"num-fdes-plus-1", 8, uint32(n + 1)}} {
		x.patch("sframe-"+h.name, func(b []byte) { x.u32(b, o+h.at, h.v) })
	}
	x.patch("sframe-auxhdr-255", func(b []byte) { b[o+7] = 255 })
	x.patch("sframe-version-ff", func(b []byte) { b[o+2] = 0xff })
	x.patch("sframe-abi-ff", func(b []byte) { b[o+4] = 0xff })
	x.patch("sframe-flags-ff", func(b []byte) { b[o+3] = 0xff })
	x.patch("sframe-fre-sub-over-fde-sub", func(b []byte) { x.u32(b, o+24, x.bo.Uint32(b[o+20:])) })
	// FDE fields: sizes, FRE offsets and counts.
	sizeAt, freOffAt := uint64(4), uint64(8)
	if ver == 3 {
		sizeAt, freOffAt = 8, 12
	}
	each := func(name string, fn func(b []byte, at uint64, i int)) {
		x.patch("fdes-"+name, func(b []byte) { x.eachFDE(b, func(at uint64, i int) { fn(b, at, i) }) })
	}
	each("size-0", func(b []byte, at uint64, _ int) { x.u32(b, at+sizeAt, 0) })
	each("size-max", func(b []byte, at uint64, _ int) { x.u32(b, at+sizeAt, 0xffffffff) })
	each("fre-off-max", func(b []byte, at uint64, _ int) { x.u32(b, at+freOffAt, 0xffffffff) })
	each("fre-off-0", func(b []byte, at uint64, _ int) { x.u32(b, at+freOffAt, 0) })
	if ver < 3 {
		each("num-fres-max", func(b []byte, at uint64, _ int) { x.u32(b, at+12, 0xffffffff) })
		each("info-ff", func(b []byte, at uint64, _ int) { b[at+16] = 0xff })
	} else {
		each("attr-num-fres-max", func(b []byte, at uint64, _ int) {
			a := o + freStart + uint64(x.bo.Uint32(b[at+12:]))
			if a+5 <= o+s.size {
				x.u16(b, a, 0xffff)
			}
		})
	}
	// Overlapping: every FDE covers all of .text; every FDE at one start.
	if t, ok := x.secs[".text"]; ok {
		pcrel := b0(x.b[o+3]&0x4 != 0 && ver >= 2)
		start := func(b []byte, at uint64) uint64 {
			f := x.field(b, at, ver)
			if pcrel == 1 {
				return s.addr + (at - o) + f
			}
			return s.addr + f
		}
		set := func(b []byte, at, v uint64) {
			f := v - s.addr
			if pcrel == 1 {
				f -= at - o
			}
			x.setField(b, at, ver, f)
		}
		each("cover-text", func(b []byte, at uint64, _ int) {
			set(b, at, t.addr)
			x.u32(b, at+sizeAt, uint32(t.size))
		})
		each("cover-text-from-own-start", func(b []byte, at uint64, _ int) {
			x.u32(b, at+sizeAt, uint32(t.addr+t.size-start(b, at)))
		})
		each("nested-in-first", func(b []byte, at uint64, i int) {
			if i == 0 {
				set(b, at, t.addr)
				x.u32(b, at+sizeAt, uint32(t.size))
			}
		})
	}
	// Unsorted: FDE entries reversed, the sorted flag kept.
	x.patch("fdes-reversed", func(b []byte) {
		for i, j := uint64(0), n-1; i < j && fdeStart+(j+1)*ent <= s.size; i, j = i+1, j-1 {
			a, c := o+fdeStart+i*ent, o+fdeStart+j*ent
			tmp := append([]byte(nil), b[a:a+ent]...)
			copy(b[a:a+ent], b[c:c+ent])
			copy(b[c:c+ent], tmp)
		}
	})
	// Raw section files.
	raw := x.b[o : o+s.size]
	emit(x.name+"-raw.sframe", raw)
	emit(x.name+"-raw-cut.sframe", raw[:len(raw)/2])
	// Random byte flips in the section.
	for k := 0; k < flips; k++ {
		x.patch(fmt.Sprintf("sframe-flip-%d", k), func(b []byte) {
			for m := 1 + rng.Intn(8); m > 0; m-- {
				b[o+uint64(rng.Int63n(int64(s.size)))] ^= byte(1 + rng.Intn(255))
			}
		})
	}
}

func b0(v bool) int {
	if v {
		return 1
	}
	return 0
}

func (x *fixture) field(b []byte, at uint64, ver byte) uint64 {
	if ver == 3 {
		return x.bo.Uint64(b[at:])
	}
	return uint64(int64(int32(x.bo.Uint32(b[at:]))))
}

func (x *fixture) setField(b []byte, at uint64, ver byte, v uint64) {
	if ver == 3 {
		x.bo.PutUint64(b[at:], v)
	} else {
		x.bo.PutUint32(b[at:], uint32(v))
	}
}

func (x *fixture) cfiCases(rng *rand.Rand, flips int) {
	eh, ok := x.secs[".eh_frame"]
	if !ok {
		return
	}
	fdes := func(name string, fn func(b []byte, at, n uint64)) {
		x.patch("eh-"+name, func(b []byte) {
			x.ehRecords(func(at, n uint64, cie bool) {
				if !cie {
					fn(b, at, n)
				}
			})
		})
	}
	// CIE pointers: to the FDE itself, to before the section, to another FDE.
	fdes("cie-self", func(b []byte, at, _ uint64) { x.u32(b, at+4, 4) })
	fdes("cie-before-section", func(b []byte, at, _ uint64) { x.u32(b, at+4, 0xfffffff0) })
	fdes("cie-zero", func(b []byte, at, _ uint64) { x.u32(b, at+4, 0) })
	prev := uint64(0)
	fdes("cie-previous-fde", func(b []byte, at, _ uint64) {
		if prev != 0 {
			x.u32(b, at+4, uint32(at+4-prev))
		}
		prev = at
	})
	// Lengths: 64-bit escape, reserved, one byte too long.
	x.patch("eh-len-64", func(b []byte) { x.u32(b, eh.off, 0xffffffff) })
	x.patch("eh-len-reserved", func(b []byte) { x.u32(b, eh.off, 0xfffffff0) })
	x.patch("eh-len-plus-1", func(b []byte) {
		x.ehRecords(func(at, n uint64, _ bool) { x.u32(b, at, uint32(n+1)) })
	})
	// Every CFI FDE covers all of .text (pcrel sdata4 pc_begin, udata4 range).
	if t, ok := x.secs[".text"]; ok && x.f.Machine == elf.EM_X86_64 {
		fdes("cover-text", func(b []byte, at, _ uint64) {
			field := eh.addr + (at - eh.off) + 8
			x.u32(b, at+8, uint32(t.addr-field))
			x.u32(b, at+12, uint32(t.size))
		})
		fdes("range-max", func(b []byte, at, _ uint64) { x.u32(b, at+12, 0xffffffff) })
	}
	// .eh_frame_hdr: a huge count, entries reversed.
	if h, ok := x.secs[".eh_frame_hdr"]; ok && h.size >= 12 {
		x.patch("ehhdr-count-max", func(b []byte) { x.u32(b, h.off+8, 0xffffffff) })
		x.patch("ehhdr-reversed", func(b []byte) {
			t := b[h.off+12 : h.off+h.size]
			for i, j := 0, len(t)/8-1; i < j; i, j = i+1, j-1 {
				a, c := append([]byte(nil), t[i*8:i*8+8]...), t[j*8:j*8+8]
				copy(t[i*8:], c)
				copy(t[j*8:], a)
			}
		})
	}
	for k := 0; k < flips; k++ {
		x.patch(fmt.Sprintf("eh-flip-%d", k), func(b []byte) {
			for m := 1 + rng.Intn(8); m > 0; m-- {
				b[eh.off+uint64(rng.Int63n(int64(eh.size)))] ^= byte(1 + rng.Intn(255))
			}
		})
	}
}

// sparse writes a fixture extended to 2 GiB with a hole: its sections stay
// valid (the issue's case), or its .text claims all the rest of the file.
func sparse(x *fixture) {
	for _, v := range []struct {
		name string
		fn   func(b []byte)
	}{{"sparse-2g", func([]byte) {}}, {"sparse-2g-text-to-end", func(b []byte) {
		t := x.secs[".text"]
		x.u64(b, t.hdr+0x20, 2<<30-t.off)
	}}} {
		b := x.copy()
		v.fn(b)
		p := filepath.Join(out, x.name+"-"+v.name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			panic(err)
		}
		if err := os.Truncate(p, 2<<30); err != nil {
			panic(err)
		}
		count++
	}
}

func main() {
	dir := os.Args[1]
	out = os.Args[2]
	rng := rand.New(rand.NewSource(14))
	for _, name := range []string{"deep-v1-O2", "deep-v2-O2", "deep-v3-O2", "features-v1", "features-v3",
		"aarch64-v2", "aarch64be-v3", "s390x-v3", "sqlite-v3"} {
		x := load(dir, name)
		if x == nil {
			fmt.Fprintf(os.Stderr, "gen: no fixture %s\n", name)
			continue
		}
		flips := 20
		if name == "sqlite-v3" {
			flips = 5 // larger, so slower to check
		}
		x.generate(rng, flips)
		if name == "deep-v3-O2" || name == "sqlite-v3" {
			sparse(x)
		}
	}
	fmt.Println(count)
}
EOF

if [ -n "$seed" ]; then
# The mutant generator: standard library only, run outside the module.
mkdir -p "$work/mut"
cat >"$work/mut/mutant.go" <<'EOF'
package main

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// fixture is one ELF file and the layout of its .sframe.
type fixture struct {
	name                string
	b                   []byte
	bo                  binary.ByteOrder
	off, size, addr     uint64 // .sframe in the file, and its address
	ver                 byte
	pcrel               bool
	fdeStart, ent, nfde uint64 // FDE sub-section (section offsets), entry size, count
	freStart            uint64 // FRE sub-section (section offset)
	lo, hi              uint64 // addresses of the executable sections, lowest to highest
	mask                []uint64 // indices of the PC-mask FDEs
	starts              []uint64 // FDE start addresses, sorted
}

func load(path string) (*fixture, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := f.Section(".sframe")
	if s == nil || s.Size < 28 || s.Offset+s.Size > uint64(len(b)) {
		return nil, fmt.Errorf("%s: no usable .sframe", path)
	}
	x := &fixture{name: filepath.Base(path), b: b, bo: f.ByteOrder, off: s.Offset, size: s.Size, addr: s.Addr, lo: ^uint64(0)}
	for _, t := range f.Sections {
		if t.Flags&elf.SHF_EXECINSTR != 0 {
			x.lo, x.hi = min(x.lo, t.Addr), max(x.hi, t.Addr+t.Size)
		}
	}
	d := b[s.Offset : s.Offset+s.Size]
	x.ver = d[2]
	x.pcrel = d[3]&4 != 0 && x.ver >= 2
	hl := 28 + uint64(d[7])
	x.fdeStart = hl + uint64(x.bo.Uint32(d[20:]))
	x.freStart = hl + uint64(x.bo.Uint32(d[24:]))
	x.nfde = uint64(x.bo.Uint32(d[8:]))
	x.ent = map[byte]uint64{1: 17, 2: 20, 3: 16}[x.ver]
	if x.ent == 0 || x.nfde == 0 || x.fdeStart+x.nfde*x.ent > s.Size || x.lo >= x.hi {
		return nil, fmt.Errorf("%s: unexpected .sframe layout", path)
	}
	for i := uint64(0); i < x.nfde; i++ {
		at := x.fdeStart + i*x.ent
		start := x.addr + uint64(int64(int32(x.bo.Uint32(d[at:]))))
		if x.ver == 3 {
			start = x.addr + x.bo.Uint64(d[at:])
		}
		if x.pcrel {
			start += at
		}
		x.starts = append(x.starts, start)
		info := d[at+16:]
		if x.ver == 3 {
			a := x.freStart + uint64(x.bo.Uint32(d[at+12:]))
			if a+5 > s.Size {
				continue
			}
			info = d[a+2:]
		}
		if info[0]&0x10 != 0 {
			x.mask = append(x.mask, i)
		}
	}
	slices.Sort(x.starts)
	return x, nil
}

// value returns a large or random 32-bit value for an FDE field.
func value(rng *rand.Rand) uint64 {
	switch rng.Intn(6) {
	case 0:
		return 0xffffffff
	case 1:
		return 0x80000000 + uint64(rng.Intn(1<<20))
	case 2:
		return uint64(rng.Uint32()) | 0xe0000000 // large, as 0xe1fff008
	case 3:
		return uint64(rng.Intn(1 << 16))
	case 4:
		return uint64(rng.Intn(256))
	}
	return uint64(rng.Uint32())
}

// fields sets, in 1-3 FDEs (a PC-mask one half of the time when there is
// one), 1-4 of the function start, size, FRE count and repetition size
// (v1 has no repetition size field) to large or random values. A start is
// half of the time an address in or near the executable sections.
func (x *fixture) fields(rng *rand.Rand, b []byte) string {
	s := b[x.off : x.off+x.size]
	what := ""
	for m := 1 + rng.Intn(3); m > 0; m-- {
		i := uint64(rng.Int63n(int64(x.nfde)))
		if len(x.mask) > 0 && rng.Intn(2) == 0 {
			i = x.mask[rng.Intn(len(x.mask))]
		}
		at := x.fdeStart + i*x.ent
		// v3: count and repetition size are in the FDE attribute.
		attr := x.freStart + uint64(x.bo.Uint32(s[at+12:]))
		for _, field := range []string{"start", "size", "nfres", "repsize"} {
			if rng.Intn(3) != 0 || (x.ver == 1 && field == "repsize") ||
				(x.ver == 3 && (field == "nfres" || field == "repsize") && attr+5 > x.size) {
				continue
			}
			v := value(rng)
			switch {
			case field == "start":
				if r := rng.Intn(4); r < 2 {
					// In the code, or at another FDE's start (the
					// highest one half of the time): then the FDE
					// overlaps others, or is the last by address.
					v = x.lo + uint64(rng.Int63n(int64(x.hi-x.lo)+0x10000))
					if r == 1 {
						v = x.starts[len(x.starts)-1]
						if rng.Intn(2) == 0 {
							v = x.starts[rng.Intn(len(x.starts))]
						}
						v += uint64(rng.Intn(16))
					}
					what += fmt.Sprintf("-fde%d-start@%x", i, v)
					v -= x.addr
					if x.pcrel {
						v -= at
					}
				} else {
					if x.ver == 3 && rng.Intn(2) == 0 {
						v = rng.Uint64()
					}
					what += fmt.Sprintf("-fde%d-start-%x", i, v)
				}
				if x.ver == 3 {
					x.bo.PutUint64(s[at:], v)
				} else {
					x.bo.PutUint32(s[at:], uint32(v))
				}
				continue
			case field == "size" && x.ver == 3:
				x.bo.PutUint32(s[at+8:], uint32(v))
			case field == "size":
				x.bo.PutUint32(s[at+4:], uint32(v))
			case field == "nfres" && x.ver == 3:
				v &= 0xffff
				x.bo.PutUint16(s[attr:], uint16(v))
			case field == "nfres":
				x.bo.PutUint32(s[at+12:], uint32(v))
			case field == "repsize" && x.ver == 3:
				v &= 0xff
				s[attr+4] = byte(v)
			case field == "repsize":
				v &= 0xff
				s[at+17] = byte(v)
			}
			what += fmt.Sprintf("-fde%d-%s-%x", i, field, v)
		}
	}
	return what
}

// flips XORs 1-8 random bytes of the section with random non-zero values.
func (x *fixture) flips(rng *rand.Rand, b []byte) string {
	m := 1 + rng.Intn(8)
	for k := 0; k < m; k++ {
		b[x.off+uint64(rng.Int63n(int64(x.size)))] ^= byte(1 + rng.Intn(255))
	}
	return fmt.Sprintf("-flip%d", m)
}

func main() {
	dir, out := os.Args[1], os.Args[2]
	seed, _ := strconv.ParseInt(os.Args[3], 0, 64)
	n, _ := strconv.Atoi(os.Args[4])
	var xs []*fixture
	for _, name := range os.Args[5:] {
		x, err := load(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutant:", err)
			os.Exit(1)
		}
		xs = append(xs, x)
	}
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < n; i++ {
		x := xs[i%len(xs)]
		b := append([]byte(nil), x.b...)
		var what string
		if i/len(xs)%2 == 0 {
			what = x.flips(rng, b)
		} else {
			what = x.fields(rng, b)
		}
		name := fmt.Sprintf("m%d-%05d-%s%s", seed, i, x.name, what)
		if len(name) > 200 {
			name = name[:200]
		}
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			panic(err)
		}
	}
	fmt.Println(n)
}
EOF
echo "generating $mutants mutants from seed $seed"
n=$(cd "$work/mut" && GO111MODULE=off go run mutant.go "$root/testdata/bin" "$in" "$seed" "$mutants" cet-v3 deep-v2-O2 features-v1 aarch64be-v3 sqlite-v3)
else
echo "generating inputs"
n=$(cd "$work/gen" && GO111MODULE=off go run gen.go "$root/testdata/bin" "$in")
# Special files.
mkfifo "$in/special-fifo"
mkdir "$in/special-directory"
ln -s special-loop-b "$in/special-loop-a"
ln -s special-loop-a "$in/special-loop-b"
ln -s nowhere "$in/special-dangling"
: >"$in/special-empty"
printf 'ELF' >"$in/special-3-bytes"
printf '\x7fELF' >"$in/special-magic-only"
printf '\xe2\xde' >"$in/special-sframe-magic-only"
cp "$root/testdata/bin/deep-v3-O2" "$in/special-unreadable"
chmod 000 "$in/special-unreadable"
# A tree for check --recursive: the inputs made from two fixtures and the
# special files (the whole set would take the sum of all checks).
tree=$work/tree
mkdir "$tree"
cp -rPl "$in"/deep-v3-O2-* "$in"/s390x-v3-* "$in"/special-* "$tree/"
specials=(/dev/zero /dev/null /dev/urandom /proc/self/maps /proc/self/mem)
n=$((n + 10 + ${#specials[@]}))
fi

have_time=1
if ! [ -x /usr/bin/time ]; then
	have_time=0
	echo "note: /usr/bin/time not found: RSS is not measured (install GNU time)"
fi
export have_time

# run_one ARGS...: one run under the limits; prints
# "status seconds rss-KiB verdict args" (verdict ok or the failure).
run_one() {
	local t out err st
	t=$(mktemp)
	out=$(mktemp)
	err=$(mktemp)
	set +e
	if [ "$have_time" = 1 ]; then
		(ulimit -v "$VMEM_LIMIT"; exec /usr/bin/time -f "%e %M %U %S" -o "$t" timeout -s KILL "$TIME_LIMIT" "$SFDBG" "$@") >"$out" 2>"$err" </dev/null
		st=$?
	else
		local s0 s1
		s0=$(date +%s%N)
		(ulimit -v "$VMEM_LIMIT"; exec timeout -s KILL "$TIME_LIMIT" "$SFDBG" "$@") >"$out" 2>"$err" </dev/null
		st=$?
		s1=$(date +%s%N)
		echo "$(( (s1 - s0) / 1000000 ))e-3 0" | awk '{printf "%.2f 0 %.2f 0\n", $1, $1}' >"$t"
	fi
	set -e
	local secs rss user sys cpu verdict=ok
	read -r secs rss user sys < <(grep -E '^[0-9.]+ [0-9]+ [0-9.]+ [0-9.]+$' "$t" || echo "0 0 0 0")
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
	if [ "$have_time" = 1 ] && grep -q "Command terminated by signal 9" "$t"; then st=137; fi
	if grep -qE '^panic:|^fatal error:|goroutine [0-9]+ \[|internal error' "$err" "$out"; then
		verdict="panic"
	elif [ "$st" = 137 ] || [ "$st" = 124 ]; then
		verdict="timeout-or-killed"
	elif [ "$st" -gt 2 ]; then
		verdict="exit-$st"
	elif [ "$rss" -gt "$RSS_LIMIT" ]; then
		verdict="rss-over-limit"
	elif [ "$SLOW_LIMIT" != 0 ] && awk -v s="$cpu" -v l="$SLOW_LIMIT" 'BEGIN {exit !(s > l)}'; then
		verdict="time-over-limit"
	fi
	echo "$st $secs $rss $verdict $cpu $*"
	if [ "$verdict" != ok ]; then
		echo "  stderr: $(head -c 600 "$err" | tr '\n' ' ')" >&2
	fi
	rm -f "$t" "$out" "$err"
}
export -f run_one

echo "running dump and check on $n inputs ($jobs at a time)"
if [ -n "$seed" ]; then
	for f in "$in"/*; do
		printf '%s\0' dump "$f"
		printf '%s\0' check "$f"
	done
else
	for f in "$in"/* "${specials[@]}"; do
		printf '%s\0' dump "$f"
		printf '%s\0' check "$f"
	done
	# JSON forms on every other input, and the whole tree at once.
	i=0
	for f in "$in"/*; do
		i=$((i + 1))
		if [ $((i % 2)) = 0 ]; then
			printf '%s\0' "dump --json" "$f"
			printf '%s\0' "check --json" "$f"
		fi
	done
	printf '%s\0' "check --recursive" "$tree"
	printf '%s\0' "check --recursive --json -j 4" "$tree"
fi | xargs -0 -n 2 -P "$jobs" bash -c 'run_one $0 "$1"' >"$work/results" || true

runs=$(wc -l <"$work/results")
fails=$(awk '$4 != "ok"' "$work/results")
worst_time=$(awk '$2 + 0 >= m + 0 {m = $2; l = $0} END {print l}' "$work/results")
worst_rss=$(awk '$3 + 0 >= m + 0 {m = $3; l = $0} END {print l}' "$work/results")
worst_cpu=$(awk '$5 + 0 >= m + 0 {m = $5; l = $0} END {print l}' "$work/results")
by_status=$(awk '{c[$1]++} END {for (s in c) printf "%s:%d ", s, c[s]}' "$work/results")
echo "inputs: $n, runs: $runs, exit statuses (status:runs): $by_status"
echo "worst time: $(echo "$worst_time" | awk '{printf "%s s (sfdbg", $2; for (i = 6; i <= NF; i++) printf " %s", $i; print ")"}')"
echo "worst CPU time (user+sys): $(echo "$worst_cpu" | awk '{printf "%s s (sfdbg", $5; for (i = 6; i <= NF; i++) printf " %s", $i; print ")"}')"
if [ "$have_time" = 1 ]; then
	echo "worst RSS: $(echo "$worst_rss" | awk '{printf "%.1f MiB (sfdbg", $3/1024; for (i = 6; i <= NF; i++) printf " %s", $i; print ")"}')"
fi
if [ -n "$fails" ]; then
	echo "FAILED runs ($(echo "$fails" | wc -l)):"
	echo "$fails"
	exit 1
fi
slow=""
if [ "$SLOW_LIMIT" != 0 ]; then slow=", no run over $SLOW_LIMIT s of CPU"; fi
echo "PASS: no panic, no timeout$slow, no run over $((RSS_LIMIT / 1024)) MiB RSS, every exit status 0, 1 or 2"
