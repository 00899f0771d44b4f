package proc

// RegValue is one named register value, for "info registers".
type RegValue struct {
	Name  string
	Value uint64
}

// breakPC returns the address of the breakpoint instruction a thread that
// trapped on one stopped after, given its PC at the trap: one
// breakInstr back where the trap moves the PC past it (x86-64's int3,
// s390x's 0x0001), the PC itself where it does not (AArch64's brk).
func breakPC(pc uint64) uint64 {
	if breakInstrMovesPC {
		return pc - uint64(len(breakInstr))
	}
	return pc
}
