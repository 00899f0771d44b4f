package sframe

import (
	"errors"
	"fmt"
	"strings"
)

// Consumer is a program that reads SFrame sections and refuses those that
// break its rules.
type Consumer uint8

// Consumers whose acceptance rules sfdbg knows.
const (
	// ConsumerLinux is the Linux kernel's user-space SFrame unwinder (the
	// patch series, v13 of 27 Jan 2026 and later, kernel/unwind/sframe.c).
	// It drops the whole section on any fault.
	ConsumerLinux Consumer = iota + 1
	// ConsumerLibsframe is libsframe of binutils 2.47 (libsframe/sframe.c),
	// whose decoder glibc's backtrace follows.
	ConsumerLibsframe
)

func (c Consumer) String() string {
	switch c {
	case ConsumerLinux:
		return "linux"
	case ConsumerLibsframe:
		return "libsframe"
	}
	return fmt.Sprintf("Consumer(%d)", uint8(c))
}

// MarshalText implements encoding.TextMarshaler (JSON uses the short name).
func (c Consumer) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Title names the consumer and the version its rules are taken from.
func (c Consumer) Title() string {
	switch c {
	case ConsumerLinux:
		return "Linux user-space SFrame unwinder (series v13+)"
	case ConsumerLibsframe:
		return "libsframe 2.47 (glibc backtrace)"
	}
	return c.String()
}

// AcceptRule is one rule of a consumer: a stable short name and where the
// rule is enforced (source version and function).
type AcceptRule struct {
	Consumer Consumer `json:"consumer"`
	Name     string   `json:"rule"`
	Source   string   `json:"source"`
}

const (
	linuxSrc = "Linux SFrame series v13+, kernel/unwind/sframe.c "
	libSrc   = "binutils 2.47 libsframe/sframe.c "
)

// The rules of the Linux kernel's loader (series v13 and later; the rules
// as /work/shared/spec/consumers.md lists them). With
// CONFIG_SFRAME_VALIDATION every FDE and FRE is walked at registration;
// without it the same checks fail at unwind time and drop the section then.
var (
	ruleLinuxVersion = AcceptRule{ConsumerLinux, "version", linuxSrc + "sframe_read_header()"}
	ruleLinuxHeader  = AcceptRule{ConsumerLinux, "header", linuxSrc + "sframe_read_header()"}
	ruleLinuxArch    = AcceptRule{ConsumerLinux, "arch", "Linux SFrame series v13+, HAVE_UNWIND_USER_SFRAME (arch/x86/Kconfig; s390 in its own series)"}
	// v13's sframe_read_header() refuses a section without FDE_SORTED; a
	// later revision of the series looks FDEs up in unsorted sections too.
	ruleLinuxSorted      = AcceptRule{ConsumerLinux, "fde-sorted", linuxSrc + "sframe_read_header()"}
	ruleLinuxPCRel       = AcceptRule{ConsumerLinux, "fde-func-start-pcrel", linuxSrc + "sframe_read_header()"}
	ruleLinuxAuxHeader   = AcceptRule{ConsumerLinux, "no-aux-header", linuxSrc + "sframe_read_header()"}
	ruleLinuxCounts      = AcceptRule{ConsumerLinux, "non-zero-counts", linuxSrc + "sframe_read_header()"}
	ruleLinuxSubsections = AcceptRule{ConsumerLinux, "subsections-in-section", linuxSrc + "sframe_read_header()"}
	ruleLinuxFDEText     = AcceptRule{ConsumerLinux, "fde-in-text", linuxSrc + "__find_fde(), sframe_validate_section()"}
	ruleLinuxFDEOrder    = AcceptRule{ConsumerLinux, "fde-order", linuxSrc + "__find_fde() (binary search), sframe_validate_section()"}
	ruleLinuxFDEDecode   = AcceptRule{ConsumerLinux, "fde-decodable", linuxSrc + "__read_fde()"}
	ruleLinuxFREInside   = AcceptRule{ConsumerLinux, "fre-in-section", linuxSrc + "__read_fre()"}
	ruleLinuxFREInFunc   = AcceptRule{ConsumerLinux, "fre-start-in-function", linuxSrc + "__find_fre()"}
	ruleLinuxFREOrder    = AcceptRule{ConsumerLinux, "fre-order", linuxSrc + "__find_fre()"}
	ruleLinuxDataWords   = AcceptRule{ConsumerLinux, "fre-data-words", linuxSrc + "__read_fre()"}
)

