package frames

import (
	"errors"
	"fmt"
	"slices"
)

// DefaultMaxDepth is the number of frames an unwind yields at most unless
// StackOptions.MaxDepth says otherwise.
const DefaultMaxDepth = 256

// StackOptions bound an unwind.
type StackOptions struct {
	// MaxDepth is the largest number of frames yielded (frame 0 included);
	// 0 means DefaultMaxDepth.
	MaxDepth int
}

// Stack iterates over the frames of one thread, innermost first, with one
// Unwinder, like Delve's stackIterator:
//
//	s := frames.NewStack(u, regs, space, frames.StackOptions{})
//	for s.Next() {
//		f := s.Frame()
//		...
//	}
//	if err := s.Err(); err != nil { ... } // why the trace is incomplete
//
// Each frame is complete when yielded: its CFA and Row (how its caller was
// found) are filled in, as the iterator computes one frame ahead. Every
// unwind is bounded: by the depth limit, by requiring the SP to grow
// strictly from callee to caller (except through signal frames, whose
// interrupted SP may lie anywhere, e.g. on another stack), and by refusing
// to visit the same PC and CFA twice.
type Stack struct {
	u     Unwinder
	space *Space
	max   int

	started bool
	buf     [2]Frame // the current frame and the next one
	cur     int      // index of the current frame in buf
	hasNext bool
	stop    *StopError
	// After a signal frame the SP may go down: from then on the (PC, CFA)
	// of every frame is kept to refuse revisits. Before, the strictly
	// growing SP rules them out.
	signal bool
	seen   [][2]uint64
	// flat holds the (PC, CFA) of the frames since the SP last grew, on
	// ABIs where a frameless leaf keeps its caller's SP.
	flat    [][2]uint64
	seenBuf [16][2]uint64
}

// NewStack starts an unwind from the registers of a stopped thread. Frame
// 0 is built from regs (Method MethodRegs, Interrupted set). regs should
// come from NewRegs (a zero Regs is taken to be AMD64).
func NewStack(u Unwinder, regs Regs, space *Space, opts StackOptions) *Stack {
	s := &Stack{u: u, space: space, max: opts.MaxDepth}
	s.seen = s.seenBuf[:0]
	if s.max <= 0 {
		s.max = DefaultMaxDepth
	}
	if regs.PCReg == 0 && regs.SPReg == 0 && regs.FPReg == 0 {
		regs.PCReg, regs.SPReg, regs.FPReg = RIP, RSP, RBP
	}
	f := &s.buf[0]
	*f = Frame{Level: 0, PC: regs.PC(), Regs: regs, Method: MethodRegs, Interrupted: true}
	if space != nil {
		f.locate(space.Modules)
	}
	return s
}

// Next advances to the next frame (frame 0 on the first call) and reports
// whether there is one.
func (s *Stack) Next() bool {
	if !s.started {
		s.started = true
		s.advance()
		return true
	}
	if !s.hasNext {
		return false
	}
	s.cur ^= 1
	s.advance()
	return true
}

// Frame returns the current frame.
func (s *Stack) Frame() Frame { return s.buf[s.cur] }

// Err returns why the unwind ended before reaching the outermost frame, or
// nil when it ended cleanly (ReasonOutermost) or has not ended yet. Errors
// are *StopError.
func (s *Stack) Err() error {
	if s.hasNext || s.stop == nil || s.stop.Reason == ReasonOutermost {
		return nil
	}
	return s.stop
}

// Stop returns the StopError that ended the unwind, including
// ReasonOutermost, or nil while frames remain.
func (s *Stack) Stop() *StopError {
	if s.hasNext {
		return nil
	}
	return s.stop
}

// advance computes the caller of the current frame into the other slot of
// s.buf, filling the current frame's CFA and Row, or records why there is
// none.
func (s *Stack) advance() {
	s.hasNext = false
	cur, next := &s.buf[s.cur], &s.buf[s.cur^1]
	if cur.Level+1 >= s.max {
		s.stop = &StopError{Method: s.u.Method(), Reason: ReasonDepth, PC: cur.PC,
			Msg: fmt.Sprintf("depth limit of %d frames reached", s.max)}
		return
	}
	var err error
	if *next, err = s.step(cur); err != nil {
		var se *StopError
		if !errors.As(err, &se) {
			se = &StopError{Method: s.u.Method(), Reason: ReasonUnsupported, PC: cur.PC, Err: err}
		}
		s.stop = se
		return
	}
	if s.signal && cur.CFA != 0 {
		key := [2]uint64{cur.PC, cur.CFA}
		for _, k := range s.seen {
			if k == key {
				s.bad(cur, "frame %d revisits PC %#x with CFA %#x", cur.Level, cur.PC, cur.CFA)
				return
			}
		}
		s.seen = append(s.seen, key)
	}
	if next.PC == 0 {
		s.stop = &StopError{Method: s.u.Method(), Reason: ReasonOutermost, PC: cur.PC,
			Msg: fmt.Sprintf("return address 0 above frame %d ends the trace", cur.Level)}
		return
	}
	if cur.Row.Signal {
		if !s.signal {
			s.signal = true
			if cur.CFA != 0 {
				s.seen = append(s.seen, [2]uint64{cur.PC, cur.CFA})
			}
		}
	} else {
		// On AMD64 a call pushes the RA, so the caller's SP is above. On
		// AArch64 and s390x a leaf without a frame shares its caller's
		// SP: while the SP stays the same, a frame must not come back
		// with the same PC and CFA (gdb's frame-ID check).
		csp, cok := cur.Regs.Get(cur.Regs.SPReg)
		psp, pok := next.Regs.Get(next.Regs.SPReg)
		if cok && pok && (psp < csp || psp == csp && (next.PC == cur.PC || cur.Regs.arch().CallPushesRA)) {
			s.bad(cur, "SP does not grow from frame %d (%#x) to its caller (%#x)", cur.Level, csp, psp)
			return
		}
		switch {
		case cok && pok && psp == csp:
			key := [2]uint64{cur.PC, cur.CFA}
			if slices.Contains(s.flat, key) {
				s.bad(cur, "frame %d revisits PC %#x with CFA %#x at an unchanged SP %#x", cur.Level, cur.PC, cur.CFA, csp)
				return
			}
			s.flat = append(s.flat, key)
		case len(s.flat) > 0:
			s.flat = s.flat[:0]
		}
	}
	next.Level = cur.Level + 1
	if next.Module == nil && s.space != nil {
		next.locate(s.space.Modules)
	}
	s.hasNext = true
}

func (s *Stack) bad(cur *Frame, format string, args ...any) {
	se := &StopError{Method: s.u.Method(), Reason: ReasonBadFrame, PC: cur.PC, Msg: fmt.Sprintf(format, args...)}
	if cur.Module != nil {
		se.Module = cur.Module.Name
	}
	s.stop = se
}

// step calls the unwinder, turning a panic (malformed data reaching a
// third-party decoder) into a StopError.
func (s *Stack) step(cur *Frame) (caller Frame, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &StopError{Method: s.u.Method(), Reason: ReasonFormat, PC: cur.PC,
				Msg: fmt.Sprintf("%v unwinder failed at PC %#x: %v", s.u.Method(), cur.PC, r)}
		}
	}()
	return s.u.Step(cur)
}
