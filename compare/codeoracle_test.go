package compare

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

// oracleFindings checks path with the frames/code oracle and returns its
// code-* findings by kind.
func oracleFindings(t *testing.T, path string) (*FileReport, map[Kind][]Finding) {
	t.Helper()
	rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
	if err != nil {
		t.Fatal(err)
	}
	by := map[Kind][]Finding{}
	for _, f := range codeFindings(rep) {
		by[f.Kind] = append(by[f.Kind], f)
	}
	return rep, by
}

func TestCodeOracleFindsNothingOnCompiledFixtures(t *testing.T) {
	for _, name := range []string{"deep-v3-O0", "deep-v3-O2", "deep-cet-v3-O0", "deep-cet-v3-O2", "cet-v3", "noreturn-v3-O2", "inline-v3-O2", "tailcall-v3-O2", "clones-v3-O2", "pltgot-v3", "sqlite-v3"} {
		t.Run(name, func(t *testing.T) {
			rep, by := oracleFindings(t, fixture(t, name))
			for _, k := range []Kind{KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState} {
				for i, f := range by[k] {
					if i < 3 {
						t.Errorf("%s: %s", k, f.Message)
					}
				}
			}
			if rep.Summary.Code == nil || rep.Summary.Code.Judged == 0 {
				t.Errorf("nothing judged: %+v", rep.Summary.Code)
			}
		})
	}
}

// GCC's last epilogue pops %rbp and writes no .cfi_restore: the tables
// keep FP=c-16 until the return, which is right (the slot is intact, at or
// above SP). sqlite-v3 had 5,299 code-fp there.
func TestCodeOracleFinalEpiloguePopIsBothPlaces(t *testing.T) {
	_, by := oracleFindings(t, fixture(t, "sqlite-v3"))
	if n := len(by[KindCodeFP]); n > 0 {
		t.Errorf("%d code-fp, first: %s", n, by[KindCodeFP][0].Message)
	}
}

// GCC's cold partitions (foo.cold) start from the state at the hot part's
// jumps, and those jumps are not tail calls.
func TestCodeOracleColdPartitions(t *testing.T) {
	rep, by := oracleFindings(t, fixture(t, "sqlite-v3"))
	for _, k := range []Kind{KindCodeCFA, KindCodeState} {
		if n := len(by[k]); n > 0 {
			t.Errorf("%d %s, first: %s", n, k, by[k][0].Message)
		}
	}
	cold := 0
	for _, f := range by[KindCodeUnknown] {
		if strings.Contains(f.Function, ".cold") {
			cold++
		}
	}
	// sqlite3Pragma.cold is entered through a jump table only.
	if cold > 1 {
		t.Errorf("%d cold parts not followed entirely", cold)
	}
	if rep.Summary.Code.Share < 0.95 {
		t.Errorf("judged share %.3f", rep.Summary.Code.Share)
	}
}

// gcc's DRAP prologue (features-v3 flex_drap) bases the CFA on r10, which
// the code's state does not follow: not judged (code-unknown), not a
// code-cfa.
func TestCodeOracleDRAP(t *testing.T) {
	_, by := oracleFindings(t, fixture(t, "features-v3"))
	for _, k := range []Kind{KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState} {
		for _, f := range by[k] {
			t.Errorf("%s: %s", k, f.Message)
		}
	}
	found := false
	for _, f := range by[KindCodeUnknown] {
		found = found || f.Function == "flex_drap" && strings.Contains(f.Message, "r10")
	}
	if !found {
		t.Errorf("no code-unknown naming r10 in flex_drap: %v", by[KindCodeUnknown])
	}
}

// BenchmarkCheckWithCodeOracle measures sfdbg check with the frames/code
// oracle (FramesCode) on SQLite and on the host's libc.so.6 (CFI only:
// it has no .sframe), reporting the instructions the oracle was asked
// about (CodeSummary.Checked) per wall-second and per CPU-second (issue
// 20: at least 3 M/s), and the bytes allocated per instruction (memory
// linear in the code).
//
// The collector runs at GOGC=400, as sfdbg check sets it (cmd/sfdbg
// check.go) unless GOGC is set.
func BenchmarkCheckWithCodeOracle(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	for _, path := range []string{filepath.Join(fixtures, "sqlite-v3"), "/lib/x86_64-linux-gnu/libc.so.6"} {
		b.Run(filepath.Base(path), func(b *testing.B) {
			if _, err := os.Stat(path); err != nil {
				b.Skipf("no %s: %v", path, err)
			}
			n := 0
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuSeconds()
			for b.Loop() {
				rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Summary.Code == nil || rep.Summary.Code.Judged == 0 {
					b.Fatalf("oracle judged %+v", rep.Summary.Code)
				}
				n += rep.Summary.Code.Checked
			}
			cpu := cpuSeconds() - cpu0
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insts/s")
			if cpu > 0 {
				b.ReportMetric(float64(n)/cpu, "insts/cpu-s")
			}
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(n), "B/inst")
		})
	}
}

// cpuSeconds is the process's user+system CPU time: on a shared, loaded
// machine instructions per CPU-second say more than per wall-second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// A cold part may be named after another alias of its hot part
// (glibc: __pthread_create_2_1.cold of __pthread_create): the hot part's
// jumps into it are not tail calls.
func TestCodeOracleColdPartAliases(t *testing.T) {
	_, by := oracleFindings(t, fixture(t, "sortcrash-v3"))
	for _, f := range by[KindCodeState] {
		if strings.Contains(f.Message, "tail call") {
			t.Errorf("%s: %s", f.Function, f.Message)
		}
	}
}

// glibc's _dl_runtime_resolve_* and _dl_runtime_profile_* are entered
// from PLT0 by a jump with two words pushed (CFI: CFA=rsp+24 at their
// first instruction): not judged from a call's state.
func TestCodeOracleTrampolineEntry(t *testing.T) {
	_, by := oracleFindings(t, fixture(t, "sortcrash-v3"))
	for _, k := range []Kind{KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState} {
		for _, f := range by[k] {
			if strings.HasPrefix(f.Function, "_dl_runtime_") {
				t.Errorf("%s: %s", k, f.Message)
			}
		}
	}
}

// A call to a function none of whose paths returns (glibc's static
// malloc_printerr, not in code.NoReturnNames) ends the path: the code
// after it in _int_malloc is entered only by its own jumps.
func TestCodeOracleDeadEndCallees(t *testing.T) {
	_, by := oracleFindings(t, fixture(t, "sortcrash-v3"))
	for _, k := range []Kind{KindCodeCFA, KindCodeFP, KindCodeState} {
		for _, f := range by[k] {
			if f.Function == "_int_malloc" {
				t.Errorf("%s: %s", k, f.Message)
			}
		}
	}
}
