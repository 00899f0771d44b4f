package debugger

import (
	"encoding/binary"
	"fmt"
)

// xstate is a thread's x87, SSE and AVX state, decoded from its XSAVE area
// in the standard (non-compacted) format: the legacy region as FXSAVE lays
// it out (Intel SDM vol. 1, 10.5.1, Table 10-2), the XSAVE header at byte
// 512 and the extended components at their offsets (13.4-13.5): AVX, and
// AVX-512's opmask, ZMM_Hi256 and Hi16_ZMM.
type xstate struct {
	fcw, fsw, fop uint16
	ftw           uint8 // the abridged tag word: bit i set when physical register i is in use
	fip, fdp      uint64
	mxcsr         uint32
	st            [8][10]byte // ST(0)-ST(7), in stack order
	xmm           [16][16]byte
	ymmHi         [16][16]byte // bits 128-255 of ymm0-15 (AVX); zero in their initial state
	zmmHi         [16][32]byte // bits 256-511 of zmm0-15 (AVX-512 ZMM_Hi256)
	k             [8]uint64    // the opmask registers k0-k7 (AVX-512)
	zmm16         [16][64]byte // zmm16-31 whole (AVX-512 Hi16_ZMM)
	pkru          uint32       // the protection-key rights register (PKRU component); 0 in its initial state
	// xcr0 is the enabled state components, as Linux records them for
	// PTRACE_GETREGSET (xsaveXCR0Offset).
	xcr0 uint64
}

// Offsets in the XSAVE area (Intel SDM vol. 1, 13.4.1-13.4.3; the AVX
// component's offset is architectural, the others' come from CPUID leaf
// 0DH).
const (
	xsaveHeader = 512 // XSTATE_BV, then XCOMP_BV
	xsaveYMMHi  = 576 // state component 2: YMM_Hi128, 16 bytes a register
)

// XSTATE_BV bits of the components decoded (and XCOMP_BV's compacted-
// format bit).
const (
	xstateAVX       = 1 << 2
	xstateOpmask    = 1 << 5
	xstateZMMHi256  = 1 << 6
	xstateHi16ZMM   = 1 << 7
	xstatePKRU      = 1 << 9
	xcompCompacted  = 1 << 63
	zmmHi256Default = 1152 // ZMM_Hi256's offset on Intel processors (gdb's i387-tdep.c)
	zmmHi256AMDPKRU = 896  // on AMD processors with PKRU and a 2,440-byte area (ibid.)
	pkruDefault     = 2688 // PKRU's offset on Intel processors (gdb's i387-tdep.c)
	pkruAMD         = 2432 // on AMD processors with a 2,440-byte area (ibid.)
	amdXSaveSize    = 2440
)

// xsaveLayout is where the components whose offset is not architectural
// lie in the standard format: CPUID.(EAX=0DH,ECX=i).EBX for component i
// (Intel SDM vol. 1, 13.2). A zero offset is unknown: decodeXSave then
// uses gdb's defaults for Intel's and AMD's layouts.
type xsaveLayout struct {
	zmmHi256 int // component 6; opmask lies 64 bytes before, Hi16_ZMM 512 after
	pkru     int // component 9
}

// The AVX-512 components lie together in the standard format, in both
// layouts gdb knows (i387-tdep.c: Intel's opmask at 1088, ZMM_Hi256 at
// 1152, Hi16_ZMM at 1664; AMD Zen's at 832, 896, 1408): opmask 64 bytes
// before ZMM_Hi256, Hi16_ZMM 512 bytes after it.
const (
	opmaskBeforeZMMHi256 = 64
	hi16ZMMAfterZMMHi256 = 16 * 32
)

// decodeXSave decodes the XSAVE area b that Linux gives PTRACE_GETREGSET
// NT_X86_XSTATE, its components laid out as lay says. Components in their initial
// state (their XSTATE_BV bit clear) read as zero; a compacted area yields
// the legacy region only. An area shorter than the legacy region is an
// error.
func decodeXSave(b []byte, lay xsaveLayout) (*xstate, error) {
	if len(b) < xsaveHeader {
		return nil, fmt.Errorf("%d bytes of XSAVE area, less than its %d-byte legacy region", len(b), xsaveHeader)
	}
	le := binary.LittleEndian
	x := &xstate{
		fcw: le.Uint16(b[0:]), fsw: le.Uint16(b[2:]), ftw: b[4], fop: le.Uint16(b[6:]),
		fip: le.Uint64(b[8:]), fdp: le.Uint64(b[16:]), mxcsr: le.Uint32(b[24:]),
		xcr0: le.Uint64(b[xsaveXCR0Offset:]),
	}
	for i := range x.st {
		copy(x.st[i][:], b[32+16*i:])
	}
	for i := range x.xmm {
		copy(x.xmm[i][:], b[160+16*i:])
	}
	if len(b) < xsaveHeader+16 {
		return x, nil
	}
	bv, comp := le.Uint64(b[xsaveHeader:]), le.Uint64(b[xsaveHeader+8:])
	if comp&xcompCompacted != 0 {
		return x, nil
	}
	if bv&xstateAVX != 0 && len(b) >= xsaveYMMHi+16*16 {
		for i := range x.ymmHi {
			copy(x.ymmHi[i][:], b[xsaveYMMHi+16*i:])
		}
	}
	if o := lay.pkru; bv&xstatePKRU != 0 {
		if o <= 0 {
			o = pkruDefault
			if len(b) == amdXSaveSize {
				o = pkruAMD
			}
		}
		if o >= xsaveYMMHi+16*16 && len(b) >= o+4 {
			x.pkru = le.Uint32(b[o:])
		}
	}
	off := lay.zmmHi256
	if off <= 0 {
		off = zmmHi256Default
		if x.xcr0&xcr0PKRU != 0 && len(b) == amdXSaveSize {
			off = zmmHi256AMDPKRU
		}
	}
	if off < xsaveYMMHi+16*16+opmaskBeforeZMMHi256 {
		return x, nil // not an offset the standard format can have
	}
	if o := off - opmaskBeforeZMMHi256; bv&xstateOpmask != 0 && len(b) >= o+8*8 {
		for i := range x.k {
			x.k[i] = le.Uint64(b[o+8*i:])
		}
	}
	if bv&xstateZMMHi256 != 0 && len(b) >= off+16*32 {
		for i := range x.zmmHi {
			copy(x.zmmHi[i][:], b[off+32*i:])
		}
	}
	if o := off + hi16ZMMAfterZMMHi256; bv&xstateHi16ZMM != 0 && len(b) >= o+16*64 {
		for i := range x.zmm16 {
			copy(x.zmm16[i][:], b[o+64*i:])
		}
	}
	return x, nil
}
