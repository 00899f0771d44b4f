package proc

import (
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/sys/unix"
)

// HostArch is the machine of the host, used for the registers of live
// threads.
var HostArch = arch.AMD64Arch

// regsFromPtrace converts PTRACE_GETREGS's user_regs_struct into registers
// by DWARF number (System V AMD64 psABI, table 3.36).
func regsFromPtrace(r *ptraceRegs) frames.Regs {
	regs := frames.NewRegs(HostArch)
	for i, v := range [...]uint64{
		r.Rax, r.Rdx, r.Rcx, r.Rbx, r.Rsi, r.Rdi, r.Rbp, r.Rsp,
		r.R8, r.R9, r.R10, r.R11, r.R12, r.R13, r.R14, r.R15, r.Rip,
	} {
		regs.Set(rule.Reg(i), v)
	}
	return regs
}

// ptraceRegList lists a thread's registers in the order of gdb's "info
// registers" on x86-64.
func ptraceRegList(r *ptraceRegs) []RegValue {
	return []RegValue{
		{"rax", r.Rax}, {"rbx", r.Rbx}, {"rcx", r.Rcx}, {"rdx", r.Rdx},
		{"rsi", r.Rsi}, {"rdi", r.Rdi}, {"rbp", r.Rbp}, {"rsp", r.Rsp},
		{"r8", r.R8}, {"r9", r.R9}, {"r10", r.R10}, {"r11", r.R11},
		{"r12", r.R12}, {"r13", r.R13}, {"r14", r.R14}, {"r15", r.R15},
		{"rip", r.Rip}, {"eflags", r.Eflags}, {"cs", r.Cs}, {"ss", r.Ss},
		{"ds", r.Ds}, {"es", r.Es}, {"fs", r.Fs}, {"gs", r.Gs},
		{"fs_base", r.Fs_base}, {"gs_base", r.Gs_base},
	}
}

// RegListFromFrames lists the general registers a frames.Regs knows, in
// gdb's order, for targets without the raw register set (snapshots).
func RegListFromFrames(r *frames.Regs) []RegValue {
	order := []rule.Reg{frames.RAX, frames.RBX, frames.RCX, frames.RDX, frames.RSI, frames.RDI,
		frames.RBP, frames.RSP, 8, 9, 10, 11, 12, 13, 14, 15, frames.RIP}
	var out []RegValue
	for _, reg := range order {
		if v, ok := r.Get(reg); ok {
			out = append(out, RegValue{HostArch.RegName(reg), v})
		}
	}
	return out
}

// breakInstr is the software breakpoint (int3). After it traps, the PC is
// one past it (breakInstrMovesPC).
var breakInstr = []byte{0xcc}

const breakInstrMovesPC = true

// ptraceRegs is the thread register set sfdbg reads and writes
// (user_regs_struct, arch/x86/include/asm/user_64.h).
type ptraceRegs = unix.PtraceRegs

// getRegs and setRegs read and write a stopped thread's ptraceRegs
// (PTRACE_GETREGS, PTRACE_SETREGS).
func getRegs(tid int, r *ptraceRegs) error { return unix.PtraceGetRegs(tid, r) }
func setRegs(tid int, r *ptraceRegs) error { return unix.PtraceSetRegs(tid, r) }

// ptracePC returns the PC of a register set; setPtracePC sets it.
func ptracePC(r *ptraceRegs) uint64        { return r.Rip }
func setPtracePC(r *ptraceRegs, pc uint64) { r.Rip = pc }

// PACMask is the PAC mask of a thread's code addresses: none on
// x86-64.
func PACMask(int) uint64 { return 0 }

// ptraceRegField returns the field of user_regs_struct that holds DWARF
// register r (System V AMD64 psABI, table 3.36), nil for a register it
// does not hold.
func ptraceRegField(raw *ptraceRegs, r rule.Reg) *uint64 {
	fields := [...]*uint64{&raw.Rax, &raw.Rdx, &raw.Rcx, &raw.Rbx, &raw.Rsi, &raw.Rdi, &raw.Rbp, &raw.Rsp,
		&raw.R8, &raw.R9, &raw.R10, &raw.R11, &raw.R12, &raw.R13, &raw.R14, &raw.R15, &raw.Rip}
	if int(r) < len(fields) {
		return fields[r]
	}
	return nil
}
