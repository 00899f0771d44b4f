package sframe

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Magic is the value of sfp_magic in the byte order of the section's target
// (spec §2.1.1). Read in the other byte order it appears as 0xe2de.
const Magic = 0xdee2

// Version is the sfp_version field of the preamble (spec §2.1.2).
type Version uint8

// SFrame versions.
const (
	Version1 Version = 1
	Version2 Version = 2
	Version3 Version = 3
)

func (v Version) String() string {
	switch v {
	case Version1, Version2, Version3:
		return fmt.Sprintf("SFRAME_VERSION_%d", uint8(v))
	}
	return fmt.Sprintf("SFRAME_VERSION_%d(unknown)", uint8(v))
}

// Flags is the sfp_flags field of the preamble (spec §2.1.3).
type Flags uint8

// Section-wide flags.
const (
	// FlagFDESorted: FDEs are sorted on function start address.
	FlagFDESorted Flags = 0x1
	// FlagFramePointer: every function preserves the frame pointer (v1, v2).
	FlagFramePointer Flags = 0x2
	// FlagFDEFuncStartPCRel: the FDE function start field is relative to the
	// field itself rather than to the start of the section (v2 errata 1, v3).
	FlagFDEFuncStartPCRel Flags = 0x4
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{FlagFDESorted, "SFRAME_F_FDE_SORTED"},
	{FlagFramePointer, "SFRAME_F_FRAME_POINTER"},
	{FlagFDEFuncStartPCRel, "SFRAME_F_FDE_FUNC_START_PCREL"},
}

// KnownFlags returns the flags defined for version v; any other bit set in a
// section of that version is a format violation.
func KnownFlags(v Version) Flags {
	switch v {
	case Version1:
		return FlagFDESorted | FlagFramePointer
	case Version2:
		return FlagFDESorted | FlagFramePointer | FlagFDEFuncStartPCRel
	default:
		return FlagFDESorted | FlagFDEFuncStartPCRel
	}
}

// Names returns the SFRAME_F_* names of the set flags, in bit order, with
// unknown bits as a hexadecimal remainder.
func (f Flags) Names() []string {
	var out []string
	rest := f
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
			rest &^= n.f
		}
	}
	if rest != 0 {
		out = append(out, fmt.Sprintf("%#x", uint8(rest)))
	}
	return out
}

func (f Flags) String() string {
	if f == 0 {
		return "NONE"
	}
	return strings.Join(f.Names(), "|")
}

// ABI is the sfh_abi_arch field of the header (spec §2.2.1).
type ABI uint8

// ABI/arch identifiers.
const (
	ABIAArch64BigEndian    ABI = 1
	ABIAArch64LittleEndian ABI = 2
	ABIAMD64LittleEndian   ABI = 3
	ABIS390XBigEndian      ABI = 4
)

func (a ABI) String() string {
	switch a {
	case ABIAArch64BigEndian:
		return "AARCH64 BIG ENDIAN"
	case ABIAArch64LittleEndian:
		return "AARCH64 LITTLE ENDIAN"
	case ABIAMD64LittleEndian:
		return "AMD64 LITTLE ENDIAN"
	case ABIS390XBigEndian:
		return "S390X BIG ENDIAN"
	}
	return fmt.Sprintf("ABI(%d)", uint8(a))
}

// Known reports whether a is one of the ABIs the format defines.
func (a ABI) Known() bool { return a >= ABIAArch64BigEndian && a <= ABIS390XBigEndian }

// IsAArch64 reports whether a is one of the two AArch64 ABIs.
func (a ABI) IsAArch64() bool { return a == ABIAArch64BigEndian || a == ABIAArch64LittleEndian }

// BigEndian reports whether the ABI's sections are stored big-endian.
func (a ABI) BigEndian() bool { return a == ABIAArch64BigEndian || a == ABIS390XBigEndian }

