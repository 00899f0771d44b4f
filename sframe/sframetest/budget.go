package sframetest

import (
	"os"
	"runtime/metrics"
	"testing"
)

// Work budgets of the fuzz targets (issue 18, "Assert a work budget"): a
// decoder's work on one input must be linear in the bytes that exist, so a
// target measures what a call did and requires
//
//	work <= PerByte × (input bytes + covered text bytes) + Const
//
// where PerByte (the c of the issue) is set per target from the largest
// ratio its seed corpus shows, with headroom, and explained there.

// heapAllocs is the runtime metric of the bytes the Go heap has handed
// out since the process started, TotalAlloc of runtime.MemStats. Reading
// it does not stop the world.
const heapAllocs = "/gc/heap/allocs:bytes"

// AllocSlack is the constant term every allocation budget gets, in bytes:
// the runtime counts a small-object span when it leaves a P's cache, so a
// reading can be off by the spans cached when it is taken (at most a few
// hundred KiB per P), plus package-level tables built on first use and
// what the fuzz worker does between calls. It is far below what a count
// or size read from the input and trusted would cost (gigabytes), which
// is what the budgets are for.
const AllocSlack = 8 << 20

// HeapAllocated returns the bytes the Go heap has allocated since the
// process started (/gc/heap/allocs:bytes).
func HeapAllocated() uint64 {
	s := []metrics.Sample{{Name: heapAllocs}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Budget is the work allowed one fuzz input: PerByte units per Per bytes
// of input and covered text (Per 0 means 1), plus Const.
type Budget struct {
	// What names the work for failure messages: "bytes allocated",
	// "rows built", "FREs decoded".
	What    string
	PerByte uint64
	Per     uint64
	Const   uint64
}

// Limit returns the budget for n bytes of input and covered text.
func (b Budget) Limit(n int) uint64 {
	return b.PerByte*uint64(max(n, 0))/max(b.Per, 1) + b.Const
}

// logWork is set by SFDBG_BUDGET_LOG=1: every Check then logs the work
// and its ratio to the input size (go test -v), to see how much of c the
// seeds use.
var logWork = os.Getenv("SFDBG_BUDGET_LOG") == "1"

// Exceeded reports whether work is over the budget for n bytes.
func (b Budget) Exceeded(work uint64, n int) bool { return work > b.Limit(n) }

// Check fails tb when work exceeds the budget for n bytes.
func (b Budget) Check(tb testing.TB, work uint64, n int) {
	tb.Helper()
	if logWork {
		tb.Logf("budget: %d %s for %d bytes (%.2f per byte; budget %d per %d bytes + %d)", work, b.What, n, float64(work)/float64(max(n, 1)), b.PerByte, max(b.Per, 1), b.Const)
	}
	if b.Exceeded(work, n) {
		lim := b.Limit(n)
		tb.Fatalf("%d %s for %d bytes of input: over the budget of %d (%d per %d bytes + %d)", work, b.What, n, lim, b.PerByte, max(b.Per, 1), b.Const)
	}
}

// AllocBudget returns a Budget of bytes allocated with perByte bytes per
// input byte and AllocSlack.
func AllocBudget(perByte uint64) Budget {
	return Budget{What: "bytes allocated", PerByte: perByte, Const: AllocSlack}
}

// Allocs runs fn and returns the bytes the Go heap allocated meanwhile. A
// fuzz worker runs its inputs one after the other, so what other
// goroutines allocate meanwhile is small (see AllocSlack).
func Allocs(fn func()) uint64 {
	before := HeapAllocated()
	fn()
	return HeapAllocated() - before
}

// CheckAllocs runs fn and fails tb when it allocated more than b allows
// for n bytes of input.
func (b Budget) CheckAllocs(tb testing.TB, n int, fn func()) {
	tb.Helper()
	b.Check(tb, Allocs(fn), n)
}
