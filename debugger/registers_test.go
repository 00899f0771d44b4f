package debugger

import (
	"strings"
	"testing"
)

// TestInfoRegistersPrintsWhatWasAskedInThatOrder: "info registers rip rsp
// rax" prints rip, rsp, rax in that order, as gdb does; an unknown name is
// an error that prints nothing ("Invalid register `xmm0'"); pc, sp and fp
// are gdb's aliases; a register the unwind did not recover in an outer
// frame is <not saved>.
func TestInfoRegistersPrintsWhatWasAskedInThatOrder(t *testing.T) {
	got, _ := transcript(t, "deep-spin", []string{"info registers rip rsp rax", "info registers xmm0", "info registers rip xmm0",
		"i r pc sp fp", "i r $rbx", "up", "info registers rax rip"})
	checkGolden(t, "registers-order", got)
	for _, want := range []string{
		"rip            0x555ff9eeb393      0x555ff9eeb393 <spin_here+19>\nrsp            0x7ffe7d924f58      0x7ffe7d924f58\nrax            0x13861fa           20472314\n",
		"Invalid register `xmm0'\nInvalid register `xmm0'\npc ",
		"pc             0x555ff9eeb393      0x555ff9eeb393 <spin_here+19>\nsp             0x7ffe7d924f58      0x7ffe7d924f58\nfp             0x39                0x39\n",
		"rax            <not saved>\nrip            0x555ff9eeb56f      0x555ff9eeb56f <level6_leafish+47>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
}
