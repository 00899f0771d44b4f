package compare

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/sframe"
)

// textBounds returns the address range of the .text section of a fixture
// and the number of instruction boundaries CheckFile compares in the
// unpatched fixture.
func textBounds(t *testing.T, name string) (start, end uint64, insts int) {
	t.Helper()
	f, err := elf.Open(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		t.Fatalf("%s has no .text", name)
	}
	rep, err := CheckFile(fixture(t, name), CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Addr, s.Addr + s.Size, rep.Summary.Instructions
}

// checkWithin runs CheckFile and turns a run that does not end within
// limit into a failure (a hang guard, not a speed assertion: the checks
// that matter are on the work done).
func checkWithin(t *testing.T, path string, limit time.Duration) *FileReport {
	t.Helper()
	type result struct {
		rep *FileReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := CheckFile(path, CheckOptions{})
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("CheckFile: %v", r.err)
		}
		return r.rep
	case <-time.After(limit):
		t.Fatalf("CheckFile(%s) did not end within %v", path, limit)
	}
	return nil
}

// coverText patches the FDEs for which pick returns true so that each
// starts at the start of .text and covers all of it.
func coverText(t *testing.T, name string, pick func(i int) bool) string {
	t.Helper()
	start, end, _ := textBounds(t, name)
	return patched(t, name, func(sec *sframe.Section, data []byte) {
		if sec.Version != sframe.Version3 {
			t.Fatalf("%s: want an SFrame v3 fixture", name)
		}
		for i, fde := range sec.FDEs() {
			if !pick(i) {
				continue
			}
			// v3 FDE index entry: start field (8 bytes), size (4 bytes).
			sec.ByteOrder.PutUint64(data[fde.Off:], uint64(fde.StartField+int64(start)-int64(fde.Start)))
			sec.ByteOrder.PutUint32(data[fde.Off+8:], uint32(end-start))
		}
	})
}

func TestOverlappingFDEsAreComparedOncePerInstruction(t *testing.T) {
	const name = "sqlite-v3"
	_, _, clean := textBounds(t, name)
	for _, tc := range []struct {
		name string
		pick func(i int) bool
	}{
		{"16 FDEs each covering all of .text", func(i int) bool { return i%100 == 1 && i < 1600 }},
		{"every FDE covering all of .text", func(int) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := coverText(t, name, tc.pick)
			rep := checkWithin(t, path, 2*time.Minute)
			if rep.Summary.Instructions > clean {
				t.Errorf("%d instructions compared, more than the %d of the whole unpatched file: an instruction was compared against more than one FDE",
					rep.Summary.Instructions, clean)
			}
			// Bounded output: a few findings per FDE (the validator's
			// overlap, the bounds) and, for the FDE a stack tracer picks,
			// the disagreements listed per FDE and one for the rest.
			if n, fdes := len(rep.Findings), rep.Summary.FunctionsSFrame; n > 3*fdes+33 {
				t.Errorf("%d findings for %d FDEs", n, fdes)
			}
			if rep.Summary.ByKind[KindFormat] == 0 {
				t.Errorf("the overlap is not reported: %v", rep.Summary.ByKind)
			}
			if rep.Summary.Disagreements == 0 {
				t.Errorf("no disagreement on overlapping FDEs: %v", rep.Summary.ByKind)
			}
		})
	}
}

func TestZeroSizeFDEsAreDisagreements(t *testing.T) {
	path := patched(t, "deep-v3-O2", func(sec *sframe.Section, data []byte) {
		for _, fde := range sec.FDEs() {
			sec.ByteOrder.PutUint32(data[fde.Off+8:], 0)
		}
	})
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Disagreements == 0 || rep.Summary.ByKind[KindBounds] == 0 {
		t.Errorf("FDEs of size 0 at every function's start: %d disagreements, findings by kind %v; want function-bounds disagreements",
			rep.Summary.Disagreements, rep.Summary.ByKind)
	}
}

