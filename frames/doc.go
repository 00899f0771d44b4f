// Package frames unwinds stacks: from a thread's registers and its address
// space it finds the caller frames, one method at a time.
//
// It owns:
//
//   - The address space (Space): the target's Memory and its Modules, built
//     from /proc/PID/maps (ModulesFromMaps) with each module's load bias.
//     A Module loads its data lazily and caches it on itself: the .sframe
//     section, the DWARF CFI, ELF symbols, DWARF line tables and the
//     functions inlined at a PC (module.go, data.go, symbols.go, lines.go,
//     inline.go).
//   - The one unwind row (Row, row.go): how to recover the CFA, RA, FP and
//     other registers at a PC, with its Source (module, FDE, FRE or CFI
//     offset, PC type) as data. SFrame FREs and DWARF CFI rows both convert
//     into it, and the one rule evaluator (eval.go) computes a caller from
//     it for both.
//   - The three unwinders, each an Unwinder that steps from a Frame to its
//     caller: SFrameUnwinder (.sframe, spec v3 Appendix A, and the Linux
//     signal frame), CFIUnwinder (.eh_frame and .debug_frame; the records
//     are decoded by package frames/cfi) and FPUnwinder (the frame-pointer
//     chain). A method that cannot step says why with a *StopError and its
//     Reason.
//   - The Stack iterator (NewStack; Next, Frame, Err, Stop), after Delve's
//     pkg/proc/stack.go: it drives one Unwinder, checks that each caller is
//     plausible, and returns the partial trace with the error that ended it.
//     Comparing methods is package compare's work, built on Stack.
//
// Addresses are runtime addresses unless a name says link-time; sizes and
// offsets are in bytes.
//
// Imports: package sframe for the format, the standard library's debug/elf
// and debug/dwarf, Delve's pkg/dwarf/op for DWARF expressions, and logrus.
// frames reads a process only through the Memory it is given and the
// /proc/PID/maps and /proc/PID/root files; it never stops or controls a
// process (no ptrace, no Delve proc packages) and never imports compare,
// debugger or anything of the REPL or the command line. The layers are
// sframe ← frames ← compare ← debugger ← cmd/sfdbg.
package frames
