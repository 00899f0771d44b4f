package cfi

import "encoding/binary"

// SectionGCCExceptTable names the section of the LSDAs that GCC and LLVM
// emit, as it appears in Error.Section.
const SectionGCCExceptTable = ".gcc_except_table"

// CallSite is one entry of an LSDA's call-site table: the calls in
// [Start, End) land, when an exception unwinds through them, at
// LandingPad (0: they have none). Addresses are link-time.
type CallSite struct {
	Start, End, LandingPad uint64
}

// maxCallSites bounds the call-site entries read from one LSDA: each
// takes at least 4 bytes, so a table longer than its bytes allow is
// clipped by them first.
const maxCallSites = 1 << 16

// ParseLSDA reads the call-site table of the language-specific data area
// that GCC's and LLVM's C++ and Rust personality routines read (the
// "GCC_except_table" format: the Itanium C++ ABI's exception tables as
// libgcc's unwind-c.c and libstdc++'s eh_personality.cc parse them): the
// LPStart encoding and value, the TType encoding and offset, then the
// call-site encoding and the table's length, then per entry the start,
// length and landing pad in that encoding (offsets from the function's
// start funcStart, the landing pad from LPStart, funcStart unless given)
// and a ULEB128 action. b holds the section's bytes from the LSDA to the
// section's end, at address addr and section offset off (for messages);
// order is the file's byte order. Landing pads of 0 are kept (no pad).
// Errors: *Error (Section ".gcc_except_table", Off the field's offset)
// for a truncated or malformed table, or a pointer encoding it refuses.
func ParseLSDA(b []byte, addr uint64, off int64, order binary.ByteOrder, addrSize int, funcStart uint64) ([]CallSite, error) {
	c := &cursor{b: b, base: off, addr: addr, order: order, sec: SectionGCCExceptTable}
	lpStart := funcStart
	if enc := PtrEnc(c.u8("LPStart encoding")); enc != DW_EH_PE_omit {
		lpStart = c.pointer(enc&^DW_EH_PE_indirect, addrSize, 0, false, "LPStart")
	}
	if enc := PtrEnc(c.u8("TType encoding")); enc != DW_EH_PE_omit {
		c.uleb("TType offset")
	}
	enc := PtrEnc(c.u8("call-site encoding"))
	n := c.uleb("call-site table length")
	if c.err != nil {
		return nil, c.err
	}
	if enc&peApplication != 0 || enc == DW_EH_PE_omit {
		c.refuse("call-site encoding %v", enc)
		return nil, c.err
	}
	table := c.bytes(n, "call-site table")
	if c.err != nil {
		return nil, c.err
	}
	t := &cursor{b: table, base: c.off() - int64(len(table)), addr: c.addr + uint64(c.i-len(table)), order: order, sec: SectionGCCExceptTable}
	var out []CallSite
	for t.left() > 0 && len(out) < maxCallSites {
		start := t.pointer(enc, addrSize, 0, false, "call-site start")
		length := t.pointer(enc, addrSize, 0, false, "call-site length")
		pad := t.pointer(enc, addrSize, 0, false, "landing pad")
		t.uleb("action")
		if t.err != nil {
			return out, t.err
		}
		cs := CallSite{Start: funcStart + start, End: funcStart + start + length}
		if pad != 0 {
			cs.LandingPad = lpStart + pad
		}
		out = append(out, cs)
	}
	return out, nil
}
