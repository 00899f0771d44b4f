// Package compare turns the answers of the unwinding methods (the set
// frames.Methods: SFrame, DWARF CFI, frame pointers, and the machine code
// once the code oracle is wired) into verdicts a toolchain developer can
// act on. Each method is judged as a subject against a reference (CFI):
// one engine for every method, no path per method. It owns two things:
//
//   - The one live comparison engine (engine.go): Unwind unwinds a thread
//     from its registers in a frames.Space and returns a Trace, the one
//     model every command renders (sfdbg bt, sample and demo, and the
//     debugger's bt, frame and info frame): the frames, each method's Step
//     at each frame, one Verdict per frame and the Findings. With All the
//     trace follows DWARF CFI as the reference and judges SFrame and the
//     frame-pointer chain against it; a single method is a view of the same
//     model. A Trace is rendered by WriteText (gdb-style text) and Document
//     (JSON, schema SchemaVersion), both in render.go; Aggregate sums many
//     traces for sampling.
//   - The static checker (CheckFile): a binary's .sframe against its own
//     .eh_frame/.debug_frame at every instruction of every function, in
//     the same row form (frames.Row, DiffRows), reported as a FileReport;
//     with a code oracle (CheckOptions.Code, codecheck.go) both tables
//     against the machine code too.
//
// Findings are classified by Kind; the Kind and Verdict names are stable
// and appear in text reports and JSON.
//
// Imports: sframe and frames (the layers are sframe ← frames ← compare ←
// debugger ← cmd/sfdbg). compare never stops, reads or controls a process
// (it unwinds only what a frames.Space gives it), and never imports
// debugger, the REPL or package main.
package compare

import (
	"fmt"

	"github.com/sfdbg/sfdbg/frames"
)

// Kind classifies a finding. The string forms are stable: they appear in
// text reports and in the JSON schema.
type Kind uint8

// Kinds of finding.
const (
	// KindCFA: the methods compute different CFAs (or CFA rules).
	KindCFA Kind = iota + 1
	// KindRA: they recover different return addresses (RA rules).
	KindRA
	// KindFP: they recover different caller frame pointers (FP rules).
	KindFP
	// KindNoFDE: CFI covers a function that SFrame has no FDE for (the
	// assembler skipped it).
	KindNoFDE
	// KindGap: the PC lies between SFrame FDEs while CFI covers it.
	KindGap
	// KindFREBoundary: an SFrame FRE starts N bytes before or after the CFI
	// row it mirrors, so the rows disagree for N bytes.
	KindFREBoundary
	// KindFPChain: the frame-pointer chain is broken (expected where frame
	// pointers are omitted; reported, not counted as an SFrame fault).
	KindFPChain
	// KindOutermost: the methods disagree on whether the frame is outermost.
	KindOutermost
	// KindSignal: a disagreement at a signal frame.
	KindSignal
	// KindPLT: a disagreement in a PLT stub (PC-mask FDE).
	KindPLT
	// KindExtraFDE: an SFrame FDE has no CFI counterpart.
	KindExtraFDE
	// KindBounds: an SFrame FDE's function start or size differs from the
	// CFI FDE's.
	KindBounds
	// KindFormat: the SFrame section violates the format (validator).
	KindFormat
	// KindSkipped: a function is not covered by SFrame and its CFI shows why
	// SFrame cannot express it (informational, not an SFrame fault).
	KindSkipped
	// KindMissingFrame: a method's independent trace skipped a frame the
	// reference has.
	KindMissingFrame
	// KindExtraFrame: a method's independent trace has a frame the reference
	// does not.
	KindExtraFrame
	// KindNoCFI: the file's CFI is absent or cannot be read (e.g. big-endian
	// CFI); SFrame was validated but not compared.
	KindNoCFI
	// KindKernelReject: check --profile kernel: the Linux kernel's SFrame
	// loader would drop the section, for the rule the message names.
	KindKernelReject
	// KindSignalUndescribed: an SFrame v3 FDE marked as a signal frame
	// has no FREs. GNU as writes one on purpose for a .cfi_signal_frame
	// function whose CFI SFrame cannot express (gas testsuite
	// cfi-sframe-x86_64-signal-1): a stack tracer learns that the
	// function is a signal trampoline and that SFrame does not describe
	// it. A coverage note, not a disagreement.
	KindSignalUndescribed
	// KindCodeCFA: the code oracle (the machine code's stack effect,
	// package frames/code) computes a CFA at an instruction that differs
	// from CFI's, or SFrame's where CFI has no row: the tables' CFA rule
	// does not match the code (a push without .cfi_adjust_cfa_offset, a
	// .cfi_def_cfa_offset off by 8). The message names the instruction,
	// the code's state, each table's rule and which tables agree with the
	// code.
	KindCodeCFA
	// KindCodeRA: where the code keeps the RA at an instruction differs
	// from the tables' RA rule.
	KindCodeRA
	// KindCodeFP: where the code keeps the caller's FP differs from the
	// tables' FP rule (a saved FP with no .cfi_offset, a missing
	// .cfi_restore).
	KindCodeFP
	// KindCodeState: two paths through a function reach an instruction
	// with different stack states (objtool's "stack state mismatch"): no
	// single row can describe it.
	KindCodeState
	// KindCodeUnknown: the code oracle could not follow part of a function
	// (an indirect jump, an unsupported realignment, an unknown
	// instruction) and says why instead of guessing. A coverage note,
	// counted per file (Summary.Code), not a disagreement.
	KindCodeUnknown
	// KindRegs: the methods restore a register other than the CFA, RA and
	// FP from different places (compared where the subject says where
	// each saved register is: EHABI's pops against CFI's rules).
	KindRegs
	// KindCodeScratch: the code uses a register as scratch (FP: OCaml
	// code, CRYPTOGAMS helpers) where the tables say "same value" for it.
	// Literally untrue, but no unwinder is misled: nothing in the frame
	// is found through it. A note; it fails no gate (Misleads).
	KindCodeScratch
	kindEnd
)

