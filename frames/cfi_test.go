package frames

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	dwframe "github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/go-delve/delve/pkg/dwarf/leb128"
	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// cfiAsm assembles call frame instructions for synthetic CFI.
type cfiAsm struct{ bytes.Buffer }

func (a *cfiAsm) op(b ...byte) *cfiAsm   { a.Write(b); return a }
func (a *cfiAsm) uleb(v uint64) *cfiAsm  { leb128.EncodeUnsigned(a, v); return a }
func (a *cfiAsm) sleb(v int64) *cfiAsm   { leb128.EncodeSigned(a, v); return a }
func (a *cfiAsm) advance(d byte) *cfiAsm { return a.op(dwframe.DW_CFA_advance_loc | d) }
func (a *cfiAsm) defCFA(r, off uint64) *cfiAsm {
	return a.op(dwframe.DW_CFA_def_cfa).uleb(r).uleb(off)
}
func (a *cfiAsm) defCFAOffset(off uint64) *cfiAsm {
	return a.op(dwframe.DW_CFA_def_cfa_offset).uleb(off)
}
func (a *cfiAsm) defCFARegister(r uint64) *cfiAsm {
	return a.op(dwframe.DW_CFA_def_cfa_register).uleb(r)
}

// offset: DW_CFA_offset reg at cfa-8*n (data alignment -8).
func (a *cfiAsm) offset(r byte, n uint64) *cfiAsm { return a.op(dwframe.DW_CFA_offset | r).uleb(n) }
func (a *cfiAsm) block(opc byte, reg int, expr []byte) *cfiAsm {
	a.op(opc)
	if reg >= 0 {
		a.uleb(uint64(reg))
	}
	a.uleb(uint64(len(expr)))
	a.Write(expr)
	return a
}
func (a *cfiAsm) bytes() []byte { return append([]byte(nil), a.Bytes()...) }

func cfiProg() *cfiAsm { return &cfiAsm{} }

// bregExpr is "DW_OP_bregN off" with optional further opcodes.
func cfiBreg(reg byte, off int64, more ...byte) []byte {
	var b bytes.Buffer
	b.WriteByte(byte(op.DW_OP_breg0) + reg)
	leb128.EncodeSigned(&b, off)
	b.Write(more)
	return b.Bytes()
}

// ehBuilder lays out a synthetic .eh_frame mapped at addr: CIEs with
// augmentation "zR" (or "zRS") and FDE addresses encoded pcrel|sdata4, the
// way gcc and gas write them.
type ehBuilder struct {
	addr uint64
	buf  []byte
}

func (b *ehBuilder) record(body []byte) int {
	off := len(b.buf)
	for (4+len(body))%8 != 0 {
		body = append(body, dwframe.DW_CFA_nop)
	}
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(len(body)))
	b.buf = append(b.buf, body...)
	return off
}

// cie adds a CIE (code alignment 1, data alignment -8, RA column 16).
func (b *ehBuilder) cie(aug string, instr []byte) int {
	var body cfiAsm
	body.Write([]byte{0, 0, 0, 0, 1}) // CIE id, version
	body.WriteString(aug)
	body.WriteByte(0)
	body.uleb(1).sleb(-8).op(16) // CAF, DAF, RA column (a byte in version 1)
	body.uleb(1).op(0x1b)        // augmentation data: FDE encoding pcrel|sdata4
	body.Write(instr)
	return b.record(body.bytes())
}

// stdCIE is the CIE every gcc object starts with: CFA = rsp+8, RA at cfa-8.
func (b *ehBuilder) stdCIE() int {
	return b.cie("zR", cfiProg().defCFA(7, 8).offset(16, 1).bytes())
}

func (b *ehBuilder) fde(cie int, begin, size uint64, instr []byte) int {
	off := len(b.buf)
	var body []byte
	body = binary.LittleEndian.AppendUint32(body, uint32(off+4-cie))
	pcAt := b.addr + uint64(off) + 8
	body = binary.LittleEndian.AppendUint32(body, uint32(int32(begin-pcAt)))
	body = binary.LittleEndian.AppendUint32(body, uint32(size))
	body = append(body, 0) // augmentation data length
	body = append(body, instr...)
	return b.record(body)
}

func (b *ehBuilder) section() []byte { return append(append([]byte(nil), b.buf...), 0, 0, 0, 0) }

// cfiModule returns a module named name whose CFI is the table t.
func cfiModule(t *testing.T, name string, eh *ehBuilder, bias uint64) *Module {
	t.Helper()
	tab, err := parseCFILE(eh.section(), eh.addr, nil, bias)
	if err != nil {
		t.Fatalf("parseCFI: %v", err)
	}
	m := &Module{Name: name, Start: bias, End: bias + 0x100000, Bias: bias}
	m.once.Do(func() {}) // no file: the CFI comes from tab
	m.data = &moduleData{}
	m.data.cfiOnce.Do(func() { m.data.cfi = tab })
	m.data.cfiHdrOnce.Do(func() {}) // no .eh_frame_hdr index: lookups use tab
	return m
}

// parseCFILE builds a full table from little-endian, 64-bit .eh_frame bytes
// mapped at ehAddr and .debug_frame bytes, either of which may be nil, of an
// AMD64 file loaded with bias.
func parseCFILE(eh []byte, ehAddr uint64, dbg []byte, bias uint64) (*cfiTable, error) {
	sec := func(k cfi.Kind, b []byte, addr uint64) cfiInput {
		return cfiInput{sec: cfi.Section{Kind: k, Addr: addr, Order: binary.LittleEndian, PtrSize: 8, Data: b}, ok: b != nil}
	}
	return parseCFI(arch.AMD64Arch, bias, sec(cfi.DebugFrame, dbg, 0), sec(cfi.EHFrame, eh, ehAddr))
}

// cfiFDESource names an FDE as Source.String does.
func cfiFDESource(f *cfi.FDE) string {
	return Source{Method: MethodCFI, Section: f.Kind.String(), FDE: f.Off, CIE: f.CIE.Off, FRE: -1}.String()
}

func cfiRule(k rule.Kind, reg rule.Reg, off int64) rule.Rule {
	return rule.Rule{Kind: k, Reg: reg, Offset: off}
}

var (
	cfiSame  = cfiRule(rule.SameValue, rule.CFA, 0)
	cfiUndef = cfiRule(rule.Undefined, rule.CFA, 0)
)

func cfiRowString(r Row) string {
	s := fmt.Sprintf("[%#x,%#x) cfa=%v ra=%v fp=%v", r.Start, r.End, RuleString(r.CFA), RuleString(r.RA), RuleString(r.FP))
	for _, o := range otherList(r.Other) {
		s += fmt.Sprintf(" %s=%v", arch.AMD64Arch.RegName(o.Reg), RuleString(o.Rule))
	}
	return s
}

