package frames

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// beMemory is a big-endian SliceMemory: an s390x stack image.
type beMemory struct{ SliceMemory }

func (m *beMemory) BigEndian() bool { return true }

func (m *beMemory) ReadUint64(addr uint64) (uint64, error) {
	var b [8]byte
	if n, err := m.ReadAt(b[:], addr); n < 8 {
		return 0, &MemoryError{Addr: addr, Err: err}
	}
	return binary.BigEndian.Uint64(b[:]), nil
}

// abiStack is a stack at base of size bytes with words put in an order.
type abiStack struct {
	mem   Memory
	data  []byte
	base  uint64
	order binary.ByteOrder
}

func newABIStack(base uint64, size int, order binary.ByteOrder) *abiStack {
	s := &abiStack{data: make([]byte, size), base: base, order: order}
	if order == binary.ByteOrder(binary.BigEndian) {
		s.mem = &beMemory{SliceMemory{Base: base, Data: s.data}}
	} else {
		s.mem = &SliceMemory{Base: base, Data: s.data}
	}
	return s
}

func (s *abiStack) put(addr, v uint64) { s.order.PutUint64(s.data[addr-s.base:], v) }

func TestPCRegIsNotTheLinkRegister(t *testing.T) {
	for _, c := range []struct {
		abi    sframe.ABI
		pc, ra rule.Reg
		names  string
	}{
		{sframe.ABIAMD64LittleEndian, RIP, RIP, "rip rsp rbp"},
		{sframe.ABIAArch64LittleEndian, 32, sframe.AArch64RegLR, "pc sp x29"},
		{sframe.ABIAArch64BigEndian, 32, sframe.AArch64RegLR, "pc sp x29"},
		{sframe.ABIS390XBigEndian, 33, sframe.S390XRegRA, "pswa r15 r11"},
	} {
		a := SFrameArch(c.abi)
		r := NewRegs(a)
		if r.PCReg != c.pc || r.arch().RA != c.ra {
			t.Errorf("%v: PC slot %d, RA register %d; want %d, %d", c.abi, r.PCReg, r.arch().RA, c.pc, c.ra)
		}
		got := a.RegName(r.PCReg) + " " + a.RegName(r.SPReg) + " " + a.RegName(r.FPReg)
		if got != c.names {
			t.Errorf("%v: names %q, want %q", c.abi, got, c.names)
		}
	}
	if got := arch.S390XArch.RegName(24); got != "f8" {
		t.Errorf("s390x DWARF 24 = %q, want f8", got)
	}
}

// A leaf at frame 0 on AArch64: the RA is still in x30 (SFrame: RA
// same-value), the caller's SP is the leaf's. Both the SFrame-style row
// and the trace's SP check must accept it, and the caller's x30 is the RA.
func TestAArch64LeafStepKeepsSPAndUsesLR(t *testing.T) {
	f := Frame{PC: 0x400800, Interrupted: true, Regs: NewRegs(arch.ARM64Arch)}
	f.Regs.Set(arch.ARM64Arch.PC, 0x400800)
	f.Regs.Set(sframe.AArch64RegSP, 0x7000)
	f.Regs.Set(sframe.AArch64RegFP, 0x7040)
	f.Regs.Set(sframe.AArch64RegLR, 0x400900)
	f.Row = Row{Row: rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: sframe.AArch64RegSP},
		RA:  rule.Rule{Kind: rule.SameValue, Reg: rule.CFA},
		FP:  rule.Rule{Kind: rule.SameValue, Reg: rule.CFA},
	}, Src: Source{Method: MethodSFrame, Arch: arch.ARM64Arch}}
	var caller Frame
	if err := stepRow(&f, &Space{Mem: &SliceMemory{Base: 0x7000, Data: make([]byte, 64)}}, &caller); err != nil {
		t.Fatal(err)
	}
	lr, _ := caller.Regs.Get(sframe.AArch64RegLR)
	if caller.PC != 0x400900 || caller.Regs.PC() != 0x400900 || lr != 0x400900 || caller.Regs.SP() != 0x7000 {
		t.Errorf("caller PC %#x (pc %#x, x30 %#x), SP %#x; want 0x400900 and SP 0x7000", caller.PC, caller.Regs.PC(), lr, caller.Regs.SP())
	}
	// The same step through a Stack: the equal SP is no loop on AArch64.
	s := NewStack(fixedStep{caller}, f.Regs, nil, StackOptions{})
	s.Next()
	if !s.Next() {
		t.Fatalf("the stack refused a frameless leaf's caller: %v", s.Stop())
	}
	// On AMD64 an equal SP is a loop.
	amd := NewRegs(arch.AMD64Arch)
	amd.Set(RIP, 0x400800)
	amd.Set(RSP, 0x7000)
	c2 := Frame{PC: 0x400900, Regs: NewRegs(arch.AMD64Arch)}
	c2.Regs.Set(RSP, 0x7000)
	s = NewStack(fixedStep{c2}, amd, nil, StackOptions{})
	s.Next()
	if s.Next() || s.Stop() == nil || s.Stop().Reason != ReasonBadFrame {
		t.Errorf("AMD64: a caller with the same SP was accepted (%v)", s.Stop())
	}
}

