package compare

import (
	"strings"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Class is a named class of findings: one cause, seen in real binaries,
// with a signature over the instructions around a finding (classifyCode)
// or over the finding itself. Producer faults known by their own
// signature (known_faults.json) are classes too, named by their id.
type Class struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Producer is who writes such code and its tables, and the versions
	// it was seen in.
	Producer string `json:"producer"`
	// Misleads says whether an unwinder reading the table is led astray
	// (a wrong CFA or RA), or the finding only contradicts a table's
	// claim no unwinder uses.
	Misleads bool `json:"misleads_unwinder"`
	// Report is the upstream report, where there is one.
	Report string `json:"report,omitempty"`
	// Reproducer is a minimal input showing it (testdata/codeoracle/...).
	Reproducer string `json:"reproducer,omitempty"`
}

// Classes are the classes classifyCode names, by id.
var Classes = map[string]Class{
	"late-push-adjust": {ID: "late-push-adjust", Title: "a push's CFA adjust placed one instruction late",
		Producer: "LLVM (X86CallFrameOptimization; clang 14-22, rustc)", Misleads: true,
		Report: "llvm/llvm-project#220720", Reproducer: "testdata/codeoracle/realworld/clang_late_adjust.s"},
	"push-without-cfi": {ID: "push-without-cfi", Title: "push/pushf without CFI (inline or hand-written assembly)",
		Producer: "inline asm (cpuid, pushf) in compiled C; hand-written assembly (glibc __mpn_*, SDL2, swscale)", Misleads: true,
		Reproducer: "testdata/codeoracle/realworld/libgcrypt_padlock_pushf_nocfi.s, glibc_addmul_push_nocfi.s"},
	"epilogue-hoist": {ID: "epilogue-hoist", Title: "the epilogue's SP adjust hoisted above a branch, the CFA adjusted only later",
		Producer: "LLVM 14 (rustc 1.63: librsvg, ripgrep, rav1e)", Misleads: true,
		Reproducer: "testdata/codeoracle/realworld/llvm_epilogue_hoist.s"},
	"epilogue-without-cfi": {ID: "epilogue-without-cfi", Title: "an epilogue that frees the frame with no CFI",
		Producer: "LLVM 14 on s390x and AArch64 (rustc 1.63); GCC 12 s390x FPR epilogues", Misleads: true,
		Reproducer: "testdata/codeoracle/realworld/llvm_no_epilogue_cfi_s390x.s, gcc_fpr_epilogue_cfa_s390x.s"},
	"cfa-adjust-early": {ID: "cfa-adjust-early", Title: "the CFA changed one instruction before the code changes SP",
		Producer: "GCC 12 s390x FPR epilogues (.cfi_def_cfa_offset with the first lgdr)", Misleads: true,
		Reproducer: "testdata/codeoracle/realworld/gcc_fpr_epilogue_cfa_s390x.s"},
	"sp-adjust-without-cfi": {ID: "sp-adjust-without-cfi", Title: "a stack allocation or free (sub/add on SP) with no CFI",
		Producer: "hand-written assembly (musl's add-cfi awk: subq; OpenSSL perlasm)", Misleads: true,
		Reproducer: "testdata/codeoracle/realworld/musl_expl_subq_nocfi.s"},
	"ocaml-trap-frame": {ID: "ocaml-trap-frame", Title: "OCaml: a call site inside try has the function's frame size, not the trap frames'",
		Producer: "OCaml 4.14 ocamlopt (why3, coccinelle, opam, hevea, menhir)", Misleads: true,
		Report: "none found; related: ocaml/ocaml#15037", Reproducer: "testdata/codeoracle/realworld/ocaml_trap_frame_call_gc.s"},
	"private-abi-scratch": {ID: "private-abi-scratch", Title: "FP used as a scratch register where the CFI says same value",
		Producer: "private-ABI helpers (OpenSSL, libgcrypt CRYPTOGAMS; OCaml)", Misleads: false,
		Reproducer: "testdata/codeoracle/realworld/openssl_helper_clobbers_rbp.s"},
}

// cfaAt gives a witness's CFA rule before the instruction at pc, and
// false where it has none.
type cfaAt func(pc uint64) (rule.Rule, bool)

// classifyCode names the class of a code-oracle finding from the
// instructions around it: the run [start, end) of n instructions of the
// function at base whose bytes are code, where the table's CFA rule is
// table(pc) and the code's code(pc). "" when no signature matches.
func classifyCode(a *arch.Arch, code []byte, base, start, end uint64, n int, kind Kind, fn string, table, codeCFA cfaAt) string {
	if kind == KindCodeScratch {
		return "private-abi-scratch"
	}
	t0, ok1 := table(start)
	c0, ok2 := codeCFA(start)
	if kind != KindCodeCFA || !ok1 || !ok2 || a == nil || a.Decoder == nil || t0.Kind != rule.ValOffset || c0.Kind != rule.ValOffset || t0.Reg != c0.Reg {
		return ""
	}
	d := c0.Offset - t0.Offset // > 0: the code has more on the stack than the table says
	if strings.HasPrefix(fn, "caml") && d > 0 && d%16 == 0 {
		return "ocaml-trap-frame"
	}
	// The table after the run: caught up with the code (a directive
	// placed late), or already at the code's next value (placed early).
	t1, ok3 := table(end)
	c1, ok4 := codeCFA(end)
	caughtUp := ok3 && t1 == c0
	tBefore, ok5 := table(start - 1)
	early := ok4 && ok5 && t0 == c1 && c1 != c0 && tBefore != t0 // the table moved at start, to where the code goes next
	// The instruction before the run (the one whose stack effect the
	// table missed), and whether the run branches.
	var prev arch.Inst
	havePrev, branches := false, false
	for pc := base; pc < end && pc-base < uint64(len(code)); {
		var in arch.Inst
		if a.Decoder.Decode(code[pc-base:], pc, &in) != nil || in.Len <= 0 {
			return ""
		}
		if pc+uint64(in.Len) == start {
			prev, havePrev = in, true
		}
		if pc >= start && in.Class == arch.CondJump {
			branches = true
		}
		pc += uint64(in.Len)
	}
	if early {
		return "cfa-adjust-early"
	}
	if !havePrev {
		return ""
	}
	var grew, freed int64 // bytes the instruction put on the stack, took off it
	restoredSP := false
	for _, op := range prev.Ops[:prev.NOps] {
		switch op.Kind {
		case arch.OpPush:
			grew += op.Imm
		case arch.OpAddSP, arch.OpPop:
			if op.Imm < 0 {
				grew -= op.Imm
			} else {
				freed += op.Imm
			}
		case arch.OpRestore, arch.OpSetReg:
			restoredSP = restoredSP || op.Reg == a.SP // s390x lmg ...,%r15; lgdr %r15,%f0
		}
	}
	pushInsn := prev.NOps > 0 && prev.Ops[0].Kind == arch.OpPush || strings.HasPrefix(a.Decoder.Text(code[start-uint64(prev.Len)-base:], start-uint64(prev.Len)), "push")
	switch {
	case grew > 0 && d == grew && pushInsn && caughtUp:
		return "late-push-adjust"
	case grew > 0 && d == grew && pushInsn:
		return "push-without-cfi"
	case grew > 0 && d == grew:
		return "sp-adjust-without-cfi"
	case (freed > 0 && d == -freed || restoredSP && d < 0) && branches:
		return "epilogue-hoist"
	case freed > 0 && d == -freed || restoredSP && d < 0:
		return "epilogue-without-cfi"
	}
	return ""
}
