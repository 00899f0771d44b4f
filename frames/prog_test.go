package frames

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// The synthetic program "prog" used by the unwinder tests: link-time
// addresses, loaded with bias progBias. Its SFrame rows are those gcc and
// gas emit for such functions on AMD64.
const (
	progBias = 0x555555554000

	fnStart    = 0x1000 // _start: outermost (RA undefined)
	fnMain     = 0x1020 // push %rbp; mov %rsp,%rbp at +1, +4: CFA fp+16 after
	fnMid      = 0x1060 // SP-based, 48-byte frame from +5, FP untouched
	fnLeaf     = 0x10a0 // no frame: CFA sp+8
	fnPLT      = 0x1100 // 4 PLT entries of 16 bytes, PC type MASK
	gapStart   = 0x1140 // no FDE in [0x1140, 0x1150)
	fnSigTramp = 0x1150 // signal trampoline (v3 signal bit), entered at its first byte
	fnHandler  = 0x1160 // signal handler, FP-based like main
	fnFlex     = 0x1180 // DRAP prologue: FLEX rows based on r10 and *(rbp-8)
	fnZero     = 0x11c0 // a zero-size NOTYPE symbol, no FDE
	textEnd    = 0x1200

	libBias = 0x7f0000000000 // "libc.so.6": symbols, no SFrame
	fnLibc  = 0x2000
)

// progFDEs are the SFrame FDEs of prog.
func progFDEs() []tFDE {
	return []tFDE{
		{start: fnStart, size: 0x20, fres: []tFRE{{start: 0, base: bSP}}},
		{start: fnMain, size: 0x40, fres: []tFRE{
			{0, bSP, []int32{8}},
			{1, bSP, []int32{16, -16}},
			{4, bFP, []int32{16, -16}},
			{0x3f, bSP, []int32{8, -16}},
		}},
		{start: fnMid, size: 0x40, fres: []tFRE{
			{0, bSP, []int32{8}},
			{1, bSP, []int32{16}},
			{5, bSP, []int32{48}},
			{0x3c, bSP, []int32{16}},
			{0x3f, bSP, []int32{8}},
		}},
		{start: fnLeaf, size: 0x10, fres: []tFRE{{0, bSP, []int32{8}}}},
		{start: fnPLT, size: 0x40, mask: true, rep: 16, fres: []tFRE{
			{0, bSP, []int32{8}},
			{11, bSP, []int32{16}},
		}},
		{start: fnSigTramp, size: 9, signal: true, fres: []tFRE{{0, bSP, []int32{160}}}},
		{start: fnHandler, size: 0x20, fres: []tFRE{
			{0, bSP, []int32{8}},
			{1, bSP, []int32{16, -16}},
			{4, bFP, []int32{16, -16}},
		}},
		{start: fnFlex, size: 0x2a, flex: true, fres: []tFRE{
			{0, 0, []int32{flexCtl(RSP, true, false), 8}},
			{5, 0, []int32{flexCtl(R10, true, false), 0}},
			{0x11, 0, []int32{flexCtl(R10, true, false), 0, 0, flexCtl(RBP, true, true), 0}},
			{0x13, 0, []int32{flexCtl(RBP, true, true), -8, 0, flexCtl(RBP, true, true), 0}},
			{0x24, 0, []int32{flexCtl(R10, true, false), 0, 0, flexCtl(RBP, true, true), 0}},
			{0x29, 0, []int32{flexCtl(RSP, true, false), 8, 0, flexCtl(RBP, true, true), 0}},
		}},
	}
}

// progELF returns the ELF image of prog.
func progELF(t testing.TB) []byte {
	const sfAddr = 0x3000
	e := &tELF{base: 0, textAddr: fnStart, textSize: textEnd - fnStart, sfAddr: sfAddr,
		sframe: encodeSFrameV3(sfAddr, progFDEs()),
		syms: []tSym{
			{name: "_start", addr: fnStart, size: 0x20},
			{name: "main", addr: fnMain, size: 0x40},
			{name: "mid", addr: fnMid, size: 0x40},
			{name: "leaf", addr: fnLeaf, size: 0x10},
			{name: "__restore_rt", addr: fnSigTramp, size: 9},
			{name: "handler", addr: fnHandler, size: 0x20},
			{name: "flex_drap", addr: fnFlex, size: 0x2a},
			{name: "zero_size", addr: fnZero, notype: true},
		}}
	return e.build(t)
}

