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
var HostArch = arch.S390XArch

// ptraceRegs is the thread register set sfdbg reads and writes: s390_regs
// (arch/s390/include/uapi/asm/ptrace.h), the NT_PRSTATUS regset: the PSW
// (mask, address), r0-r15, the access registers a0-a15 and orig_gpr2.
type ptraceRegs struct {
	PswMask  uint64
	PswAddr  uint64
	Gprs     [16]uint64
	Acrs     [16]uint32
	OrigGpr2 uint64
}

// getRegs and setRegs read and write a stopped thread's ptraceRegs
// (PTRACE_GETREGSET and PTRACE_SETREGSET of NT_PRSTATUS).
func getRegs(tid int, r *ptraceRegs) error { return prStatus(unix.PTRACE_GETREGSET, tid, r) }
func setRegs(tid int, r *ptraceRegs) error { return prStatus(unix.PTRACE_SETREGSET, tid, r) }

func prStatus(req, tid int, r *ptraceRegs) error {
	_, err := regset(req, tid, elfNTPRStatus, unsafe.Pointer(r), int(unsafe.Sizeof(*r)))
	return err
}

// PACMask is the PAC mask of a thread's code addresses: none on s390x.
func PACMask(int) uint64 { return 0 }

// regsFromPtrace converts s390_regs into registers by DWARF number (r0-r15
// 0-15; the PSW address in arch.S390XArch's PC slot).
func regsFromPtrace(r *ptraceRegs) frames.Regs {
	regs := frames.NewRegs(HostArch)
	for i, v := range r.Gprs {
		regs.Set(rule.Reg(i), v)
	}
	regs.Set(HostArch.PC, r.PswAddr)
	return regs
}

// ptraceRegList lists a thread's registers in the order of gdb's "info
// registers" on s390x: pswm, pswa, r0-r15, acr0-acr15.
func ptraceRegList(r *ptraceRegs) []RegValue {
	out := []RegValue{{"pswm", r.PswMask}, {"pswa", r.PswAddr}}
	for i, v := range r.Gprs {
		out = append(out, RegValue{"r" + strconv.Itoa(i), v})
	}
	for i, v := range r.Acrs {
		out = append(out, RegValue{"acr" + strconv.Itoa(i), uint64(v)})
	}
	return out
}

// RegListFromFrames lists the general registers a frames.Regs knows, in
// gdb's order, for targets without the raw register set (snapshots).
func RegListFromFrames(r *frames.Regs) []RegValue {
	var out []RegValue
	if v, ok := r.Get(HostArch.PC); ok {
		out = append(out, RegValue{"pswa", v})
	}
	for reg := rule.Reg(0); reg < 16; reg++ {
		if v, ok := r.Get(reg); ok {
			out = append(out, RegValue{HostArch.RegName(reg), v})
		}
	}
	return out
}

// ptraceRegField returns the field of s390_regs that holds DWARF register
// r, nil for a register it does not hold.
func ptraceRegField(raw *ptraceRegs, r rule.Reg) *uint64 {
	switch {
	case r >= 0 && r < 16:
		return &raw.Gprs[r]
	case r == HostArch.PC:
		return &raw.PswAddr
	}
	return nil
}

// breakInstr is the software breakpoint, the 2-byte illegal opcode 0x0001
// that the kernel turns into a SIGTRAP for a traced thread
// (arch/s390/kernel/traps.c, S390_BREAKPOINT_U16; gdb's s390_breakpoint).
// After it traps, the PC is past it (gdb's decr_pc_after_break 2).
var breakInstr = []byte{0x00, 0x01}

const breakInstrMovesPC = true

// ptracePC returns the PC of a register set; setPtracePC sets it.
func ptracePC(r *ptraceRegs) uint64        { return r.PswAddr }
func setPtracePC(r *ptraceRegs, pc uint64) { r.PswAddr = pc }
