package compare

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// WriteProcessJSON writes, a frame at a time, the bytes WriteJSON writes
// for the whole document: threads with frames, inline frames, findings and
// independent traces, a thread that could not be unwound, none at all.
func TestWriteProcessJSONWritesWhatWriteJSONWrites(t *testing.T) {
	deep, deepRegs := deepStack(t, 50)
	inl, inlRegs := inlineStack(t, inlineStmtPC)
	withFinding := Unwind(inl, inlRegs, Options{})
	withFinding.Findings = append(withFinding.Findings, Finding{Kind: KindNoFDE, Frame: 1, Message: "a <test> & finding"})
	head := ProcessDocument{SchemaVersion: SchemaVersion, Pid: 42, Name: "a \"name\"\nwith a newline", Methods: "all", Disagreements: 1, Compared: true}
	for _, tc := range []struct {
		name    string
		threads []ProcessThread
	}{
		{"no threads", nil},
		{"a deep stack with independent traces", []ProcessThread{{Tid: 1, Name: "deep", Trace: Unwind(deep, deepRegs, Options{MaxDepth: 60, Independent: true})}}},
		{"a stack cut by the depth limit", []ProcessThread{{Tid: 1, Name: "deep", Trace: Unwind(deep, deepRegs, Options{MaxDepth: 7})}}},
		{"inline frames and a finding, a thread that failed, one method", []ProcessThread{
			{Tid: 7, Name: "inl", Trace: withFinding},
			{Tid: 8, Name: "gone", Err: errors.New("no such process")},
			{Tid: 9, Name: "frames: []", Trace: Unwind(inl, inlRegs, Options{Methods: OnlySFrame})},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := head
			want.Threads = []ThreadDocument{}
			for _, th := range tc.threads {
				if th.Trace == nil {
					want.Threads = append(want.Threads, ThreadDocument{Tid: th.Tid, Name: th.Name, Error: th.Err.Error(),
						Frames: []FrameDocument{}, Findings: []Finding{}, FPBrokenFrom: -1})
					continue
				}
				want.Threads = append(want.Threads, th.Trace.Document(th.Tid, th.Name))
			}
			var wb, gb bytes.Buffer
			if err := WriteJSON(&wb, &want); err != nil {
				t.Fatal(err)
			}
			if err := WriteProcessJSON(&gb, head, tc.threads); err != nil {
				t.Fatal(err)
			}
			if gb.String() != wb.String() {
				t.Errorf("streamed:\n%s\nwant:\n%s", gb.String(), wb.String())
			}
		})
	}
}

// BenchmarkWriteProcessJSON writes the JSON of a 100,000-frame trace and
// reports the time and the bytes allocated per frame (garbage: nothing is
// kept from one frame to the next).
func BenchmarkWriteProcessJSON(b *testing.B) {
	const n = 100_000
	space, regs := deepStack(b, n)
	tr := Unwind(space, regs, Options{MaxDepth: n})
	threads := []ProcessThread{{Tid: 1, Name: "deep", Trace: tr}}
	head := ProcessDocument{SchemaVersion: SchemaVersion, Methods: "all"}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0 := ms.TotalAlloc
	for b.Loop() {
		if err := WriteProcessJSON(io.Discard, head, threads); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/frame")
	b.ReportMetric(float64(ms.TotalAlloc-alloc0)/float64(b.N*n), "B-alloc/frame")
}