// libELF returns a module image with symbols and no .sframe section.
func libELF(t testing.TB) []byte {
	e := &tELF{base: 0, textAddr: fnLibc, textSize: 0x100,
		syms: []tSym{{name: "libc_fn", addr: fnLibc, size: 0x100}}}
	return e.build(t)
}

// progSpace returns the modules of the synthetic process (prog and libc)
// over memory mem.
func progSpace(t testing.TB, mem Memory) *Space {
	prog := &Module{Name: "prog", Path: "/usr/bin/prog", ELF: progELF(t), Start: progBias, End: progBias + 0x4000, Bias: progBias}
	lib := &Module{Name: "libc.so.6", Path: "/lib/libc.so.6", ELF: libELF(t), Start: libBias, End: libBias + 0x4000, Bias: libBias}
	return &Space{Mem: mem, Modules: NewModules(prog, lib)}
}

// rt converts a link-time address of prog to a runtime one.
func rt(a uint64) uint64 { return a + progBias }

// AMD64Regs returns an AMD64 register set with PC, SP and FP set: frame 0
// of a test unwind.
func AMD64Regs(pc, sp, fp uint64) Regs {
	r := NewRegs(arch.AMD64Arch)
	r.Set(RIP, pc)
	r.Set(RSP, sp)
	r.Set(RBP, fp)
	return r
}

// regs builds frame-0 registers.
func regs(pc, sp, fp uint64) Regs { return AMD64Regs(pc, sp, fp) }

// SliceMemory is a Memory over a byte slice mapped at Base: a stack image
// for the unwinder tests. Reads outside [Base, Base+len(Data)) fail;
// ReadUint64 errors are *MemoryError, as ReadUint64 gives.
type SliceMemory struct {
	Base uint64
	Data []byte
}

// ReadAt implements Memory.
func (m *SliceMemory) ReadAt(p []byte, addr uint64) (int, error) {
	if addr < m.Base || addr-m.Base >= uint64(len(m.Data)) {
		return 0, fmt.Errorf("address %#x outside [%#x, %#x)", addr, m.Base, m.Base+uint64(len(m.Data)))
	}
	n := copy(p, m.Data[addr-m.Base:])
	if n < len(p) {
		return n, fmt.Errorf("address %#x: read past end of mapping", addr+uint64(n))
	}
	return n, nil
}

// ReadUint64 implements WordReader.
func (m *SliceMemory) ReadUint64(addr uint64) (uint64, error) {
	if addr < m.Base || addr-m.Base > uint64(len(m.Data)) || uint64(len(m.Data))-(addr-m.Base) < 8 {
		var b [8]byte
		n, err := m.ReadAt(b[:], addr)
		if err == nil {
			err = fmt.Errorf("short read (%d of 8 bytes)", n)
		}
		return 0, &MemoryError{Addr: addr, Err: err}
	}
	return binary.LittleEndian.Uint64(m.Data[addr-m.Base:]), nil
}

// names returns "function+0xoff" for each frame, through the space's
// symbolizer.
func names(sp *Space, fs []Frame) []string {
	var out []string
	for i := range fs {
		m := sp.Modules.Find(fs[i].PC)
		if m == nil {
			out = append(out, "?")
			continue
		}
		n, off, ok := m.FuncName(fs[i].PC)
		if !ok {
			out = append(out, "?")
			continue
		}
		if off != 0 {
			n += "+" + hex(off)
		}
		out = append(out, n)
	}
	return out
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0x0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return "0x" + string(b)
}

// IsOutermost reports whether err says the trace reached its outermost frame.
func IsOutermost(err error) bool {
	var se *StopError
	return errors.As(err, &se) && se.Reason == ReasonOutermost
}

// Trace unwinds the whole stack: the frames found, innermost first, and
// the error that stopped the unwind before the outermost frame (nil when
// it reached it: ReasonOutermost). The error is a *StopError.
func Trace(u Unwinder, regs Regs, space *Space, opts StackOptions) ([]Frame, error) {
	s := NewStack(u, regs, space, opts)
	var out []Frame
	for s.Next() {
		out = append(out, s.Frame())
	}
	return out, s.Err()
}
