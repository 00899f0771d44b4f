package debugger

import (
	"runtime"
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
}

func newTracer() *tracer {
	t := &tracer{reqs: make(chan func()), done: make(chan struct{})}
	go t.loop()
	return t
}

func (t *tracer) loop() {
	runtime.LockOSThread()
	// No UnlockOSThread: the thread dies with the goroutine.
	defer close(t.done)
	for f := range t.reqs {
		f()
	}
}

// do runs f on the tracer thread and waits for it to return.
func (t *tracer) do(f func()) {
	ch := make(chan struct{})
	t.reqs <- func() {
		defer close(ch)
		f()
	}
	<-ch
}

// close ends the tracer thread. It must not be used afterwards.
func (t *tracer) close() {
	close(t.reqs)
	<-t.done
}
