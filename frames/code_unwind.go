package frames

// The code oracle as an unwinder: the fourth witness of a live or core
// trace. For a frame's lookup PC it finds the function, walks that
// function's machine code once (package frames/code, after objtool's
// validate_branch), caches the walk on the module, and unwinds with the
// code's row at the PC through the one evaluator (eval.go), like the
// SFrame and CFI rows.

import (
	"debug/elf"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sirupsen/logrus"
)

// maxCodeFunc bounds the bytes of one function the code unwinder reads and
// walks: a range from a corrupt FDE or symbol is refused, not read.
const maxCodeFunc = 16 << 20

// CodeUnwinder unwinds with the machine code's own stack effect: for the
// frame's lookup PC (Frame.LookupPC) it takes the function around it (the
// DWARF CFI FDE's range, else the SFrame FDE's, else the ELF symbol's),
// reads its bytes from the module's file (never from the target's memory),
// walks them with frames/code.Analyze once per function (the result is
// cached on the module, Module.Memo) and evaluates the code's row at the
// PC (code.Func.RowAt: CFA from SP or FP, RA and FP saved at CFA-relative
// slots or still in their registers). The cache is bounded (maxCodeFuncs
// walks, maxCodePCs lookup PCs per module). The walk is check's
// (Module.CodeAnalyzer: noreturn callees, x86-64 jump tables, jumps into
// other functions, a cold part started from the states its parent jumps
// into it with). It reads nothing but the module's file and the target's
// stack.
type CodeUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *CodeUnwinder) Method() Method { return MethodCode }

// codeStop builds the *StopError of the code unwinder.
func codeStop(r Reason, pc uint64, m *Module, err error, format string, args ...any) *StopError {
	e := &StopError{Method: MethodCode, Reason: r, PC: pc, Msg: fmt.Sprintf(format, args...), Err: err}
	if m != nil {
		e.Module = m.Name
	}
	return e
}

// Step implements Unwinder. It returns f's caller with PC, SP, FP and the
// callee-saved registers kept as CFI keeps those without a rule (the
// code's row gives CFA, RA and FP only), and fills f.CFA and f.Row. Errors are *StopError: ReasonNoModule, ReasonNoData (a machine
// without a decoder, or the function's bytes cannot be read from the
// module's file), ReasonNoFDE (no function covers the PC), ReasonNoRow (the code's
// state at the PC is unknown: code-unknown, with the walk's reason), and
// those of stepRow.
func (u *CodeUnwinder) Step(f *Frame) (Frame, error) {
	if f.PC == 0 {
		return Frame{}, &StopError{Method: MethodCode, Reason: ReasonBadFrame, Msg: "PC is 0"}
	}
	if u.Space.Mem != nil && u.maybeTramp(f) {
		// A signal trampoline, known by its code (as gdb's tramp_frame
		// unwinders know it), in a module or not (qemu-user's page): its
		// caller is the interrupted frame.
		if caller, ok, err := stepSigtramp(u.Space, f, MethodCode); ok {
			return caller, err
		}
	}
	lpc := f.LookupPC()
	m := f.Module
	if m == nil || !m.Contains(lpc) {
		m = u.Space.Modules.Find(lpc)
	}
	if m == nil {
		return Frame{}, codeStop(ReasonNoModule, f.PC, nil, nil, "PC %#x is in no module", f.PC)
	}
	if chainEnds(u.Space, f) {
		if f.Module == nil {
			f.Module = m
		}
		if name, ok := outermostByABI(f); ok {
			// The entry point or a thread's start, which cleared the FP
			// for the psABI's outermost frame: nothing called it.
			f.Row = Row{Row: rule.Row{Outermost: true}, Src: Source{Method: MethodCode, Module: m, FDE: -1, CIE: -1, FRE: -1}}
			return Frame{}, codeStop(ReasonOutermost, f.PC, m, nil, "outermost frame: %s cleared the frame pointer or the back chain (the psABI's mark of the deepest frame)", name)
		}
	}
	fn, err := m.codeFuncAt(lpc)
	if err != nil {
		return Frame{}, err
	}
	i := fn.f.Index(lpc - m.Bias)
	if i < 0 {
		return Frame{}, codeStop(ReasonNoRow, f.PC, m, nil,
			"code-unknown at PC %#x in %s: no path from the entry of %s reaches it%s", f.PC, m.Name, fn.name(m), fn.why())
	}
	st, why, ok := fn.f.StateAt(lpc - m.Bias)
	if !ok {
		return Frame{}, codeStop(ReasonNoRow, f.PC, m, nil, "code-unknown at PC %#x in %s: %s", f.PC, m.Name, why)
	}
	a := fn.f.Arch
	in := fn.f.Insts[i]
	start := fn.f.Start + uint64(in.Off)
	f.Row = Row{Row: st.Row(a),
		Src: Source{Method: MethodCode, Module: m, FDE: -1, CIE: -1, FRE: -1,
			FDEStart: fn.f.Start + m.Bias, FDEEnd: fn.f.End + m.Bias, Arch: a},
		Start: start + m.Bias, End: start + uint64(max(in.Len, 1)) + m.Bias}
	var caller Frame
	err = stepRow(f, u.Space, &caller)
	return caller, err
}

