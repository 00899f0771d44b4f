package sframe

import (
	"errors"
	"fmt"
)

// CTF Frame is the pre-release name of SFrame: the format of the binutils
// patch series "[PATCH,V6 01/10] ctf-frame.h: Add CTF Frame format
// definition" (Indu Bhagat, 2 Aug 2022), in a section named ".ctf_frame".
// No released toolchain emitted it; it became SFrame version 1 (binutils
// 2.40). Its layout differs from SFrame version 1 in these points, and
// only these:
//
//   - Header: 27 bytes, not 28: there is no sfh_auxhdr_len byte (no
//     auxiliary header); cth_num_fdes and what follows start at byte 7.
//     Magic (0xdee2, byte order from it), version (CTF_FRAME_VERSION_1 = 1),
//     flags (CTF_FRAME_F_FDE_SORTED 0x1, CTF_FRAME_F_FRAME_POINTER 0x2), ABI
//     numbering (1-3: AArch64 BE, AArch64 LE, AMD64) and the fixed FP/RA
//     offsets are as in v1. The magic and version are v1's too, so only the
//     section name tells the two apart.
//   - FDE (17 bytes, fields as in v1): ctf_func_start_address is relative to
//     the FDE itself, not to the start of the section.
//   - FDE info byte: the FRE type numbering starts at 1
//     (CTF_FRAME_ROW_ENTRY_TYPE_ADDR1/2/4 = 1, 2, 3; v1: 0, 1, 2); bit 4 is
//     the FDE type (PCINC 0, PCMASK 1) as in v1; bits 5-7 are unused (v1:
//     bit 5 is the AArch64 PAuth key). A PCMASK FDE has no repetition size;
//     as for v1, 16 is implied.
//   - FRE offsets are ordered CFA, FP, RA (v1: CFA, RA, FP), each present
//     only where the header does not fix it: on AMD64 (RA fixed) that is the
//     same as v1; on AArch64 the FP and RA words swap.
//   - FRE info byte: bit 7 is unused (v1: the AArch64 mangled-RA bit).
//
// FRE start-address fields, the info byte's base register (FP 0, SP 1),
// offset count and offset size (1, 2 or 4 bytes) are as in v1.
//
// ParseCTFAt reads such a section by rewriting it into the equivalent SFrame
// v1 image and parsing that, so that lookups, rows, validation and checks
// treat it as v1; Section.CTFFrame is set and WriteText prints it as the
// same-era objdump would.

// CTF Frame constants ("ctf-frame.h", patch V6).
const (
	CTFFrameSectionName = ".ctf_frame" // section name
	CTFFrameVersion1    = 1            // CTF_FRAME_VERSION_1
	CTFFrameHeaderSize  = 27           // ctf_frame_header
	CTFFrameFDESize     = 17           // ctf_frame_func_desc_entry
)

// CTFFrameFREType is the FRE type of a CTF Frame FDE: the width of the FRE
// start-address field, numbered from 1.
type CTFFrameFREType uint8

// CTF Frame FRE types.
const (
	CTFFrameFRETypeAddr1 CTFFrameFREType = 1 // CTF_FRAME_ROW_ENTRY_TYPE_ADDR1
	CTFFrameFRETypeAddr2 CTFFrameFREType = 2 // CTF_FRAME_ROW_ENTRY_TYPE_ADDR2
	CTFFrameFRETypeAddr4 CTFFrameFREType = 3 // CTF_FRAME_ROW_ENTRY_TYPE_ADDR4
)

// SFrame returns the SFrame v1 FRE type of the same width, and false for an
// unknown type.
func (t CTFFrameFREType) SFrame() (FREType, bool) {
	if t < CTFFrameFRETypeAddr1 || t > CTFFrameFRETypeAddr4 {
		return 0, false
	}
	return FREType(t - 1), true
}

func (t CTFFrameFREType) String() string {
	if ft, ok := t.SFrame(); ok {
		return fmt.Sprintf("CTF_FRAME_ROW_ENTRY_TYPE_ADDR%d", ft.Size())
	}
	return fmt.Sprintf("CTF_FRAME_ROW_ENTRY_TYPE(%d)", uint8(t))
}

