package proc

import (
	"runtime"
	"sync/atomic"
	"time"
)

// tracer runs functions on one locked OS thread. Linux ties a ptrace
// relationship to the thread that attached: every ptrace request and every
// wait4 for a tracee must come from that thread (Delve pkg/proc/native
// execPtraceFunc does the same). When the tracer's goroutine returns, its
// thread exits with it (it is never unlocked), and the kernel detaches any
// tracee still attached and resumes it.
type tracer struct {
	reqs chan func()
	done chan struct{}
	// direct is set while Run's function runs on the tracer thread: its
	// ptrace requests run in place instead of being handed over.
	direct bool
	// idle, if set, runs on the tracer thread before it blocks and again
	// at every SIGCHLD (childWake): a Stop whose process runs handles its
	// threads' events this way. It returns how many events it handled
	// (then it runs again at once: a thread born in them reports its own
	// first stop), or -1 if it could not look (its Stop was busy: it runs
	// again after idleRetry).
	idle atomic.Pointer[func() int]
}

// idleRetry is how soon an idle function that could not look runs again.
const idleRetry = time.Millisecond

func newTracer() *tracer {
	t := &tracer{reqs: make(chan func()), done: make(chan struct{})}
	go t.loop()
	return t
}

func (t *tracer) loop() {
	runtime.LockOSThread()
	// No UnlockOSThread: the thread dies with the goroutine.
	defer close(t.done)
	for {
		idle := t.idle.Load()
		if idle == nil {
			f, ok := <-t.reqs
			if !ok {
				return
			}
			f()
			continue
		}
		// The channel is taken before idle looks, so that a SIGCHLD
		// after its look wakes the select.
		wake := childEvent()
		var retry <-chan time.Time
		switch n := (*idle)(); {
		case n > 0:
			continue
		case n < 0:
			retry = time.After(idleRetry)
		}
		select {
		case f, ok := <-t.reqs:
			if !ok {
				return
			}
			f()
		case <-wake:
		case <-retry:
		}
	}
}

// setIdle sets (or, with nil, clears) the function an idle tracer runs.
func (t *tracer) setIdle(f func() int) {
	if f == nil {
		t.idle.Store(nil)
		return
	}
	t.idle.Store(&f)
}

// do runs f on the tracer thread and waits for it to return.
func (t *tracer) do(f func()) {
	if t.direct {
		f()
		return
	}
	ch := make(chan struct{})
	t.reqs <- func() {
		defer close(ch)
		f()
	}
	<-ch
}

// run runs f on the tracer thread, with every do inside it running in
// place (no hand-over between threads per request). f must be the only
// user of the tracer while it runs. A panic in f is raised again in the
// caller's goroutine, whose deferred clean-up (detach) then runs.
func (t *tracer) run(f func()) {
	var p any
	t.do(func() {
		t.direct = true
		defer func() {
			t.direct = false
			p = recover()
		}()
		f()
	})
	if p != nil {
		panic(p)
	}
}

// close ends the tracer thread and waits for it to end. It must not be
// used afterwards.
func (t *tracer) close() {
	close(t.reqs)
	<-t.done
}

// release ends the tracer thread without waiting for the thread to exit
// (the exit of a thread locked to its goroutine took 4 ms of a one-shot
// bt's 28 under load): for a tracer that traces nothing any more.
func (t *tracer) release() { close(t.reqs) }