// fixedStep is an unwinder that returns one caller, then stops.
type fixedStep struct{ caller Frame }

func (u fixedStep) Method() Method { return MethodCFI }
func (u fixedStep) Step(f *Frame) (Frame, error) {
	if f.Level > 0 {
		return Frame{}, &StopError{Method: MethodCFI, Reason: ReasonOutermost}
	}
	return u.caller, nil
}

// A signed RA (AArch64 PAuth) is stripped with the core's mask, or with
// the default mask when there is none.
func TestMangledRAIsStripped(t *testing.T) {
	const signed, plain = 0x002a_0000_0040_0900, 0x400900
	mem := newABIStack(0x7000, 0x40, binary.LittleEndian)
	mem.put(0x7018, signed)
	for _, mask := range []uint64{0, 0x007f_0000_0000_0000} {
		f := Frame{PC: 0x400800, Level: 1, Regs: NewRegs(arch.ARM64Arch)}
		f.Regs.Set(sframe.AArch64RegSP, 0x7000)
		f.Row = Row{Row: rule.Row{
			CFA:       rule.Rule{Kind: rule.ValOffset, Reg: sframe.AArch64RegSP, Offset: 0x20},
			RA:        rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
			FP:        rule.Rule{Kind: rule.SameValue, Reg: rule.CFA},
			MangledRA: true,
		}, Src: Source{Method: MethodSFrame, Arch: arch.ARM64Arch}}
		var caller Frame
		if err := stepRow(&f, &Space{Mem: mem.mem, PACMask: mask}, &caller); err != nil {
			t.Fatalf("mask %#x: %v", mask, err)
		}
		if caller.PC != plain {
			t.Errorf("mask %#x: caller PC %#x, want %#x", mask, caller.PC, plain)
		}
	}
	if got := (&Space{}).StripPAC(0xff80_0000_0000_1000); got != 0xffff_0000_0000_1000 {
		t.Errorf("kernel address %#x, want its top bits set", got)
	}
	// Outside AArch64 the mangled-RA bit cannot be honoured.
	f := Frame{PC: 0x400800, Regs: NewRegs(arch.AMD64Arch)}
	f.Row.MangledRA, f.Row.CFA = true, rule.Rule{Kind: rule.ValOffset, Reg: RSP}
	f.Row.RA = rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}
	var caller Frame
	var se *StopError
	if err := stepRow(&f, &Space{Mem: mem.mem}, &caller); !errors.As(err, &se) || se.Reason != ReasonUnsupported {
		t.Errorf("AMD64 mangled RA: %v, want ReasonUnsupported", err)
	}
}

// AArch64 frame records: x29 -> {caller x29, LR}; the CFA stays unknown;
// a record that links downwards ends the chain as a bad frame.
func TestFPUnwinderAArch64FrameRecords(t *testing.T) {
	mem := newABIStack(0x7000, 0x100, binary.LittleEndian)
	mem.put(0x7010, 0x7040)   // record at 0x7010: caller's x29
	mem.put(0x7018, 0x400a00) // its LR
	mem.put(0x7040, 0x7008)   // record at 0x7040 links below itself
	mem.put(0x7048, 0x400b00)
	sp := &Space{Mem: mem.mem}
	f := Frame{PC: 0x400800, Interrupted: true, Regs: NewRegs(arch.ARM64Arch)}
	f.Regs.Set(sframe.AArch64RegSP, 0x7000)
	f.Regs.Set(sframe.AArch64RegFP, 0x7010)
	u := &FPUnwinder{Space: sp}
	c, err := u.Step(&f)
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := c.Regs.FP()
	if c.PC != 0x400a00 || fp != 0x7040 || f.CFA != 0 || c.Regs.Known(sframe.AArch64RegSP) {
		t.Errorf("caller PC %#x FP %#x, CFA %#x, SP known %v; want 0x400a00, 0x7040, CFA and SP unknown",
			c.PC, fp, f.CFA, c.Regs.Known(sframe.AArch64RegSP))
	}
	if got := f.Row.String(); !strings.Contains(got, "RA (x29+8) FP (x29+0)") {
		t.Errorf("row %q", got)
	}
	_, err = u.Step(&c)
	var se *StopError
	if !errors.As(err, &se) || se.Reason != ReasonBadFrame || !strings.Contains(err.Error(), "not above") {
		t.Errorf("downward link: %v, want a bad frame", err)
	}
}

