package compare

import (
	"path/filepath"
	"testing"
)

// TestRealWorldReproducersCarryTheirClass checks that each class's
// reproducer (testdata/codeoracle/realworld) is named by it: every code
// finding of the object carries the class (a run that continues a
// classified one, or repeats it on another path, inherits it), and the
// class is in Classes with its producer and harm.
func TestRealWorldReproducersCarryTheirClass(t *testing.T) {
	for obj, want := range map[string]string{
		"clang_late_adjust":             "late-push-adjust",
		"glibc_addmul_push_nocfi":       "push-without-cfi",
		"libgcrypt_padlock_pushf_nocfi": "push-without-cfi",
		"llvm_epilogue_hoist":           "epilogue-hoist",
		"llvm_no_epilogue_cfi_s390x":    "epilogue-without-cfi",
		"musl_expl_subq_nocfi":          "sp-adjust-without-cfi",
		"gcc_fpr_epilogue_cfa_s390x":    "cfa-adjust-early",
		"ocaml_trap_frame_call_gc":      "ocaml-trap-frame",
		"openssl_helper_clobbers_rbp":   "private-abi-scratch",
	} {
		t.Run(obj, func(t *testing.T) {
			rep, err := CheckFile(filepath.Join("..", "testdata", "codeoracle", "realworld", obj+".o"), CheckOptions{Code: FramesCode})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, f := range rep.Findings {
				if f.Kind != KindCodeCFA && f.Kind != KindCodeScratch {
					continue
				}
				n++
				if f.Class != want {
					t.Errorf("%s at %#x: class %q, want %q (%s)", f.Kind, f.PC, f.Class, want, f.Message)
				}
			}
			if n == 0 {
				t.Errorf("no code-cfa or code-scratch finding")
			}
			if c, ok := Classes[want]; !ok || c.Producer == "" || c.Reproducer == "" {
				t.Errorf("class %q is not described: %+v", want, c)
			}
		})
	}
}

// TestAFindingsOtherPartsTakeItsClass checks the LLVM 14 AArch64
// reproducer, whose epilogue has no CFI: at the instruction where the
// CFA is wrong the RA rule is too (CFI says c-32 where ldp has put it back
// in x30), one fault with one cause. The RA finding of that run takes the
// CFA finding's class, so that a distribution's RA findings of this
// producer are not left unclassified (41,488 on Debian 12 arm64).
func TestAFindingsOtherPartsTakeItsClass(t *testing.T) {
	rep, err := CheckFile(filepath.Join("..", "testdata", "codeoracle", "realworld", "llvm_sync_cfi_aarch64.o"), CheckOptions{Code: FramesCode})
	if err != nil {
		t.Fatal(err)
	}
	ra := 0
	for _, f := range rep.Findings {
		if !f.Kind.Misleads() {
			continue
		}
		if f.Kind == KindCodeRA {
			ra++
		}
		if f.Class == "" {
			t.Errorf("%s at %#x has no class: %s", f.Kind, f.PC, f.Message)
		}
	}
	if ra == 0 {
		t.Error("no code-ra finding: the fixture no longer tests a run with two parts")
	}
}