func TestCFIRows(t *testing.T) {
	const bias = 0x555555554000
	eh := &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	// push %rbp; mov %rsp,%rbp; push %rbx; ...; pop %rbx; pop %rbp; ret
	eh.fde(cie, 0x1000, 0x20, cfiProg().
		advance(1).defCFAOffset(16).offset(6, 2).
		advance(3).defCFARegister(6).
		advance(1).offset(3, 3).
		advance(0x15).op(dwframe.DW_CFA_restore|3).
		advance(1).defCFA(7, 8).
		bytes())
	// PLT: CFA = rsp+8+((rip&15)>=11)*8 after the first two entries.
	plt := []byte{byte(op.DW_OP_breg7), 8, byte(op.DW_OP_breg16), 0, byte(op.DW_OP_lit15), byte(op.DW_OP_and),
		byte(op.DW_OP_lit11), byte(op.DW_OP_ge), byte(op.DW_OP_lit3), byte(op.DW_OP_shl), byte(op.DW_OP_plus)}
	eh.fde(cie, 0x1020, 0x30, cfiProg().defCFAOffset(16).advance(6).defCFAOffset(24).advance(10).
		block(dwframe.DW_CFA_def_cfa_expression, -1, plt).bytes())
	// Early return: remember_state / restore_state around an epilogue.
	eh.fde(cie, 0x1100, 0x10, cfiProg().advance(1).defCFAOffset(16).offset(3, 2).
		advance(2).op(dwframe.DW_CFA_remember_state).defCFAOffset(8).op(dwframe.DW_CFA_restore|3).
		advance(2).op(dwframe.DW_CFA_restore_state).bytes())
	// same_value, undefined, register, val_offset, expression forms.
	eh.fde(cie, 0x1200, 0x10, cfiProg().
		op(dwframe.DW_CFA_same_value).uleb(3).
		op(dwframe.DW_CFA_undefined).uleb(12).
		op(dwframe.DW_CFA_register).uleb(13).uleb(10).
		op(dwframe.DW_CFA_val_offset).uleb(14).uleb(2).
		block(dwframe.DW_CFA_expression, 15, cfiBreg(7, 24)).
		block(dwframe.DW_CFA_val_expression, 6, cfiBreg(7, 32, byte(op.DW_OP_deref))).
		advance(4).block(dwframe.DW_CFA_def_cfa_expression, -1, cfiBreg(6, -8, byte(op.DW_OP_deref))).
		bytes())
	m := cfiModule(t, "synth", eh, bias)

	tests := []struct {
		name  string
		start uint64
		want  []string
	}{
		{"a prologue gives one row per CFI advance", 0x1000, []string{
			"[0x555555555000,0x555555555001) cfa=rsp+8 ra=c-8 fp=u",
			"[0x555555555001,0x555555555004) cfa=rsp+16 ra=c-8 fp=c-16",
			"[0x555555555004,0x555555555005) cfa=rbp+16 ra=c-8 fp=c-16",
			"[0x555555555005,0x55555555501a) cfa=rbp+16 ra=c-8 fp=c-16 rbx=c-24",
			"[0x55555555501a,0x55555555501b) cfa=rbp+16 ra=c-8 fp=c-16",
			"[0x55555555501b,0x555555555020) cfa=rsp+8 ra=c-8 fp=c-16",
		}},
		{"a PLT has a CFA expression", 0x1020, []string{
			"[0x555555555020,0x555555555026) cfa=rsp+16 ra=c-8 fp=u",
			"[0x555555555026,0x555555555030) cfa=rsp+24 ra=c-8 fp=u",
			"[0x555555555030,0x555555555050) cfa=expr[11] ra=c-8 fp=u",
		}},
		{"restore_state brings back the remembered row", 0x1100, []string{
			"[0x555555555100,0x555555555101) cfa=rsp+8 ra=c-8 fp=u",
			"[0x555555555101,0x555555555103) cfa=rsp+16 ra=c-8 fp=u rbx=c-16",
			"[0x555555555103,0x555555555105) cfa=rsp+8 ra=c-8 fp=u",
			"[0x555555555105,0x555555555110) cfa=rsp+16 ra=c-8 fp=u rbx=c-16",
		}},
		{"simple expressions become plain rules", 0x1200, []string{
			"[0x555555555200,0x555555555204) cfa=rsp+8 ra=c-8 fp=(rsp+32) rbx=u r12=undefined r13=r10 r14=v-16 r15=(rsp+24)",
			"[0x555555555204,0x555555555210) cfa=(rbp-8) ra=c-8 fp=(rsp+32) rbx=u r12=undefined r13=r10 r14=v-16 r15=(rsp+24)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdes, err := m.CFIFDEs()
			if err != nil {
				t.Fatal(err)
			}
			var fde CFIFDE
			for _, f := range fdes {
				if f.Start == bias+tt.start {
					fde = f
				}
			}
			rows, err := m.CFIRows(fde.Start, fde.End)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, cfiRowString(r))
				if r.Src.String() != fde.Source || !strings.HasPrefix(r.Src.String(), ".eh_frame FDE 0x") {
					t.Errorf("row source %q, FDE source %q", r.Src.String(), fde.Source)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			// CFIRow agrees with the table at every byte.
			for _, r := range rows {
				for pc := r.Start; pc < r.End; pc++ {
					one, err := m.CFIRow(pc)
					if err != nil || cfiRowString(one) != cfiRowString(r) {
						t.Fatalf("CFIRow(%#x) = %s, %v; want %s", pc, cfiRowString(one), err, cfiRowString(r))
					}
				}
			}
		})
	}

	t.Run("the source names the FDE and CIE offsets", func(t *testing.T) {
		r, err := m.CFIRow(bias + 0x1000)
		if err != nil {
			t.Fatal(err)
		}
		if want := ".eh_frame FDE 0x18 (CIE 0x0)"; r.Src.String() != want {
			t.Errorf("Source = %q, want %q", r.Src.String(), want)
		}
	})
	t.Run("a PC outside every FDE is ReasonNoFDE", func(t *testing.T) {
		_, err := m.CFIRow(bias + 0x5000)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonNoFDE || se.Error() != "no CFI for PC 0x555555559000 in synth" {
			t.Errorf("err = %v", err)
		}
	})
}

// cfiStackMem is a little-endian stack image at base for Step tests.
type cfiStackMem struct{ SliceMemory }

func newCFIStack(base uint64, size int) *cfiStackMem {
	return &cfiStackMem{SliceMemory{Base: base, Data: make([]byte, size)}}
}

func (s *cfiStackMem) put(addr, v uint64) {
	binary.LittleEndian.PutUint64(s.Data[addr-s.Base:], v)
}

func cfiFrame0(pc, sp uint64, regs map[rule.Reg]uint64) Frame {
	f := Frame{PC: pc, Method: MethodRegs, Interrupted: true, Regs: NewRegs(arch.AMD64Arch)}
	f.Regs.Set(RIP, pc)
	f.Regs.Set(RSP, sp)
	for r, v := range regs {
		f.Regs.Set(r, v)
	}
	return f
}