// The s390x back chain: *(r15) is the caller's SP, the RA is at caller
// SP + 112, the CFA caller SP + 160; 0 ends the chain.
func TestFPUnwinderS390XBackChain(t *testing.T) {
	mem := newABIStack(0x7000, 0x400, binary.BigEndian)
	mem.put(0x7000, 0x70a0)        // back chain of the frame at 0x7000
	mem.put(0x70a0+112, 0x1000c5e) // r14 saved in the caller's save area
	mem.put(0x70a0, 0)             // the caller's back chain ends the chain
	f := Frame{PC: 0x1000bb4, Interrupted: true, Regs: NewRegs(arch.S390XArch)}
	f.Regs.Set(sframe.S390XRegSP, 0x7000)
	u := &FPUnwinder{Space: &Space{Mem: mem.mem}}
	c, err := u.Step(&f)
	if err != nil {
		t.Fatal(err)
	}
	if c.PC != 0x1000c5e || c.Regs.SP() != 0x70a0 || f.CFA != 0x70a0+160 || c.Regs.Known(sframe.S390XRegFP) {
		t.Errorf("caller PC %#x SP %#x CFA %#x; want 0x1000c5e, 0x70a0, 0x7140, FP unknown", c.PC, c.Regs.SP(), f.CFA)
	}
	// Without a module the frame cannot be told the entry point's or a
	// thread start's (TestFPZeroEndsTheTraceOnlyWhereTheABISays): the
	// trace is not called complete.
	_, err = u.Step(&c)
	var se *StopError
	if !errors.As(err, &se) || se.Reason != ReasonBadFrame || !strings.Contains(err.Error(), "frame pointer is 0") {
		t.Errorf("back chain 0: %v, want a stop at the end of the chain", err)
	}
}

