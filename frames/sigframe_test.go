package frames

import (
	"errors"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

func TestSignalFrameCFARuleMustLocateTheSavedRSP(t *testing.T) {
	const sp = 0x7000
	mem := &SliceMemory{Base: sp, Data: make([]byte, 0x200)}
	u := &SFrameUnwinder{Space: &Space{Mem: mem, Modules: NewModules()}}
	mod := &Module{Name: "prog"}
	tests := []struct {
		name string
		cfa  rule.Rule
		ok   bool
	}{
		{"sp+160, the address of the saved RSP, is accepted", rule.Rule{Kind: rule.ValOffset, Reg: RSP, Offset: 160}, true},
		{"*(sp+160), its value (FLEX deref), is accepted", rule.Rule{Kind: rule.Offset, Reg: RSP, Offset: 160}, true},
		{"sp+152 is a bad signal frame", rule.Rule{Kind: rule.ValOffset, Reg: RSP, Offset: 152}, false},
		{"an FP-based CFA is a bad signal frame", rule.Rule{Kind: rule.ValOffset, Reg: RBP, Offset: 160}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Frame{PC: 0x1000, Regs: AMD64Regs(0x1000, sp, 0)}
			_, err := u.stepSignal(&f, mod, arch.AMD64Arch, tc.cfa)
			var se *StopError
			switch {
			case tc.ok && err != nil:
				t.Errorf("unexpected error %v", err)
			case !tc.ok && (!errors.As(err, &se) || se.Reason != ReasonBadFrame):
				t.Errorf("err = %v, want a ReasonBadFrame stop", err)
			}
		})
	}
}