// dwarf64EHFrame copies an ELF fixture with its .eh_frame rewritten in the
// 64-bit DWARF format (length escape 0xffffffff, 8-byte CIE id and CIE
// pointers; DWARF 5 §7.4) and appended to the file, the section header
// pointing there. It handles the "zR" CIEs with pcrel|sdata4 FDE pointers
// that GCC writes, and skips the test otherwise.
func dwarf64EHFrame(t *testing.T, name string) string {
	t.Helper()
	b, f := fixtureELF(t, name)
	defer f.Close()
	s := f.Section(".eh_frame")
	if s == nil || f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		t.Skipf("%s: no little-endian ELF64 .eh_frame", name)
	}
	le := binary.LittleEndian
	old := b[s.Offset : s.Offset+s.Size]
	newOff := uint64(len(b))
	var out []byte
	where := map[uint64]uint64{} // old record offset -> new
	for off := uint64(0); off+4 <= uint64(len(old)); {
		n := uint64(le.Uint32(old[off:]))
		if n == 0 {
			out = le.AppendUint32(out, 0) // terminator
			break
		}
		if n == 0xffffffff {
			t.Skip("already 64-bit")
		}
		rec := old[off+4 : off+4+n]
		id := le.Uint32(rec)
		at := uint64(len(out))
		where[off] = at
		body := rec[4:]
		var nb []byte
		if id == 0 { // CIE
			aug := string(body[1 : 1+bytesIndex(body[1:], 0)])
			if aug != "zR" || !hasEnc(body, aug) {
				t.Skipf("CIE at %#x: augmentation %q", off, aug)
			}
			nb = le.AppendUint64(nil, 0)
			nb = append(nb, body...)
		} else { // FDE: the CIE pointer is relative to its own field
			cie := off + 4 - uint64(id)
			cieNew, ok := where[cie]
			if !ok {
				t.Skipf("FDE at %#x: CIE at %#x not seen first", off, cie)
			}
			ptrAt := at + 12 // after the 12-byte length
			nb = le.AppendUint64(nil, ptrAt-cieNew)
			target := s.Addr + off + 8 + uint64(int64(int32(le.Uint32(body))))
			pcAt := s.Addr + (ptrAt + 8)
			nb = le.AppendUint32(nb, uint32(int32(int64(target-pcAt))))
			nb = append(nb, body[4:]...)
		}
		out = le.AppendUint32(out, 0xffffffff)
		out = le.AppendUint64(out, uint64(len(nb)))
		out = append(out, nb...)
		off += 4 + n
	}
	b = append(b, out...)
	// The .eh_frame section header: sh_offset and sh_size.
	shoff := int(le.Uint64(b[0x28:]))
	shent := int(le.Uint16(b[0x3a:]))
	for i, sec := range f.Sections {
		if sec == s {
			h := shoff + i*shent
			le.PutUint64(b[h+0x18:], newOff)
			le.PutUint64(b[h+0x20:], uint64(len(out)))
		}
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func bytesIndex(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return len(b)
}

// hasEnc reports whether a "zR" CIE body (after the CIE id) has one byte
// of augmentation data, the FDE pointer encoding pcrel|sdata4.
func hasEnc(body []byte, aug string) bool {
	i := 1 + len(aug) + 1    // version, string, NUL
	for k := 0; k < 3; k++ { // code align, data align, RA register (ULEB/SLEB)
		for body[i]&0x80 != 0 {
			i++
		}
		i++
	}
	return body[i] == 1 && body[i+1] == 0x1b // augmentation data length 1, pcrel|sdata4
}

func TestA64BitDWARFEHFrameIsCompared(t *testing.T) {
	const name = "deep-v3-O2"
	want, err := CheckFile(fixture(t, name), CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CheckFile(dwarf64EHFrame(t, name), CheckOptions{})
	if err != nil {
		t.Fatalf("CheckFile of the 64-bit .eh_frame copy: %v", err)
	}
	if got.Summary.ByKind[KindNoCFI] > 0 || got.Summary.Instructions != want.Summary.Instructions ||
		got.Summary.Disagreements != want.Summary.Disagreements || len(got.Findings) != len(want.Findings) {
		t.Errorf("64-bit .eh_frame: %+v\n32-bit: %+v\nfindings: %+v", got.Summary, want.Summary, got.Findings)
	}
}

func TestABad64BitLengthInEHFrameIsMalformedCFI(t *testing.T) {
	b, f := fixtureELF(t, "deep-v3-O2")
	off := f.Section(".eh_frame").Offset
	f.Close()
	binary.LittleEndian.PutUint32(b[off:], 0xffffffff) // the 8 bytes after it become the length
	p := filepath.Join(t.TempDir(), "eh64-bad")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckFile(p, CheckOptions{})
	if err == nil || rep.Summary.ByKind[KindNoCFI] > 0 || !strings.Contains(err.Error(), ".eh_frame at byte 0x0") {
		t.Errorf("err %v, findings %v; want malformed CFI (exit 2) naming .eh_frame's byte 0x0", err, rep.Summary.ByKind)
	}
}
