package sframetest

import "testing"

var sink []byte

func TestBudgets(t *testing.T) {
	t.Run("an allocation sized by a declared count is over the budget", func(t *testing.T) {
		got := Allocs(func() { sink = make([]byte, 64<<20) })
		if got < 64<<20 {
			t.Fatalf("Allocs counted %d bytes for a 64 MiB slice", got)
		}
		if !AllocBudget(128).Exceeded(got, 4096) {
			t.Errorf("%d bytes for a 4 KiB input are within the budget", got)
		}
		sink = nil
	})
	t.Run("a copy of the input is within the budget", func(t *testing.T) {
		in := make([]byte, 1<<20)
		got := Allocs(func() { sink = append([]byte(nil), in...) })
		if AllocBudget(2).Exceeded(got, len(in)) {
			t.Errorf("%d bytes for a copy of a 1 MiB input are over the budget", got)
		}
		sink = nil
	})
	t.Run("counts are budgeted per Per bytes", func(t *testing.T) {
		b := Budget{What: "FREs", PerByte: 1, Per: 2, Const: 1}
		if b.Exceeded(51, 100) || !b.Exceeded(52, 100) {
			t.Errorf("limit for 100 bytes is %d, want 51", b.Limit(100))
		}
	})
}