// Machine returns the ELF machine and byte order of the files whose
// SFrame data has ABI a (spec §2.2.1: each ABI names an architecture and
// a byte order); ok is false for an ABI the format does not define. The
// machine's description is then arch.For(m, order).
func (a ABI) Machine() (m elf.Machine, order binary.ByteOrder, ok bool) {
	switch a {
	case ABIAArch64BigEndian:
		return elf.EM_AARCH64, binary.BigEndian, true
	case ABIAArch64LittleEndian:
		return elf.EM_AARCH64, binary.LittleEndian, true
	case ABIAMD64LittleEndian:
		return elf.EM_X86_64, binary.LittleEndian, true
	case ABIS390XBigEndian:
		return elf.EM_S390, binary.BigEndian, true
	}
	return elf.EM_NONE, nil, false
}

// DWARF register numbers of the stack pointer, frame pointer and return
// address register of each ABI (psABI DWARF register tables).
const (
	AMD64RegFP rule.Reg = 6  // %rbp
	AMD64RegSP rule.Reg = 7  // %rsp
	AMD64RegRA rule.Reg = 16 // return address column (%rip)

	AArch64RegFP rule.Reg = 29 // x29
	AArch64RegLR rule.Reg = 30 // x30
	AArch64RegSP rule.Reg = 31 // sp

	S390XRegFP rule.Reg = 11 // %r11
	S390XRegRA rule.Reg = 14 // %r14
	S390XRegSP rule.Reg = 15 // %r15
)

// SPReg returns the DWARF number of the ABI's stack pointer.
func (a ABI) SPReg() rule.Reg {
	switch {
	case a == ABIAMD64LittleEndian:
		return AMD64RegSP
	case a.IsAArch64():
		return AArch64RegSP
	case a == ABIS390XBigEndian:
		return S390XRegSP
	}
	return AMD64RegSP
}

// FPReg returns the DWARF number of the ABI's frame pointer.
func (a ABI) FPReg() rule.Reg {
	switch {
	case a == ABIAMD64LittleEndian:
		return AMD64RegFP
	case a.IsAArch64():
		return AArch64RegFP
	case a == ABIS390XBigEndian:
		return S390XRegFP
	}
	return AMD64RegFP
}

// RAReg returns the DWARF number of the register that holds the return
// address on entry to a function (the return-address column on AMD64).
func (a ABI) RAReg() rule.Reg {
	switch {
	case a == ABIAMD64LittleEndian:
		return AMD64RegRA
	case a.IsAArch64():
		return AArch64RegLR
	case a == ABIS390XBigEndian:
		return S390XRegRA
	}
	return AMD64RegRA
}

// SPValOffset is the caller's SP relative to the CFA, in bytes: 0 except on
// s390x, where the CFA is the SP at the call site plus 160 (spec v3 §3.1.3,
// SFRAME_S390X_SP_VAL_OFFSET).
func (a ABI) SPValOffset() int64 {
	if a == ABIS390XBigEndian {
		return S390XSPValOffset
	}
	return 0
}

// s390x constants (spec v2 errata 1 §3.3, v3 §3.1.3).
const (
	S390XSPValOffset          = -160 // SFRAME_S390X_SP_VAL_OFFSET
	S390XCFAOffsetAdjustment  = S390XSPValOffset
	S390XCFAOffsetAlignFactor = 8 // SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR
	RAOffsetInvalid           = 0 // SFRAME_FRE_RA_OFFSET_INVALID
)

// S390XDecodeCFAOffset undoes the s390x CFA offset scaling and adjustment
// (SFRAME_V2_S390X_CFA_OFFSET_DECODE).
func S390XDecodeCFAOffset(stored int64) int64 {
	return stored*S390XCFAOffsetAlignFactor - S390XCFAOffsetAdjustment
}

// S390XEncodeCFAOffset applies the s390x CFA offset adjustment and scaling
// (SFRAME_V2_S390X_CFA_OFFSET_ENCODE). ok is false when the offset is not a
// multiple of the alignment factor after adjustment.
func S390XEncodeCFAOffset(off int64) (stored int64, ok bool) {
	adj := off + S390XCFAOffsetAdjustment
	return adj / S390XCFAOffsetAlignFactor, adj%S390XCFAOffsetAlignFactor == 0
}

