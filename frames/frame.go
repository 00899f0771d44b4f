package frames

// Frame is one frame of a backtrace.
type Frame struct {
	// Level is the frame's position: 0 for the innermost.
	Level int
	// PC is the frame's program counter. For frames above 0 it is the
	// return address, unless the frame below was a signal frame.
	PC uint64
	// CFA is the frame's canonical frame address (0 until computed: it is
	// known once the frame has been unwound from).
	CFA uint64
	// Regs are the registers known in this frame.
	Regs Regs
	// Method is how this frame was found (MethodRegs for frame 0).
	Method Method
	// Row is the rule used to step from this frame to its caller (set by
	// Step on the frame it unwinds from).
	Row Row
	// Interrupted is set when the frame was interrupted asynchronously (frame
	// 0, or the frame a signal interrupted), so that its PC is exact rather
	// than a return address; lookups then use PC rather than PC-1.
	Interrupted bool
	// Module is the module containing the lookup PC (LookupPC), or nil.
	Module *Module
}

// LookupPC returns the address everything about this frame is looked up
// at: its module, function name, source line, inline frames and unwind row
// (SFrame FDE and FRE, CFI FDE and row). It is gdb's
// get_frame_address_in_block: PC for an interrupted frame, PC-1 for a
// return address, since the call may be the function's last instruction
// (a call to a noreturn function such as abort or exit) and the return
// address then lies one past the function's end, in padding or in the
// next function. libgcc's and the kernel's unwinders look up FDEs at the
// same address. The printed PC stays the return address.
//
// A signal trampoline is entered by the kernel, not by a call: once the
// step from f used a signal row (f.Row.Signal), f's own PC is exact too, as
// for gdb's SIGTRAMP_FRAME. Unwinders, which look up f's row before they
// know this, try the exact PC when PC-1 finds no signal row.
func (f *Frame) LookupPC() uint64 { return LookupPC(f.PC, f.Interrupted || f.Row.Signal) }

// LookupPC returns the lookup address of a frame at pc (Frame.LookupPC):
// pc when it is exact (frame 0, a frame a signal interrupted, whose callee
// is a signal trampoline, or a signal trampoline itself), pc-1 where pc is
// a return address.
func LookupPC(pc uint64, exact bool) uint64 {
	if exact || pc == 0 {
		return pc
	}
	return pc - 1
}

// locate sets f.Module to the module holding f's lookup PC: a return
// address one past the end of its module's last function belongs to the
// module of the call.
func (f *Frame) locate(ms *Modules) {
	f.Module = ms.Find(f.LookupPC())
}
