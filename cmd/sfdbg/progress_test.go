package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestProgressLineRedrawsAndErases checks sample's progress line: the
// first count is drawn, a count within progressEvery of the last drawing
// is not, the last one always is, and Finish erases the line.
func TestProgressLineRedrawsAndErases(t *testing.T) {
	var b bytes.Buffer
	p := newProgressLine(&b, "sampling", 3)
	p.Add(1)
	p.Add(1) // at once: not drawn
	p.Add(1) // the last: drawn
	p.Finish()
	want := "\rsampling 1/3 (33%)\x1b[K\rsampling 3/3 (100%)\x1b[K\r\x1b[K"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	newProgressLine(&b, "sampling", 5).Finish()
	if b.Len() != 0 {
		t.Errorf("Finish with nothing drawn wrote %q", b.String())
	}
	if strings.Contains(want, "\n") {
		t.Error("the progress line must not end lines")
	}
}
