package sframe

import (
	"errors"
	"fmt"
)

// FormatError reports malformed section data at a byte offset from the start
// of the section. Its message names the section and the format the data was
// read as: ".sframe (SFrame): MSG at byte 0x1c", ".ctf_frame (CTF Frame):
// ..."; the caller adds the file.
type FormatError struct {
	Off int64  // byte offset from the start of the section
	Msg string // what is wrong
	// Section is the section the data was read as: ".sframe" (SFrame; also
	// when empty) or CTFFrameSectionName (CTF Frame, ParseCTFAt).
	Section string
}

func (e *FormatError) Error() string {
	format := "SFrame"
	sec := e.Section
	switch sec {
	case "":
		sec = ".sframe"
	case CTFFrameSectionName:
		format = "CTF Frame"
	}
	return fmt.Sprintf("%s (%s): %s at byte %#x", sec, format, e.Msg, e.Off)
}

func formatErr(off int64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// Sentinel errors for lookups; test them with errors.Is.
var (
	// ErrNoFDE: no FDE covers the PC.
	ErrNoFDE = errors.New("no SFrame FDE for PC")
	// ErrNoFRE: an FDE covers the PC, but none of its FREs does (the PC is
	// before the first FRE, or the FDE has no FREs).
	ErrNoFRE = errors.New("no SFrame FRE for PC")
	// ErrNoSection: the ELF file has no .sframe section or PT_GNU_SFRAME segment.
	ErrNoSection = errors.New("no .sframe section")
)