var kindNames = [...]string{
	KindCFA:               "cfa",
	KindRA:                "ra",
	KindFP:                "fp",
	KindNoFDE:             "no-fde",
	KindGap:               "gap",
	KindFREBoundary:       "fre-boundary",
	KindFPChain:           "fp-chain-broken",
	KindOutermost:         "outermost",
	KindSignal:            "signal-frame",
	KindPLT:               "plt",
	KindExtraFDE:          "extra-fde",
	KindBounds:            "function-bounds",
	KindFormat:            "format",
	KindSkipped:           "skipped",
	KindMissingFrame:      "missing-frame",
	KindExtraFrame:        "extra-frame",
	KindNoCFI:             "no-cfi",
	KindKernelReject:      "kernel-reject",
	KindSignalUndescribed: "signal-undescribed",
	KindCodeCFA:           "code-cfa",
	KindCodeRA:            "code-ra",
	KindCodeFP:            "code-fp",
	KindCodeState:         "code-state",
	KindCodeUnknown:       "code-unknown",
	KindRegs:              "regs",
	KindCodeScratch:       "code-scratch",
}

var kindTitles = [...]string{
	KindCFA:               "CFA differs",
	KindRA:                "RA differs",
	KindFP:                "FP differs",
	KindNoFDE:             "SFrame has no FDE for a function CFI covers",
	KindGap:               "PC in a gap between SFrame FDEs",
	KindFREBoundary:       "FRE boundary off",
	KindFPChain:           "frame-pointer chain broken",
	KindOutermost:         "outermost-frame disagreement",
	KindSignal:            "signal frame",
	KindPLT:               "PLT stub",
	KindExtraFDE:          "SFrame FDE without CFI",
	KindBounds:            "function start/size mismatch",
	KindFormat:            "SFrame format violation",
	KindSkipped:           "not expressible in SFrame",
	KindMissingFrame:      "frame missing from trace",
	KindExtraFrame:        "frame not in reference trace",
	KindNoCFI:             "no usable CFI to compare with",
	KindKernelReject:      "the Linux kernel would drop the section",
	KindSignalUndescribed: "signal frame SFrame marks but does not describe (FDE without FREs)",
	KindCodeCFA:           "the code's CFA differs from the tables'",
	KindCodeRA:            "where the code keeps RA differs from the tables'",
	KindCodeFP:            "where the code keeps FP differs from the tables'",
	KindCodeState:         "two paths reach an instruction with different stack states",
	KindCodeUnknown:       "code the oracle could not follow (coverage note)",
	KindRegs:              "saved registers differ",
	KindCodeScratch:       "a register the code uses as scratch, which the tables say keeps its value (misleads no unwinder)",
}

// String returns the stable short name ("cfa", "fre-boundary", ...).
func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Title returns a human description of the kind.
func (k Kind) Title() string {
	if k > 0 && k < kindEnd {
		return kindTitles[k]
	}
	return k.String()
}

// Disagreement reports whether a finding of this kind means SFrame
// disagrees with CFI where SFrame claims coverage. Coverage gaps (no-fde,
// skipped, extra-fde) and frame-pointer limits are reported without being
// disagreements; sfdbg check exits 1 only for disagreements.
func (k Kind) Disagreement() bool {
	switch k {
	case KindNoFDE, KindSkipped, KindExtraFDE, KindFPChain, KindGap, KindNoCFI, KindSignalUndescribed, KindCodeUnknown, KindCodeScratch:
		return false
	}
	return true
}

// Misleads reports whether a code oracle finding of this kind says the
// tables mislead an unwinder (the CFA, the RA, a register they say is
// saved, or no single row for two paths): code-cfa, code-ra, code-fp and
// code-state; not code-scratch (a "same value" for a register the code
// uses as scratch) nor the coverage note code-unknown.
func (k Kind) Misleads() bool {
	switch k {
	case KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState:
		return true
	}
	return false
}

// subjectKind is the kind of a finding of kind k about the method subj
// judged against a table: a disagreement of the code (frames.MethodCode)
// is a code-* kind, and where the code gives no row it could not follow
// the function (code-unknown); other methods' findings keep k.
func subjectKind(subj frames.Method, k Kind) Kind {
	if subj != frames.MethodCode {
		return k
	}
	switch k {
	case KindCFA:
		return KindCodeCFA
	case KindRA, KindOutermost:
		return KindCodeRA
	case KindFP:
		return KindCodeFP
	case KindNoFDE, KindGap:
		return KindCodeUnknown
	}
	return k
}

// MarshalText implements encoding.TextMarshaler (JSON uses the short name).
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	for i := Kind(1); i < kindEnd; i++ {
		if kindNames[i] == string(b) {
			*k = i
			return nil
		}
	}
	return fmt.Errorf("unknown finding kind %q", b)
}

// Kinds returns all kinds in order.
func Kinds() []Kind {
	out := make([]Kind, 0, kindEnd-1)
	for k := Kind(1); k < kindEnd; k++ {
		out = append(out, k)
	}
	return out
}
