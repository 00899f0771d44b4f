package frames

import (
	"fmt"
)

// Reason says why an unwind stopped.
type Reason uint8

// Reasons an unwinder cannot produce a caller.
const (
	// ReasonOutermost: the frame is the outermost one (RA undefined); the
	// trace is complete. Not a fault.
	ReasonOutermost Reason = iota
	// ReasonNoModule: the PC is in no known module.
	ReasonNoModule
	// ReasonNoData: the module has no data for this method (no .sframe, no
	// CFI).
	ReasonNoData
	// ReasonNoFDE: the module has data, but nothing covers the PC (a gap
	// between functions, or a function the producer skipped).
	ReasonNoFDE
	// ReasonNoRow: an FDE covers the PC but has no row for it.
	ReasonNoRow
	// ReasonUnsafe: the rule needs a register whose value is only known in
	// the topmost frame (SFrame v3 FLEX rules based on other registers).
	ReasonUnsafe
	// ReasonUnsupported: the rule cannot be evaluated by this method.
	ReasonUnsupported
	// ReasonMemory: reading the stack failed.
	ReasonMemory
	// ReasonBadFrame: the computed caller is implausible (CFA not above SP,
	// misaligned, not increasing, PC zero), or revisits a frame.
	ReasonBadFrame
	// ReasonDepth: the depth limit was reached.
	ReasonDepth
	// ReasonFormat: the unwind data is malformed.
	ReasonFormat
)

var reasonNames = [...]string{"outermost frame", "no module", "no unwind data", "no FDE for PC", "no row for PC",
	"unsafe in a non-topmost frame", "unsupported rule", "memory read failed", "implausible frame", "depth limit", "malformed unwind data"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// StopError is the typed reason an unwinder gives for not producing a
// caller. Message is a complete sentence fragment for humans, e.g.
// "no SFrame for PC 0x7f12.. in libc.so.6".
type StopError struct {
	Method Method
	Reason Reason
	PC     uint64
	Module string // module name, "" if none
	Msg    string
	Err    error // underlying error, if any
}

func (e *StopError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if m, ok := e.Err.(stopMessage); ok {
		return m.stopMessage()
	}
	mod := ""
	if e.Module != "" {
		mod = " in " + e.Module
	}
	s := fmt.Sprintf("%v: %v at PC %#x%s", e.Method, e.Reason, e.PC, mod)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *StopError) Unwrap() error { return e.Err }

// stopMessage is an Err of a StopError that makes its whole message when
// asked: for the failures that occur at nearly every frame of a trace (the
// frame-pointer chain in code without frame pointers), formatting is left
// until someone reads it.
type stopMessage interface {
	error
	stopMessage() string
}

// Unwinder computes a frame's caller. Step is given the frame to unwind
// from (with its PC, the registers known so far, and whether it is the
// topmost frame via f.Level == 0) and returns the caller's frame with PC,
// CFA-derived SP and whatever registers the method restores. It also fills
// f.CFA and f.Row on the frame it unwinds from. On failure it returns a
// *StopError. Implementations must not keep f.
type Unwinder interface {
	Method() Method
	Step(f *Frame) (Frame, error)
}
