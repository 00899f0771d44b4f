package compare

import (
	"iter"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// checkedModule, when set (by tests), is called with the module of every
// file a check opens, so that a test can see that none outlives its report.
var checkedModule func(*frames.Module)

// CheckPath checks the file at path: an ar archive member by member
// (CheckArchive), any other file as one ELF file (CheckFile). It returns
// at least one report; a file that cannot be checked gets one with Err set.
func CheckPath(path string, opts CheckOptions) []*FileReport {
	if elfobj.IsArchiveFile(path) {
		rs, _ := CheckArchive(path, opts)
		return rs
	}
	r, _ := CheckFile(path, opts)
	return []*FileReport{r}
}

// CheckFiles checks the files paths yields (CheckPath) with up to jobs
// files in flight, and calls emit with each report as soon as it and every
// report of an earlier path are done: serially, in the order of paths
// (an archive's members in archive order). Nothing of a file is kept once
// emit has returned for its reports, so that memory depends on the files
// in flight, not on how many files there are: at most jobs files are
// being checked, and the reports of at most 4*jobs more wait for a slow
// file before them. paths is consumed in a goroutine of its own, at the
// pace of the checks (a directory walk may feed it as it goes).
func CheckFiles(paths iter.Seq[string], jobs int, opts CheckOptions, emit func(*FileReport)) {
	jobs = max(jobs, 1)
	type job struct {
		path string
		done chan []*FileReport
	}
	todo := make(chan *job)
	// order holds the jobs handed out and not yet emitted, in path
	// order; its capacity bounds how far the checks run ahead of emit.
	order := make(chan *job, 4*jobs)
	go func() {
		defer close(order)
		defer close(todo)
		for p := range paths {
			j := &job{path: p, done: make(chan []*FileReport, 1)}
			order <- j
			todo <- j
		}
	}()
	for range jobs {
		go func() {
			for j := range todo {
				j.done <- CheckPath(j.path, opts)
			}
		}()
	}
	for j := range order {
		for _, r := range <-j.done {
			emit(r)
		}
	}
}
