package proc

import (
	"os"
	"os/signal"
	"sync"

	"golang.org/x/sys/unix"
)

// The kernel sends the tracer a SIGCHLD for every event wait4 reports of a
// tracee: a ptrace stop (do_notify_parent_cldstop), an exit
// (do_notify_parent), a group stop or continue. sfdbg's event loops block
// until the next one instead of polling: they take childWake's channel,
// collect what wait4 has with WNOHANG, and, when nothing they wait for has
// happened, block on the channel (and their deadline). A SIGCHLD that
// comes between the collection and the block closes the channel taken
// before it, so no event is missed. SIGCHLDs of sfdbg's other children
// only cost one more collection.

// childSignals broadcasts SIGCHLD: next's channel is closed at the first
// SIGCHLD after next returned it.
type childSignals struct {
	mu sync.Mutex
	ch chan struct{}
}

// childWake is the process's one childSignals, started at first use.
var childWake = sync.OnceValue(func() *childSignals {
	c := &childSignals{ch: make(chan struct{})}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGCHLD)
	go func() {
		for range sig {
			c.mu.Lock()
			close(c.ch)
			c.ch = make(chan struct{})
			c.mu.Unlock()
		}
	}()
	return c
})

// next returns a channel closed at the next SIGCHLD.
func (c *childSignals) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ch
}

// childEvent returns a channel closed at the next SIGCHLD: take it before
// a wait4 with WNOHANG that finds nothing, then waitChild.
func childEvent() <-chan struct{} { return childWake().next() }
