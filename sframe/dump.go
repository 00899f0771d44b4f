package sframe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// This file prints a section in the text form of GNU objdump's
// "--sframe" option (libsframe's sframe-dump.c, binutils 2.47.50) and as a
// JSON document. The text form follows objdump's conventions to the byte for
// SFrame versions 2 and 3; version 1 sections, which binutils 2.44 and later
// no longer decode, are printed in the same modern form.
//
// Column tokens of the text form (one FRE per line, after the FRE's first
// PC as 16 hex digits):
//
//	CFA  "sp+16", "fp+16"            DEFAULT FDE: base register + offset
//	     "r10+0", "(fp-8)"           FLEX FDE: DWARF register (sp/fp by
//	                                 name, else rN) + offset; parenthesized
//	                                 when the value is loaded from there
//	FP   "u"                         not saved (unchanged)
//	     "c-16"                      saved at CFA-16
//	     "r17" (s390x v2)            saved in DWARF register 17
//	     "(fp+0)", "r17+0"           FLEX forms, as for the CFA
//	RA   "f"                         at the header's fixed RA offset (AMD64)
//	     "u"                         not saved (in the link register)
//	     "U"                         padding word: not saved (s390x, FLEX)
//	     "c-8", "r16+0", ...         as for FP
//	     "[s]" suffix                the RA is signed (AArch64 PAuth)
//	"RA undefined"                   an FRE without data words (outermost)
//
// FDE lines carry ", attr = \"S\"" (signal frame), "F" (FLEX FDE) or "SF",
// and on AArch64 ", pauth = B key". "[m]" after STARTPC marks a PCTYPE_MASK
// FDE, whose FRE start addresses are offsets into the repeated block.
//
// Known, deliberate difference from objdump: function start addresses are
// computed as the spec says (for FlagFDEFuncStartPCRel, relative to the
// start-address field itself); libsframe ignores sfh_fdeoff there, so the
// two differ on sections whose FDE sub-section does not follow the header
// directly, which no toolchain emits.

// dumpBufSize is the size of the bufio.Writer WriteText and WriteJSON wrap
// around a writer that is not already buffered.
const dumpBufSize = 64 << 10

// dumpWriter returns w as a *bufio.Writer, wrapping it if needed.
func dumpWriter(w io.Writer) *bufio.Writer {
	if bw, ok := w.(*bufio.Writer); ok {
		return bw
	}
	return bufio.NewWriterSize(w, dumpBufSize)
}

// WriteText writes the section the way "objdump --sframe=.sframe" of GNU
// binutils 2.47.50 prints it, from the line "Contents of the SFrame section
// .sframe:" (with Name in place of .sframe when set) on: the header block, then "Function Index" with one block per
// FDE listing its FREs in the CFA, FP and RA columns. For versions 2 and 3
// the output is byte-identical to objdump's (function start addresses aside
// when sfh_fdeoff is not 0, see above); version 1 is printed in the same
// form.
//
// Data words are formatted the way objdump formats them whatever their count,
// so FREs that Row rejects are still shown. (Beyond 6 data words, which
// libsframe refuses to decode, objdump repeats the previous FRE's line; a
// FLEX FRE with a single data word makes it abort.) An FDE or FRE that cannot be
// decoded at all (it runs past the FRE sub-section, or has an unknown FRE
// type or data-word size) ends its FDE's block early; WriteText then goes on
// with the next FDE and finally returns the first such *FormatError. Errors
// of w are returned as they are.
func (s *Section) WriteText(w io.Writer) error {
	if s.parts != nil {
		return s.writeSequence(w, true)
	}
	return s.writeText(w, s.sectionName())
}

// writeText is WriteText for one section (not a sequence) printed under
// the ELF section name name.
func (s *Section) writeText(w io.Writer, name string) error {
	bw := dumpWriter(w)
	d := textDumper{s: s, name: name, w: bw, line: make([]byte, 0, 256), left: s.freBudget()}
	first := d.run()
	if err := bw.Flush(); err != nil {
		return err
	}
	return s.errFor(first)
}

// sectionName returns Name, or ".sframe" when it is empty.
func (s *Section) sectionName() string {
	if s.Name == "" {
		return ".sframe"
	}
	return s.Name
}

type textDumper struct {
	s    *Section
	name string // the ELF section's name
	w    *bufio.Writer
	line []byte
	left int64 // FREs still allowed (freBudget)
}

