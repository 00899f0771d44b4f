package sframetest

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/sfdbg/sfdbg/sframe"
)

// SpecFrom returns a Builder that encodes to the bytes of s: the header,
// FDEs and FREs of s with their exact FRE types, data-word sizes and info
// bytes, the FRE data in the order it has in the section, and any padding
// between the parts as raw bytes. Encode(SpecFrom(s)) reproduces s.Data()
// for every section whose FRE data starts at the beginning of the FRE
// sub-section and whose functions' FRE data do not overlap; SpecFrom
// returns an error for other layouts and for sections whose FREs cannot be
// decoded, and for a sequence of sections (s.Parts() > 1).
func SpecFrom(s *sframe.Section) (*Builder, error) {
	if n := s.Parts(); n > 1 {
		return nil, fmt.Errorf("a sequence of %d SFrame sections is not one Builder's output", n)
	}
	d := s.Data()
	h := &s.Header
	fdes := s.FDEs()
	b := &Builder{
		Version:          h.Version,
		ABI:              h.ABI,
		Flags:            h.Flags,
		CFAFixedFPOffset: h.CFAFixedFPOffset,
		CFAFixedRAOffset: h.CFAFixedRAOffset,
		Addr:             s.Addr,
		FDEs:             make([]FDESpec, len(fdes)),
	}
	if h.AuxHdrLen > 0 {
		b.AuxHeader = append([]byte(nil), d[sframe.HeaderSize:h.HeaderLen()]...)
	}
	if s.ABI.BigEndian() != (s.ByteOrder == binary.BigEndian) {
		b.ByteOrder = s.ByteOrder
	}
	// ParseAt has checked that the FDE sub-section lies inside the section.
	hl := uint32(h.HeaderLen())
	fdeStart := hl + h.FDEOff
	fdeEnd := fdeStart + uint32(len(fdes)*h.FDESize())
	freSub := hl + h.FREOff
	freEnd := freSub + h.FRELen
	if uint64(freSub)+uint64(h.FRELen) > uint64(len(d)) {
		// ParseAt reads such a section up to its end; its header cannot
		// be rebuilt from what was read.
		return nil, errors.New("sframetest: SpecFrom: the FRE sub-section runs past the end of the section")
	}
	if freSub < fdeEnd {
		return nil, errors.New("sframetest: SpecFrom: the FRE sub-section does not follow the FDE sub-section")
	}
	b.FDEPad = append([]byte(nil), d[hl:fdeStart]...)
	b.FREPad = append([]byte(nil), d[fdeEnd:freSub]...)
	b.Trailer = append([]byte(nil), d[freEnd:]...)

	// The byte range of each FDE's FRE data (v3: with its attribute).
	type block struct {
		fde        int
		start, end uint32 // from the section start
	}
	blocks := make([]block, len(fdes))
	var numFREs, decoded uint64
	for i := range fdes {
		f := &fdes[i]
		spec := FDESpec{
			Start:        f.Start,
			Size:         f.Size,
			PCType:       f.PCType,
			Type:         f.Type,
			FREType:      f.FREType,
			ExactFREType: true,
			RepSize:      f.RepSize,
			PAuthKey:     f.PAuthKey,
			Signal:       f.Signal,
		}
		if s.Version == sframe.Version1 {
			spec.RepSize = 0
		}
		if s.Version == sframe.Version2 {
			spec.Padding = s.ByteOrder.Uint16(d[f.Off+18:])
		}
		if info := spec.fdeInfo(f.FREType); info != f.Info {
			spec.Info = new(f.Info)
		}
		if s.Version == sframe.Version3 && f.Info2 != uint8(f.Type) {
			spec.Info2 = new(f.Info2)
		}
		if uint64(f.FREOff) > uint64(h.FRELen) {
			// An FDE without FREs is not read there, so ParseAt lets its
			// offset point anywhere; the encoder places FRE data in order.
			return nil, fmt.Errorf("sframetest: SpecFrom: FDE %d's FRE offset %#x lies past the %d-byte FRE sub-section", i, f.FREOff, h.FRELen)
		}
		end := freSub + f.FREOff // v1, v2: FRE data starts at the FRE offset
		if s.Version == sframe.Version3 {
			end += sframe.FDEAttrSize
		}
		it := s.FREs(f) // fails at once for an FDE whose FREs cannot be decoded
		for it.Next() {
			// FRE data that does not overlap holds at most one FRE per 2
			// bytes; more means FDEs share it, which SpecFrom rejects
			// below. Stopping here keeps the work linear.
			if decoded++; decoded > uint64(h.FRELen)/2 {
				return nil, errors.New("sframetest: SpecFrom: FDEs share FRE data")
			}
			r := it.FRE()
			fs := FRESpec{
				StartOff:      r.StartOff,
				BaseReg:       r.Info.BaseReg(),
				MangledRA:     r.Info.MangledRA(),
				Words:         append([]int32(nil), r.Words[:r.NumWords()]...),
				WordSize:      r.Info.DataWordSize(),
				ExactWordSize: true,
			}
			if MakeFREInfo(fs.BaseReg, len(fs.Words), fs.WordSize, fs.MangledRA) != r.Info {
				fs.Info = new(uint8(r.Info))
			}
			spec.FREs = append(spec.FREs, fs)
			end = it.End()
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("sframetest: SpecFrom: FDE %d: %w", i, err)
		}
		numFREs += uint64(f.NumFREs)
		blocks[i] = block{fde: i, start: freSub + f.FREOff, end: end}
		b.FDEs[i] = spec
	}
	if numFREs != uint64(h.NumFREs) {
		b.Override.NumFREs = new(h.NumFREs)
	}
	slices.SortStableFunc(blocks, func(x, y block) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.end, y.end))
	})
	at := freSub
	for k, bl := range blocks {
		if bl.start != at {
			if k == 0 || bl.start < at {
				return nil, fmt.Errorf("sframetest: SpecFrom: FRE data of FDE %d at FRE offset %#x overlaps or does not follow the previous function's (%#x)", bl.fde, bl.start-freSub, at-freSub)
			}
			prev := &b.FDEs[blocks[k-1].fde]
			prev.Trailer = append(prev.Trailer, d[at:bl.start]...)
		}
		b.FREOrder = append(b.FREOrder, bl.fde)
		at = bl.end
	}
	if at < freEnd {
		if len(blocks) == 0 {
			return nil, errors.New("sframetest: SpecFrom: FRE sub-section holds bytes but there are no FDEs")
		}
		last := &b.FDEs[blocks[len(blocks)-1].fde]
		last.Trailer = append(last.Trailer, d[at:freEnd]...)
	}
	inOrder := true
	for k, i := range b.FREOrder {
		inOrder = inOrder && k == i
	}
	if inOrder {
		b.FREOrder = nil
	}
	return b, nil
}
