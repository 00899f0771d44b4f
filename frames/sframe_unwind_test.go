package frames

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

const stackBase = 0x7ffd00000000

// unwindCase is one synthetic stack: frame-0 registers, a stack image and
// what an unwind must find.
type unwindCase struct {
	name   string
	build  func(s *stackImage) Regs
	unwind func(sp *Space) Unwinder // default: SFrame
	opts   StackOptions
	want   []string // function+offset of each frame
	reason Reason   // why the unwind stopped
	msg    string   // substring of the stop message
	check  func(t *testing.T, fs []Frame)
}

func sfu(sp *Space) Unwinder { return &SFrameUnwinder{Space: sp} }
func fpu(sp *Space) Unwinder { return &FPUnwinder{Space: sp} }

// layoutMain puts a frame record of main at m (saved RBP 0, return into
// _start+0x10) and returns m.
func layoutMain(s *stackImage, m uint64) uint64 {
	s.put(m, 0)
	s.put(m+8, rt(fnStart+0x10))
	return m
}

func runUnwindCases(t *testing.T, cases []unwindCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newStack(stackBase, 4096)
			r := c.build(s)
			sp := progSpace(t, s.mem())
			mk := c.unwind
			if mk == nil {
				mk = sfu
			}
			st := NewStack(mk(sp), r, sp, c.opts)
			var fs []Frame
			for st.Next() {
				fs = append(fs, st.Frame())
			}
			got := names(sp, fs)
			if c.want != nil && !reflect.DeepEqual(got, c.want) {
				t.Errorf("frames = %q, want %q", got, c.want)
			}
			stop := st.Stop()
			if stop == nil {
				t.Fatalf("unwind ended without a StopError")
			}
			if stop.Reason != c.reason {
				t.Errorf("stopped with %v (%v), want %v", stop.Reason, stop, c.reason)
			}
			if c.msg != "" && !strings.Contains(stop.Error(), c.msg) {
				t.Errorf("stop message %q does not contain %q", stop.Error(), c.msg)
			}
			if err := st.Err(); (err == nil) != (c.reason == ReasonOutermost) {
				t.Errorf("Err() = %v with reason %v", err, stop.Reason)
			}
			for i := range fs {
				if fs[i].Level != i {
					t.Errorf("frame %d has Level %d", i, fs[i].Level)
				}
			}
			if len(fs) > 0 && (fs[0].Method != MethodRegs || !fs[0].Interrupted) {
				t.Errorf("frame 0: method %v interrupted %v, want regs, true", fs[0].Method, fs[0].Interrupted)
			}
			if c.check != nil && (c.want == nil || len(fs) == len(c.want)) {
				c.check(t, fs)
			}
		})
	}
}

