package compare

import (
	"path/filepath"
	"strings"
	"testing"
)

// The files of testdata/peers (scripts/build-peer-fixtures.sh): cases the
// producers' own SFrame test suites build and intend.
const peerFixtures = "../testdata/peers"

// findings returns the findings of kind k in rep.
func findings(rep *FileReport, k Kind) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

func checkPeer(t *testing.T, name string) *FileReport {
	t.Helper()
	rep, err := CheckFile(filepath.Join(peerFixtures, name), CheckOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rep
}

// TestCheckLeavesIntendedCasesUnflagged: GNU as's signal trampoline FDE
// without FREs is a note of its own kind, and an FRE at a function's end
// (a .cfi_* directive after the last instruction) is no finding at all;
// in the object, its x32 form and the link.
func TestCheckLeavesIntendedCasesUnflagged(t *testing.T) {
	for _, name := range []string{"peers.o", "peers-x32.o", "peers.so", "peers-x32.so"} {
		t.Run(name, func(t *testing.T) {
			rep := checkPeer(t, name)
			if n := rep.Disagreements(); n != 0 {
				t.Errorf("%d disagreements: %+v", n, rep.Findings)
			}
			sig := findings(rep, KindSignalUndescribed)
			if len(sig) != 1 || sig[0].Function != "sigtramp" {
				t.Errorf("signal-undescribed findings %+v, want one for sigtramp", sig)
			}
			if len(rep.Findings) != 1 {
				t.Errorf("findings %+v, want only the signal-undescribed note", rep.Findings)
			}
			if rep.Summary.FunctionsSFrame != 3 || rep.Summary.FunctionsBoth != 2 {
				t.Errorf("summary %+v, want 3 FDEs of which 2 compared", rep.Summary)
			}
		})
	}
}

// TestCheckWithoutCFIValidates: no CFI is a no-cfi note, not an error.
func TestCheckWithoutCFIValidates(t *testing.T) {
	for _, name := range []string{"peers-nocfi.o", "peers-nocfi.so"} {
		rep := checkPeer(t, name)
		if rep.Err != "" || len(findings(rep, KindNoCFI)) != 1 || rep.Disagreements() != 0 {
			t.Errorf("%s: err %q, findings %+v", name, rep.Err, rep.Findings)
		}
	}
}

// TestNoFDENamesTheProducerCommentNames: an object's skipped function is
// blamed on the assembler .comment names, or on none.
func TestNoFDENamesTheProducerCommentNames(t *testing.T) {
	for name, want := range map[string]string{
		"peers-skip.o":       "(an assembler skips",
		"peers-skip-clang.o": `its .comment names "clang version 22.1.8"; LLVM's assembler skips`,
	} {
		nf := findings(checkPeer(t, name), KindNoFDE)
		if len(nf) != 1 || !strings.Contains(nf[0].Message, want) || strings.Contains(nf[0].Message, "GNU as") {
			t.Errorf("%s: no-fde findings %+v, want one saying %q and not naming GNU as", name, nf, want)
		}
	}
	if p := producer("\x00GCC: (Debian 12.2.0-14) 12.2.0\x00"); p != "GCC" {
		t.Errorf("producer of gcc's .comment = %q", p)
	}
}

// TestCheckEmptySectionSaysSo: one line naming the file and the section.
func TestCheckEmptySectionSaysSo(t *testing.T) {
	p := filepath.Join(peerFixtures, "peers-empty.o")
	rep, err := CheckFile(p, CheckOptions{})
	want := p + ": the SFrame section .sframe (section 4, at file offset 0x41) is empty"
	if err == nil || rep.Err != want || !rep.NoSFrame {
		t.Errorf("err %v, report err %q (NoSFrame %v), want %q", err, rep.Err, rep.NoSFrame, want)
	}
}
