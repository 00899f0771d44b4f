package cfi

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is.
var (
	// ErrNoFDE: no FDE covers the PC (Table.FDEForPC, Index.FDEForPC).
	ErrNoFDE = errors.New("no FDE covers the PC")
	// ErrNoRow: the PC is outside the FDE's range (FDE.RowAt).
	ErrNoRow = errors.New("the FDE has no row for the PC")
	// ErrMalformed matches every *Error for CFI that breaks the format:
	// the caller reports the module's CFI as malformed.
	ErrMalformed = errors.New("malformed CFI")
	// ErrUnsupported matches every *Error for CFI in a form this package
	// refuses although it may be valid (an augmentation or pointer
	// encoding it does not implement, a segment selector, a register
	// number beyond rule.Reg): the caller reports the module as having
	// no usable CFI.
	ErrUnsupported = errors.New("unsupported CFI")
	// ErrBadHdr matches every *Error about .eh_frame_hdr (Section is
	// SectionEHFrameHdr): its search table cannot be used, and the caller
	// should parse all of .eh_frame with Parse instead.
	ErrBadHdr = errors.New(".eh_frame_hdr search table cannot be used")
)

// Error is a problem with the bytes of a CFI section: Section names it
// (".eh_frame", ".debug_frame" or ".eh_frame_hdr"), Off is the byte offset
// in that section of the field or instruction at fault (-1 for the section
// as a whole), Err is ErrMalformed or ErrUnsupported.
type Error struct {
	Section string
	Off     int64
	Msg     string
	Err     error
}

// Error formats the error as "<section> at byte 0x..: msg".
func (e *Error) Error() string {
	if e.Off < 0 {
		return e.Section + ": " + e.Msg
	}
	return fmt.Sprintf("%s at byte %#x: %s", e.Section, e.Off, e.Msg)
}

// Unwrap returns ErrMalformed or ErrUnsupported.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrBadHdr) true for errors about .eh_frame_hdr.
func (e *Error) Is(target error) bool {
	return target == ErrBadHdr && e.Section == SectionEHFrameHdr
}

// malformed returns an *Error of section sec at off wrapping ErrMalformed.
func malformed(sec string, off int64, format string, args ...any) *Error {
	return &Error{Section: sec, Off: off, Msg: fmt.Sprintf(format, args...), Err: ErrMalformed}
}

// unsupported returns an *Error of section sec at off wrapping
// ErrUnsupported.
func unsupported(sec string, off int64, format string, args ...any) *Error {
	return &Error{Section: sec, Off: off, Msg: fmt.Sprintf(format, args...), Err: ErrUnsupported}
}
