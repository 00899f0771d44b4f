package compare

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
)

// ehabiFixtures are the armhf programs built with -g (scripts/
// build-ehabi-fixtures.sh): EHABI and .debug_frame from the same GCC.
var ehabiFixtures = []string{"armhf-check-thumb.elf", "armhf-check-arm.elf", "armhf-check-O0.elf"}

func ehabiFixture(name string) string {
	return filepath.Join("..", "frames", "ehabi", "testdata", name)
}

func TestEHABICheckIsCleanOnGCCPrograms(t *testing.T) {
	for _, name := range ehabiFixtures {
		t.Run(name, func(t *testing.T) {
			rep, err := CheckFile(ehabiFixture(name), CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Summary.EHABI
			if rep.Format != FormatEHABI || s == nil {
				t.Fatalf("format %q, summary %v: not an EHABI check", rep.Format, s)
			}
			if rep.Summary.Disagreements != 0 || len(rep.Findings) != 0 {
				for _, f := range rep.Findings {
					t.Errorf("%s: %s", f.Kind, f.Message)
				}
			}
			// check.c has 10 functions with calls; at -O2 GCC may fold
			// one or two, and every call's return address is compared.
			if s.Compared < 8 || s.CallSites < 25 || rep.Summary.Instructions != s.CallSites {
				t.Errorf("%s; %d call sites compared: want at least 8 entries and 25 call sites, all compared", s, rep.Summary.Instructions)
			}
		})
	}
}

// mutateVSPAdd returns a copy of the ELF file at path whose first inline
// compact entry (personality 0) starting with "vsp += 4k+4" has k
// increased by 4 (16 bytes more), and the address of the entry's function.
func mutateVSPAdd(t *testing.T, path string) ([]byte, uint64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	idx := f.Section(".ARM.exidx")
	for off := uint64(0); off+8 <= idx.Size; off += 8 {
		at := idx.Offset + off
		w := f.ByteOrder.Uint32(data[at+4:])
		op := byte(w >> 16)
		if w>>24 != 0x80 || op&0xc0 != 0 || op&0x3f > 0x3f-4 {
			continue
		}
		w += 4 << 16
		f.ByteOrder.PutUint32(data[at+4:], w)
		fw := f.ByteOrder.Uint32(data[at:])
		fn := uint64(int64(idx.Addr+off) + int64(int32(fw<<1)>>1))
		return data, fn
	}
	t.Fatalf("%s: no inline entry starting with vsp += 4k+4", path)
	return nil, 0
}

func TestEHABICheckCatchesAChangedVSPAdd(t *testing.T) {
	for _, name := range ehabiFixtures[:2] {
		t.Run(name, func(t *testing.T) {
			data, fn := mutateVSPAdd(t, ehabiFixture(name))
			path := filepath.Join(t.TempDir(), "mutant.elf")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := CheckFile(path, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.Disagreements == 0 {
				t.Fatalf("the changed opcode is not caught: %s", rep.Summary.EHABI)
			}
			for _, f := range rep.Findings {
				if f.FuncStart != fn || f.Kind != KindCFA {
					t.Errorf("finding outside the changed entry (at %#x) or not a CFA one: %s %#x %s", fn, f.Kind, f.FuncStart, f.Message)
					continue
				}
				ehabi, cfi := f.Rules[frames.MethodEHABI], f.Rules[frames.MethodCFI]
				// Both sides, the EHABI one with its opcodes.
				if !strings.Contains(ehabi, "vsp = vsp +") || !strings.HasPrefix(cfi, "cfa=sp+") ||
					!strings.Contains(f.Message, "EHABI cfa=sp+") || !strings.Contains(f.Message, "CFI cfa=sp+") {
					t.Errorf("rules %q / %q, message %q: want the EHABI opcodes and the CFI rule side by side", ehabi, cfi, f.Message)
				}
			}
		})
	}
}

// TestEHABIFixturesAreRebuilt: the committed fixtures are what the script
// builds (the same EHABI, readelf -u); skips without the cross compiler.
func TestEHABIFixturesRebuild(t *testing.T) {
	cc, err := exec.LookPath("arm-linux-gnueabihf-gcc")
	if err != nil {
		t.Skip("arm-linux-gnueabihf-gcc absent (apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross): committed fixtures are tested, not rebuilt")
	}
	out := filepath.Join(t.TempDir(), "check-thumb.elf")
	if b, err := exec.Command(cc, "-O2", "-g", "-funwind-tables", "-mthumb", "-o", out, ehabiFixture("src/check.c")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	rep, err := CheckFile(out, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Disagreements != 0 || rep.Summary.EHABI == nil || rep.Summary.EHABI.CallSites == 0 {
		t.Fatalf("rebuilt check.c: %d disagreements, %v", rep.Summary.Disagreements, rep.Summary.EHABI)
	}
}

func TestARMCallsAreBLAndBLXInBothInstructionSets(t *testing.T) {
	le := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
		return b
	}
	hw := func(hs ...uint16) []byte {
		var b []byte
		for _, h := range hs {
			b = append(b, byte(h), byte(h>>8))
		}
		return b
	}
	tests := []struct {
		name  string
		code  []byte
		modes armModes
		want  []armCall
	}{
		{"ARM: bl, blx r3 and blx imm are calls; bx lr, b and ldr are not", le(0xeb000010, 0xe12fff33, 0xe12fff1e, 0xea000001, 0xfa000002, 0xe59f0004, 0xe1a00000),
			armModes{def: 'a'}, []armCall{{0x1000, 0x1004}, {0x1004, 0x1008}, {0x1010, 0x1014}}},
		{"Thumb: bl and blx imm (32-bit), blx r3 (16-bit); b.w and bx lr are not", hw(0xf000, 0xf800, 0x4798, 0xf000, 0xb800, 0x4770, 0xf7ff, 0xeffe, 0xbf00),
			armModes{def: 't'}, []armCall{{0x1000, 0x1004}, {0x1004, 0x1006}, {0x100c, 0x1010}}},
		{"Thumb with a literal pool ($d) that looks like a bl", hw(0x4798, 0xbf00, 0xf000, 0xf800, 0xbf00),
			armModes{def: 't', at: []uint64{0x1000, 0x1004, 0x1008}, mode: []byte{'t', 'd', 't'}}, []armCall{{0x1000, 0x1002}}},
		{"a call that ends the code returns into the next function", le(0xe1a00000, 0xeb000010),
			armModes{def: 'a'}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := armCalls(tc.code, 0x1000, tc.modes)
			if len(got) != len(tc.want) {
				t.Fatalf("calls %x, want %x", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("call %d: %x, want %x", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// An index whose entries are not sorted (EHABI 5) is reported, and the
// entry whose function's extent is unknown is not compared: its code is
// not scanned to the section's end, once per such entry.
func TestEHABICheckReportsAnUnsortedIndex(t *testing.T) {
	data, err := os.ReadFile(ehabiFixture("armhf-check-thumb.elf"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	idx := f.Section(".ARM.exidx")
	// Entry 3 gets entry 2's function: prel31 from its own place.
	fn2 := uint64(int64(idx.Addr+16) + int64(int32(f.ByteOrder.Uint32(data[idx.Offset+16:])<<1)>>1))
	f.ByteOrder.PutUint32(data[idx.Offset+24:], uint32(fn2-(idx.Addr+24))&0x7fffffff)
	path := filepath.Join(t.TempDir(), "unsorted.elf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, fd := range rep.Findings {
		if fd.Kind == KindFormat && strings.Contains(fd.Message, "must be sorted") && fd.FuncStart == fn2 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no format finding for the unsorted entry at %#x: %+v", fn2, rep.Findings)
	}
}