// freBudget bounds the number of FREs a dump decodes. Every FRE takes at
// least 2 bytes of the FRE sub-section, so a section has at most FRELen/2
// of them; only FDEs whose FRE ranges overlap can make the FDEs list more,
// and without a bound a small malformed section could make the dump
// quadratic in its size.
func (s *Section) freBudget() int64 { return int64(s.freEnd-s.freSub)/2 + 1 }

// overBudget returns the error for an FDE that would exceed freBudget.
func (s *Section) overBudget(f *FDE) error {
	return formatErr(int64(f.Off), "FDE %d: FDEs list more FREs than the %d-byte FRE sub-section can hold (overlapping FRE ranges)", f.Index, s.freEnd-s.freSub)
}

func (d *textDumper) run() error {
	s, w := d.s, d.w
	if s.CTFFrame {
		d.ctfHeader()
	} else {
		w.WriteString("Contents of the SFrame section ")
		w.WriteString(d.name)
		w.WriteString(":\n  Header :\n\n    Version: ")
		w.WriteString(s.Version.String())
		w.WriteByte('\n')
		d.flags()
	}
	b := d.line[:0]
	if s.CTFFrame {
		// The series' dump printed no fixed offsets.
	} else if s.CFAFixedFPOffset != 0 {
		b = append(b, "    CFA fixed FP offset: "...)
		b = strconv.AppendInt(b, int64(s.CFAFixedFPOffset), 10)
		b = append(b, '\n')
	}
	if s.CFAFixedRAOffset != 0 && !s.CTFFrame {
		b = append(b, "    CFA fixed RA offset: "...)
		b = strconv.AppendInt(b, int64(s.CFAFixedRAOffset), 10)
		b = append(b, '\n')
	}
	// objdump prints the unsigned counts with %d.
	b = append(b, "    Num FDEs: "...)
	b = strconv.AppendInt(b, int64(int32(s.NumFDEs)), 10)
	b = append(b, "\n    Num FREs: "...)
	b = strconv.AppendInt(b, int64(int32(s.NumFREs)), 10)
	b = append(b, "\n\n  Function Index :\n"...)
	w.Write(b)
	d.line = b

	var first error
	for i := range s.fdes {
		if err := d.fde(&s.fdes[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ctfHeader prints the first lines of a CTF Frame section's dump, as
// objdump --ctf-frame of the CTF Frame patch series (V6, Aug 2022) printed
// them, after a line saying which format this is. The series' dump is
// reconstructed: one Flags line with the CTF_FRAME_F_* names joined by
// commas, no fixed-offset lines, and "u" in the RA column where the header
// fixes the RA (the "f" token came with later binutils).
func (d *textDumper) ctfHeader() {
	w := d.w
	w.WriteString("Contents of the CTF Frame section .ctf_frame:\n")
	w.WriteString("  (CTF Frame: the pre-release format of SFrame version 1, binutils patch series V6 of August 2022; no released toolchain emitted it)\n")
	w.WriteString("  Header :\n\n    Version: CTF_FRAME_VERSION_1\n    Flags: ")
	f := d.s.Flags
	if f == 0 {
		w.WriteString("NONE")
	}
	sep := ""
	for _, n := range []struct {
		f    Flags
		name string
	}{{FlagFDESorted, "CTF_FRAME_F_FDE_SORTED"}, {FlagFramePointer, "CTF_FRAME_F_FRAME_POINTER"}} {
		if f&n.f != 0 {
			w.WriteString(sep + n.name)
			sep = ","
			f &^= n.f
		}
	}
	if f != 0 {
		w.WriteString(sep + strconv.Itoa(int(f)))
	}
	w.WriteByte('\n')
}

// flags prints the Flags line(s): one flag name per line, continuation
// lines indented under the first name, a comma after all but the last.
// SFRAME_F_FRAME_POINTER is named only where it is defined (v1, v2); other
// bits are printed as a decimal remainder.
func (d *textDumper) flags() {
	f := d.s.Flags
	b := d.line[:0]
	if f == 0 {
		d.w.WriteString("    Flags: NONE\n")
		return
	}
	prefix := "    Flags: "
	for _, n := range flagNames {
		if f&n.f == 0 || (n.f == FlagFramePointer && d.s.Version >= Version3) {
			continue
		}
		f &^= n.f
		b = append(b, prefix...)
		b = append(b, n.name...)
		if f != 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		prefix = "           "
	}
	if f != 0 {
		b = append(b, prefix...)
		b = strconv.AppendInt(b, int64(f), 10)
		b = append(b, '\n')
	}
	d.w.Write(b)
	d.line = b
}

// Column headers: "    %-7s%-8s %-10s%-10s%-13s" of STARTPC, the [m]
// marker, CFA, FP, RA.
const (
	colHeaderInc  = "\n    STARTPC         CFA       FP        RA           "
	colHeaderMask = "\n    STARTPC[m]      CFA       FP        RA           "
)

func (d *textDumper) fde(f *FDE) error {
	if f.err != nil {
		return f.err
	}
	s := d.s
	b := d.line[:0]
	b = append(b, "\n    func idx ["...)
	b = strconv.AppendInt(b, int64(f.Index), 10)
	b = append(b, "]: pc = 0x"...)
	b = strconv.AppendUint(b, f.Start, 16)
	b = append(b, ", size = "...)
	b = strconv.AppendInt(b, int64(int32(f.Size)), 10)
	b = append(b, " bytes"...)
	// objdump reads the signal bit and FDE type from the info bytes of any
	// version; Info2 is 0 before version 3.
	signal, flex := f.Info&0x80 != 0, f.Type == FDETypeFlex
	if signal || flex {
		b = append(b, `, attr = "`...)
		if signal {
			b = append(b, 'S')
		}
		if flex {
			b = append(b, 'F')
		}
		b = append(b, '"')
	}
	if s.ABI.IsAArch64() && f.PAuthKey == rule.PAuthKeyB {
		b = append(b, ", pauth = B key"...)
	}
	mask := f.PCType == PCTypeMask
	if mask {
		b = append(b, colHeaderMask...)
	} else {
		b = append(b, colHeaderInc...)
	}
	it := s.FREs(f)
	for it.Next() {
		if d.left--; d.left < 0 {
			b = append(b, '\n')
			d.w.Write(b)
			d.line = b
			return s.overBudget(f)
		}
		fre := it.FRE()
		start := uint64(fre.StartOff)
		if !mask {
			start += f.Start
		}
		b = append(b, "\n    "...)
		b = appendHex16(b, start)
		if fre.NumWords() == 0 {
			b = append(b, "  RA undefined"...)
		} else if flex {
			b = d.flexColumns(b, fre)
		} else {
			b = d.defaultColumns(b, fre)
		}
		if len(b) > dumpBufSize/2 {
			d.w.Write(b)
			b = b[:0]
		}
	}
	b = append(b, '\n')
	d.w.Write(b)
	d.line = b
	return it.Err()
}

// defaultColumns appends the CFA, FP and RA columns of an FRE of a DEFAULT
// FDE with at least one data word (libsframe's interpretation: spec §3.1).
func (d *textDumper) defaultColumns(b []byte, fre *FRE) []byte {
	s := d.s
	n := fre.NumWords()
	s390x := s.ABI == ABIS390XBigEndian
	regnum := s390x && s.Version == Version2 // v2 s390x: odd words are registers

	// CFA: "%s+%d" of the base register name and the offset.
	mark := len(b)
	b = append(b, "  "...)
	b = append(b, fre.Info.BaseReg().String()...)
	b = append(b, '+')
	b = strconv.AppendInt(b, int64(d.cfaOffset(fre, false)), 10)
	b = pad(b, mark+2, 10)

	// FP: the header's fixed offset if any, else data word 2 (word 3 where
	// RA is tracked in the FRE).
	mark = len(b)
	var fp int32
	fpOK := true
	if s.CFAFixedFPOffset != 0 {
		fp = int32(s.CFAFixedFPOffset)
	} else {
		idx := 2
		if s.CFAFixedRAOffset != 0 {
			idx = 1
		}
		fpOK = n > idx
		fp = fre.Words[idx]
	}
	if fpOK {
		b = appendTracked(b, fp, regnum)
	} else {
		b = append(b, 'u')
	}
	b = pad(b, mark, 10)

	// RA: "f" where the header fixes it, else data word 2.
	mark = len(b)
	switch ra := fre.Words[1]; {
	case s.CFAFixedRAOffset != 0 && s.CTFFrame:
		b = append(b, 'u') // the series' dump had no "f"
	case s.CFAFixedRAOffset != 0:
		b = append(b, 'f')
	case n < 2:
		b = append(b, 'u')
	case ra == RAOffsetInvalid:
		b = append(b, 'U')
	default:
		b = appendTracked(b, ra, regnum)
	}
	return d.mangled(b, mark, fre)
}

// appendTracked appends an FP or RA data word of a DEFAULT FRE: "r%d" for
// the s390x v2 register encoding (regnum set and the word odd), else "c%+d".
func appendTracked(b []byte, w int32, regnum bool) []byte {
	if regnum && w&1 != 0 {
		b = append(b, 'r')
		return strconv.AppendInt(b, int64(w>>1), 10)
	}
	return appendCOffset(b, w)
}

// flexColumns appends the CFA, FP and RA columns of an FRE of a FLEX FDE
// with at least one data word: control/offset pairs for CFA, RA and FP, a
// single zero control word standing for the RA pair (spec v3 §3.2).
func (d *textDumper) flexColumns(b []byte, fre *FRE) []byte {
	s := d.s
	n := fre.NumWords()
	word := func(i int) (int32, bool) { return fre.Words[i], n > i }

	cfaCtl := fre.uword(0)
	cfaOff := d.cfaOffset(fre, true)

	raCtl, raCtlOK := fre.uword(2), n > 2
	// An RA control word without its offset word is shown with the
	// header's fixed RA offset, or libsframe's error value -1.
	raOff, raOffOK := word(3)
	if !raOffOK {
		raOff = -1
		if s.CFAFixedRAOffset != 0 {
			raOff = int32(s.CFAFixedRAOffset)
		}
	}

	fpIdx := 4
	if raCtlOK && raCtl == 0 {
		fpIdx = 3 // RA padding word
	}
	fpCtl, fpCtlOK := fre.uword(fpIdx), n > fpIdx
	fpOff, fpOffOK := word(fpIdx + 1)
	if !fpOffOK && s.CFAFixedFPOffset != 0 {
		fpOff, fpOffOK = int32(s.CFAFixedFPOffset), true
	}

	mark := len(b)
	b = append(b, "  "...)
	b = d.appendFlexRule(b, cfaCtl, cfaOff)
	b = pad(b, mark+2, 10)

	mark = len(b)
	if fpCtlOK && fpOffOK {
		b = d.appendFlexRule(b, fpCtl, fpOff)
	} else {
		b = append(b, 'u')
	}
	b = pad(b, mark, 10)

	mark = len(b)
	switch {
	case !raCtlOK && s.CFAFixedRAOffset != 0:
		b = append(b, 'f')
	case !raCtlOK:
		b = append(b, 'u')
	case raCtl == 0:
		b = append(b, 'U')
	default:
		b = d.appendFlexRule(b, raCtl, raOff)
	}
	return d.mangled(b, mark, fre)
}

// appendFlexRule appends one FLEX rule: "reg+off", "(reg+off)" or, when the
// control word has no register, "c+off" (objdump shows deref_p only for
// register-based rules).
func (d *textDumper) appendFlexRule(b []byte, ctl uint32, off int32) []byte {
	if ctl&flexRegP == 0 {
		return appendCOffset(b, off)
	}
	deref := ctl&flexDerefP != 0
	if deref {
		b = append(b, '(')
	}
	reg := ctl >> 3
	switch {
	case rule.Reg(reg) == d.s.ABI.SPReg():
		b = append(b, "sp"...)
	case rule.Reg(reg) == d.s.ABI.FPReg():
		b = append(b, "fp"...)
	default:
		b = append(b, 'r')
		b = strconv.AppendUint(b, uint64(reg), 10)
	}
	b = appendSigned(b, off)
	if deref {
		b = append(b, ')')
	}
	return b
}

// cfaOffset returns the CFA offset data word (word 1 of a DEFAULT FRE, word
// 2 of a FLEX one), undoing the s390x scaling (spec v3 §3.1.3) with the
// 32-bit arithmetic of libsframe.
func (d *textDumper) cfaOffset(fre *FRE, flex bool) int32 {
	w := fre.Words[0]
	if flex {
		w = fre.Words[1]
	}
	if d.s.ABI == ABIS390XBigEndian {
		w = w*S390XCFAOffsetAlignFactor - S390XCFAOffsetAdjustment
	}
	return w
}

// mangled appends the "[s]" (or blank) RA suffix and pads the RA column.
func (d *textDumper) mangled(b []byte, mark int, fre *FRE) []byte {
	if fre.Info.MangledRA() {
		b = append(b, "[s]"...)
	} else {
		b = append(b, "   "...)
	}
	return pad(b, mark, 13)
}

// pad appends spaces until b[mark:] is at least width bytes long (printf's
// "%-Ns").
func pad(b []byte, mark, width int) []byte {
	for len(b)-mark < width {
		b = append(b, ' ')
	}
	return b
}

// appendCOffset appends "c%+d".
func appendCOffset(b []byte, off int32) []byte {
	b = append(b, 'c')
	return appendSigned(b, off)
}

// appendSigned appends "%+d".
func appendSigned(b []byte, v int32) []byte {
	if v >= 0 {
		b = append(b, '+')
	}
	return strconv.AppendInt(b, int64(v), 10)
}

// appendHex16 appends v as 16 zero-padded lower-case hex digits ("%016lx").
func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	var buf [16]byte
	for i := 15; i >= 0; i-- {
		buf[i] = digits[v&0xf]
		v >>= 4
	}
	return append(b, buf[:]...)
}

// jsonSchemaVersion is the "schema_version" of the documents WriteJSON
// writes. It changes when a field changes meaning or goes away; adding
// fields does not change it.
const jsonSchemaVersion = 1

// WriteJSON writes the section as one JSON document holding what WriteText
// shows and more: raw fields, byte offsets and the interpreted rules; for
// a sequence (lld), one document per section, each on one line (JSON
// Lines), with byte offsets in that section. All
// addresses, offsets, sizes and counts are JSON numbers (addresses are
// unsigned 64-bit integers and may exceed 2^53; decode them as such). Byte
// offsets count from the first byte of the section.
//
// Schema (version 1):
//
//	{
//	  "schema_version": 1,
//	  "section": {"address": VMA of byte 0, "size": bytes,
//	              "byte_order": "little" | "big"},
//	  "header": {                                     // spec §2.1, §2.2
//	    "format": "ctf_frame" only for a CTF Frame section (ParseCTFAt; the
//	              rest then describes its SFrame v1 form),
//	    "magic": 57058, "version": 1|2|3, "version_name": "SFRAME_VERSION_3",
//	    "flags": raw byte, "flag_names": ["SFRAME_F_FDE_SORTED", ...],
//	    "abi": raw byte, "abi_name": "AMD64 LITTLE ENDIAN",
//	    "cfa_fixed_fp_offset": bytes, "cfa_fixed_ra_offset": bytes (0: none),
//	    "auxhdr_len": bytes, "header_len": bytes (with the auxiliary header),
//	    "num_fdes": n, "num_fres": n, "fre_len": bytes,
//	    "fde_off": n, "fre_off": n,        // raw: from the end of the header
//	    "fre_subsection_offset": byte offset of the FRE sub-section
//	  },
//	  "fdes": [{                                      // spec §2.3
//	    "index": position in the FDE sub-section,
//	    "offset": byte offset of the FDE (v3: of its index entry),
//	    "start": function start address, "end": first address past it,
//	    "start_field": raw signed start-address field, "size": bytes,
//	    "fre_off": raw FRE offset field (v3: of the FDE attribute),
//	    "first_fre_offset": byte offset of the first FRE,
//	    "num_fres": n, "info": raw byte, "info2": raw byte (v3, else 0),
//	    "rep_size": bytes of the repeated block (PCTYPE_MASK),
//	    "pc_type": "SFRAME_FDE_PCTYPE_INC" | "SFRAME_FDE_PCTYPE_MASK",
//	    "fde_type": "SFRAME_FDE_TYPE_DEFAULT" | "SFRAME_FDE_TYPE_FLEX",
//	    "fre_type": "SFRAME_FRE_TYPE_ADDR1" | "..._ADDR2" | "..._ADDR4",
//	    "pauth_key": "A" | "B", "signal": bool,
//	    "fres": [{                                    // spec §2.4, §3
//	      "index": position in the FDE, "offset": byte offset, "size": bytes,
//	      "start_offset": raw start offset, "start": address of the first
//	        PC covered (for PCTYPE_MASK: in the first repeated block),
//	      "info": raw byte, "cfa_base_reg": "fp" | "sp",
//	      "dataword_count": n, "dataword_size": bytes, "mangled_ra": bool,
//	      "datawords": [signed values as stored],
//	      "outermost": bool (no data words: RA undefined),
//	      "topmost_only": bool (a rule reads a register only the topmost
//	        frame has),
//	      "cfa": RULE, "ra": RULE, "fp": RULE,
//	      "row_error": ERROR           // instead of the rules, when Row fails
//	    }],
//	    "error": ERROR                 // when the FREs could not all be decoded
//	  }]
//	}
//
// where RULE is how the caller's value is recovered (rule.Rule):
//
//	{"rule": "val-offset", "base": "reg", "reg": DWARF number, "offset": bytes}
//	{"rule": "offset", "base": "cfa", "offset": bytes}   // *(CFA + offset)
//	{"rule": "register", "base": "reg", "reg": DWARF number}
//	{"rule": "same-value"} | {"rule": "undefined"}
//
// and ERROR is {"offset": byte offset or -1, "message": text}.
//
// As with WriteText, an FDE whose FREs cannot be decoded gets an "error"
// member and the document goes on with the next FDE, so it stays valid JSON;
// WriteJSON then returns the first such *FormatError. Errors of w are
// returned as they are.
func (s *Section) WriteJSON(w io.Writer) error {
	if s.parts != nil {
		return s.writeSequence(w, false)
	}
	bw := dumpWriter(w)
	b := make([]byte, 0, 4096)
	b = append(b, `{"schema_version":`...)
	b = strconv.AppendInt(b, jsonSchemaVersion, 10)
	b = append(b, ",\n"...)
	b = append(b, `"section":{"address":`...)
	b = strconv.AppendUint(b, s.Addr, 10)
	b = jsonInt(b, "size", int64(len(s.data)))
	if s.ByteOrder == binary.BigEndian {
		b = append(b, `,"byte_order":"big"},`...)
	} else {
		b = append(b, `,"byte_order":"little"},`...)
	}
	b = append(b, "\n"...)
	b = s.jsonHeader(b)
	b = append(b, ",\n\"fdes\":["...)
	var first error
	left := s.freBudget()
	for i := range s.fdes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		var err error
		b, err = s.jsonFDE(b, &s.fdes[i], bw, &left)
		if err != nil && first == nil {
			first = err
		}
		if len(b) > dumpBufSize/2 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, "]}\n"...)
	bw.Write(b)
	if err := bw.Flush(); err != nil {
		return err
	}
	return s.errFor(first)
}

func (s *Section) jsonHeader(b []byte) []byte {
	h := &s.Header
	b = append(b, `"header":{"magic":`...)
	b = strconv.AppendUint(b, uint64(h.Magic), 10)
	if s.CTFFrame {
		b = jsonStr(b, "format", "ctf_frame")
	}
	b = jsonInt(b, "version", int64(h.Version))
	b = jsonStr(b, "version_name", h.Version.String())
	b = jsonInt(b, "flags", int64(h.Flags))
	b = append(b, `,"flag_names":[`...)
	for i, n := range h.Flags.Names() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, n)
	}
	b = append(b, ']')
	b = jsonInt(b, "abi", int64(h.ABI))
	b = jsonStr(b, "abi_name", h.ABI.String())
	b = jsonInt(b, "cfa_fixed_fp_offset", int64(h.CFAFixedFPOffset))
	b = jsonInt(b, "cfa_fixed_ra_offset", int64(h.CFAFixedRAOffset))
	b = jsonInt(b, "auxhdr_len", int64(h.AuxHdrLen))
	b = jsonInt(b, "header_len", int64(h.HeaderLen()))
	b = jsonInt(b, "num_fdes", int64(h.NumFDEs))
	b = jsonInt(b, "num_fres", int64(h.NumFREs))
	b = jsonInt(b, "fre_len", int64(h.FRELen))
	b = jsonInt(b, "fde_off", int64(h.FDEOff))
	b = jsonInt(b, "fre_off", int64(h.FREOff))
	b = jsonInt(b, "fre_subsection_offset", int64(s.freSub))
	return append(b, '}')
}

