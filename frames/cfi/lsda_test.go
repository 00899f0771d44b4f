package cfi

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestParseLSDA reads the call-site tables GCC (ULEB128 entries) and LLVM
// (udata4 entries, an LPStart given) emit, and refuses what is cut short
// with the offset of the field.
func TestParseLSDA(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		name string
		b    []byte
		want []CallSite
		err  string
	}{
		{"GCC: omit, TType, uleb128 call sites", []byte{
			0xff,       // LPStart omitted: the function's start
			0x9b, 0x0d, // TType pcrel|sdata4, offset 13
			0x01, 0x08, // call sites uleb128, 8 bytes
			0x05, 0x05, 0x20, 0x01, // [+5, +10) -> +0x20, action 1
			0x10, 0x03, 0x00, 0x00, // [+0x10, +0x13), no pad
		}, []CallSite{{0x1005, 0x100a, 0x1020}, {0x1010, 0x1013, 0}}, ""},
		{"LLVM: udata4 call sites, an LPStart", append([]byte{
			0x03, 0x00, 0x20, 0x00, 0x00, // LPStart udata4 0x2000
			0xff,       // no TType
			0x03, 0x0d, // call sites udata4, 13 bytes
			0x04, 0, 0, 0, 0x08, 0, 0, 0, 0x40, 0, 0, 0, // [+4, +12) -> LPStart+0x40
		}, 0x00), []CallSite{{0x1004, 0x100c, 0x2040}}, ""},
		{"a table longer than the section", []byte{0xff, 0xff, 0x01, 0x40, 0x01}, nil, "call-site table of 64 bytes runs past the end"},
		{"an entry cut short", []byte{0xff, 0xff, 0x03, 0x05, 0x01, 0x00, 0x00, 0x00, 0x02}, nil, "truncated call-site length"},
		{"a pc-relative call-site encoding", []byte{0xff, 0xff, 0x13, 0x00}, nil, "call-site encoding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLSDA(tc.b, 0x5000, 0x200, le, 8, 0x1000)
			if tc.err != "" {
				var e *Error
				if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), tc.err) || e.Section != SectionGCCExceptTable || e.Off < 0x200 {
					t.Fatalf("error %v, want one at an offset of %s saying %q", err, SectionGCCExceptTable, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("entry %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// FuzzParseLSDA: any bytes give entries or an *Error, never a panic, and
// no more entries than the bytes can hold.
func FuzzParseLSDA(f *testing.F) {
	f.Add([]byte{0xff, 0x9b, 0x0d, 0x01, 0x08, 0x05, 0x05, 0x20, 0x01, 0x10, 0x03, 0x00, 0x00})
	f.Add([]byte{0x03, 0x00, 0x20, 0x00, 0x00, 0xff, 0x03, 0x0d, 0x04, 0, 0, 0, 0x08, 0, 0, 0, 0x40, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseLSDA(b, 0x5000, 0, binary.LittleEndian, 8, 0x1000)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
		if len(got) > len(b)/4+1 {
			t.Fatalf("%d entries from %d bytes", len(got), len(b))
		}
	})
}