// chainEnds reports whether the frame chain's link of frame f is 0, the
// psABI's mark of the deepest frame: its FP (AMD64, AArch64) or, for a
// back chain (s390x), the word at its SP.
func chainEnds(space *Space, f *Frame) bool {
	a := f.Regs.arch()
	if !a.Chain.BackChain {
		fp, known := f.Regs.FP()
		return known && fp == 0
	}
	sp, known := f.Regs.Get(a.SP)
	if !known || space.Mem == nil {
		return false
	}
	v, err := ReadPtr(space.Mem, sp, a.PtrSize)
	return err == nil && v == 0
}

// codeFunc is the cached walk of one function of a module (link-time
// addresses), or why there is none.
type codeFunc struct {
	f   *code.Func
	err error
}

// name names the function for messages: "0x401020-0x401080".
func (c *codeFunc) name(m *Module) string {
	return fmt.Sprintf("the function at %#x-%#x", c.f.Start+m.Bias, c.f.End+m.Bias)
}

// why says why the walk may not reach an instruction: its first
// code-unknown note ("; the walk stopped at 0x401000: ..."), or "".
func (c *codeFunc) why() string {
	for _, fd := range c.f.Findings {
		if fd.Kind == code.KindUnknown {
			return "; the walk stopped at " + c.f.Describe(fd)
		}
	}
	return ""
}

// codeTramp returns the recogniser of machine a's signal trampoline that
// the code method uses where arch.Signal.Tramp has none, and the bytes it
// needs: on AMD64 glibc's and musl's __restore_rt, "mov $15,%rax;
// syscall" (rt_sigreturn, as gdb's amd64_linux_sigtramp_code knows it).
func codeTramp(a *arch.Arch) (func([]byte) (rt, ok bool), int) {
	if a.Machine != elf.EM_X86_64 {
		return nil, 0
	}
	return func(b []byte) (bool, bool) {
		return true, string(b) == "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05"
	}, 9
}