// jsonFDE appends one FDE object with its FREs; bw takes the buffer when it
// grows large, left is the FRE budget (freBudget). It returns the error that
// stopped FRE decoding, if any.
func (s *Section) jsonFDE(b []byte, f *FDE, bw io.Writer, left *int64) ([]byte, error) {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(f.Index), 10)
	b = jsonInt(b, "offset", int64(f.Off))
	b = append(b, `,"start":`...)
	b = strconv.AppendUint(b, f.Start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendUint(b, f.End(), 10)
	b = jsonInt(b, "start_field", f.StartField)
	b = jsonInt(b, "size", int64(f.Size))
	b = jsonInt(b, "fre_off", int64(f.FREOff))
	b = jsonInt(b, "first_fre_offset", int64(f.firstFRE))
	b = jsonInt(b, "num_fres", int64(f.NumFREs))
	b = jsonInt(b, "info", int64(f.Info))
	b = jsonInt(b, "info2", int64(f.Info2))
	b = jsonInt(b, "rep_size", int64(f.RepSize))
	b = jsonStr(b, "pc_type", f.PCType.String())
	b = jsonStr(b, "fde_type", f.Type.String())
	b = jsonStr(b, "fre_type", f.FREType.String())
	b = jsonStr(b, "pauth_key", f.PAuthKey.String())
	b = jsonBool(b, "signal", f.Signal)
	b = append(b, `,"fres":[`...)
	it := s.FREs(f)
	var err error
	for it.Next() {
		if *left--; *left < 0 {
			err = s.overBudget(f)
			break
		}
		if it.Index() > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = s.jsonFRE(b, f, it.FRE(), it.Index(), it.End())
		if len(b) > dumpBufSize/2 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, ']')
	if err == nil {
		err = it.Err()
	}
	if err != nil {
		b = append(b, `,"error":`...)
		b = jsonError(b, err)
	}
	return append(b, '}'), err
}

