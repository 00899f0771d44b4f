package debugger

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// BenchmarkVerifyAgainstRawSingleStep measures verify's speed against the
// raw single-step rate on the same process in the same run (issue 32: at
// least half of it): rounds of steps of the verify-faults fixture (a loop
// of calls), each round once with the bare PTRACE_SINGLESTEP, wait4 and
// PTRACE_GETREGS loop on the tracer thread and once through Verify
// (StepAll and the Verifier judging SFrame, CFI, the code and FP at every
// instruction), interleaved so that the machine's load falls on both.
// Metrics: raw-steps/s, verify-steps/s and their ratio.
func BenchmarkVerifyAgainstRawSingleStep(b *testing.B) {
	const round = 5000
	cmd := startFixture(b, "verify-faults-v3")
	pid := cmd.Process.Pid
	st, err := proc.Seize(pid)
	skipIfNoPtrace(b, err)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Detach()
	var raw, ver time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		st.Run(func() {
			var regs unix.PtraceRegs
			var ws unix.WaitStatus
			for j := 0; j < round && err == nil; j++ {
				if err = unix.PtraceSingleStep(pid); err == nil {
					if _, err = unix.Wait4(pid, &ws, unix.WALL, nil); err == nil {
						err = unix.PtraceGetRegs(pid, &regs)
					}
				}
			}
		})
		raw += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		res, err := Verify(st, VerifyOptions{MaxInstructions: round})
		ver += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if res.Report.Verified == 0 {
			b.Fatal("verify verified nothing")
		}
	}
	n := float64(b.N * round)
	rawRate, verRate := n/raw.Seconds(), n/ver.Seconds()
	b.ReportMetric(rawRate, "raw-steps/s")
	b.ReportMetric(verRate, "verify-steps/s")
	b.ReportMetric(verRate/rawRate, "ratio")
}
