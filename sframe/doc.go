// Package sframe owns the SFrame stack-trace format (".sframe" sections,
// spec versions 1, 2 with errata 1 and 2, and 3) for every ABI the format
// defines: AMD64, AArch64 in either byte order, and s390x. It decodes a
// section (Parse, ParseAt; package sframe/elfobj finds it in an ELF file
// by section or PT_GNU_SFRAME segment), looks up the FDE and FRE of a PC
// (FindFDE, FindFRE, FindFRERange), turns an FRE into a row of rules for
// CFA, RA and FP (Row, RowInto), checks a section against the format
// (Validate) and prints it as objdump --sframe does or as JSON (WriteText,
// WriteJSON). The byte order is found from the magic. Decoding never
// panics and never allocates from an unchecked count; malformed data is a
// *FormatError with the byte offset of the bad field.
//
// Coded fields have named types with String methods, and names follow the
// SFrame specification; comments cite it as "spec v3 §2.3.1" and so on.
//
// The package imports the standard library and sfdbg's rule vocabulary
// (sframe/rule, which every reader produces): nothing else of sfdbg,
// nothing about processes or their memory, and no DWARF reading (rules name
// registers by DWARF number, that is all). Unwinding with its rows belongs
// to package frames. Encoding sections, which only tests need, is package
// sframe/sframetest.
package sframe