// The rules of libsframe 2.47: what sframe_decode needs to return a decoder
// and what sframe_find_fre needs to look a PC up.
var (
	ruleLibHeaderSize = AcceptRule{ConsumerLibsframe, "header-size", libSrc + "sframe_decode()"}
	ruleLibMagic      = AcceptRule{ConsumerLibsframe, "magic", libSrc + "sframe_header_sanity_check_p()"}
	ruleLibVersion    = AcceptRule{ConsumerLibsframe, "version", libSrc + "sframe_header_sanity_check_p()"}
	ruleLibFlags      = AcceptRule{ConsumerLibsframe, "known-flags", libSrc + "sframe_header_sanity_check_p()"}
	ruleLibOffsets    = AcceptRule{ConsumerLibsframe, "fdeoff-le-freoff", libSrc + "sframe_header_sanity_check_p()"}
	ruleLibSorted     = AcceptRule{ConsumerLibsframe, "fde-sorted", libSrc + "sframe_find_fre()"}
	ruleLibWordSize   = AcceptRule{ConsumerLibsframe, "data-word-size", libSrc + "sframe_fre_sanity_check_p()"}
)

// Rejection is one failed rule: where (byte offset from the section start)
// and what.
type Rejection struct {
	AcceptRule
	Off int64  `json:"offset"`
	Msg string `json:"message"`
}

func (r Rejection) String() string {
	return fmt.Sprintf("%s: %s at byte %#x [%s]", r.Name, r.Msg, r.Off, r.Source)
}

// Acceptance is a consumer's verdict on a section: accepted when no rule
// fails. Rejections lists every failed rule (at most maxRejections per
// rule, in section order).
type Acceptance struct {
	Consumer   Consumer    `json:"consumer"`
	Accepted   bool        `json:"accepted"`
	Rejections []Rejection `json:"rejections,omitempty"`
	// Unseen says, for an ELF section holding several SFrame sections
	// back to back (lld), what the consumer never reads: both read the
	// first header only, and the verdict is on that first section.
	Unseen string `json:"unseen,omitempty"`
	// NotWalked says, when the FDEs list more FREs than the FRE
	// sub-section can hold (FDEs sharing FRE data), from which FDE on the
	// FRE rules were not applied: the walk stops at the budget a dump has
	// (Section.freBudget), so the verdict's work stays linear in the
	// section's size. Rejections before that FDE stand.
	NotWalked string `json:"not_walked,omitempty"`
}

// freWalk hands out the FREs the acceptance rules may decode in one
// section (Section.freBudget), and says where it ran out.
type freWalk struct {
	s    *Section
	left int64
}

func newFREWalk(s *Section) *freWalk { return &freWalk{s: s, left: s.freBudget()} }

// take reserves one FRE decode for FDE f; false once the budget is spent,
// after recording it in a.NotWalked.
func (w *freWalk) take(a *Acceptance, f *FDE) bool {
	if w.left > 0 {
		w.left--
		return true
	}
	if a.NotWalked == "" {
		a.NotWalked = fmt.Sprintf("FRE rules not applied from FDE %d (byte %#x) on: the FDEs list more FREs than the %d-byte FRE sub-section can hold (shared FRE data), and the walk stops there",
			f.Index, f.Off, w.s.freEnd-w.s.freSub)
	}
	return false
}

// firstPart returns, for a sequence (Section.Parts > 1), the bytes and
// parse of its first section, which is all a consumer reads, and a
// sentence naming what it does not; otherwise data and s unchanged.
func firstPart(data []byte, s *Section) ([]byte, *Section, string) {
	if s == nil || len(s.parts) < 2 {
		return data, s, ""
	}
	first := s.parts[0].s
	n := 0
	for _, p := range s.parts[1:] {
		n += len(p.s.fdes)
	}
	return data[:first.end()], first, fmt.Sprintf("reads only the first of the %d SFrame sections here: the %d FDEs of the others (from byte %#x) are invisible to it",
		len(s.parts), n, s.parts[1].off)
}

