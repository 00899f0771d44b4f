package sframetest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sfdbg/sfdbg/sframe"
)

// EncodeCTFFrame writes the section described by b in the layout of the
// pre-release CTF Frame format (".ctf_frame", patch series V6, Aug 2022;
// see package sframe's ParseCTFAt for every difference from SFrame v1). No
// toolchain that emits CTF Frame is available, so sfdbg's CTF Frame
// fixtures are written by this function. b describes the section as SFrame
// version 1 (b.Version must be 1, with no auxiliary header): FDESpec.FREType
// uses SFrame's numbering and is written plus 1, FRESpec.Words are in v1's
// order (CFA, RA, FP) and are written in CTF Frame's (CFA, FP, RA), function
// starts are written relative to each FDE. Only well-formed descriptions can
// be written.
func (b *Builder) EncodeCTFFrame() ([]byte, error) {
	if b.Version != sframe.Version1 {
		return nil, fmt.Errorf("sframetest: CTF Frame is written from a version 1 description, got version %d", b.Version)
	}
	if len(b.AuxHeader) != 0 || b.Override.AuxHdrLen != nil {
		return nil, errors.New("sframetest: CTF Frame has no auxiliary header")
	}
	v1, err := b.Encode()
	if err != nil {
		return nil, err
	}
	s, err := sframe.ParseAt(v1, b.Addr)
	if err != nil {
		return nil, fmt.Errorf("sframetest: CTF Frame needs a decodable description: %w", err)
	}
	img := slices.Clone(v1)
	bo := s.ByteOrder
	from := sframe.SFrameV1OffsetOrder(s.CFAFixedFPOffset, s.CFAFixedRAOffset)
	to := sframe.CTFFrameOffsetOrder(s.CFAFixedFPOffset, s.CFAFixedRAOffset)
	for i := range s.FDEs() {
		f := &s.FDEs()[i]
		field := int64(int32(bo.Uint32(img[f.Off:])))
		bo.PutUint32(img[f.Off:], uint32(int32(field-int64(f.Off-1)))) // relative to the FDE in the CTF layout
		img[f.Off+16] = (uint8(f.FREType) + 1) | f.Info&0x10
		frs, err := s.AllFREs(f)
		if err != nil {
			return nil, fmt.Errorf("sframetest: FDE %d: %w", i, err)
		}
		for k := range frs {
			r := &frs[k]
			n, ws := r.NumWords(), r.Info.DataWordSize().Bytes()
			perm, ok := sframe.ReorderOffsets(n, from, to)
			if !ok {
				return nil, fmt.Errorf("sframetest: FDE %d FRE %d: %d data words have no CTF Frame form", i, k, n)
			}
			at := int(r.Off) + f.FREType.Size() + 1
			words := img[at : at+n*ws]
			orig := slices.Clone(words)
			for j, p := range perm {
				copy(words[j*ws:(j+1)*ws], orig[p*ws:(p+1)*ws])
			}
		}
	}
	return append(img[:7:7], img[8:]...), nil
}
