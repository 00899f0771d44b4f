package compare

import (
	"iter"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/frames"
)

// liveCount counts objects made and those the garbage collector has
// reclaimed since (runtime.AddCleanup).
type liveCount struct{ made, freed atomic.Int64 }

func track[T any](c *liveCount, p *T) {
	c.made.Add(1)
	runtime.AddCleanup(p, func(c *liveCount) { c.freed.Add(1) }, c)
}

// live collects garbage until at most max of the counted objects are
// still reachable, or gives up after a number of collections, and returns
// how many are.
func (c *liveCount) live(max int64) int64 {
	for range 20 {
		runtime.GC()
		if c.made.Load()-c.freed.Load() <= max {
			break
		}
		time.Sleep(time.Millisecond) // cleanups run on a goroutine of their own
	}
	return c.made.Load() - c.freed.Load()
}

// A batch holds the files in flight and the finished reports waiting for
// an earlier, slower one (4 per job), not the files already reported:
// after each report is emitted, every module and report of the files
// before it must be unreachable. With reports kept to the end, or a report
// holding its module, the count of live ones grows with the files.
func TestCheckFilesKeepsNothingOfAReportedFile(t *testing.T) {
	bin := filepath.Join("..", "testdata", "bin")
	files := []string{filepath.Join(bin, "deep-v3-O2"), filepath.Join(bin, "features-v3"),
		filepath.Join(objFixtures, "libobj-v3.a"), filepath.Join(bin, "inline-v3-O2"), filepath.Join(bin, "no-such-file")}
	var paths []string
	for range 20 {
		paths = append(paths, files...)
	}
	const jobs = 2
	var modules, reports liveCount
	checkedModule = func(m *frames.Module) { track(&modules, m) }
	defer func() { checkedModule = nil }()
	// In flight: the jobs being checked, the 4*jobs finished jobs waiting,
	// the one being emitted; an archive's job holds its 3 members.
	const slack = (jobs + 4*jobs + 1) * 3
	emitted, maxLive := 0, int64(0)
	CheckFiles(targets(slices.Values(paths)), jobs, CheckOptions{Consumers: true}, func(r *FileReport) {
		emitted++
		track(&reports, r)
		if r.File == "" {
			t.Errorf("report without a file: %+v", r)
		}
		if emitted%10 != 0 || t.Failed() {
			return
		}
		if n := modules.live(slack); n > slack {
			t.Errorf("after %d reports, %d of %d modules are still reachable; want at most %d", emitted, n, modules.made.Load(), slack)
		}
		if n := reports.live(slack); n > slack {
			t.Errorf("after %d reports, %d of them are still reachable; want at most %d", emitted, n, slack)
		}
		maxLive = max(maxLive, modules.made.Load()-modules.freed.Load())
	})
	if want := 20 * (len(files) + 2); emitted != want { // the archive's 3 members
		t.Errorf("%d reports, want %d", emitted, want)
	}
	if modules.made.Load() < 20*4 {
		t.Errorf("%d modules opened; the hook missed some", modules.made.Load())
	}
	t.Logf("%d reports, %d modules opened, at most %d reachable at once", emitted, modules.made.Load(), maxLive)
}

// Reports come in the order of the paths however the checks finish.
func TestCheckFilesReportsInPathOrder(t *testing.T) {
	bin := filepath.Join("..", "testdata", "bin")
	// sqlite-v3 takes longest: the small files after it finish first.
	paths := []string{filepath.Join(bin, "sqlite-v3"), filepath.Join(bin, "deep-v3-O2"), filepath.Join(bin, "deep-v2-O2"),
		filepath.Join(bin, "features-v3"), filepath.Join(bin, "deep-v1-O2"), filepath.Join(bin, "aarch64-v3")}
	var got []string
	CheckFiles(targets(slices.Values(paths)), 3, CheckOptions{}, func(r *FileReport) { got = append(got, r.File) })
	if !slices.Equal(got, paths) {
		t.Errorf("reports for %v, want %v", got, paths)
	}
}

// targets returns the Targets of paths, opened by the check.
func targets(paths iter.Seq[string]) iter.Seq[Target] {
	return func(yield func(Target) bool) {
		for p := range paths {
			if !yield(Target{Path: p}) {
				return
			}
		}
	}
}
