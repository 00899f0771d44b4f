package debugger

import (
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// What Catch does at a fatal signal: hold the process, unwind it, let go.

// crash holds the process of tid, which is in a signal-delivery stop for
// sig, unwinds it and calls OnCrash; then it lets the held threads go
// (the caller delivers sig).
func (c *catcher) crash(tid int, sig syscall.Signal, si *siginfo) {
	pid := proc.TgidOf(tid)
	cr := &Crash{Pid: pid, Tid: tid, Signal: sig, First: pid == c.first, Code: si.Code}
	switch {
	case si.Code > 0 && si.Code != 0x80 && sig != syscall.SIGTRAP && sig != syscall.SIGABRT:
		cr.Addr, cr.HasAddr = si.addr(), true
	case si.Code <= 0:
		cr.SenderPid, cr.SenderUID = si.sender()
	}
	held := c.hold(pid, tid)
	defer c.release(held)
	tids, _ := proc.ListTasks(pid)
	cr.Threads = max(len(tids), 1)
	cr.Thread = 1
	for i, id := range tids {
		if id == tid {
			cr.Thread = i + 1
		}
	}
	cr.Trace, cr.TraceErr = c.trace(pid, tid, tids, cr.Thread)
	c.res.Crashes = append(c.res.Crashes, cr)
	if c.opts.OnCrash != nil {
		c.opts.OnCrash(cr)
	}
}

// hold stops every other traced thread of process pid with
// PTRACE_INTERRUPT and waits until each is in a stop; it returns the
// threads held.
func (c *catcher) hold(pid, tid int) []*catchThread {
	var held []*catchThread
	for id, t := range c.threads {
		if id == tid || proc.TgidOf(id) != pid {
			continue
		}
		if err := unix.PtraceInterrupt(id); err != nil {
			continue
		}
		held = append(held, t)
	}
	for i := 0; i < len(held); i++ {
		t := held[i]
		deadline := time.Now().Add(holdTimeout)
		for !t.held {
			wake := proc.ChildEvent()
			var ws unix.WaitStatus
			wpid, err := proc.Wait4(t.tid, &ws, unix.WALL|unix.WNOHANG)
			if err != nil {
				break // gone
			}
			if wpid == 0 {
				if !proc.WaitChild(wake, deadline) {
					logrus.Debugf("catch: thread %d of process %d did not stop", t.tid, pid)
					break
				}
				continue
			}
			switch {
			case ws.Exited() || ws.Signaled():
				delete(c.threads, t.tid)
			case !ws.Stopped():
				continue
			case int(ws)>>16 == unix.PTRACE_EVENT_STOP:
				t.groupStop = proc.IsStopSignal(ws.StopSignal())
				t.held = true
			case ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() > 0:
				ev := ws.TrapCause()
				c.ptraceEvent(t.tid, ev)
				t.held = true
				if ev == unix.PTRACE_EVENT_CLONE {
					// The new thread: hold it too.
					if msg, err := unix.PtraceGetEventMsg(t.tid); err == nil {
						if nt := c.threads[int(msg)]; nt != nil {
							unix.PtraceInterrupt(nt.tid)
							held = append(held, nt)
						}
					}
				}
			default:
				// A signal came first: pass it on when resuming; the
				// interrupt's stop comes later and is let go then.
				t.pendingSig = ws.StopSignal()
				t.held = true
			}
			if ws.Exited() || ws.Signaled() {
				break
			}
		}
	}
	out := held[:0]
	for _, t := range held {
		if t.held {
			out = append(out, t)
		}
	}
	return out
}

// release resumes the threads hold stopped.
func (c *catcher) release(held []*catchThread) {
	for _, t := range held {
		t.held = false
		sig := t.pendingSig
		t.pendingSig = 0
		if t.groupStop {
			t.groupStop = false
			proc.Ptrace4(unix.PTRACE_LISTEN, t.tid, 0, 0)
			continue
		}
		proc.Cont(t.tid, sig)
	}
}

// trace unwinds the crashing thread tid of pid (first) or, with
// AllThreads, every thread in tids, in gdb's numbering.
func (c *catcher) trace(pid, tid int, tids []int, num int) (*ProcessTrace, error) {
	mem := proc.NewProcMemory(pid)
	mods, err := loadModules(pid, mem)
	if err != nil {
		return nil, err
	}
	// tid is stopped at its fatal signal: its regsets are readable here,
	// on the thread that traces it.
	sp := &frames.Space{Mem: mem, Modules: mods, PACMask: proc.PACMask(tid)}
	pt := &ProcessTrace{Pid: pid, Name: proc.ProcessName(pid), Methods: c.opts.Trace.Methods, Space: sp, Total: len(tids)}
	one := func(id, n int) {
		tt := ThreadTrace{Tid: id, Num: n, Name: proc.ThreadName(pid, id)}
		regs, err := proc.ThreadRegs(id)
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
	for i, id := range tids {
		if t := c.threads[id]; id == tid || t != nil && t.held {
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