func TestSFrameUnwind(t *testing.T) {
	X := uint64(stackBase + 0x1000)
	runUnwindCases(t, []unwindCase{
		{
			name: "frame 0 at a function's first instruction finds the RA at SP",
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnStart+0x10))
				return regs(rt(fnMain), X, 0)
			},
			want:   []string{"main", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				if fs[0].CFA != X+8 {
					t.Errorf("CFA = %#x, want %#x", fs[0].CFA, X+8)
				}
				if fs[1].Method != MethodSFrame || fs[1].Regs.SP() != X+8 {
					t.Errorf("caller: method %v SP %#x", fs[1].Method, fs[1].Regs.SP())
				}
				if got := fs[0].Row.String(); got != "CFA rsp+8 RA c-8 FP u [sframe FDE 1 FRE 0]" {
					t.Errorf("row = %q", got)
				}
			},
		},
		{
			name: "frame 0 after push %rbp uses CFA sp+16",
			build: func(s *stackImage) Regs {
				s.put(X, 0x1111) // saved RBP
				s.put(X+8, rt(fnStart+0x10))
				return regs(rt(fnMain+1), X, 0x2222)
			},
			want:   []string{"main+0x1", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				if fp, _ := fs[1].Regs.FP(); fp != 0x1111 {
					t.Errorf("caller FP = %#x, want 0x1111", fp)
				}
			},
		},
		{
			name: "frame 0 after the prologue uses the FP-based CFA",
			build: func(s *stackImage) Regs {
				m := layoutMain(s, X+0x40)
				return regs(rt(fnMain+0x10), X, m)
			},
			want:   []string{"main+0x10", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				if fs[0].CFA != X+0x50 {
					t.Errorf("CFA = %#x, want %#x", fs[0].CFA, X+0x50)
				}
				if fp, ok := fs[1].Regs.FP(); !ok || fp != 0 {
					t.Errorf("caller FP = %#x %v, want 0", fp, ok)
				}
			},
		},
		{
			name: "a leaf, an SP-based frame and an FP-based frame unwind to the outermost frame",
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnMid+0x21))
				s.put(X+48, rt(fnMain+0x31))
				m := layoutMain(s, X+56+32)
				return regs(rt(fnLeaf+4), X, m)
			},
			want:   []string{"leaf+0x4", "mid+0x21", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
			msg:    "outermost frame",
			check: func(t *testing.T, fs []Frame) {
				wantCFA := []uint64{X + 8, X + 56, X + 56 + 32 + 16, 0}
				for i, f := range fs {
					if f.CFA != wantCFA[i] {
						t.Errorf("frame %d CFA = %#x, want %#x", i, f.CFA, wantCFA[i])
					}
				}
				r := fs[1].Row
				if r.Src.String() != "sframe FDE 2 FRE 2" || r.Start != rt(fnMid+5) || r.End != rt(fnMid+0x3c) {
					t.Errorf("mid row: %q [%#x, %#x)", r.Src.String(), r.Start, r.End)
				}
				if fs[3].Row.CFA.Kind != rule.Undefined {
					t.Errorf("outermost row CFA = %v", fs[3].Row.CFA)
				}
			},
		},
		{
			name: "a PLT entry after its push has CFA sp+16 (PC type MASK)",
			build: func(s *stackImage) Regs {
				s.put(X, 5)
				s.put(X+8, rt(fnMain+0x31))
				m := layoutMain(s, X+0x40)
				return regs(rt(fnPLT+2*16+12), X, m)
			},
			want:   []string{"?", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				r := fs[0].Row
				if r.Start != rt(fnPLT+2*16+11) || r.End != rt(fnPLT+3*16) || r.CFA.Offset != 16 {
					t.Errorf("PLT row %v [%#x, %#x)", r, r.Start, r.End)
				}
			},
		},
		{
			name: "a PLT entry before its push has CFA sp+8",
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnMain+0x31))
				m := layoutMain(s, X+0x40)
				return regs(rt(fnPLT+3*16+3), X, m)
			},
			want:   []string{"?", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
		},
		{
			name: "a DRAP function's topmost frame may use the CFA in r10 (FLEX)",
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnMain+0x31))
				m := layoutMain(s, X+0x40)
				r := regs(rt(fnFlex+8), X-64, m)
				r.Set(R10, X+8)
				return r
			},
			want:   []string{"flex_drap+0x8", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				if got := RuleString(fs[0].Row.CFA); got != "r10+0" {
					t.Errorf("CFA rule %q, want r10+0", got)
				}
				if !strings.Contains(fs[0].Row.Src.String(), "flex") {
					t.Errorf("source %q does not say flex", fs[0].Row.Src.String())
				}
			},
		},
		{
			name: "a FLEX rule based on r10 is unsafe in a caller's frame",
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnFlex+0x10))
				r := regs(rt(fnLeaf), X, 0x3333)
				r.Set(R10, 0x4444)
				return r
			},
			want:   []string{"leaf", "flex_drap+0x10"},
			reason: ReasonUnsafe,
			msg:    "r10",
		},
		{
			name: "a FLEX rule CFA=*(rbp-8) works in a caller's frame",
			build: func(s *stackImage) Regs {
				D, C := X+0x40, X+0x80
				s.put(X, rt(fnFlex+0x20))
				s.put(D-8, C)
				m := layoutMain(s, C+32)
				s.put(D, m)
				s.put(C-8, rt(fnMain+0x31))
				return regs(rt(fnLeaf+2), X, D)
			},
			want:   []string{"leaf+0x2", "flex_drap+0x20", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				if fs[1].CFA != X+0x80 {
					t.Errorf("flex CFA = %#x, want %#x", fs[1].CFA, X+0x80)
				}
				if got := fs[1].Row.String(); got != "CFA (rbp-8) RA c-8 FP (rbp+0) [sframe FDE 7 FRE 3 (flex)]" {
					t.Errorf("row %q", got)
				}
			},
		},
		{
			name: "the signal frame restores every register from the ucontext",
			build: func(s *stackImage) Regs {
				return signalStack(s, X, X+0x800)
			},
			want:   []string{"handler+0x8", "__restore_rt", "mid", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
			check: func(t *testing.T, fs []Frame) {
				if !fs[1].Row.Signal || RuleString(fs[1].Row.CFA) != "(rsp+160)" || RuleString(fs[1].Row.RA) != "(rsp+168)" {
					t.Errorf("trampoline row %v signal %v", fs[1].Row, fs[1].Row.Signal)
				}
				if !fs[2].Interrupted || fs[3].Interrupted {
					t.Errorf("interrupted: frame 2 %v frame 3 %v, want true, false", fs[2].Interrupted, fs[3].Interrupted)
				}
				if v, ok := fs[2].Regs.Get(RBX); !ok || v != 0x1234 {
					t.Errorf("interrupted RBX = %#x %v", v, ok)
				}
				if fs[1].CFA != X+0x800 {
					t.Errorf("trampoline CFA = %#x, want the interrupted SP %#x", fs[1].CFA, X+0x800)
				}
			},
		},
		{
			name: "a signal delivered on an alternate stack below the interrupted SP",
			build: func(s *stackImage) Regs {
				return signalStack(s, X+0x2000, X)
			},
			want:   []string{"handler+0x8", "__restore_rt", "mid", "main+0x31", "_start+0x10"},
			reason: ReasonOutermost,
		},
		{
			name: "a PC between FDEs has no FDE",
			build: func(s *stackImage) Regs {
				return regs(rt(gapStart+2), X, 0)
			},
			want:   []string{"?"},
			reason: ReasonNoFDE,
			msg:    "no SFrame FDE for PC 0x555555555142 in prog",
		},
		{
			name: "a PC in no module stops with no module",
			build: func(s *stackImage) Regs {
				return regs(0x1000, X, 0)
			},
			want:   []string{"?"},
			reason: ReasonNoModule,
			msg:    "PC 0x1000 is in no module",
		},
		{
			name: "a return into a module without SFrame stops with no data",
			build: func(s *stackImage) Regs {
				s.put(X, libBias+fnLibc+0x10)
				return regs(rt(fnLeaf), X, 0)
			},
			want:   []string{"leaf", "libc_fn+0x10"},
			reason: ReasonNoData,
			msg:    "no SFrame for PC 0x7f0000002010 in libc.so.6",
		},
		{
			name: "an unreadable return address stops with a memory error",
			build: func(s *stackImage) Regs {
				return regs(rt(fnLeaf), 0x10, 0)
			},
			want:   []string{"leaf"},
			reason: ReasonMemory,
			msg:    "cannot read memory at 0x10",
		},
		{
			name: "an FP below SP makes the CFA go down: implausible",
			build: func(s *stackImage) Regs {
				layoutMain(s, X-0x40)
				return regs(rt(fnMain+0x10), X, X-0x40)
			},
			want:   []string{"main+0x10"},
			reason: ReasonBadFrame,
			msg:    "SP does not grow",
		},
		{
			name: "a signal frame that restores its own handler is a revisit",
			build: func(s *stackImage) Regs {
				r := signalStack(s, X, X+0x800)
				U := X + 0x100 + 16
				s.put(U+uint64(arch.AMD64Arch.Signal.Regs)+8*16, rt(fnHandler+8))
				s.put(U+uint64(arch.AMD64Arch.Signal.Regs)+8*15, X)
				s.put(U+uint64(arch.AMD64Arch.Signal.Regs)+8*10, X+0x100)
				return r
			},
			want:   []string{"handler+0x8", "__restore_rt", "handler+0x8", "__restore_rt"},
			reason: ReasonBadFrame,
			msg:    "revisits",
		},
		{
			name: "a return address of 0 ends the trace cleanly",
			build: func(s *stackImage) Regs {
				s.put(X, 0)
				return regs(rt(fnLeaf), X, 0)
			},
			want:   []string{"leaf"},
			reason: ReasonOutermost,
			msg:    "return address 0",
		},
		{
			name: "deep recursion stops at the default depth limit",
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnMid+0x21))
				for i := 0; i < 400; i++ {
					s.put(X+8+uint64(i)*48+40, rt(fnMid+0x21))
				}
				return regs(rt(fnLeaf), X, 0)
			},
			reason: ReasonDepth,
			check: func(t *testing.T, fs []Frame) {
				if len(fs) != DefaultMaxDepth {
					t.Errorf("%d frames, want %d", len(fs), DefaultMaxDepth)
				}
			},
		},
		{
			name: "deep recursion stops at a given depth limit",
			opts: StackOptions{MaxDepth: 5},
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnMid+0x21))
				for i := 0; i < 10; i++ {
					s.put(X+8+uint64(i)*48+40, rt(fnMid+0x21))
				}
				return regs(rt(fnLeaf), X, 0)
			},
			want:   []string{"leaf", "mid+0x21", "mid+0x21", "mid+0x21", "mid+0x21"},
			reason: ReasonDepth,
			msg:    "depth limit of 5",
		},
	})
}

