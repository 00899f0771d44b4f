package debugger

import (
	"fmt"
	"strconv"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
)

// What Catch does at a fatal signal: hold the process, unwind it, let go.

// crash handles ev, a process held with one thread in the delivery stop
// of a crash signal: it stops the other threads, unwinds, calls OnCrash,
// and resumes the process, which delivers the signal.
func (c *catcher) crash(ev proc.TreeEvent) {
	s, tid, sig := ev.Stop, ev.Tid, ev.Signal
	pid := s.Pid()
	cr := &Crash{Pid: pid, Tid: tid, Signal: sig, First: pid == c.first}
	if si, err := s.SigInfo(tid); err == nil {
		cr.Code = si.Code
		switch {
		case si.Code > 0 && si.Code != 0x80 && sig != syscall.SIGTRAP && sig != syscall.SIGABRT:
			cr.Addr, cr.HasAddr = si.Addr(), true
		case si.Code <= 0:
			cr.SenderPid, cr.SenderUID = si.Sender()
		}
	} else {
		logrus.Debugf("catch: siginfo of thread %d: %v", tid, err)
	}
	// Hold every other thread of the process.
	if err := s.Interrupt(); err != nil {
		logrus.Debugf("catch: hold process %d: %v", pid, err)
	}
	defer func() {
		if err := s.Resume(); err != nil {
			logrus.Debugf("catch: resume process %d: %v", pid, err)
		}
	}()
	tids, _ := proc.ListTasks(pid)
	cr.Threads = max(len(tids), 1)
	cr.Thread = 1
	for i, id := range tids {
		if id == tid {
			cr.Thread = i + 1
		}
	}
	cr.Trace, cr.TraceErr = c.trace(s, tid, tids, cr.Thread)
	c.res.Crashes = append(c.res.Crashes, cr)
	if c.opts.OnCrash != nil {
		c.opts.OnCrash(cr)
	}
}

// trace unwinds the crashing thread tid of the held process s or, with
// AllThreads, every thread in tids that is held, in gdb's numbering (num
// is tid's).
func (c *catcher) trace(s *proc.Stop, tid int, tids []int, num int) (*ProcessTrace, error) {
	s.RefreshModules() // the modules of now, after any exec or dlopen
	sp, err := s.Space()
	if err != nil {
		return nil, err
	}
	pid := s.Pid()
	pt := &ProcessTrace{Pid: pid, Name: proc.ProcessName(pid), Methods: c.opts.Trace.Methods, Space: sp, Total: len(tids)}
	one := func(id, n int) {
		tt := ThreadTrace{Tid: id, Num: n, Name: proc.ThreadName(pid, id)}
		regs, err := s.Regs(id)
		if err != nil {
			tt.Err = fmt.Errorf("read registers of thread %d: %w", id, err)
		} else {
			tt.Trace = compare.Unwind(sp, regs, c.opts.Trace)
			tt.Trace.Thread = id
		}
		pt.Threads = append(pt.Threads, tt)
	}
	if !c.opts.AllThreads {
		one(tid, num)
		return pt, nil
	}
	held := map[int]bool{}
	for _, id := range s.Threads() {
		held[id] = true
	}
	for i, id := range tids {
		if held[id] {
			one(id, i+1)
		}
	}
	return pt, nil
}

// fatalFor reports whether sig, about to be delivered to process pid,
// kills it: no handler caught it and it is not ignored (/proc/PID/status
// SigCgt and SigIgn, read at the stop, after the kernel reset a blocked or
// ignored synchronous fault to its default action).
func fatalFor(pid int, sig syscall.Signal) bool {
	st := proc.ProcStatus(pid)
	bit := uint64(1) << (uint(sig) - 1)
	for _, k := range []string{"SigCgt", "SigIgn"} {
		m, err := strconv.ParseUint(st[k], 16, 64)
		if err != nil {
			return k == "SigIgn" // unreadable: assume the default action
		}
		if m&bit != 0 {
			return false
		}
	}
	return true
}
