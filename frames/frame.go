package frames

import "fmt"

// Method is a way of unwinding.
type Method uint8

// Unwinding methods.
const (
	MethodSFrame Method = iota // the .sframe section (spec v3 Appendix A)
	MethodCFI                  // DWARF CFI: .eh_frame / .debug_frame
	MethodFP                   // the frame-pointer (RBP) chain
	MethodRegs                 // frame 0: from the thread's registers
)

func (m Method) String() string {
	switch m {
	case MethodSFrame:
		return "sframe"
	case MethodCFI:
		return "cfi"
	case MethodFP:
		return "fp"
	case MethodRegs:
		return "regs"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

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
	// Module is the module containing PC, or nil.
	Module *Module
}

// LookupPC returns the PC to use for finding this frame's unwind row
// (LookupPC).
func (f *Frame) LookupPC() uint64 { return LookupPC(f.PC, f.Interrupted) }

// LookupPC returns the PC to use for finding the unwind row of a frame at
// pc: pc for an interrupted frame, pc-1 where pc is a return address (the
// call may be the last instruction of the function).
func LookupPC(pc uint64, interrupted bool) uint64 {
	if interrupted || pc == 0 {
		return pc
	}
	return pc - 1
}