// signalStack lays out a handler frame (frame 0, after its prologue) whose
// return address is the signal trampoline, with the signal frame's
// ucontext just above it; the interrupted frame is mid at its first
// instruction with SP y, called from main. h is the handler's SP.
func signalStack(s *stackImage, h, y uint64) Regs {
	HF := h + 0x100 // handler's frame record
	U := HF + 16    // the ucontext: the trampoline's SP
	m := layoutMain(s, y+0x40)
	s.put(HF, m)
	s.put(HF+8, rt(fnSigTramp))
	mc := U + uint64(arch.AMD64Arch.Signal.Regs)
	s.put(mc+8*10, m)         // rbp
	s.put(mc+8*11, 0x1234)    // rbx
	s.put(mc+8*15, y)         // rsp
	s.put(mc+8*16, rt(fnMid)) // rip: mid's first instruction
	s.put(y, rt(fnMain+0x31)) // mid's return address
	return regs(rt(fnHandler+8), h, HF)
}

func TestFPUnwind(t *testing.T) {
	X := uint64(stackBase + 0x1000)
	runUnwindCases(t, []unwindCase{
		{
			name:   "the RBP chain ends at a zero FP",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				M1, M2 := X+0x40, X+0x80
				s.put(M1, M2)
				s.put(M1+8, rt(fnHandler+0x10))
				s.put(M2, 0)
				s.put(M2+8, rt(fnStart+0x10))
				return regs(rt(fnMain+0x10), X, M1)
			},
			want:   []string{"main+0x10", "handler+0x10", "_start+0x10"},
			reason: ReasonOutermost,
			msg:    "frame pointer is 0",
			check: func(t *testing.T, fs []Frame) {
				if fs[0].CFA != X+0x50 || fs[1].CFA != X+0x90 {
					t.Errorf("CFAs %#x %#x", fs[0].CFA, fs[1].CFA)
				}
				if fs[0].Row.Src.String() != "fp chain" || fs[1].Method != MethodFP {
					t.Errorf("row %q method %v", fs[0].Row.Src.String(), fs[1].Method)
				}
			},
		},
		{
			name:   "a leaf without a frame record hides its caller from the RBP chain",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				s.put(X, rt(fnMid+0x21))
				s.put(X+48, rt(fnMain+0x31))
				m := layoutMain(s, X+56+32)
				return regs(rt(fnLeaf+4), X, m)
			},
			want:   []string{"leaf+0x4", "_start+0x10"},
			reason: ReasonOutermost,
		},
		{
			name:   "a misaligned FP is implausible",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				return regs(rt(fnMain+0x10), X, X+0x41)
			},
			want:   []string{"main+0x10"},
			reason: ReasonBadFrame,
			msg:    "not 8-byte aligned",
		},
		{
			name:   "an FP below SP is implausible",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				return regs(rt(fnMain+0x10), X, X-0x40)
			},
			want:   []string{"main+0x10"},
			reason: ReasonBadFrame,
			msg:    "below SP",
		},
		{
			name:   "a frame record pointing to itself is caught on the next step",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				s.put(X+0x40, X+0x40)
				s.put(X+0x48, rt(fnMain+0x31))
				return regs(rt(fnMain+0x10), X, X+0x40)
			},
			want:   []string{"main+0x10", "main+0x31"},
			reason: ReasonBadFrame,
			msg:    "below SP",
		},
		{
			name:   "an unreadable frame record stops with a memory error",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				return regs(rt(fnMain+0x10), 0x1000, 0x2000)
			},
			want:   []string{"main+0x10"},
			reason: ReasonMemory,
		},
		{
			name:   "an unknown FP stops with no data",
			unwind: fpu,
			build: func(s *stackImage) Regs {
				r := regs(rt(fnMain+0x10), X, 0)
				r.Forget(RBP)
				return r
			},
			want:   []string{"main+0x10"},
			reason: ReasonNoData,
		},
	})
}

