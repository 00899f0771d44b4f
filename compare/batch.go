package compare

import (
	"fmt"
	"iter"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// checkedModule, when set (by tests), is called with the module of every
// file a check opens, so that a test can see that none outlives its report.
var checkedModule func(*frames.Module)

// CheckPath checks the file at path, opened and classified once
// (elfobj.Open): an ar archive member by member (CheckArchive), any other
// file as one ELF file (CheckFile). It returns at least one report; a file
// that cannot be checked gets one with Err set.
func CheckPath(path string, opts CheckOptions) []*FileReport {
	f, err := elfobj.Open(path)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
		return []*FileReport{{File: path, Findings: []Finding{}, Err: err.Error()}}
	}
	defer f.Close()
	return checkOpenFile(f, opts)
}

// checkOpenFile checks f (CheckPath), which stays open.
func checkOpenFile(f *elfobj.File, opts CheckOptions) []*FileReport {
	if f.Kind == elfobj.KindArchive {
		rs, _ := checkArchive(f, opts)
		return rs
	}
	r, _ := checkOpened(f, opts)
	return []*FileReport{r}
}

// Target is one file for CheckFiles: its Path and, when the caller has
// already opened and classified it (a directory walk that skips what is
// not ELF), the open File, which the check then closes. A Target without
// a File is opened by the check (CheckPath).
type Target struct {
	Path string
	File *elfobj.File
}

// CheckFiles checks the files targets yields (CheckPath, or the open
// file) with up to jobs files in flight, and calls emit with each report
// as soon as it and every report of an earlier target are done: serially,
// in the order of targets (an archive's members in archive order).
// Nothing of a file is kept once emit has returned for its reports, so
// that memory depends on the files in flight, not on how many files there
// are: at most jobs files are being checked, and the reports of at most
// 4*jobs more wait for a slow file before them (and as many open files,
// for targets given open). targets is consumed in a goroutine of its own,
// at the pace of the checks (a directory walk may feed it as it goes).
func CheckFiles(targets iter.Seq[Target], jobs int, opts CheckOptions, emit func(*FileReport)) {
	jobs = max(jobs, 1)
	type job struct {
		Target
		done chan []*FileReport
	}
	todo := make(chan *job)
	// order holds the jobs handed out and not yet emitted, in path
	// order; its capacity bounds how far the checks run ahead of emit.
	order := make(chan *job, 4*jobs)
	go func() {
		defer close(order)
		defer close(todo)
		for t := range targets {
			j := &job{Target: t, done: make(chan []*FileReport, 1)}
			order <- j
			todo <- j
		}
	}()
	for range jobs {
		go func() {
			for j := range todo {
				if j.File == nil {
					j.done <- CheckPath(j.Path, opts)
					continue
				}
				j.done <- checkOpenFile(j.File, opts)
				j.File.Close()
			}
		}()
	}
	for j := range order {
		for _, r := range <-j.done {
			emit(r)
		}
	}
}
