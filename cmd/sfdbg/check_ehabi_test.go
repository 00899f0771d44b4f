package main

import (
	"debug/elf"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckComparesEHABIWithCFIOnARM: `sfdbg check` on an armhf program
// (.ARM.exidx, .debug_frame) compares EHABI with CFI at call sites, with
// check's exit statuses: 0 clean, 1 when an inline "vsp += 4k+4" is
// raised by 16 bytes.
func TestCheckComparesEHABIWithCFIOnARM(t *testing.T) {
	clean := filepath.Join("..", "..", "frames", "ehabi", "testdata", "armhf-check-thumb.elf")
	code, out, errOut := runSfdbg("check", clean)
	if code != exitOK || !strings.Contains(out, "ARM EHABI (.ARM.exidx)") || !strings.Contains(out, "EHABI agrees with CFI") {
		t.Fatalf("clean: exit %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
	data, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(clean)
	if err != nil {
		t.Fatal(err)
	}
	idx := f.Section(".ARM.exidx")
	f.Close()
	changed := false
	for off := idx.Offset; off+8 <= idx.Offset+idx.Size; off += 8 {
		w := f.ByteOrder.Uint32(data[off+4:])
		if op := byte(w >> 16); w>>24 == 0x80 && op&0xc0 == 0 && op <= 0x3b {
			f.ByteOrder.PutUint32(data[off+4:], w+4<<16)
			changed = true
			break
		}
	}
	if !changed {
		t.Fatal("no inline vsp += entry to change")
	}
	mutant := filepath.Join(t.TempDir(), "mutant.elf")
	if err := os.WriteFile(mutant, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runSfdbg("check", "--json", mutant)
	if code != exitFindings {
		t.Fatalf("changed opcode: exit %d, want %d\n%s%s", code, exitFindings, out, errOut)
	}
	var doc struct {
		Files []struct {
			Findings []struct {
				Kind  string            `json:"kind"`
				Rules map[string]string `json:"rules"`
			} `json:"findings"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(checkDocument(t, out)), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Files) != 1 || len(doc.Files[0].Findings) == 0 {
		t.Fatalf("no findings: %s", out)
	}
	for _, fd := range doc.Files[0].Findings {
		if fd.Kind != "cfa" || !strings.Contains(fd.Rules["ehabi"], "vsp = vsp +") || !strings.HasPrefix(fd.Rules["cfi"], "cfa=sp+") {
			t.Errorf("finding %+v: want a cfa finding with the EHABI opcodes and the CFI rule", fd)
		}
	}
}