// panicky is an Unwinder that panics or returns plain errors.
type panicky struct{ panics bool }

func (p panicky) Method() Method { return MethodCFI }
func (p panicky) Step(f *Frame) (Frame, error) {
	if p.panics {
		panic("index out of range")
	}
	return Frame{}, errors.New("plain error")
}

func TestStackContainsUnwinderFailures(t *testing.T) {
	sp := progSpace(t, &SliceMemory{})
	for _, p := range []panicky{{true}, {false}} {
		fs, err := Trace(p, regs(rt(fnMain), 0x1000, 0), sp, StackOptions{})
		var se *StopError
		if len(fs) != 1 || !errors.As(err, &se) {
			t.Fatalf("panics=%v: %d frames, err %v", p.panics, len(fs), err)
		}
		if want := map[bool]Reason{true: ReasonFormat, false: ReasonUnsupported}[p.panics]; se.Reason != want {
			t.Errorf("panics=%v: reason %v, want %v", p.panics, se.Reason, want)
		}
	}
}

func TestTraceReturnsPartialTraceAndError(t *testing.T) {
	X := uint64(stackBase + 0x1000)
	s := newStack(stackBase, 1024)
	s.put(X, libBias+fnLibc+0x10)
	sp := progSpace(t, s.mem())
	fs, err := Trace(&SFrameUnwinder{Space: sp}, regs(rt(fnLeaf), X, 0), sp, StackOptions{})
	var se *StopError
	if len(fs) != 2 || !errors.As(err, &se) || se.Reason != ReasonNoData || se.Module != "libc.so.6" {
		t.Fatalf("Trace = %d frames, %v", len(fs), err)
	}
	if fs[1].Module == nil || fs[1].Module.Name != "libc.so.6" {
		t.Errorf("frame 1 module %v", fs[1].Module)
	}
}