func TestCFIStep(t *testing.T) {
	eh := &ehBuilder{addr: 0x8000}
	cie := eh.stdCIE()
	// f: push %rbp; mov %rsp,%rbp; push %rbx (rbx at cfa-24), body, calls.
	eh.fde(cie, 0x1000, 0x40, cfiProg().advance(1).defCFAOffset(16).offset(6, 2).
		advance(3).defCFARegister(6).advance(1).offset(3, 3).bytes())
	// PLT.
	plt := []byte{byte(op.DW_OP_breg7), 8, byte(op.DW_OP_breg16), 0, byte(op.DW_OP_lit15), byte(op.DW_OP_and),
		byte(op.DW_OP_lit11), byte(op.DW_OP_ge), byte(op.DW_OP_lit3), byte(op.DW_OP_shl), byte(op.DW_OP_plus)}
	eh.fde(cie, 0x1040, 0x20, cfiProg().block(dwframe.DW_CFA_def_cfa_expression, -1, plt).bytes())
	// _start: the RA column is undefined.
	startCIE := eh.cie("zR", cfiProg().defCFA(7, 8).offset(16, 1).op(dwframe.DW_CFA_undefined, 16).bytes())
	eh.fde(startCIE, 0x1100, 0x20, nil)
	// A signal trampoline without glibc's one-byte lead: the FDE starts at
	// the address the kernel pushes as return address. Registers are in a
	// sigcontext at rsp+40 (r8) ... like glibc's __restore_rt, RBX through
	// a generic expression using the pushed CFA: CFA + (128-160)... the CFA
	// is *(rsp+160), so rbx's slot is rsp+128 = CFA-ish only by accident;
	// use "DW_OP_breg7 120; DW_OP_lit8; DW_OP_plus" (rsp+128).
	sigCIE := eh.cie("zRS", nil)
	sig := cfiProg().block(dwframe.DW_CFA_def_cfa_expression, -1, cfiBreg(7, 160, byte(op.DW_OP_deref))).
		block(dwframe.DW_CFA_expression, 8, cfiBreg(7, 40)).
		block(dwframe.DW_CFA_expression, 6, cfiBreg(7, 120)).
		block(dwframe.DW_CFA_expression, 3, cfiBreg(7, 120, byte(op.DW_OP_lit8), byte(op.DW_OP_plus))).
		block(dwframe.DW_CFA_expression, 0, cfiBreg(7, 144)).
		block(dwframe.DW_CFA_expression, 7, cfiBreg(7, 160)).
		block(dwframe.DW_CFA_expression, 16, cfiBreg(7, 168)).
		bytes()
	eh.fde(sigCIE, 0x2000, 0x9, sig)
	// The interrupted function: its row changes exactly at 0x3004.
	eh.fde(cie, 0x3000, 0x10, cfiProg().advance(4).defCFAOffset(16).bytes())

	const stackBase = 0x7ffe0000
	mem := newCFIStack(stackBase, 0x1000)
	m := cfiModule(t, "synth", eh, 0)
	sp := &Space{Mem: mem, Modules: NewModules(m)}
	u := &CFIUnwinder{Space: sp}

	t.Run("an FP-based CFA restores RBP and RBX from the stack", func(t *testing.T) {
		rsp, rbp := uint64(stackBase+0x100), uint64(stackBase+0x200)
		mem.put(rbp, 0xbbbb0000) // saved rbp at cfa-16
		mem.put(rbp+8, 0x1111)   // RA at cfa-8
		mem.put(rbp-8, 0x3333)   // saved rbx at cfa-24
		f := cfiFrame0(0x1010, rsp, map[rule.Reg]uint64{RBP: rbp, RBX: 7, R12: 12, RAX: 1})
		c, err := u.Step(&f)
		if err != nil {
			t.Fatal(err)
		}
		if f.CFA != rbp+16 || c.PC != 0x1111 || c.Regs.SP() != rbp+16 || c.Interrupted || c.Level != 1 || c.Method != MethodCFI {
			t.Errorf("CFA %#x caller %+v", f.CFA, c)
		}
		want := map[rule.Reg]uint64{RBP: 0xbbbb0000, RBX: 0x3333, R12: 12, RIP: 0x1111}
		for r, v := range want {
			if got, ok := c.Regs.Get(r); !ok || got != v {
				t.Errorf("caller %s = %#x, %v; want %#x", arch.AMD64Arch.RegName(r), got, ok, v)
			}
		}
		if c.Regs.Known(RAX) {
			t.Errorf("caller RAX is known; a caller-saved register without a rule must be unknown")
		}
		if !(f.Row.CFA == cfiRule(rule.ValOffset, RBP, 16)) {
			t.Errorf("f.Row = %s", cfiRowString(f.Row))
		}
	})
	t.Run("a return address looks up the row of the call at PC-1", func(t *testing.T) {
		// PC 0x1001 as a return address: the row at 0x1000 (CFA rsp+8).
		rsp := uint64(stackBase + 0x300)
		mem.put(rsp, 0x4444)
		f := Frame{Level: 1, PC: 0x1001, Regs: NewRegs(arch.AMD64Arch)}
		f.Regs.Set(RSP, rsp)
		c, err := u.Step(&f)
		if err != nil || f.CFA != rsp+8 || c.PC != 0x4444 {
			t.Errorf("CFA %#x PC %#x err %v", f.CFA, c.PC, err)
		}
	})
	t.Run("a PLT CFA expression depends on RIP", func(t *testing.T) {
		for _, tc := range []struct{ pc, cfaOff uint64 }{{0x1040, 8}, {0x104a, 8}, {0x104b, 16}, {0x104f, 16}, {0x1050, 8}} {
			rsp := uint64(stackBase + 0x400)
			mem.put(rsp+tc.cfaOff-8, 0x5555+tc.pc)
			f := cfiFrame0(tc.pc, rsp, nil)
			c, err := u.Step(&f)
			if err != nil || f.CFA != rsp+tc.cfaOff || c.PC != 0x5555+tc.pc {
				t.Errorf("PC %#x: CFA %#x (want rsp+%d), caller PC %#x, err %v", tc.pc, f.CFA, tc.cfaOff, c.PC, err)
			}
		}
	})
	t.Run("an undefined RA column is the outermost frame", func(t *testing.T) {
		f := cfiFrame0(0x1104, stackBase+0x500, nil)
		_, err := u.Step(&f)
		if !IsOutermost(err) {
			t.Errorf("err = %v, want outermost", err)
		}
	})
	t.Run("a signal trampoline restores every register and marks the caller interrupted", func(t *testing.T) {
		rsp := uint64(stackBase + 0x600)
		sigSP, sigPC := uint64(stackBase+0x900), uint64(0x3004)
		mem.put(rsp+40, 0x88)
		mem.put(rsp+120, stackBase+0xa00) // rbp
		mem.put(rsp+128, 0x33)            // rbx
		mem.put(rsp+144, 0xaa)            // rax
		mem.put(rsp+160, sigSP)           // rsp
		mem.put(rsp+168, sigPC)           // rip
		mem.put(sigSP+8, 0x1234)          // the RA of the interrupted function (CFA rsp+16)
		// Frame 1: returned-to trampoline; PC-1 (0x1fff) is in no FDE.
		f := Frame{Level: 1, PC: 0x2000, Regs: NewRegs(arch.AMD64Arch)}
		f.Regs.Set(RSP, rsp)
		f.Regs.Set(R12, 0xc12)
		c, err := u.Step(&f)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Row.Signal || !c.Interrupted || c.PC != sigPC || f.CFA != sigSP {
			t.Errorf("row %s; caller PC %#x interrupted %v; CFA %#x", cfiRowString(f.Row), c.PC, c.Interrupted, f.CFA)
		}
		want := map[rule.Reg]uint64{R8: 0x88, RBP: stackBase + 0xa00, RBX: 0x33, RAX: 0xaa, RSP: sigSP, R12: 0xc12}
		for r, v := range want {
			if got, ok := c.Regs.Get(r); !ok || got != v {
				t.Errorf("caller %s = %#x, %v; want %#x", arch.AMD64Arch.RegName(r), got, ok, v)
			}
		}
		// The interrupted frame is looked up at its PC, 0x3004 (CFA
		// rsp+16), not 0x3003 (rsp+8).
		c2, err := u.Step(&c)
		if err != nil || c.CFA != sigSP+16 || c2.PC != 0x1234 || c2.Interrupted {
			t.Errorf("interrupted frame: CFA %#x caller %#x interrupted %v err %v", c.CFA, c2.PC, c2.Interrupted, err)
		}
	})
	t.Run("an unreadable RA is ReasonMemory", func(t *testing.T) {
		f := cfiFrame0(0x1000, 0x10, nil)
		_, err := u.Step(&f)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonMemory {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("a CFA on an unknown register is ReasonUnsafe", func(t *testing.T) {
		f := Frame{Level: 2, PC: 0x1011, Regs: NewRegs(arch.AMD64Arch)}
		f.Regs.Set(RSP, stackBase)
		_, err := u.Step(&f)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonUnsafe {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("a PC in no module is ReasonNoModule", func(t *testing.T) {
		f := cfiFrame0(0x7000000, 0, nil)
		_, err := u.Step(&f)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonNoModule {
			t.Errorf("err = %v", err)
		}
	})
}

// emptyELF is an ELF header with no sections: a module without CFI.
func cfiEmptyELF() []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01")
	binary.LittleEndian.PutUint16(h[16:], uint16(elf.ET_DYN))
	binary.LittleEndian.PutUint16(h[18:], uint16(elf.EM_X86_64))
	binary.LittleEndian.PutUint32(h[20:], 1)
	binary.LittleEndian.PutUint16(h[52:], 64) // e_ehsize
	return h
}

func TestCFINoData(t *testing.T) {
	m := &Module{Name: "empty", ELF: cfiEmptyELF(), Start: 0x1000, End: 0x2000}
	_, err := m.CFIRow(0x1800)
	var se *StopError
	if !errors.As(err, &se) || se.Reason != ReasonNoData || !strings.Contains(err.Error(), "empty") {
		t.Errorf("err = %v, want ReasonNoData", err)
	}
}

// TestCFIMalformed feeds broken CFI through parsing, row building and
// stepping: every case must give an error and none may panic.
func TestCFIMalformed(t *testing.T) {
	good := func() *ehBuilder {
		eh := &ehBuilder{addr: 0x2000}
		eh.stdCIE()
		return eh
	}
	withFDE := func(instr []byte) []byte {
		eh := good()
		eh.fde(0, 0x1000, 0x20, instr)
		return eh.section()
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"a record length past the end", func() []byte { b := withFDE(nil); b[0] = 0xff; return b }()},
		{"a 64-bit length", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
		{"a truncated length", []byte{1, 0}},
		{"an FDE pointing to no CIE", func() []byte { b := withFDE(nil); b[0x1c] = 0x7f; return b }()},
		{"restore_state without remember_state", withFDE(cfiProg().advance(1).op(dwframe.DW_CFA_restore_state).bytes())},
		{"an unknown instruction", withFDE(cfiProg().op(0x3f).bytes())},
		// 7 bytes of instructions fill the FDE to a multiple of 8: no padding.
		{"a truncated instruction", withFDE(cfiProg().op(0, 0, 0, 0, 0, 0, dwframe.DW_CFA_advance_loc4).bytes())},
		{"an expression block past the end", withFDE(cfiProg().op(dwframe.DW_CFA_def_cfa_expression).uleb(200).op(0x70).bytes())},
		{"a huge register number", withFDE(cfiProg().op(dwframe.DW_CFA_undefined).uleb(1 << 40).bytes())},
		{"def_cfa_offset after a CFA expression", withFDE(cfiProg().block(dwframe.DW_CFA_def_cfa_expression, -1, cfiBreg(7, 8, byte(op.DW_OP_lit0), byte(op.DW_OP_plus))).defCFAOffset(16).bytes())},
		// The CIE's FDE encoding is pcrel sdata4: -0x1800 from the field
		// (at about 0x2030) moves the location below the FDE's start
		// (four nops follow).
		{"set_loc moving back in .eh_frame", withFDE(cfiProg().op(dwframe.DW_CFA_set_loc, 0x00, 0xe8, 0xff, 0xff, 0, 0, 0, 0).bytes())},
		{"an augmentation length past the FDE", func() []byte {
			eh := good()
			off := eh.fde(0, 0x1000, 0x20, nil)
			eh.buf[off+16] = 0x7f
			return eh.section()
		}()},
		{"a bad expression", withFDE(cfiProg().block(dwframe.DW_CFA_def_cfa_expression, -1, []byte{byte(op.DW_OP_plus_uconst), 1}).bytes())},
		{"an expression reading unknown memory", withFDE(cfiProg().block(dwframe.DW_CFA_def_cfa_expression, -1, []byte{byte(op.DW_OP_lit0), byte(op.DW_OP_deref)}).bytes())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failed := cfiExercise(tt.data, 0x2000)
			if failed == "" {
				t.Errorf("no error")
			}
			t.Log(failed)
		})
	}
}

// cfiExercise parses data as .eh_frame at addr, builds all rows and steps
// from every FDE start with an empty stack; it returns the first error.
func cfiExercise(data []byte, addr uint64) string {
	return cfiExerciseTab(parseCFILE(data, addr, nil, 0))
}

// cfiExerciseTab is cfiExercise on a parsed table or its error.
func cfiExerciseTab(tab *cfiTable, err error) string {
	if err != nil {
		return err.Error()
	}
	if tab == nil {
		return ""
	}
	m := &Module{Name: "fuzz", Start: 0, End: ^uint64(0)}
	m.once.Do(func() {})
	m.data = &moduleData{}
	m.data.cfiOnce.Do(func() { m.data.cfi = tab })
	m.data.cfiHdrOnce.Do(func() {})
	u := &CFIUnwinder{Space: &Space{Mem: &SliceMemory{Base: 0x1000, Data: make([]byte, 64)}, Modules: NewModules(m)}}
	var first string
	for _, f := range tab.fdes {
		if _, err := tab.rowsOf(f); err != nil && first == "" {
			first = err.Error()
		}
		fr := cfiFrame0(f.Start, 0x1010, map[rule.Reg]uint64{RBP: 0x1020})
		if _, err := u.Step(&fr); err != nil && first == "" {
			first = err.Error()
		}
	}
	return first
}

// FuzzCFI parses an .eh_frame and a .debug_frame into one table as a
// module does (the .debug_frame FDE wins at equal starts), builds every
// FDE's rows, steps from every FDE's start, and checks lookups against
// linear scans, within cfiModuleAllocs.
func FuzzCFI(f *testing.F) {
	eh := &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	eh.fde(cie, 0x1000, 0x20, cfiProg().advance(1).defCFAOffset(16).offset(6, 2).advance(3).defCFARegister(6).
		op(dwframe.DW_CFA_remember_state).advance(2).op(dwframe.DW_CFA_restore_state).bytes())
	eh.fde(cie, 0x1020, 0x20, cfiProg().block(dwframe.DW_CFA_def_cfa_expression, -1, cfiBreg(7, 8, byte(op.DW_OP_lit3), byte(op.DW_OP_plus))).bytes())
	f.Add(eh.section(), []byte(nil))
	for _, version := range []byte{1, 3, 4} { // the .debug_frame CIE versions
		dbg := &dbgBuilder{}
		dcie := dbg.cie(version, cfiProg().defCFA(7, 8).offset(16, 1).bytes())
		dbg.fde(dcie, 0x1000, 0x10, cfiProg().advance(1).defCFAOffset(16).offset(6, 2).bytes())
		dbg.fde(dcie, 0x1040, 0x20, cfiProg().advance(4).defCFAOffset(32).op(dwframe.DW_CFA_remember_state).
			advance(2).offset(3, 3).op(dwframe.DW_CFA_restore_state).bytes())
		f.Add(eh.section(), dbg.section())
	}
	for _, name := range []string{"deep-v3-O2", "aarch64-v3"} {
		file, err := elf.Open(filepath.Join("..", "testdata", "bin", name))
		if err != nil {
			continue
		}
		var secs [2][]byte
		for i, sn := range []string{".eh_frame", ".debug_frame"} {
			if s := file.Section(sn); s != nil {
				if d, err := s.Data(); err == nil && len(d) <= 16<<10 {
					secs[i] = d
				}
			}
		}
		if secs[0] != nil || secs[1] != nil {
			f.Add(secs[0], secs[1])
		}
		file.Close()
	}
	// Hostile rows (BenchmarkCFIRowsCost).
	f.Add(hostileEH(32<<10, 40).section(), []byte(nil))
	f.Add(hostileEH(16<<10, 0).section(), []byte(nil))
	f.Fuzz(func(t *testing.T, data, dbg []byte) {
		if len(dbg) == 0 {
			dbg = nil // no .debug_frame
		}
		cfiModuleAllocs.CheckAllocs(t, len(data)+len(dbg), func() {
			tab, err := parseCFILE(data, 0x2000, dbg, 0)
			cfiExerciseTab(tab, err)
			if err != nil || tab == nil {
				return
			}
			cfiLookupsAgreeWithScans(t, tab)
		})
	})
}

// cfiModuleAllocs is the budget of FuzzCFI, per byte of CFI: the reader's
// rows (package cfi's budget: 256 bytes per byte) are converted into
// frames.Row (240 bytes per reader row, at most one per byte; the other
// registers' rules stay in the reader's storage), and the harness lists
// two PCs per row: the rows of one advance each (hostileEH with k 0) take
// about 400 bytes per byte. When each row copied its rules, the hostile
// seeds took 1,300.
var cfiModuleAllocs = sframetest.AllocBudget(640)

// cfiLookupsAgreeWithScans checks a parsed table's lookups at the edges of
// every FDE and row against linear scans: the FDE is the one with the
// greatest start at or below the PC if it covers the PC, and the row is
// the one of that FDE's rows that covers the PC.
func cfiLookupsAgreeWithScans(t *testing.T, tab *cfiTable) {
	t.Helper()
	var pcs []uint64
	for _, fd := range tab.fdes {
		pcs = append(pcs, fd.Start-1, fd.Start, fd.Start+(fd.End-fd.Start)/2, fd.End-1, fd.End)
		rows, _ := tab.rowsOf(fd)
		for _, r := range rows {
			pcs = append(pcs, r.Start, r.End-1)
		}
	}
	for _, pc := range pcs {
		var want *cfi.FDE
		for _, fd := range tab.fdes {
			if fd.Start <= pc && (want == nil || fd.Start > want.Start) {
				want = fd
			}
		}
		if want != nil && pc >= want.End {
			want = nil
		}
		got, err := tab.lookup(pc)
		if got != want || (want == nil) != errors.Is(err, cfi.ErrNoFDE) {
			t.Fatalf("lookup(%#x) = %v, %v; a linear scan finds %v", pc, got, err, want)
		}
		if want == nil {
			continue
		}
		rows, rowsErr := tab.rowsOf(want)
		var wantRow *Row
		for i := range rows {
			if rows[i].Start <= pc && pc < rows[i].End {
				wantRow = &rows[i]
				break
			}
		}
		row, err := tab.row(pc)
		switch {
		case rowsErr != nil:
			if err == nil {
				t.Fatalf("row(%#x) = %s, but the FDE's rows fail: %v", pc, cfiRowString(row), rowsErr)
			}
		case wantRow == nil:
			if !errors.Is(err, cfi.ErrNoRow) {
				t.Fatalf("row(%#x) = %s, %v; a linear scan of the FDE's rows finds none", pc, cfiRowString(row), err)
			}
		case err != nil || row.Start != wantRow.Start || row.End != wantRow.End || row.CFA != wantRow.CFA || row.RA != wantRow.RA || row.FP != wantRow.FP:
			t.Fatalf("row(%#x) = %s, %v; a linear scan finds %s", pc, cfiRowString(row), err, cfiRowString(*wantRow))
		}
	}
}

// loadCFIFile parses all of the CFI of the ELF file at path, at bias 0
// (loadCFI), skipping the test when the file cannot be opened.
func loadCFIFile(t *testing.T, path string) (*cfiTable, error) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Skipf("no %s: %v", path, err)
	}
	defer f.Close()
	return loadCFI(elfobj.Link(f), 0)
}

func cfiRegRuleOf(r *Row, ra, reg rule.Reg) (rule.Rule, bool) {
	switch reg {
	case ra:
		return r.RA, true
	case RBP:
		return r.FP, true
	}
	for _, o := range otherList(r.Other) {
		if o.Reg == reg {
			return o.Rule, true
		}
	}
	return rule.Rule{}, false
}

func TestLoadCFIFromCommittedBinaries(t *testing.T) {
	path := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	m := &Module{Name: "deep-v3-O2", Path: path, Start: 0x555555554000, End: 0x555555559000, Bias: 0x555555554000}
	fdes, err := m.CFIFDEs()
	if err != nil {
		t.Fatal(err)
	}
	if len(fdes) == 0 {
		t.Fatal("no FDEs")
	}
	// _start: the RA column is undefined (gcc's crt1 CIE).
	addr, _, ok := m.LookupSymbol("_start")
	if !ok {
		t.Fatal("no _start")
	}
	r, err := m.CFIRow(addr)
	if err != nil || r.RA.Kind != rule.Undefined {
		t.Errorf("_start row %s, %v", cfiRowString(r), err)
	}
	// The PLT's CFA expression.
	f, _ := elf.Open(path)
	defer f.Close()
	plt := f.Section(".plt")
	r, err = m.CFIRow(plt.Addr + m.Bias + 0x10)
	if err != nil || r.CFA.Kind != rule.ValExpression {
		t.Errorf("PLT row %s, %v", cfiRowString(r), err)
	}
}

// cfiLiveStop is one stopped thread of a live fixture: its registers and
// CFI backtrace, taken under ptrace while the process sits in a SIGSTOP
// group-stop, so that gdb attaching afterwards sees the same stop.
type cfiLiveStop struct {
	frames []Frame
	err    error
	space  *Space
}

// cfiStartFixture starts bin with args, waits for its "ready" line and for
// its threads to settle (startReady), and returns the running command.
func cfiStartFixture(t testing.TB, bin string, args ...string) *exec.Cmd {
	t.Helper()
	return startReady(t, bin, args...)
}

// cfiProcState returns the state letter of /proc/PID/stat.
func cfiProcState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// cfiStopAndUnwind puts pid into a group-stop with SIGSTOP, then for each
// of its threads attaches with ptrace from one locked OS thread, reads the
// registers, unwinds with CFIUnwinder through /proc/PID/mem and detaches,
// leaving the process stopped. The stops are keyed by thread id.
func cfiStopAndUnwind(t *testing.T, pid int) (map[int]cfiLiveStop, *Space) {
	t.Helper()
	if err := unix.Kill(pid, unix.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; cfiProcState(pid) != "T"; i++ {
		if i > 500 {
			t.Fatalf("pid %d does not stop (state %q)", pid, cfiProcState(pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	mem := &ProcMemory{Pid: pid}
	mods, err := ModulesFromMaps(pid, mem)
	if err != nil {
		t.Fatal(err)
	}
	space := &Space{Mem: mem, Modules: mods}
	t.Cleanup(func() { mods.Close(); mem.Close() })
	type result struct {
		tid  int
		st   cfiLiveStop
		skip string
	}
	res := make(chan result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for _, e := range ents {
			tid, _ := strconv.Atoi(e.Name())
			if err := unix.PtraceAttach(tid); err != nil {
				res <- result{skip: fmt.Sprintf("ptrace not permitted: %v", err)}
				return
			}
			var ws unix.WaitStatus
			_, err := unix.Wait4(tid, &ws, unix.WALL, nil)
			var regs Regs
			if err == nil {
				regs, err = threadRegsOf(tid)
			}
			var st cfiLiveStop
			if err == nil {
				st.frames, st.err = Trace(&CFIUnwinder{Space: space}, regs, space, StackOptions{})
			}
			unix.PtraceDetach(tid)
			if err != nil {
				res <- result{skip: fmt.Sprintf("thread %d: %v", tid, err)}
				return
			}
			res <- result{tid: tid, st: st}
		}
		close(res)
	}()
	stops := map[int]cfiLiveStop{}
	for r := range res {
		if r.skip != "" {
			t.Skip(r.skip)
		}
		stops[r.tid] = r.st
	}
	return stops, space
}

// cfiGDBFrame is one frame of gdb's backtrace: the function it names, and
// the values of $pc, $sp and the callee-saved registers in that frame
// ("" when gdb says <not saved>).
type cfiGDBFrame struct {
	fn   string
	regs map[string]string
}

var cfiGDBRegs = []string{"pc", "sp", "rbx", "rbp", "r12", "r13", "r14", "r15"}

// cfiGDBBacktrace attaches gdb to the stopped pid and returns the
// backtrace (past main and the entry point) of each thread, by thread id.
func cfiGDBBacktrace(t *testing.T, gdb string, pid int) map[int][]cfiGDBFrame {
	t.Helper()
	args := []string{"-nx", "-batch", "-iex", "set debuginfod enabled off", "-iex", "set auto-load no",
		"-ex", "set backtrace past-main on", "-ex", "set backtrace past-entry on", "-ex", "set width 0",
		"-p", strconv.Itoa(pid), "-ex", "thread apply all bt"}
	for _, r := range cfiGDBRegs {
		args = append(args, "-ex", "echo @@"+r+"\\n", "-ex", "thread apply all frame apply all -q p/x $"+r)
	}
	out, err := exec.Command(gdb, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	threadRE := regexp.MustCompile(`^Thread \d+ \(.*\(LWP (\d+)\)`)
	btRE := regexp.MustCompile(`^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+)`)
	valRE := regexp.MustCompile(`^\$\d+ = (.*)$`)
	frames := map[int][]cfiGDBFrame{}
	reg, tid, idx := "", 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		if m := threadRE.FindStringSubmatch(line); m != nil {
			tid, _ = strconv.Atoi(m[1])
			idx = 0
			continue
		}
		if strings.HasPrefix(line, "@@") {
			reg = line[2:]
			continue
		}
		if m := btRE.FindStringSubmatch(line); m != nil && reg == "" {
			frames[tid] = append(frames[tid], cfiGDBFrame{fn: m[2], regs: map[string]string{}})
			continue
		}
		if m := valRE.FindStringSubmatch(line); m != nil && reg != "" && idx < len(frames[tid]) {
			v := m[1]
			if !strings.HasPrefix(v, "0x") {
				v = "" // <not saved>, <unavailable>
			}
			frames[tid][idx].regs[reg] = v
			idx++
		}
	}
	if len(frames) == 0 {
		t.Fatalf("no backtrace from gdb:\n%s", out)
	}
	return frames
}

// TestCFILiveMatchesGDB stops the deep fixture in its spin, sleep and
// signal modes and checks that CFIUnwinder finds the same frames as gdb's
// bt on the same stop, down to _start through libc: the same number of
// frames, the same $pc and $sp in each, and the same callee-saved
// registers wherever gdb knows them.
func TestCFILiveMatchesGDB(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("needs linux/amd64")
	}
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("no gdb")
	}
	if testing.Short() {
		t.Skip("live test")
	}
	for _, bin := range []string{"deep-v3-O0", "deep-v3-O2"} {
		for _, mode := range []string{"spin", "sleep", "signal", "threads"} {
			t.Run(bin+" "+mode, func(t *testing.T) {
				path, _ := filepath.Abs(filepath.Join("..", "testdata", "bin", bin))
				if _, err := os.Stat(path); err != nil {
					t.Skipf("fixture missing: %v", err)
				}
				cmd := cfiStartFixture(t, path, mode)
				pid := cmd.Process.Pid
				stops, space := cfiStopAndUnwind(t, pid)
				gdbThreads := cfiGDBBacktrace(t, gdb, pid)
				if len(stops) != len(gdbThreads) {
					t.Fatalf("%d threads, gdb %d", len(stops), len(gdbThreads))
				}
				for tid, st := range stops {
					cfiCompareGDB(t, bin, tid, st, space, gdbThreads[tid])
				}
			})
		}
	}
}

// cfiCompareGDB compares the CFI backtrace of one thread with gdb's.
func cfiCompareGDB(t *testing.T, bin string, tid int, st cfiLiveStop, space *Space, want []cfiGDBFrame) {
	t.Helper()
	var lines []string
	for _, f := range st.frames {
		lines = append(lines, fmt.Sprintf("#%d %#x %s sp=%#x", f.Level, f.PC, space.DescribeFrame(&f), f.Regs.SP()))
	}
	trace := strings.Join(lines, "\n")
	if st.err != nil {
		t.Errorf("thread %d: unwind stopped before the outermost frame: %v\n%s", tid, st.err, trace)
	}
	if len(st.frames) != len(want) {
		t.Errorf("thread %d: %d frames, gdb %d\n%s\ngdb: %v", tid, len(st.frames), len(want), trace, want)
		return
	}
	compared := 0
	for i, f := range st.frames {
		for _, r := range cfiGDBRegs {
			g := want[i].regs[r]
			var v uint64
			var ok bool
			switch r {
			case "pc":
				v, ok = f.PC, true
			case "sp":
				v, ok = f.Regs.Get(RSP)
			default:
				reg := map[string]rule.Reg{"rbx": RBX, "rbp": RBP, "r12": R12, "r13": R13, "r14": R14, "r15": R15}[r]
				v, ok = f.Regs.Get(reg)
			}
			mine := ""
			if ok {
				mine = fmt.Sprintf("%#x", v)
			}
			if g != "" {
				compared++
			}
			if mine != g {
				t.Errorf("thread %d frame %d (%s): $%s = %q, gdb %q", tid, i, want[i].fn, r, mine, g)
			}
		}
		// Names only in the fixture: gdb names libc functions from its
		// debug info (__GI___nanosleep), the symbol table by their
		// exported alias (__nanosleep).
		if name, _, ok := f.Module.FuncName(f.PC); ok && f.Module.Name == bin && name != want[i].fn {
			t.Errorf("thread %d frame %d: function %s, gdb %s", tid, i, name, want[i].fn)
		}
	}
	t.Logf("thread %d: %d frames match gdb (%d register values compared)\n%s", tid, len(st.frames), compared, trace)
}

// dbgBuilder lays out a synthetic .debug_frame: CIE id 0xffffffff, absolute
// 8-byte FDE addresses.
type dbgBuilder struct{ ehBuilder }

// cie adds a CIE of the given version (1, 3 or 4: 4 has the address and
// segment selector sizes) with code alignment 1, data alignment -8, RA 16.
func (b *dbgBuilder) cie(version byte, instr []byte) int {
	var body cfiAsm
	body.Write([]byte{0xff, 0xff, 0xff, 0xff, version, 0}) // id, version, augmentation ""
	if version == 4 {
		body.op(8, 0)
	}
	body.uleb(1).sleb(-8).uleb(16)
	body.Write(instr)
	return b.record(body.bytes())
}

func (b *dbgBuilder) fde(cie int, begin, size uint64, instr []byte) int {
	var body []byte
	body = binary.LittleEndian.AppendUint32(body, uint32(cie))
	body = binary.LittleEndian.AppendUint64(body, begin)
	body = binary.LittleEndian.AppendUint64(body, size)
	return b.record(append(body, instr...))
}

func TestCFIDebugFrame(t *testing.T) {
	std := cfiProg().defCFA(7, 8).offset(16, 1).bytes()
	body := cfiProg().advance(1).defCFAOffset(16).offset(6, 2).bytes()
	for _, version := range []byte{1, 3, 4} {
		t.Run(fmt.Sprintf("a version %d CIE is read", version), func(t *testing.T) {
			dbg := &dbgBuilder{}
			cie := dbg.cie(version, std)
			dbg.fde(cie, 0x1000, 0x10, body)
			tab, err := parseCFILE(nil, 0, dbg.section(), 0x10000)
			if err != nil {
				t.Fatal(err)
			}
			r, err := tab.row(0x1004)
			want := "[0x11001,0x11010) cfa=rsp+16 ra=c-8 fp=c-16"
			if err != nil || cfiRowString(r) != want || r.Src.String() != ".debug_frame FDE 0x18 (CIE 0x0)" {
				t.Errorf("row %s (%s), %v; want %s", cfiRowString(r), r.Src.String(), err, want)
			}
		})
	}
	t.Run(".debug_frame wins over .eh_frame for the same function", func(t *testing.T) {
		dbg := &dbgBuilder{}
		dbg.fde(dbg.cie(1, std), 0x1000, 0x10, body)
		eh := &ehBuilder{addr: 0x4000}
		eh.fde(eh.stdCIE(), 0x1000, 0x10, nil)
		eh.fde(0, 0x1010, 0x10, nil)
		tab, err := parseCFILE(eh.section(), eh.addr, dbg.section(), 0)
		if err != nil {
			t.Fatal(err)
		}
		r1, err1 := tab.row(0x1008)
		r2, err2 := tab.row(0x1018)
		if err1 != nil || err2 != nil || !strings.HasPrefix(r1.Src.String(), ".debug_frame") || !strings.HasPrefix(r2.Src.String(), ".eh_frame") || len(tab.fdes) != 2 {
			t.Errorf("%q %v, %q %v, %d FDEs", r1.Src.String(), err1, r2.Src.String(), err2, len(tab.fdes))
		}
	})
	t.Run("a broken section is skipped when the other parses", func(t *testing.T) {
		eh := &ehBuilder{addr: 0x4000}
		eh.fde(eh.stdCIE(), 0x1010, 0x10, nil)
		tab, err := parseCFILE(eh.section(), eh.addr, []byte{0xff, 0, 0, 0}, 0)
		if err != nil || tab == nil || len(tab.fdes) != 1 {
			t.Errorf("%v, %v", tab, err)
		}
	})
	t.Run("set_loc moves the location in .debug_frame", func(t *testing.T) {
		dbg := &dbgBuilder{}
		setLoc := binary.LittleEndian.AppendUint64([]byte{dwframe.DW_CFA_set_loc}, 0x1008)
		dbg.fde(dbg.cie(1, std), 0x1000, 0x10, append(setLoc, cfiProg().defCFAOffset(16).bytes()...))
		tab, err := parseCFILE(nil, 0, dbg.section(), 0)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tab.rowsOf(tab.fdes[0])
		var got []string
		for _, r := range rows {
			got = append(got, cfiRowString(r))
		}
		want := "[0x1000,0x1008) cfa=rsp+8 ra=c-8 fp=u|[0x1008,0x1010) cfa=rsp+16 ra=c-8 fp=u"
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("rows %q, %v; want %s", got, err, want)
		}
	})
}

// cfiReadelfCell formats a rule the way readelf --debug-dump=frames-interp
// prints a register column ("u" for no rule and for undefined, "s", "c-16",
// "v+8", a register name, "exp", "vexp"). Rules simplified from
// expressions print as readelf's "exp"; the caller accepts "vexp" for them
// too.
func cfiReadelfCell(r rule.Rule, have bool) string {
	if !have {
		return "u"
	}
	switch r.Kind {
	case rule.Undefined:
		return "u"
	case rule.SameValue:
		return "s"
	case rule.Offset:
		if r.Reg == rule.CFA {
			return fmt.Sprintf("c%+d", r.Offset)
		}
		return "exp"
	case rule.ValOffset:
		if r.Reg == rule.CFA {
			return fmt.Sprintf("v%+d", r.Offset)
		}
		return "exp"
	case rule.Register:
		return arch.AMD64Arch.RegName(r.Reg)
	case rule.Expression:
		return "exp"
	case rule.ValExpression:
		return "vexp"
	}
	return "?"
}

// TestCFIRowsMatchReadelf checks row boundaries and rules against GNU
// readelf's own CFI interpreter (--debug-dump=frames-interp), including the
// DW_CFA_restore rows Delve gets wrong.
func TestCFIRowsMatchReadelf(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("no readelf")
	}
	files := []string{
		filepath.Join("..", "testdata", "bin", "deep-v3-O2"),
		filepath.Join("..", "testdata", "bin", "sqlite-v3"),
		"/lib/x86_64-linux-gnu/libc.so.6",
	}
	fdeRE := regexp.MustCompile(`^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)
	regCellRE := regexp.MustCompile(`\br\d+ \((\w+)\)`)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tab, err := loadCFIFile(t, path)
			if err != nil {
				t.Fatal(err)
			}
			// readelf exits 1 on warnings it has about other sections.
			out, err := exec.Command(readelf, "--debug-dump=frames-interp", path).Output()
			if len(out) == 0 {
				t.Skipf("readelf: %v", err)
			}
			var sec string
			var fde *cfi.FDE
			var cols []string
			nfde, nrow := 0, 0
			seen := map[*cfi.FDE]int{} // readelf rows per FDE
			for _, line := range strings.Split(string(out), "\n") {
				switch {
				case strings.HasPrefix(line, "Contents of the "):
					sec = strings.Fields(line)[3]
					continue
				case fdeRE.MatchString(line):
					m := fdeRE.FindStringSubmatch(line)
					off, _ := strconv.ParseInt(m[1], 16, 64)
					begin, _ := strconv.ParseUint(m[2], 16, 64)
					fde = nil
					if g, err := tab.lookup(begin); err == nil && g.Kind.String() == sec && g.Off == off {
						fde = g
						if _, err := tab.rowsOf(g); err != nil {
							t.Errorf("%v", err)
						}
						nfde++
					}
					continue
				case strings.Contains(line, " CIE ") || strings.Contains(line, "ZERO terminator"):
					fde = nil
					continue
				case strings.HasPrefix(line, "   LOC"):
					cols = strings.Fields(line)[1:]
					continue
				}
				// A register rule prints as "r9 (r9)": keep the name.
				fields := strings.Fields(regCellRE.ReplaceAllString(line, "$1"))
				if fde == nil || len(fields) != len(cols)+1 || len(fields[0]) != 16 {
					continue
				}
				loc, err := strconv.ParseUint(fields[0], 16, 64)
				if err != nil || loc >= fde.End {
					continue
				}
				r, err := tab.rowIn(fde, loc)
				if err != nil || r.Start != loc {
					t.Errorf("%s: readelf has a row at %#x, sfdbg %s, %v", cfiFDESource(fde), loc, cfiRowString(r), err)
					continue
				}
				nrow++
				seen[fde]++
				for i, col := range cols {
					want := fields[i+1]
					var got string
					switch col {
					case "CFA":
						got = RuleString(r.CFA)
						if r.CFA.Kind != rule.ValOffset || r.CFA.Reg == rule.CFA {
							got = "exp"
						}
					case "ra":
						got = cfiReadelfCell(r.RA, true)
					default:
						reg := rule.Reg(-1)
						if r, ok := arch.AMD64Arch.RegNamed(col); ok {
							reg = r
						}
						ru, have := cfiRegRuleOf(&r, fde.CIE.RAReg, reg)
						if reg == RBP && ru.Kind == rule.SameValue {
							have = false // FP is same-value when the CFI has no rule
						}
						got = cfiReadelfCell(ru, have)
					}
					if got != want && !(got == "exp" && want == "vexp") && !(col == "CFA" && want == "exp") &&
						!(col == "rbp" && got == "u" && want == "s") {
						t.Errorf("%s at %#x: %s = %s, readelf %s", cfiFDESource(fde), loc, col, got, want)
					}
				}
			}
			// readelf prints no row for an FDE without instructions; for
			// the others it must print as many rows as we have.
			for g, n := range seen {
				if rows, _ := tab.rowsOf(g); len(rows) != n {
					t.Errorf("%s: %d rows, readelf %d", cfiFDESource(g), len(rows), n)
				}
			}
			if nfde != len(tab.fdes) {
				t.Errorf("readelf listed %d of our %d FDEs", nfde, len(tab.fdes))
			}
			t.Logf("%d FDEs, %d readelf rows compared", nfde, nrow)
		})
	}
}

func TestCFIAArch64Rows(t *testing.T) {
	path := filepath.Join("..", "testdata", "bin", "aarch64-v3")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	m := &Module{Name: "aarch64-v3", Path: path, Start: 0x400000, End: 0x500000}
	// FDE 0x54: stp x29, x30, [sp, -32]!; mov x29, sp; ... (code
	// alignment 4): the FP is x29, the RA column x30.
	r, err := m.CFIRow(0x40011c)
	want := "[0x40011c,0x400120) cfa=r29+32 ra=c-24 fp=c-32"
	if err != nil || cfiRowString(r) != want {
		t.Errorf("row %s, %v; want %s", cfiRowString(r), err, want)
	}
	// FDE 0xb8 has a "zRB" CIE (PAuth B key) and negate_ra_state.
	r, err = m.CFIRow(0x400154)
	want = "[0x400154,0x400160) cfa=r31+16 ra=c-8 fp=c-16"
	if err != nil || cfiRowString(r) != want || r.Signal || r.Src.String() != ".eh_frame FDE 0xb8 (CIE 0xa0)" {
		t.Errorf("row %s (%s, signal %v), %v; want %s", cfiRowString(r), r.Src.String(), r.Signal, err, want)
	}
	// FDE 0x11c has a "zRS" CIE.
	if r, err = m.CFIRow(0x400184); err != nil || !r.Signal {
		t.Errorf("signal row %s, %v", cfiRowString(r), err)
	}
	// A step at 0x40011c: CFA = x29+32, the caller's x30 (its PC) at
	// CFA-24, x29 at CFA-32; the caller's SP is the CFA.
	mem := newCFIStack(0x7000, 0x100)
	mem.put(0x7020, 0x7080)   // saved x29
	mem.put(0x7028, 0x400200) // saved x30
	f := Frame{PC: 0x40011c, Method: MethodRegs, Interrupted: true, Regs: NewRegs(arch.ARM64Arch)}
	f.Regs.Set(arch.ARM64Arch.PC, 0x40011c)
	f.Regs.Set(sframe.AArch64RegSP, 0x7020)
	f.Regs.Set(sframe.AArch64RegFP, 0x7020)
	f.Regs.Set(sframe.AArch64RegLR, 0x400300)
	f.Regs.Set(rule.Reg(19), 0x19)
	caller, err := (&CFIUnwinder{Space: &Space{Mem: mem, Modules: NewModules(m)}}).Step(&f)
	if err != nil {
		t.Fatalf("Step on AArch64: %v", err)
	}
	fp, _ := caller.Regs.FP()
	lr, _ := caller.Regs.Get(sframe.AArch64RegLR)
	x19, _ := caller.Regs.Get(rule.Reg(19))
	if f.CFA != 0x7040 || caller.PC != 0x400200 || caller.Regs.PC() != 0x400200 || lr != 0x400200 ||
		caller.Regs.SP() != 0x7040 || fp != 0x7080 || x19 != 0x19 {
		t.Errorf("Step on AArch64: CFA %#x, caller PC %#x (pc reg %#x, x30 %#x) SP %#x x29 %#x x19 %#x; "+
			"want CFA 0x7040, PC 0x400200, SP 0x7040, x29 0x7080, x19 kept", f.CFA, caller.PC, caller.Regs.PC(), lr,
			caller.Regs.SP(), fp, x19)
	}
	if got := f.Row.String(); got != "CFA x29+32 RA c-24 FP c-32 [.eh_frame FDE 0x54 (CIE 0x2c)]" {
		t.Errorf("row %q: AArch64 register names wanted", got)
	}
}
