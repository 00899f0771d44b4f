package ehabi

import (
	"errors"
	"fmt"
)

// ErrMalformed matches every *DecodeError (errors.Is).
var ErrMalformed = errors.New("malformed EHABI unwind table")

// DecodeError is a problem with the bytes of an EHABI section: Section
// names it (".ARM.exidx", ".ARM.extab", ".c6xabi.exidx", ...), Off is the
// byte offset in that section of the word or opcode at fault (-1 for the
// section as a whole).
type DecodeError struct {
	Section string
	Off     int64
	Msg     string
}

// Error formats the error as "<section> at byte 0x..: msg".
func (e *DecodeError) Error() string {
	if e.Off < 0 {
		return e.Section + ": " + e.Msg
	}
	return fmt.Sprintf("%s at byte %#x: %s", e.Section, e.Off, e.Msg)
}

// Unwrap returns ErrMalformed.
func (e *DecodeError) Unwrap() error { return ErrMalformed }

func malformed(sec string, off int64, format string, args ...any) *DecodeError {
	return &DecodeError{Section: sec, Off: off, Msg: fmt.Sprintf(format, args...)}
}