// TestHostileStacks unwinds random register values over random memory:
// every unwind must end, within the depth limit, without a panic.
func TestHostileStacks(t *testing.T) {
	s := newStack(stackBase, 2048)
	seed := uint64(0x9e3779b97f4a7c15)
	rnd := func() uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed
	}
	pcs := []uint64{fnStart, fnMain, fnMid, fnLeaf, fnPLT, fnSigTramp, fnHandler, fnFlex, fnZero}
	pick := func() uint64 {
		switch rnd() % 4 {
		case 0:
			return stackBase + rnd()%(8*2048)
		case 1:
			return rt(pcs[rnd()%uint64(len(pcs))] + rnd()%0x40)
		case 2:
			return rnd()
		}
		return stackBase + (rnd()%2048)*8
	}
	sp := progSpace(t, nil)
	for iter := 0; iter < 3000; iter++ {
		for i := range s.words {
			s.words[i] = pick()
		}
		sp.Mem = s.mem()
		r := regs(rt(pcs[iter%len(pcs)]+rnd()%0x40), stackBase+(rnd()%2048)*8, pick())
		r.Set(R10, pick())
		for _, u := range []Unwinder{&SFrameUnwinder{Space: sp}, &FPUnwinder{Space: sp}} {
			fs, _ := Trace(u, r, sp, StackOptions{MaxDepth: 64})
			if len(fs) > 64 {
				t.Fatalf("%v: %d frames past the depth limit", u.Method(), len(fs))
			}
		}
	}
}