func (s *Section) jsonFRE(b []byte, f *FDE, fre *FRE, idx int, end uint32) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(idx), 10)
	b = jsonInt(b, "offset", int64(fre.Off))
	b = jsonInt(b, "size", int64(end-fre.Off))
	b = jsonInt(b, "start_offset", int64(fre.StartOff))
	b = append(b, `,"start":`...)
	b = strconv.AppendUint(b, f.Start+uint64(fre.StartOff), 10)
	b = jsonInt(b, "info", int64(fre.Info))
	b = jsonStr(b, "cfa_base_reg", fre.Info.BaseReg().String())
	n := fre.NumWords()
	b = jsonInt(b, "dataword_count", int64(n))
	b = jsonInt(b, "dataword_size", int64(fre.Info.DataWordSize().Bytes()))
	b = jsonBool(b, "mangled_ra", fre.Info.MangledRA())
	b = append(b, `,"datawords":[`...)
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(fre.Words[k]), 10)
	}
	b = append(b, ']')
	row, err := s.Row(f, fre)
	b = jsonBool(b, "outermost", row.Outermost)
	b = jsonBool(b, "topmost_only", row.TopmostOnly)
	if err != nil {
		b = append(b, `,"row_error":`...)
		b = jsonError(b, err)
		return append(b, '}')
	}
	// An outermost FRE has all three rules undefined (Row's zero rules).
	b = append(b, `,"cfa":`...)
	b = jsonRule(b, row.CFA)
	b = append(b, `,"ra":`...)
	b = jsonRule(b, row.RA)
	b = append(b, `,"fp":`...)
	b = jsonRule(b, row.FP)
	return append(b, '}')
}

