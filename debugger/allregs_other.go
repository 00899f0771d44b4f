//go:build !amd64

package debugger

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// fpRegsReader is a Target that reads a thread's floating-point and vector
// registers: the NT_PRFPREG regset (AArch64 struct user_fpsimd_state:
// v0-v31, fpsr, fpcr; s390x s390_fp_regs: fpc, f0-f15).
type fpRegsReader interface {
	FPRegs(tid int) ([]byte, error)
}

// FPRegs implements fpRegsReader.
func (t *liveTarget) FPRegs(tid int) ([]byte, error) {
	if err := t.live(); err != nil {
		return nil, err
	}
	return t.st.RegSet(tid, elfNTPRFPReg, fpRegsSize)
}

// FPRegs implements fpRegsReader.
func (t *stoppedTarget) FPRegs(tid int) ([]byte, error) {
	return t.st.RegSet(tid, elfNTPRFPReg, fpRegsSize)
}

// elfNTPRFPReg is the floating-point regset (include/uapi/linux/elf.h);
// fpRegsSize bounds it: AArch64's user_fpsimd_state, 32*16 + 4 + 4 + 8
// reserved (s390x's s390_fp_regs is shorter).
const (
	elfNTPRFPReg = 2
	fpRegsSize   = 528
)

// The floating-point and vector registers of "info all-registers": on
// AArch64 v0-v31 (raw, as 128-bit values), fpsr and fpcr; on s390x fpc and
// f0-f15 (raw, and as doubles).
const (
	fpRegsName        = "floating-point registers"
	fpRegsUnavailable = "(floating-point registers: not available in this target)"
)

// hostFPRegLines formats the selected thread's NT_PRFPREG regset; nil for
// a target that has none.
func (s *Session) hostFPRegLines() ([]string, error) {
	fr, ok := s.tgt.(fpRegsReader)
	if !ok {
		return nil, nil
	}
	b, err := fr.FPRegs(s.thread)
	if err != nil {
		return nil, fmt.Errorf("cannot read the %s of thread %d: %w", fpRegsName, s.thread, err)
	}
	var out []string
	switch proc.HostArch.Name {
	case "s390x":
		// s390_fp_regs (arch/s390/include/uapi/asm/ptrace.h): fpc (u32),
		// a pad word, then f0-f15 (u64 each); big-endian.
		if len(b) < 8+16*8 {
			return nil, fmt.Errorf("thread %d: NT_PRFPREG of %d bytes, not s390_fp_regs", s.thread, len(b))
		}
		out = append(out, regLine("fpc", fmt.Sprintf("%#x", binary.BigEndian.Uint32(b)), ""))
		for i := range 16 {
			v := binary.BigEndian.Uint64(b[8+8*i:])
			out = append(out, regLine(fmt.Sprintf("f%d", i), fmt.Sprintf("%#x", v), fmt.Sprint(math.Float64frombits(v))))
		}
	default:
		// user_fpsimd_state (arch/arm64/include/uapi/asm/ptrace.h):
		// vregs[32] (__uint128_t, little-endian), fpsr, fpcr (u32).
		if len(b) < 32*16+8 {
			return nil, fmt.Errorf("thread %d: NT_PRFPREG of %d bytes, not user_fpsimd_state", s.thread, len(b))
		}
		for i := range 32 {
			lo := binary.LittleEndian.Uint64(b[16*i:])
			hi := binary.LittleEndian.Uint64(b[16*i+8:])
			out = append(out, regLine(fmt.Sprintf("v%d", i), fmt.Sprintf("0x%016x%016x", hi, lo), ""))
		}
		out = append(out, regLine("fpsr", fmt.Sprintf("%#x", binary.LittleEndian.Uint32(b[512:])), ""),
			regLine("fpcr", fmt.Sprintf("%#x", binary.LittleEndian.Uint32(b[516:])), ""))
	}
	return out, nil
}