// Signal trampolines recognised by their code: the interrupted frame's
// registers come from the kernel's frame layout.
func TestSigtrampByCode(t *testing.T) {
	t.Run("aarch64", func(t *testing.T) {
		const tramp, sp = 0x5500021000, 0x8000
		mem := newABIStack(sp, 0x400, binary.LittleEndian)
		code := newABIStack(tramp, 8, binary.LittleEndian)
		binary.LittleEndian.PutUint32(code.data, 0xd2801168)     // mov x8, #139 (__NR_rt_sigreturn)
		binary.LittleEndian.PutUint32(code.data[4:], 0xd4000001) // svc #0
		// struct rt_sigframe: siginfo (128), ucontext's uc_mcontext 176
		// bytes in, sigcontext.regs after fault_address: x0 at sp+312.
		regs := uint64(sp + 312)
		mem.put(regs+8*29, 0x8800)   // x29
		mem.put(regs+8*30, 0x400123) // x30
		mem.put(regs+8*31, 0x8700)   // sp
		mem.put(regs+8*32, 0x4112ec) // pc
		space := &Space{Mem: twoMem{code.mem, mem.mem}}
		f := Frame{PC: tramp, Level: 3, Regs: NewRegs(arch.ARM64Arch)}
		f.Regs.Set(sframe.AArch64RegSP, sp)
		c, err := (&CFIUnwinder{Space: space}).Step(&f)
		if err != nil {
			t.Fatal(err)
		}
		fp, _ := c.Regs.FP()
		lr, _ := c.Regs.Get(sframe.AArch64RegLR)
		if c.PC != 0x4112ec || !c.Interrupted || c.Regs.SP() != 0x8700 || fp != 0x8800 || lr != 0x400123 ||
			!f.Row.Signal || f.CFA != 0x8700 || f.Row.Src.String() != "signal trampoline (kernel frame layout)" ||
			f.Row.CFA != (rule.Rule{Kind: rule.Offset, Reg: sframe.AArch64RegSP, Offset: 312 + 8*31}) {
			t.Errorf("caller PC %#x SP %#x x29 %#x x30 %#x interrupted %v; row %v CFA %#x",
				c.PC, c.Regs.SP(), fp, lr, c.Interrupted, f.Row, f.CFA)
		}
	})
	t.Run("s390x", func(t *testing.T) {
		const tramp, sp = 0x4000021000, 0x8000
		mem := newABIStack(sp, 0x400, binary.BigEndian)
		code := newABIStack(tramp, 8, binary.BigEndian)
		binary.BigEndian.PutUint16(code.data, 0x0a77)     // svc 119 (__NR_sigreturn)
		binary.BigEndian.PutUint16(code.data[2:], 0x0aad) // svc 173 (__NR_rt_sigreturn)
		// Non-rt: the sigcontext points at the _sigregs.
		sregs := uint64(sp + 0x200)
		mem.put(sp+uint64(arch.S390XArch.Signal.IndirectRegs), sregs)
		mem.put(sregs+8, 0x10122b2)    // PSW address
		mem.put(sregs+16+8*15, 0x8300) // r15
		mem.put(sregs+16+8*11, 0x8400) // r11
		space := &Space{Mem: twoMem{code.mem, mem.mem}}
		f := Frame{PC: tramp, Level: 3, Regs: NewRegs(arch.S390XArch)}
		f.Regs.Set(sframe.S390XRegSP, sp)
		c, err := (&CFIUnwinder{Space: space}).Step(&f)
		if err != nil {
			t.Fatal(err)
		}
		fp, _ := c.Regs.FP()
		if c.PC != 0x10122b2 || c.Regs.SP() != 0x8300 || fp != 0x8400 || f.CFA != 0x8300+160 {
			t.Errorf("non-rt: caller PC %#x SP %#x r11 %#x CFA %#x", c.PC, c.Regs.SP(), fp, f.CFA)
		}
		// rt, two bytes on: the _sigregs are in the ucontext, at sp+336
		// (160 save area, svc_insn padded to 8, siginfo 128, uc_flags,
		// uc_link, uc_stack 40), as gdb reads them.
		mem.put(sp+336+8, 0x1006336)
		mem.put(sp+336+16+8*15, 0x8310)
		f = Frame{PC: tramp + 2, Level: 3, Regs: NewRegs(arch.S390XArch)}
		f.Regs.Set(sframe.S390XRegSP, sp)
		if c, err = (&CFIUnwinder{Space: space}).Step(&f); err != nil || c.PC != 0x1006336 || c.Regs.SP() != 0x8310 {
			t.Errorf("rt: caller PC %#x SP %#x, %v", c.PC, c.Regs.SP(), err)
		}
	})
	t.Run("not a trampoline", func(t *testing.T) {
		code := newABIStack(0x1000, 8, binary.LittleEndian)
		f := Frame{PC: 0x1000, Level: 1, Regs: NewRegs(arch.ARM64Arch)}
		f.Regs.Set(sframe.AArch64RegSP, 0x8000)
		_, err := (&CFIUnwinder{Space: &Space{Mem: code.mem}}).Step(&f)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonNoModule {
			t.Errorf("zero code: %v, want no module", err)
		}
	})
}

// twoMem reads from the first memory that holds an address.
type twoMem [2]Memory

func (m twoMem) ReadAt(p []byte, addr uint64) (int, error) {
	n, err := m[0].ReadAt(p, addr)
	if n == len(p) {
		return n, nil
	}
	if n2, err2 := m[1].ReadAt(p, addr); n2 > n {
		return n2, err2
	}
	return n, err
}

func (m twoMem) BigEndian() bool { return ByteOrder(m[1]) == binary.ByteOrder(binary.BigEndian) }