func jsonRule(b []byte, r rule.Rule) []byte {
	b = append(b, `{"rule":`...)
	b = appendJSONString(b, r.Kind.String())
	switch r.Kind {
	case rule.Offset, rule.ValOffset:
		if r.Reg == rule.CFA {
			b = append(b, `,"base":"cfa"`...)
		} else {
			b = append(b, `,"base":"reg","reg":`...)
			b = strconv.AppendInt(b, int64(r.Reg), 10)
		}
		b = jsonInt(b, "offset", r.Offset)
	case rule.Register:
		b = append(b, `,"base":"reg","reg":`...)
		b = strconv.AppendInt(b, int64(r.Reg), 10)
	}
	return append(b, '}')
}

func jsonError(b []byte, err error) []byte {
	off, msg := int64(-1), err.Error()
	var fe *FormatError
	if errors.As(err, &fe) {
		off, msg = fe.Off, fe.Msg
	}
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, off, 10)
	b = jsonStr(b, "message", msg)
	return append(b, '}')
}

// jsonInt appends `,"key":v`.
func jsonInt(b []byte, key string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// jsonStr appends `,"key":"v"`.
func jsonStr(b []byte, key, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendJSONString(b, v)
}

// jsonBool appends `,"key":v`.
func jsonBool(b []byte, key string, v bool) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendBool(b, v)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
