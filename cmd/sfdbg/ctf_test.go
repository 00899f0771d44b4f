package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/bin/ctf-frame-v1 is deep-v1-O2 with its .sframe re-encoded as
// the pre-release CTF Frame format by sframetest (no toolchain emits CTF
// Frame; sframe's TestCTFFrameFixture builds it, -update-ctf rebuilds it).

func TestCTFFrameIsDumpedAndChecked(t *testing.T) {
	ctf := dumpFixture(t, "ctf-frame-v1")
	t.Run("dump prints it as the CTF Frame series' objdump, saying it is pre-release", func(t *testing.T) {
		code, out, errOut := runSfdbg("dump", ctf)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"Contents of the CTF Frame section .ctf_frame:\n", "the pre-release format of SFrame version 1", "Version: CTF_FRAME_VERSION_1\n", "Flags: CTF_FRAME_F_FDE_SORTED\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("dump lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("check compares it like the v1 build it came from", func(t *testing.T) {
		code, out, errOut := runSfdbg("check", "--json", ctf)
		if code != exitOK {
			t.Fatalf("exit %d: %s%s", code, out, errOut)
		}
		_, v1, _ := runSfdbg("check", "--json", dumpFixture(t, "deep-v1-O2"))
		type doc struct {
			Files []struct {
				Format  string `json:"format"`
				Version int    `json:"sframe_version"`
				Summary struct {
					Instructions int `json:"instructions_compared"`
					Functions    int `json:"functions_sframe"`
				} `json:"summary"`
				Findings   []struct{ Kind string } `json:"findings"`
				Acceptance []struct{}              `json:"acceptance"`
			} `json:"files"`
		}
		var got, want doc
		if err := json.Unmarshal([]byte(checkDocument(t, out)), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(checkDocument(t, v1)), &want); err != nil {
			t.Fatal(err)
		}
		g, w := got.Files[0], want.Files[0]
		if g.Format != "ctf_frame" || g.Version != 1 || len(g.Acceptance) != 0 {
			t.Errorf("format %q version %d acceptance %v, want ctf_frame, 1, none", g.Format, g.Version, g.Acceptance)
		}
		if g.Summary != w.Summary || len(g.Findings) != len(w.Findings) || g.Summary.Instructions == 0 {
			t.Errorf("summary %+v with %d findings, want the v1 build's %+v with %d", g.Summary, len(g.Findings), w.Summary, len(w.Findings))
		}
	})
	t.Run("check's text names the format", func(t *testing.T) {
		_, out, _ := runSfdbg("check", ctf)
		if !strings.Contains(out, "CTF Frame (.ctf_frame, the pre-release SFrame v1), AMD64 LITTLE ENDIAN") {
			t.Errorf("output:\n%s", out)
		}
	})
}

// TestDamagedCTFFrameIsRefusedAsCTFFrame damages the version byte of the
// fixture's .ctf_frame: dump and check refuse it with a message that names
// the file, the section and the format it was read as, the byte offset in
// the section and the section's file offset, and not SFrame.
func TestDamagedCTFFrameIsRefusedAsCTFFrame(t *testing.T) {
	src := dumpFixture(t, "ctf-frame-v1")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".ctf_frame")
	if sec == nil {
		t.Fatal("no .ctf_frame in the fixture")
	}
	raw[sec.Offset+2] = 7 // CTF_FRAME_VERSION_1 is 1
	bad := filepath.Join(t.TempDir(), "ctf-bad")
	if err := os.WriteFile(bad, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// dump says "sfdbg dump: PATH: MSG", check "PATH: error: MSG".
	want := fmt.Sprintf(".ctf_frame (CTF Frame): unsupported CTF Frame version 7 at byte 0x2 (section at file offset %#x)", sec.Offset)
	for _, cmd := range []string{"dump", "check"} {
		code, out, errOut := runSfdbg(cmd, bad)
		if code != exitError || !strings.Contains(out+errOut, bad+": ") || !strings.Contains(out+errOut, want) || strings.Contains(out+errOut, "sframe:") {
			t.Errorf("%s: exit %d, want %d and %q in:\n%s%s", cmd, code, exitError, want, out, errOut)
		}
	}
}