// FDEPCType is the PC type of an FDE: how FRE start offsets are matched
// against a PC (spec v3 §2.3.3.1; "FDE type" PCINC/PCMASK in v1 and v2).
type FDEPCType uint8

// FDE PC types.
const (
	PCTypeInc  FDEPCType = 0 // SFRAME_FDE_PCTYPE_INC: FRE start <= PC offset
	PCTypeMask FDEPCType = 1 // SFRAME_FDE_PCTYPE_MASK: FRE start <= PC offset % rep size
)

func (t FDEPCType) String() string {
	if t == PCTypeMask {
		return "SFRAME_FDE_PCTYPE_MASK"
	}
	return "SFRAME_FDE_PCTYPE_INC"
}

// FDEType is the v3 FDE type, which decides how FRE data words are read
// (spec v3 §2.3.3.2). Sections of versions 1 and 2 only have DEFAULT.
type FDEType uint8

// FDE types.
const (
	FDETypeDefault FDEType = 0 // SFRAME_FDE_TYPE_DEFAULT
	FDETypeFlex    FDEType = 1 // SFRAME_FDE_TYPE_FLEX
)

func (t FDEType) String() string {
	switch t {
	case FDETypeDefault:
		return "SFRAME_FDE_TYPE_DEFAULT"
	case FDETypeFlex:
		return "SFRAME_FDE_TYPE_FLEX"
	}
	return fmt.Sprintf("SFRAME_FDE_TYPE(%d)", uint8(t))
}

// FREType is the width of the FRE start-offset field (spec v3 §2.3.3.3).
type FREType uint8

// FRE types.
const (
	FRETypeAddr1 FREType = 0 // 8-bit start offset
	FRETypeAddr2 FREType = 1 // 16-bit start offset
	FRETypeAddr4 FREType = 2 // 32-bit start offset
)

// Size returns the width of the start offset in bytes, or 0 if t is unknown.
func (t FREType) Size() int {
	switch t {
	case FRETypeAddr1:
		return 1
	case FRETypeAddr2:
		return 2
	case FRETypeAddr4:
		return 4
	}
	return 0
}

func (t FREType) String() string {
	switch t {
	case FRETypeAddr1:
		return "SFRAME_FRE_TYPE_ADDR1"
	case FRETypeAddr2:
		return "SFRAME_FRE_TYPE_ADDR2"
	case FRETypeAddr4:
		return "SFRAME_FRE_TYPE_ADDR4"
	}
	return fmt.Sprintf("SFRAME_FRE_TYPE(%d)", uint8(t))
}

// DataWordSize is the fre_dataword_size field of the FRE info byte
// (spec v3 §2.4.1; "offset size" in v1 and v2).
type DataWordSize uint8

// Data-word sizes.
const (
	DataWord1B DataWordSize = 0
	DataWord2B DataWordSize = 1
	DataWord4B DataWordSize = 2
)

// Bytes returns the size of one data word in bytes, or 0 if s is unknown.
func (s DataWordSize) Bytes() int {
	switch s {
	case DataWord1B:
		return 1
	case DataWord2B:
		return 2
	case DataWord4B:
		return 4
	}
	return 0
}

func (s DataWordSize) String() string {
	switch s {
	case DataWord1B, DataWord2B, DataWord4B:
		return fmt.Sprintf("SFRAME_FRE_DATAWORD_%dB", s.Bytes())
	}
	return fmt.Sprintf("SFRAME_FRE_DATAWORD(%d)", uint8(s))
}

// BaseReg is the fre_cfa_base_reg_id bit of the FRE info byte.
type BaseReg uint8

// CFA base registers of DEFAULT FDEs.
const (
	BaseRegFP BaseReg = 0
	BaseRegSP BaseReg = 1
)

func (b BaseReg) String() string {
	if b == BaseRegSP {
		return "sp"
	}
	return "fp"
}