// maxRejections bounds how many failures of one rule are listed.
const maxRejections = 8

func (a *Acceptance) reject(r AcceptRule, off int64, format string, args ...any) {
	n := 0
	for _, x := range a.Rejections {
		if x.Name == r.Name {
			n++
		}
	}
	if n < maxRejections {
		a.Rejections = append(a.Rejections, Rejection{r, off, fmt.Sprintf(format, args...)})
	}
	a.Accepted = false
}

// TextRange is a half-open range [Start, End) of code addresses: what the
// kernel registers with a section (the executable PT_LOAD segment).
type TextRange struct{ Start, End uint64 }

// Accept runs the acceptance rules of the Linux kernel and of libsframe on
// the SFrame section data, whose first byte is at virtual address addr.
// text lists the code addresses FDEs may start in; nil skips that rule.
func Accept(data []byte, addr uint64, text []TextRange) []Acceptance {
	s, err := ParseAt(data, addr) // once for both: addr moves FDE starts, never an error
	return []Acceptance{acceptLinux(data, text, s, err), acceptLibsframe(data, s, err)}
}

// AcceptLinux applies the rules of the Linux kernel's user-space SFrame
// unwinder, series v13 and later (consumers.md): SFrame version 3;
// SFRAME_F_FDE_SORTED; no auxiliary header; non-zero FDE and FRE counts; FDE
// and FRE sub-sections inside the section, FREs after FDEs; every FDE start
// inside text (nil text: not checked) and FDE starts strictly increasing;
// every FDE attribute and FRE inside the FRE sub-section; FRE starts
// strictly increasing and, for PC-inc FDEs, at most the function size; FRE
// data-word count non-zero, word size 1, 2 or 4 bytes, and (DEFAULT FDEs)
// the count exactly what the header's fixed RA/FP offsets leave: CFA, RA
// unless fixed, FP unless fixed, so no more words than the header leaves
// to FREs; the architecture x86_64 or s390 (HAVE_UNWIND_USER_SFRAME).
func AcceptLinux(data []byte, addr uint64, text []TextRange) Acceptance {
	s, err := ParseAt(data, addr)
	return acceptLinux(data, text, s, err)
}

