package frames

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

func TestReadPtrReadsAPointerOfTheMachinesSize(t *testing.T) {
	data := []byte{0x78, 0x56, 0x34, 0x12, 0xf0, 0xde, 0xbc, 0x9a}
	le := &SliceMemory{Base: 0x1000, Data: data}
	be := &beMemory{SliceMemory{Base: 0x1000, Data: data}}
	for _, tc := range []struct {
		name string
		m    Memory
		size int
		want uint64
	}{
		{"4 bytes little-endian", le, 4, 0x12345678},
		{"4 bytes big-endian", be, 4, 0x78563412},
		{"8 bytes little-endian", le, 8, 0x9abcdef012345678},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v, err := ReadPtr(tc.m, 0x1000, tc.size); err != nil || v != tc.want {
				t.Errorf("%#x, %v; want %#x", v, err, tc.want)
			}
		})
	}
	var me *MemoryError
	if _, err := ReadPtr(le, 0x1006, 4); !errors.As(err, &me) || me.Addr != 0x1006 {
		t.Errorf("a 4-byte read past the end: %v, want a *MemoryError at 0x1006", err)
	}
}

// armStack is a 32-bit little-endian stack image of words from base.
func armStack(base uint64, words ...uint32) *SliceMemory {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return &SliceMemory{Base: base, Data: b}
}

func TestARMFramePointerChainFollowsTheFramesState(t *testing.T) {
	a := arch.ARMArch
	const base = 0x40000000
	// [base] = 0x40000100 (a saved FP), [base+4] = 0x10501 (an LR with
	// the Thumb bit), [base+8] = 0x40000200, [base+12] = 0x104dc.
	mem := armStack(base, 0x40000100, 0x10501, 0x40000200, 0x104dc)
	u := &FPUnwinder{Space: &Space{Mem: mem}}
	t.Run("a Thumb frame follows the r7 record: caller r7 at r7, LR at r7+4, CFA r7+8", func(t *testing.T) {
		f := Frame{PC: 0x10450, Regs: NewRegs(a), Interrupted: true}
		f.Regs.Set(7, base)
		f.Regs.Set(11, 0x40000300)
		f.Regs.Set(a.SP, base-16)
		f.Regs.Set(a.Thumb.CPSR, arch.CPSRT)
		c, err := u.Step(&f)
		if err != nil {
			t.Fatal(err)
		}
		r7, _ := c.Regs.Get(7)
		r11, _ := c.Regs.Get(11)
		cpsr, _ := c.Regs.Get(a.Thumb.CPSR)
		if c.PC != 0x10500 || r7 != 0x40000100 || r11 != 0x40000300 || cpsr != arch.CPSRT || f.CFA != base+8 || c.Regs.SP() != base+8 {
			t.Errorf("caller PC %#x r7 %#x r11 %#x cpsr %#x CFA %#x SP %#x", c.PC, r7, r11, cpsr, f.CFA, c.Regs.SP())
		}
	})
	t.Run("an ARM frame follows GCC's: LR at fp, caller fp at fp-4, CFA fp+4", func(t *testing.T) {
		f := Frame{PC: 0x10470, Regs: NewRegs(a), Interrupted: true}
		f.Regs.Set(11, base+12)
		f.Regs.Set(7, 0x40000400)
		f.Regs.Set(a.SP, base-16)
		f.Regs.Set(a.Thumb.CPSR, 0)
		c, err := u.Step(&f)
		if err != nil {
			t.Fatal(err)
		}
		r7, _ := c.Regs.Get(7)
		r11, _ := c.Regs.Get(11)
		cpsr, _ := c.Regs.Get(a.Thumb.CPSR)
		if c.PC != 0x104dc || r11 != 0x40000200 || r7 != 0x40000400 || cpsr != 0 || f.CFA != base+16 {
			t.Errorf("caller PC %#x r11 %#x r7 %#x cpsr %#x CFA %#x", c.PC, r11, r7, cpsr, f.CFA)
		}
	})
	t.Run("a frame pointer not 4-byte aligned stops the chain", func(t *testing.T) {
		f := Frame{PC: 0x10470, Regs: NewRegs(a), Interrupted: true}
		f.Regs.Set(11, base+2)
		_, err := u.Step(&f)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonBadFrame || !strings.Contains(err.Error(), "not 4-byte aligned") {
			t.Errorf("%v, want a bad frame: not 4-byte aligned", err)
		}
	})
}