// CTFFrameOffsetOrder returns the order of the tracked offsets in a CTF
// Frame FRE ("cfa", "fp", "ra") for the header's fixed offsets (fp and ra
// non-zero when fixed), and SFrameV1OffsetOrder the order in an SFrame v1
// FRE.
func CTFFrameOffsetOrder(fixedFP, fixedRA int8) []string {
	o := []string{"cfa"}
	if fixedFP == 0 {
		o = append(o, "fp")
	}
	if fixedRA == 0 {
		o = append(o, "ra")
	}
	return o
}

// SFrameV1OffsetOrder: see CTFFrameOffsetOrder.
func SFrameV1OffsetOrder(fixedFP, fixedRA int8) []string {
	o := []string{"cfa"}
	if fixedRA == 0 {
		o = append(o, "ra")
	}
	if fixedFP == 0 {
		o = append(o, "fp")
	}
	return o
}

// ReorderOffsets returns, for an FRE with n offsets, perm such that offset
// i of the to-order is offset perm[i] of the from-order (offsets beyond the
// orders keep their place). ok is false when the offsets present in from
// are not a prefix of to (a CTF Frame FRE that tracks FP but not RA, where
// neither is fixed, has no SFrame v1 form).
func ReorderOffsets(n int, from, to []string) (perm []int, ok bool) {
	perm = make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	if n > len(from) {
		return perm, len(from) == len(to)
	}
	present := from[:n]
	for i := 0; i < n; i++ {
		j := -1
		for k, name := range present {
			if name == to[i] {
				j = k
			}
		}
		if j < 0 {
			return nil, false
		}
		perm[i] = j
	}
	return perm, true
}

// ParseCTFAt decodes the CTF Frame section data (".ctf_frame"), whose first
// byte is at virtual address addr. It checks the preamble and header
// against len(data), rewrites the section into its SFrame v1 form (see
// above) and parses that with ParseAt. Errors are *FormatErrors with byte
// offsets in data. The returned Section has CTFFrame set; its Data, FDE.Off,
// FRE.Off and Validate's offsets are in the v1 image, which is data with a
// zero auxiliary-header length byte inserted at byte 7: offsets past byte 7
// are one more than in data.
func ParseCTFAt(data []byte, addr uint64) (*Section, error) {
	s, err := parseCTFAt(data, addr)
	var fe *FormatError
	if errors.As(err, &fe) {
		return nil, &FormatError{Off: fe.Off, Msg: fe.Msg, Section: CTFFrameSectionName}
	}
	return s, err
}

// errFor names the section and format of a *FormatError from a method of s
// (FindFRERange, RowInto, FREs, WriteText, WriteJSON): for a CTF Frame
// section, .ctf_frame, with the offset in the section's own bytes rather
// than in its v1 image. Other errors, and all of an SFrame section's, are
// returned as they are.
func (s *Section) errFor(err error) error {
	if err == nil || !s.CTFFrame {
		return err
	}
	fe, ok := err.(*FormatError) // the methods' own errors, never wrapped
	if !ok || fe.Section != "" {
		return err
	}
	off := fe.Off
	if off > 7 {
		off-- // the v1 image's auxiliary-header length byte
	}
	return &FormatError{Off: off, Msg: fe.Msg, Section: CTFFrameSectionName}
}