// acceptLinux is AcceptLinux on data already parsed by ParseAt (s, perr).
func acceptLinux(data []byte, text []TextRange, s *Section, perr error) Acceptance {
	a := Acceptance{Consumer: ConsumerLinux, Accepted: true}
	data, s, a.Unseen = firstPart(data, s)
	if len(data) < HeaderSize {
		a.reject(ruleLinuxSubsections, 0, "section of %d bytes is shorter than the %d-byte header", len(data), HeaderSize)
		return a
	}
	if perr != nil {
		var fe *FormatError
		off := int64(0)
		if errors.As(perr, &fe) {
			off = fe.Off
		}
		// The header rules still apply to the raw bytes where they can.
		if MagicOrder(data) == nil || data[2] != uint8(Version3) {
			a.reject(ruleLinuxVersion, 2, "not an SFrame version 3 section (version byte %d): %v", data[2], perr)
			return a
		}
		rule := ruleLinuxHeader
		if off == 20 || off == 24 || off == 7 {
			rule = ruleLinuxSubsections
		}
		a.reject(rule, off, "%s", formatMsg(perr))
		return a
	}
	h := &s.Header
	if h.Version != Version3 {
		a.reject(ruleLinuxVersion, 2, "version %d; the series reads SFRAME_VERSION_3 only", h.Version)
		return a // the FDE layout it reads is v3's
	}
	if h.ABI != ABIAMD64LittleEndian && h.ABI != ABIS390XBigEndian {
		a.reject(ruleLinuxArch, 4, "%v: the kernel unwinds user space with SFrame on x86_64 and s390 only", h.ABI)
	}
	if h.Flags&FlagFDESorted == 0 {
		a.reject(ruleLinuxSorted, 3, "SFRAME_F_FDE_SORTED is not set (flags %#x)", uint8(h.Flags))
	}
	if h.Flags&FlagFDEFuncStartPCRel == 0 {
		a.reject(ruleLinuxPCRel, 3, "SFRAME_F_FDE_FUNC_START_PCREL is not set (flags %#x): the v3 loader reads function starts relative to their field", uint8(h.Flags))
	}
	if h.AuxHdrLen != 0 {
		a.reject(ruleLinuxAuxHeader, 7, "auxiliary header of %d bytes", h.AuxHdrLen)
	}
	if h.NumFDEs == 0 {
		a.reject(ruleLinuxCounts, 8, "no FDEs")
	}
	if h.NumFREs == 0 {
		a.reject(ruleLinuxCounts, 12, "no FREs")
	}
	fdeEnd := uint64(h.HeaderLen()) + uint64(h.FDEOff) + uint64(h.NumFDEs)*uint64(h.FDESize())
	if uint64(s.freSub) < fdeEnd {
		a.reject(ruleLinuxSubsections, 24, "FRE sub-section at byte %#x starts before the end of the FDE sub-section (%#x)", s.freSub, fdeEnd)
	}
	if s.freClipped {
		a.reject(ruleLinuxSubsections, 24, "FRE sub-section (offset %#x, length %d) runs past the end of the %d-byte section", h.FREOff, h.FRELen, len(data))
	}
	var prev *FDE
	walk := newFREWalk(s)
	for i := range s.fdes {
		f := &s.fdes[i]
		if text != nil && !inText(text, f.Start) {
			a.reject(ruleLinuxFDEText, int64(f.Off), "FDE %d starts at %#x, outside the text range%s", i, f.Start, textList(text))
		}
		if prev != nil && f.Start <= prev.Start {
			a.reject(ruleLinuxFDEOrder, int64(f.Off), "FDE %d starts at %#x, not after FDE %d at %#x", i, f.Start, i-1, prev.Start)
		}
		prev = f
		if f.err != nil {
			a.reject(ruleLinuxFDEDecode, errOff(f.err, int64(f.Off)), "%s", formatMsg(f.err))
			continue
		}
		if f.Type != FDETypeDefault && f.Type != FDETypeFlex {
			a.reject(ruleLinuxFDEDecode, int64(f.infoOff(s))+1, "FDE %d: unknown FDE type %d", i, uint8(f.Type))
			continue
		}
		if a.NotWalked == "" { // past the budget only the FDE rules apply
			linuxFREs(&a, s, f, walk)
		}
	}
	return a
}

// linuxFREs applies the kernel's FRE rules to the FREs of f, as far as
// walk's budget goes (a.NotWalked says where it ran out).
func linuxFREs(a *Acceptance, s *Section, f *FDE, walk *freWalk) {
	// CFA, then RA unless the header fixes it, then FP unless fixed.
	maxWords := 1
	if s.CFAFixedRAOffset == 0 {
		maxWords++
	}
	if s.CFAFixedFPOffset == 0 {
		maxWords++
	}
	it := s.FREs(f)
	var prevStart uint32
	for walk.take(a, f) && it.Next() {
		fre, k := it.FRE(), it.Index()
		if f.PCType == PCTypeInc && fre.StartOff > f.Size {
			a.reject(ruleLinuxFREInFunc, int64(fre.Off), "FDE %d FRE %d starts at offset %#x, past the function size %#x", f.Index, k, fre.StartOff, f.Size)
		}
		if k > 0 && fre.StartOff <= prevStart {
			a.reject(ruleLinuxFREOrder, int64(fre.Off), "FDE %d FRE %d starts at offset %#x, not after FRE %d at %#x", f.Index, k, fre.StartOff, k-1, prevStart)
		}
		prevStart = fre.StartOff
		n := fre.NumWords()
		switch {
		case n == 0:
			a.reject(ruleLinuxDataWords, int64(fre.Off), "FDE %d FRE %d has no data words (an RA-undefined FRE)", f.Index, k)
		case f.Type == FDETypeDefault && n > maxWords:
			a.reject(ruleLinuxDataWords, int64(fre.Off), "FDE %d FRE %d has %d data words; with fixed RA offset %d and fixed FP offset %d the header allows at most %d",
				f.Index, k, n, s.CFAFixedRAOffset, s.CFAFixedFPOffset, maxWords)
		}
	}
	if err := it.Err(); err != nil {
		rule := ruleLinuxFREInside
		if fe := (*FormatError)(nil); errors.As(err, &fe) && isWordSizeErr(fe) {
			rule = ruleLinuxDataWords
		}
		a.reject(rule, errOff(err, int64(f.firstFRE)), "FDE %d: %s", f.Index, formatMsg(err))
	}
}