// codeFuncAt returns the walk of the function holding the runtime address
// pc, walking it on first use. Errors are *StopError.
func (m *Module) codeFuncAt(pc uint64) (*codeFunc, error) {
	// A machine the code cannot be read for is data the method lacks,
	// as a module without .sframe is for SFrame: not covered, no fault.
	a, err := m.Arch()
	if err != nil {
		return nil, codeStop(ReasonNoData, pc, m, err, "cannot unwind PC %#x in %s from its code: %v", pc, m.Name, err)
	}
	if a.Decoder == nil {
		return nil, codeStop(ReasonNoData, pc, m, nil, "cannot unwind PC %#x in %s from its code: no instruction decoder for %s", pc, m.Name, a.Name)
	}
	c := m.codeCache()
	lpc := pc - m.Bias
	c.mu.Lock()
	v := c.byPC[lpc]
	c.mu.Unlock()
	if v == nil {
		start, end, err := m.codeRange(lpc)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		v = c.funcs[start]
		c.mu.Unlock()
		if v == nil {
			v = m.walkCode(start, end)
			c.mu.Lock()
			if len(c.funcs) >= maxCodeFuncs {
				clear(c.funcs)
			}
			c.funcs[start] = v
			c.mu.Unlock()
		}
		c.mu.Lock()
		if len(c.byPC) >= maxCodePCs {
			clear(c.byPC)
		}
		c.byPC[lpc] = v
		c.mu.Unlock()
	}
	if v.err != nil {
		return nil, v.err
	}
	return v, nil
}

// Bounds of a module's code cache: the walks of this many functions, and
// this many lookup PCs (each a function's walk, or whether a PC starts a
// signal trampoline); a full table is emptied and filled again.
const (
	maxCodeFuncs = 1024
	maxCodePCs   = 8192
)

// codeCacheT is a module's cache of the code method (Module.Memo): the
// walks by function start, the function by lookup PC, and whether a PC
// starts a signal trampoline (link-time addresses).
type codeCacheT struct {
	mu    sync.Mutex
	funcs map[uint64]*codeFunc
	byPC  map[uint64]*codeFunc
	tramp map[uint64]bool
}

// codeCacheKey keys the code cache on a module (Module.Memo).
type codeCacheKey struct{}

func (m *Module) codeCache() *codeCacheT {
	return m.Memo(codeCacheKey{}, func() any {
		return &codeCacheT{funcs: map[uint64]*codeFunc{}, byPC: map[uint64]*codeFunc{}, tramp: map[uint64]bool{}}
	}).(*codeCacheT)
}

// maybeTramp reports whether f's PC may start a signal trampoline: true
// outside every module (stepSigtramp then reads the target's memory), and
// in a module unless its file's code at the PC was found to be none
// (cached per PC).
func (u *CodeUnwinder) maybeTramp(f *Frame) bool {
	if u.Space.Modules == nil {
		return true
	}
	m := u.Space.Modules.Find(f.PC)
	if m == nil {
		return true
	}
	c := m.codeCache()
	c.mu.Lock()
	is, known := c.tramp[f.PC-m.Bias]
	c.mu.Unlock()
	if known {
		return is
	}
	_, is = sigtramp(u.Space, f.Regs.arch(), f.PC, MethodCode)
	c.mu.Lock()
	if len(c.tramp) >= maxCodePCs {
		clear(c.tramp)
	}
	c.tramp[f.PC-m.Bias] = is
	c.mu.Unlock()
	return is
}

// codeRange returns the link-time range [start, end) of the function
// holding the link-time address lpc: its DWARF CFI FDE's, else its SFrame
// FDE's, else its ELF symbol's.
func (m *Module) codeRange(lpc uint64) (start, end uint64, err error) {
	if t, err := m.cfiData(true); err == nil && t != nil && !t.foreign {
		if fde, err := t.lookup(lpc); err == nil {
			return fde.Start, fde.End, nil
		} else if !errors.Is(err, cfi.ErrNoFDE) {
			logrus.Debugf("frames: %s: code: CFI lookup at %#x: %v", m.Name, lpc, err)
		}
	}
	if sec, err := m.SFrame(); err == nil {
		if fde, err := sec.FindFDE(lpc); err == nil {
			return fde.Start, fde.End(), nil
		}
	}
	if d, err := m.load(); err == nil {
		t := m.symbols(d)
		if i := t.find(lpc); i >= 0 {
			return t.addrs[i], t.addrs[i] + t.sizes[i], nil
		}
	}
	return 0, 0, codeStop(ReasonNoFDE, lpc+m.Bias, m, nil, "no function (CFI FDE, SFrame FDE or symbol) covers PC %#x in %s", lpc+m.Bias, m.Name)
}

