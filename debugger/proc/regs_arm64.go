package proc

import (
	"strconv"
	"unsafe"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/sys/unix"
)

// HostArch is the machine of the host, used for the registers of live
// threads.
var HostArch = arch.ARM64Arch

// ptraceRegs is the thread register set sfdbg reads and writes: struct
// user_pt_regs (arch/arm64/include/uapi/asm/ptrace.h), x0-x30, sp, pc,
// pstate, the NT_PRSTATUS regset.
type ptraceRegs = unix.PtraceRegs

// getRegs and setRegs read and write a stopped thread's ptraceRegs
// (PTRACE_GETREGSET and PTRACE_SETREGSET of NT_PRSTATUS: arm64 has no
// PTRACE_GETREGS).
func getRegs(tid int, r *ptraceRegs) error { return prStatus(unix.PTRACE_GETREGSET, tid, r) }
func setRegs(tid int, r *ptraceRegs) error { return prStatus(unix.PTRACE_SETREGSET, tid, r) }

func prStatus(req, tid int, r *ptraceRegs) error {
	_, err := regset(req, tid, elfNTPRStatus, unsafe.Pointer(r), int(unsafe.Sizeof(*r)))
	return err
}

// PACMask is the PAC mask of thread tid's code addresses: the insn_mask
// of its NT_ARM_PAC_MASK regset (struct user_pac_mask: data_mask,
// insn_mask), 0 where the kernel or CPU has no pointer authentication
// (frames.Space.PACMask then uses its default). It must run on the thread
// that traces tid.
func PACMask(tid int) uint64 {
	var m [2]uint64
	if _, err := regset(unix.PTRACE_GETREGSET, tid, elfNTARMPACMask, unsafe.Pointer(&m), int(unsafe.Sizeof(m))); err != nil {
		return 0
	}
	return m[1]
}

// regsFromPtrace converts user_pt_regs into registers by DWARF number
// ("DWARF for the Arm 64-bit Architecture", table 2: x0-x30 0-30, sp 31,
// pc 32).
func regsFromPtrace(r *ptraceRegs) frames.Regs {
	regs := frames.NewRegs(HostArch)
	for i, v := range r.Regs {
		regs.Set(rule.Reg(i), v)
	}
	regs.Set(31, r.Sp)
	regs.Set(32, r.Pc)
	return regs
}

// ptraceRegList lists a thread's registers in the order of gdb's "info
// registers" on AArch64: x0-x30, sp, pc, cpsr.
func ptraceRegList(r *ptraceRegs) []RegValue {
	out := make([]RegValue, 0, 34)
	for i, v := range r.Regs {
		out = append(out, RegValue{"x" + strconv.Itoa(i), v})
	}
	return append(out, RegValue{"sp", r.Sp}, RegValue{"pc", r.Pc}, RegValue{"cpsr", r.Pstate})
}

// RegListFromFrames lists the general registers a frames.Regs knows, in
// gdb's order, for targets without the raw register set (snapshots).
func RegListFromFrames(r *frames.Regs) []RegValue {
	var out []RegValue
	for reg := rule.Reg(0); reg <= 32; reg++ {
		if v, ok := r.Get(reg); ok {
			out = append(out, RegValue{HostArch.RegName(reg), v})
		}
	}
	return out
}

// ptraceRegField returns the field of user_pt_regs that holds DWARF
// register r, nil for a register it does not hold.
func ptraceRegField(raw *ptraceRegs, r rule.Reg) *uint64 {
	switch {
	case r >= 0 && r <= 30:
		return &raw.Regs[r]
	case r == 31:
		return &raw.Sp
	case r == 32:
		return &raw.Pc
	}
	return nil
}

// breakInstr is the software breakpoint, "brk #0" (0xd4200000, as gdb's
// aarch64_default_breakpoint). After it traps, the PC is still at it.
var breakInstr = []byte{0x00, 0x00, 0x20, 0xd4}

const breakInstrMovesPC = false

// ptracePC returns the PC of a register set; setPtracePC sets it.
func ptracePC(r *ptraceRegs) uint64        { return r.Pc }
func setPtracePC(r *ptraceRegs, pc uint64) { r.Pc = pc }