func parseCTFAt(data []byte, addr uint64) (*Section, error) {
	if len(data) < PreambleSize {
		return nil, formatErr(0, "CTF Frame section of %d bytes is too short for the preamble", len(data))
	}
	bo := MagicOrder(data)
	if bo == nil {
		return nil, formatErr(0, "bad magic %#02x%02x, want 0xdee2 in either byte order", data[0], data[1])
	}
	if data[2] != CTFFrameVersion1 {
		return nil, formatErr(2, "unsupported CTF Frame version %d", data[2])
	}
	if len(data) < CTFFrameHeaderSize {
		return nil, formatErr(0, "CTF Frame section of %d bytes is too short for the %d-byte header", len(data), CTFFrameHeaderSize)
	}
	img := make([]byte, len(data)+1)
	copy(img, data[:7])
	copy(img[8:], data[7:])
	fixedFP, fixedRA := int8(img[5]), int8(img[6])
	numFDEs := bo.Uint32(img[8:])
	freLen, fdeOff, freOff := bo.Uint32(img[16:]), bo.Uint32(img[20:]), bo.Uint32(img[24:])
	size := uint64(len(img))
	fdeStart := uint64(HeaderSize) + uint64(fdeOff)
	// The sub-sections against the section's own size and fields (ParseAt
	// would name the image's).
	if fdeStart > size || uint64(numFDEs)*CTFFrameFDESize > size-fdeStart {
		return nil, formatErr(19, "FDE sub-section (offset %#x, %d FDEs of %d bytes) runs past the end of the %d-byte section", fdeOff, numFDEs, CTFFrameFDESize, len(data))
	}
	freStart := uint64(HeaderSize) + uint64(freOff)
	if freStart > size || uint64(freLen) > size-freStart {
		return nil, formatErr(23, "FRE sub-section (offset %#x, length %d) runs past the end of the %d-byte section", freOff, freLen, len(data))
	}
	types := make([]FREType, numFDEs) // bounded: numFDEs*17 <= len(data)
	for i := range types {
		off := fdeStart + uint64(i)*CTFFrameFDESize
		field := int64(int32(bo.Uint32(img[off:])))
		v1 := int64(off-1) + field // section-relative start
		if v1 != int64(int32(v1)) {
			return nil, formatErr(int64(off-1), "CTF Frame FDE %d: function start %d bytes from the FDE is out of range of an SFrame v1 start field", i, field)
		}
		bo.PutUint32(img[off:], uint32(int32(v1)))
		info := img[off+16]
		t, ok := CTFFrameFREType(info & 0xf).SFrame()
		if !ok {
			t = 0xf // unknown in v1 too: the FDE's FREs are not decoded
		}
		types[i] = t
		img[off+16] = uint8(t) | info&0x10
	}
	if err := ctfReorderFREs(img, bo.Uint32, freStart, freStart+uint64(freLen), fdeStart, types, fixedFP, fixedRA); err != nil {
		return nil, err
	}
	s, err := ParseAt(img, addr)
	if err == nil && s.freClipped {
		// No reader of the pre-release format read past its header's FRE
		// sub-section; nothing says how one would have.
		return nil, formatErr(23, "FRE sub-section (offset %#x, length %d) runs past the end of the %d-byte section", s.FREOff, s.FRELen, len(data))
	}
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Off > 7 {
			fe.Off--
		}
		return nil, err
	}
	s.CTFFrame = true
	return s, nil
}

// ctfReorderFREs rewrites, in the v1 image img, the FREs of every FDE from
// CTF Frame's offset order to v1's and clears the unused bit 7 of their
// info bytes. FREs are walked only while they lie inside [freStart,
// freEnd); ParseAt reports the rest. Each FRE is rewritten once even when
// FDEs share FREs.
func ctfReorderFREs(img []byte, u32 func([]byte) uint32, freStart, freEnd, fdeStart uint64, types []FREType, fixedFP, fixedRA int8) error {
	from, to := CTFFrameOffsetOrder(fixedFP, fixedRA), SFrameV1OffsetOrder(fixedFP, fixedRA)
	seen := map[uint64]bool{}
	var tmp [MaxDataWords * 4]byte
	for i, t := range types {
		as := uint64(t.Size())
		if as == 0 {
			continue
		}
		off := fdeStart + uint64(i)*CTFFrameFDESize
		pos := freStart + uint64(u32(img[off+8:]))
		for k := uint32(0); k < u32(img[off+12:]); k++ {
			if pos+as+1 > freEnd || seen[pos] {
				break
			}
			info := FREInfo(img[pos+as])
			n, ws := info.DataWordCount(), uint64(info.DataWordSize().Bytes())
			end := pos + as + 1 + uint64(n)*ws
			if ws == 0 || end > freEnd {
				break
			}
			seen[pos] = true
			img[pos+as] = uint8(info &^ 0x80)
			perm, ok := ReorderOffsets(n, from, to)
			if !ok {
				return formatErr(int64(pos-1), "CTF Frame FDE %d FRE %d: %d offsets track FP but not RA, which SFrame v1 cannot express", i, k, n)
			}
			words := img[pos+as+1 : end]
			copy(tmp[:], words)
			for j, p := range perm {
				copy(words[uint64(j)*ws:uint64(j+1)*ws], tmp[uint64(p)*ws:uint64(p+1)*ws])
			}
			pos = end
		}
	}
	return nil
}
