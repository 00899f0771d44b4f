//go:build !amd64

package debugger

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

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
	return t.st.RegSet(tid, elfNTPRFPReg, 528) // user_fpsimd_state: 32*16 + 4 + 4 + 8 reserved
}

// FPRegs implements fpRegsReader.
func (t *stoppedTarget) FPRegs(tid int) ([]byte, error) {
	return t.st.RegSet(tid, elfNTPRFPReg, 528)
}

// elfNTPRFPReg is the floating-point regset (include/uapi/linux/elf.h).
const elfNTPRFPReg = 2

// cmdInfoAllRegisters implements "info all-registers": the general
// registers as "info registers" prints them, then the floating-point and
// vector registers: on AArch64 v0-v31 (raw, as 128-bit values), fpsr and
// fpcr; on s390x fpc and f0-f15 (raw, and as doubles).
func cmdInfoAllRegisters(s *Session, args string) error {
	if strings.TrimSpace(args) != "" {
		return fmt.Errorf("info all-registers takes no argument (\"info registers REG...\" prints some)")
	}
	if err := cmdInfoRegisters(s, ""); err != nil {
		return err
	}
	lines, err := s.fpRegLines()
	if err != nil {
		return err
	}
	for _, l := range lines {
		s.printf("%s\n", l)
	}
	if n, _, err := s.selected(); err == nil && n > 0 {
		s.printf("(floating-point registers: thread %d's, as in frame 0; no unwind rule saves them)\n", s.thread)
	}
	return nil
}

// fpRegLines formats the selected thread's NT_PRFPREG regset.
func (s *Session) fpRegLines() ([]string, error) {
	fr, ok := s.tgt.(fpRegsReader)
	if !ok {
		return []string{"(floating-point registers: not available in this target)"}, nil
	}
	b, err := fr.FPRegs(s.thread)
	if err != nil {
		return nil, fmt.Errorf("cannot read the floating-point registers of thread %d: %w", s.thread, err)
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

// vectorRegLine returns the "info all-registers" line of the
// floating-point or vector register named name, as "info registers NAME"
// prints it. Errors: gdb's "Invalid register" for a name the host does
// not have, or the regset that could not be read.
func (s *Session) vectorRegLine(name string) (string, error) {
	lines, err := s.fpRegLines()
	if err != nil {
		return "", err
	}
	for _, l := range lines {
		if n, _, _ := strings.Cut(l, " "); n == name {
			return l, nil
		}
	}
	return "", fmt.Errorf("Invalid register `%s'", name)
}
