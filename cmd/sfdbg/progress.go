package main

import (
	"fmt"
	"io"
	"time"
)

// progressLine shows a count on one terminal line, "sampling 37/100
// (37%)", redrawn at most every progressEvery and at the end, and erases
// it when finished: what sample shows on a terminal while it runs.
type progressLine struct {
	w        io.Writer
	what     string
	done, of int
	last     time.Time
	shown    bool
}

// progressEvery is how often a progressLine is redrawn at most.
const progressEvery = 100 * time.Millisecond

func newProgressLine(w io.Writer, what string, of int) *progressLine {
	return &progressLine{w: w, what: what, of: of}
}

// Add counts n more done and redraws the line when it is due.
func (p *progressLine) Add(n int) {
	p.done += n
	now := time.Now()
	if p.done < p.of && now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	pct := 100
	if p.of > 0 {
		pct = min(p.done*100/p.of, 100)
	}
	// \r back to the line's start, \x1b[K erases what a longer line left.
	fmt.Fprintf(p.w, "\r%s %d/%d (%d%%)\x1b[K", p.what, p.done, p.of, pct)
	p.shown = true
}

// Finish erases the line.
func (p *progressLine) Finish() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