// AcceptLibsframe applies the rules of libsframe 2.47 (consumers.md):
// sframe_decode needs the buffer to hold the header, the magic in either
// byte order, version 1 to 3, no flag unknown to the version and
// sfh_fdeoff <= sfh_freoff; sframe_find_fre needs SFRAME_F_FDE_SORTED and
// data words of 1, 2 or 4 bytes. libsframe walks FDE and FRE bounds only
// when it swaps a foreign-endian section, so bounds are not its rules; an
// FRE may start at the function size (PR libsframe/33131).
func AcceptLibsframe(data []byte) Acceptance {
	s, err := Parse(data)
	return acceptLibsframe(data, s, err)
}

// acceptLibsframe is AcceptLibsframe on data already parsed (s, perr).
func acceptLibsframe(data []byte, s *Section, perr error) Acceptance {
	a := Acceptance{Consumer: ConsumerLibsframe, Accepted: true}
	data, s, a.Unseen = firstPart(data, s)
	if len(data) < HeaderSize {
		a.reject(ruleLibHeaderSize, 0, "section of %d bytes is shorter than the %d-byte header", len(data), HeaderSize)
		return a
	}
	bo := MagicOrder(data)
	if bo == nil {
		a.reject(ruleLibMagic, 0, "bad magic %#02x%02x", data[0], data[1])
		return a
	}
	v, fl := Version(data[2]), Flags(data[3])
	if v < Version1 || v > Version3 {
		a.reject(ruleLibVersion, 2, "version %d is not 1, 2 or 3", data[2])
		return a
	}
	if bad := fl &^ KnownFlags(v); bad != 0 {
		a.reject(ruleLibFlags, 3, "flags %#x unknown to version %d", uint8(bad), v)
	}
	if fdeoff, freoff := bo.Uint32(data[20:]), bo.Uint32(data[24:]); fdeoff > freoff {
		a.reject(ruleLibOffsets, 20, "sfh_fdeoff %#x is greater than sfh_freoff %#x", fdeoff, freoff)
	}
	if fl&FlagFDESorted == 0 {
		a.reject(ruleLibSorted, 3, "SFRAME_F_FDE_SORTED is not set: sframe_find_fre refuses to look PCs up")
	}
	if perr != nil {
		return a // not a libsframe rule: it does not walk the bounds
	}
	walk := newFREWalk(s)
	for i := range s.fdes {
		f := &s.fdes[i]
		it := s.FREs(f)
		for walk.take(&a, f) && it.Next() {
		}
		if a.NotWalked != "" {
			break
		}
		var fe *FormatError
		if err := it.Err(); errors.As(err, &fe) && isWordSizeErr(fe) {
			a.reject(ruleLibWordSize, fe.Off, "FDE %d: %s", i, fe.Msg)
		}
	}
	return a
}

// msgWordSize begins decodeFRE's message for an unknown data-word size.
const msgWordSize = "FRE has unknown data-word size"

// isWordSizeErr reports whether a decoding error is about an unknown
// data-word size (decodeFRE's message).
func isWordSizeErr(fe *FormatError) bool {
	return strings.HasPrefix(fe.Msg, msgWordSize)
}

func errOff(err error, def int64) int64 {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Off
	}
	return def
}

func formatMsg(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Msg
	}
	return err.Error()
}

func inText(text []TextRange, pc uint64) bool {
	for _, r := range text {
		if pc >= r.Start && pc < r.End {
			return true
		}
	}
	return false
}

func textList(text []TextRange) string {
	out := ""
	for i, r := range text {
		if i == 0 {
			out = " "
		} else {
			out += ", "
		}
		out += fmt.Sprintf("[%#x, %#x)", r.Start, r.End)
	}
	return out
}
