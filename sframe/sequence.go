package sframe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A sequence is what ParseAt returns for several SFrame sections stored
// back to back in one ELF section, as lld links them: it copies each
// input's .sframe into the output unchanged (aligned to the input
// section's 8 bytes) instead of merging them as GNU ld does, so one
// output section holds one SFrame header per input object. Nothing in the
// format describes this; each part is a complete section whose offsets
// count from its own first byte and whose FDE starts (with
// SFRAME_F_FDE_FUNC_START_PCREL, which LLVM sets) are relative to their
// own fields, so each part decodes on its own at its own address.
//
// The sequence's FDEs are all the parts' FDEs in part order, numbered
// from 0 across parts, with Off the byte offset in the whole data; its
// Header is the first part's with NumFDEs, NumFREs and FRELen summed.
// Methods taking an FDE of the sequence (FREs, FindFRE, Row, ...) run on
// its part; FRE offsets (FRE.Off) count from the part's first byte.
// Validate reports each part's problems at offsets in the whole data;
// WriteText and WriteJSON print the parts one after another.

// seqAlign is the alignment of the parts of a sequence in bytes: the
// sh_addralign of the .sframe sections GNU as and LLVM write.
const seqAlign = 8

// maxParts bounds the parts of a sequence: every part takes at least a
// header, so len(data)/HeaderSize bounds them anyway.
func maxParts(n int) int { return n/HeaderSize + 1 }

// part is one section of a sequence.
type part struct {
	s   *Section
	off uint32 // byte offset of its first byte in the sequence's data
}

// end returns the offset, from the section's first byte, just past its
// last sub-section.
func (s *Section) end() uint64 {
	fdeEnd := uint64(s.HeaderLen()) + uint64(s.FDEOff) + uint64(s.NumFDEs)*uint64(s.FDESize())
	return max(fdeEnd, uint64(s.freEnd))
}

// parseSequence returns first, parsed from data, or, when further sections
// follow it in data (see ParseAt), the sequence of all of them. A further
// section that does not parse is a *FormatError at its offset in data.
func parseSequence(first *Section, data []byte, addr uint64) (*Section, error) {
	parts := []part{{s: first}}
	end := first.end()
	for len(parts) < maxParts(len(data)) {
		next := (end + seqAlign - 1) &^ (seqAlign - 1)
		if next+PreambleSize > uint64(len(data)) || !allZero(data[end:next]) || MagicOrder(data[next:]) != first.ByteOrder {
			break
		}
		p, err := parseOne(data[next:], addr+next)
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				return nil, formatErr(fe.Off+int64(next), "SFrame section %d of a sequence (at byte %#x): %s", len(parts)+1, next, fe.Msg)
			}
			return nil, err
		}
		p.data = p.data[:p.end()]
		parts = append(parts, part{s: p, off: uint32(next)})
		end = next + p.end()
	}
	if len(parts) == 1 {
		return first, nil
	}
	first.data = first.data[:first.end()] // so that its Validate sees no trailing data
	seq := &Section{Header: first.Header, ByteOrder: first.ByteOrder, Addr: addr, data: data, rules: first.rules, parts: parts}
	h := &seq.Header
	h.NumFDEs, h.NumFREs, h.FRELen = 0, 0, 0
	n := 0
	for _, p := range parts {
		n += len(p.s.fdes)
	}
	seq.fdes = make([]FDE, 0, n) // bounded: each part's FDEs were checked against its bytes
	for pi, p := range parts {
		h.NumFDEs += p.s.NumFDEs
		h.NumFREs += p.s.NumFREs
		h.FRELen += p.s.FRELen
		for _, f := range p.s.fdes {
			f.part, f.local = int32(pi), int32(f.Index)
			f.Index, f.Off = len(seq.fdes), f.Off+p.off
			seq.fdes = append(seq.fdes, f)
		}
	}
	seq.indexByPC(false)
	return seq, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Parts returns the number of SFrame sections s was read from: 1, or the
// length of a sequence (ParseAt).
func (s *Section) Parts() int {
	if s.parts == nil {
		return 1
	}
	return len(s.parts)
}

// partOf returns the section and the FDE (of that section) that fde, an
// FDE of s, belongs to, and the byte offset of that section in s: fde
// itself in s, at 0, unless s is a sequence. Offsets inside a part are
// the part's own; the public methods add base to what they return.
func (s *Section) partOf(fde *FDE) (part *Section, local *FDE, base uint32) {
	if s.parts == nil || int(fde.part) >= len(s.parts) {
		return s, fde, 0
	}
	pt := s.parts[fde.part]
	if int(fde.local) >= len(pt.s.fdes) {
		return s, fde, 0
	}
	return pt.s, &pt.s.fdes[fde.local], pt.off
}

// shiftErr moves the offset of a *FormatError of a part by base, to an
// offset in the whole sequence; other errors are returned as they are.
func shiftErr(err error, base uint32) error {
	var fe *FormatError
	if base == 0 || !errors.As(err, &fe) {
		return err
	}
	return &FormatError{Off: fe.Off + int64(base), Msg: fe.Msg, Section: fe.Section}
}

// validateSequence is Validate for a sequence: each part's problems, with
// offsets in the whole data and FDE indices of the sequence.
func (s *Section) validateSequence() []Problem {
	var out []Problem
	first := 0
	for pi, p := range s.parts {
		for _, pr := range p.s.Validate() {
			pr.Off += int64(p.off)
			if pr.FDE >= 0 {
				pr.FDE += first
			}
			pr.Msg = fmt.Sprintf("SFrame section %d of %d (at byte %#x): %s", pi+1, len(s.parts), p.off, pr.Msg)
			out = append(out, pr)
		}
		first += len(p.s.fdes)
	}
	return out
}

// writeSequence writes each part with write (WriteText or WriteJSON),
// after a line naming it, and returns the first error.
func (s *Section) writeSequence(w io.Writer, text bool) error {
	var first error
	for pi, p := range s.parts {
		if text {
			fmt.Fprintf(w, "SFrame section %d of %d in this ELF section (a linker's concatenation), at byte %#x, address %#x:\n", pi+1, len(s.parts), p.off, p.s.Addr)
		}
		var err error
		if text {
			err = p.s.writeText(w, s.sectionName())
		} else {
			// JSON Lines: each part's document on one line.
			var b bytes.Buffer
			err = p.s.WriteJSON(&b)
			var line bytes.Buffer
			if cerr := json.Compact(&line, b.Bytes()); cerr != nil {
				return cerr
			}
			line.WriteByte('\n')
			if _, werr := w.Write(line.Bytes()); werr != nil {
				return werr
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
