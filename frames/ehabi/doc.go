// Package ehabi decodes the compact unwind tables of the ARM EHABI family:
// ARM's .ARM.exidx/.ARM.extab and TI C6000's .c6xabi.exidx/.c6xabi.extab.
//
// The contract is frames/cfi's: bytes, the section's address and its byte
// order in; decoded index entries and opcode lists out; errors are
// *DecodeError values that name the section and the byte offset in it.
// Every count the data declares (the "more words" byte of personalities 1
// and 2 and of the GCC personality routines, ULEB128 operands) is clipped
// to the bytes of its section before anything is read or allocated.
//
// Sources: "Exception Handling ABI for the ARM Architecture" (EHABI) 5
// (index table), 6.3 (compact model), 9.3 (frame unwinding instructions);
// TI SPRAB89 "C6000 EABI" 7.2 (unwinding instructions, also in
// shared/spec/ti-c6000-ehabi-unwind-instructions.zh.txt). The text form
// (Table.WriteText) is what GNU readelf -u prints for these sections
// (binutils 2.40 readelf.c, dump_arm_unwind and the functions it calls).
package ehabi