// codeBytes reads size bytes at link-time address addr from the module's
// file (an allocated section with contents), or nil. In a relocatable
// object the section's relocations are applied where elfobj.Layout.Data
// can apply them all (a jump table's entries), else the bytes are read as
// they are (code with calls to other files: R_X86_64_PLT32).
func (m *Module) codeBytes(addr uint64, size int) []byte { return m.readCode(addr, size, false) }

// codeBytesUpTo is codeBytes of at most size bytes: fewer near the end of
// the section that holds addr.
func (m *Module) codeBytesUpTo(addr uint64, size int) []byte { return m.readCode(addr, size, true) }

// readCode is codeBytes, with size cut to the section's end when upTo.
func (m *Module) readCode(addr uint64, size int, upTo bool) []byte {
	l, err := m.Layout()
	if err != nil {
		return nil
	}
	s, off, ok := l.Locate(addr)
	if !ok || s.Type == elf.SHT_NOBITS {
		return nil
	}
	if upTo && off < s.Size {
		size = int(min(uint64(size), s.Size-off))
	}
	if size <= 0 || uint64(size) > s.Size-off {
		return nil
	}
	b := make([]byte, size)
	if l.Synthetic() {
		if data, err := l.Data(s); err == nil {
			copy(b, data[off:])
			return b
		}
	}
	if _, err := s.ReadAt(b, int64(off)); err != nil {
		return nil
	}
	return b
}

// walkCode reads the function [start, end) (link-time addresses) from the
// file and walks it with the module's CodeAnalyzer.
func (m *Module) walkCode(start, end uint64) *codeFunc {
	fail := func(format string, args ...any) *codeFunc {
		return &codeFunc{err: codeStop(ReasonNoData, start+m.Bias, m, nil, format, args...)}
	}
	if end <= start || end-start > maxCodeFunc {
		return fail("cannot unwind PC %#x in %s from its code: the function's range %#x-%#x is empty or over %d bytes", start+m.Bias, m.Name, start, end, maxCodeFunc)
	}
	text := m.codeBytes(start, int(end-start))
	if text == nil {
		return fail("cannot unwind in %s from its code: the bytes of %#x-%#x are not in the file", m.Name, start+m.Bias, end+m.Bias)
	}
	c, err := m.CodeAnalyzer()
	if err != nil {
		return fail("cannot unwind PC %#x in %s from its code: %v", start+m.Bias, m.Name, err)
	}
	f, entered, why := c.Analyze(text, start)
	if f == nil {
		name, _, _ := m.FuncName(start + m.Bias)
		return fail("code-unknown in %s: %s: not walked: %s", m.Name, name, why)
	}
	// A function no call enters (its CFI's first row has another CFA than
	// a call leaves: glibc's _dl_runtime_resolve, entered from PLT0 with
	// two words pushed, and PLT0 itself) has no state from a call: the
	// code says nothing there, as check does not judge it.
	if !entered {
		if r, err := m.CFIRow(start + m.Bias); err == nil && NotCallEntry(c.a, &r.Row) {
			return fail("cannot unwind PC %#x in %s from its code: entered with CFA=%s by its CFI, not by a call", start+m.Bias, m.Name, RuleStringFor(c.a, r.CFA))
		}
	}
	return &codeFunc{f: f}
}

// ColdParent returns the name of a cold part's parent function (GCC's
// hot/cold partitioning): "foo" for "foo.cold" and "foo.cold.1"; ok is
// false for a name that is not a cold part's.
func ColdParent(name string) (parent string, ok bool) {
	i := strings.Index(name, ".cold")
	if i <= 0 {
		return "", false
	}
	return name[:i], true
}
