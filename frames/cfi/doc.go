// Package cfi decodes DWARF call frame information: the CIEs and FDEs of
// .eh_frame and .debug_frame, and the binary search table of
// .eh_frame_hdr, into rows that say, for each PC of a function, how to
// recover the caller's CFA and registers. It is the only CFI reader of
// sfdbg; what the rows are used for (unwinding a live process, checking
// SFrame against them) is the business of package frames and its callers.
//
// What it owns:
//   - records (record.go): CIE and FDE parsing in either byte order, 32-
//     and 64-bit DWARF, CIE versions 1, 3 and 4, the augmentations GNU
//     tools emit ("z" with L, P, R, S, B and G; the legacy "eh"), and the
//     DW_EH_PE pointer encodings (encoding.go);
//   - the call frame instructions (interp.go, on the state of state.go):
//     every DW_CFA_* of DWARF 5 and the GNU extensions
//     (DW_CFA_GNU_args_size, DW_CFA_GNU_negative_offset_extended,
//     DW_CFA_AARCH64_negate_ra_state), run into rows of package sframe's
//     Rule (row.go), whose register rules are stored as the changes from
//     one row to the next (regs.go, RegSet);
//   - finding the FDE for a PC, two ways that give the same answers: a
//     Table of every FDE of a section (table.go, Parse), and an Index over
//     .eh_frame_hdr that reads and parses only the FDEs looked up (hdr.go,
//     NewIndex);
//   - its errors (errors.go): every problem is an *Error with the section
//     and byte offset, matching ErrMalformed or ErrUnsupported; lookups
//     return ErrNoFDE and ErrNoRow; ErrBadHdr says to use Parse instead of
//     an unusable .eh_frame_hdr. Nothing panics on malformed input: every
//     length, offset and count is checked against the section before use,
//     every loop consumes input, and the work and memory of building
//     rows are linear in the instructions, with a small constant, however
//     many registers have a rule (RegSet, and the limits in interp.go).
//
// What it must not import: any package of sfdbg but sframe (for Rule and
// Reg), anything that touches a process, and Delve (whose pkg/dwarf/frame
// it replaces; tests compare against it). The caller finds the sections
// (debug/elf) and passes their bytes, address, byte order and address
// size. DWARF expressions are kept as bytes, not evaluated (Delve's
// pkg/dwarf/op does that for the caller).
//
// Specifications: DWARF 5 §6.4 (Call Frame Information), §7.24 and Table
// 7.29 (encodings); Linux Standard Base Core 5.0 §10.5 (DW_EH_PE
// encodings), §10.6.1 (.eh_frame) and §10.6.2 (.eh_frame_hdr); the GNU
// extensions as binutils' include/dwarf2.def names them; the AArch64 DWARF
// ABI (aadwarf64) for DW_CFA_AARCH64_negate_ra_state and augmentation B.
package cfi