func TestMalformedSFrameSection(t *testing.T) {
	good := encodeSFrameV3(0x3000, progFDEs())
	for _, c := range []struct {
		name   string
		data   []byte
		reason Reason
	}{
		{"a truncated section", good[:40], ReasonFormat},
		{"a bad magic", append([]byte{0x12, 0x34}, good[2:]...), ReasonFormat},
		{"FREs cut off", good[:len(good)-20], ReasonFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &tELF{textAddr: fnStart, textSize: textEnd - fnStart, sfAddr: 0x3000, sframe: c.data}
			m := &Module{Name: "bad", ELF: e.build(t), Start: progBias, End: progBias + 0x4000, Bias: progBias}
			s := newStack(stackBase, 64)
			sp := &Space{Mem: s.mem(), Modules: NewModules(m)}
			_, err := Trace(&SFrameUnwinder{Space: sp}, regs(rt(fnFlex+0x28), stackBase+0x80, 0), sp, StackOptions{})
			var se *StopError
			if !errors.As(err, &se) || se.Reason != c.reason {
				t.Errorf("unwind error %v, want reason %v", err, c.reason)
			}
		})
	}
}

// FuzzSFrameUnwind unwinds a fixed synthetic stack through arbitrary
// SFrame sections: no input may panic or loop.
func FuzzSFrameUnwind(f *testing.F) {
	f.Add(encodeSFrameV3(0x3000, progFDEs()), uint16(fnFlex+0x20-fnStart))
	f.Add(encodeSFrameV3(0x3000, progFDEs()[4:6]), uint16(fnPLT+0x13-fnStart))
	s := newStack(stackBase, 512)
	for i := range s.words {
		s.words[i] = rt(fnStart + uint64(i*37)%(textEnd-fnStart))
		if i%3 == 0 {
			s.words[i] = stackBase + uint64(i*24)%(8*512)
		}
	}
	mem := s.mem()
	f.Fuzz(func(t *testing.T, data []byte, pcOff uint16) {
		e := &tELF{textAddr: fnStart, textSize: textEnd - fnStart, sfAddr: 0x3000, sframe: data}
		elfFile := e.build(t)
		// The budget covers the section and the module's text.
		unwindAllocs.CheckAllocs(t, len(data)+int(textEnd-fnStart), func() {
			m := &Module{Name: "fuzz", ELF: elfFile, Start: progBias, End: progBias + 0x4000, Bias: progBias}
			sp := &Space{Mem: mem, Modules: NewModules(m)}
			r := regs(rt(fnStart+uint64(pcOff)%0x1000), stackBase+0x100, stackBase+0x400)
			r.Set(R10, stackBase+0x200)
			fs, _ := Trace(&SFrameUnwinder{Space: sp}, r, sp, StackOptions{MaxDepth: 64})
			if len(fs) > 64 {
				t.Fatalf("%d frames", len(fs))
			}
		})
	})
}

// unwindAllocs is the budget of FuzzSFrameUnwind, per byte of section and
// text: opening the module parses the section (about 6 bytes per byte,
// see sframe's FuzzParse) and reads its ELF file's headers and symbols;
// each of at most 64 frames costs a few hundred bytes, and a lookup
// decodes in place (the FRE index, when built, 8 bytes per FRE of at
// least 2 bytes). The seeds allocate less than the runtime's counting
// can see (a span).
var unwindAllocs = sframetest.AllocBudget(128)