// The big-endian fixtures: at each PC, SFrame and DWARF CFI step from the
// same registers over a big-endian stack to the same caller, reading
// words big-endian (and stripping a signed RA on AArch64).
func TestBigEndianFixturesSFrameAndCFIAgree(t *testing.T) {
	const stack = 0x7000
	for _, c := range []struct {
		file string
		abi  sframe.ABI
		pc   uint64
		regs map[rule.Reg]uint64
		mem  map[uint64]uint64 // stack words
		want Frame             // caller PC, SP and FP (Regs), and f.CFA in CFA
	}{
		// FDE 2: CFA fp+32, FP at c-32, RA at c-24.
		{"aarch64be-v3", sframe.ABIAArch64BigEndian, 0x40011c,
			map[rule.Reg]uint64{sframe.AArch64RegSP: stack, sframe.AArch64RegFP: stack},
			map[uint64]uint64{stack: stack + 0x80, stack + 8: 0x400200},
			Frame{PC: 0x400200, CFA: stack + 32}},
		// FDE 4 (B key): CFA sp+16, RA at c-8 signed.
		{"aarch64be-v3", sframe.ABIAArch64BigEndian, 0x400154,
			map[rule.Reg]uint64{sframe.AArch64RegSP: stack, sframe.AArch64RegFP: stack + 0x40},
			map[uint64]uint64{stack: stack + 0x80, stack + 8: 0x0035_0000_0040_0300},
			Frame{PC: 0x400300, CFA: stack + 16}},
		// FDE 2: CFA r11+320 (scaled), FP at c-72, RA at c-48.
		{"s390x-v3", sframe.ABIS390XBigEndian, 0x1000122,
			map[rule.Reg]uint64{sframe.S390XRegSP: stack, sframe.S390XRegFP: stack},
			// stmg saved r15 too (c-40): the entry SP, which is CFA-160.
			map[uint64]uint64{stack + 320 - 72: stack + 0x200, stack + 320 - 48: 0x1000500, stack + 320 - 40: stack + 160},
			Frame{PC: 0x1000500, CFA: stack + 320}},
		// FDE 3 (flex): the RA in f0 (DWARF 16), the FP in f2, frame 0.
		{"s390x-v3", sframe.ABIS390XBigEndian, 0x1000138,
			map[rule.Reg]uint64{sframe.S390XRegSP: stack, sframe.S390XRegFP: 0x99, 16: 0x1000600, 17: stack + 0x300},
			nil,
			Frame{PC: 0x1000600, CFA: stack + 160}},
	} {
		t.Run(fmt.Sprintf("%s@%#x", c.file, c.pc), func(t *testing.T) {
			path := filepath.Join("..", "testdata", "bin", c.file)
			mem := newABIStack(stack, 0x1000, binary.BigEndian)
			for a, v := range c.mem {
				mem.put(a, v)
			}
			m := &Module{Name: c.file, Path: path, Start: 0x400000, End: 0x2000000}
			space := &Space{Mem: mem.mem, Modules: NewModules(m)}
			var got [2]Frame
			var cfa [2]uint64
			for i, u := range []Unwinder{&SFrameUnwinder{Space: space}, &CFIUnwinder{Space: space}} {
				f := Frame{PC: c.pc, Interrupted: true, Module: m, Regs: NewRegs(SFrameArch(c.abi))}
				for r, v := range c.regs {
					f.Regs.Set(r, v)
				}
				var err error
				if got[i], err = u.Step(&f); err != nil {
					t.Fatalf("%v: %v", u.Method(), err)
				}
				cfa[i] = f.CFA
			}
			for i, name := range []string{"sframe", "cfi"} {
				fp, _ := got[i].Regs.FP()
				if got[i].PC != c.want.PC || cfa[i] != c.want.CFA {
					t.Errorf("%s: caller PC %#x, CFA %#x; want %#x, %#x", name, got[i].PC, cfa[i], c.want.PC, c.want.CFA)
				}
				fp0, _ := got[0].Regs.FP()
				if got[i].Regs.SP() != got[0].Regs.SP() || fp != fp0 {
					t.Errorf("%s: caller SP %#x FP %#x, SFrame's %#x %#x", name, got[i].Regs.SP(), fp, got[0].Regs.SP(), fp0)
				}
			}
		})
	}
}

// Two frameless frames whose RAs point at each other keep the SP: the
// second visit of a (PC, CFA) ends the trace as a bad frame, not at the
// depth limit.
func TestFlatLoopIsABadFrame(t *testing.T) {
	regs := NewRegs(arch.ARM64Arch)
	regs.Set(arch.ARM64Arch.PC, 0x400100)
	regs.Set(sframe.AArch64RegSP, 0x7000)
	s := NewStack(pingPong{}, regs, nil, StackOptions{})
	n := 0
	for s.Next() {
		n++
	}
	if s.Stop() == nil || s.Stop().Reason != ReasonBadFrame || n > 3 {
		t.Errorf("%d frames, stop %v; want a bad frame within 3", n, s.Stop())
	}
}

// pingPong returns 0x400200 from 0x400100 and back, at the same SP, with
// CFA = SP.
type pingPong struct{}

func (pingPong) Method() Method { return MethodCFI }
func (pingPong) Step(f *Frame) (Frame, error) {
	f.CFA = f.Regs.SP()
	c := Frame{PC: 0x400300 - f.PC, Regs: f.Regs.empty()}
	c.Regs.Set(arch.ARM64Arch.PC, c.PC)
	c.Regs.Set(sframe.AArch64RegSP, f.Regs.SP())
	return c, nil
}
