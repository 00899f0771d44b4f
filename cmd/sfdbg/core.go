package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames/corefile"
)

func init() {
	c := &command{
		name:    "core",
		usage:   "core [--sysroot DIR] [--method " + compare.MethodNames("|") + "|all] [--json] [--max-depth N] [-batch] [-ex CMD]... [-x FILE] CORE [PROG] | PROG CORE",
		summary: "print every thread's backtrace from a core file (x86-64, AArch64, s390x, 32-bit ARM), compared as sfdbg bt does",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		sysroot := fs.String("sysroot", "", "find the mapped files under `DIR` (as gdb's set sysroot)")
		tf := addTraceFlags(fs)
		sf := addCoreSessionFlags(fs)
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		corePath, prog, err := coreOperands(pos)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
			return exitError
		}
		copts, err := tf.options()
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
			return exitError
		}
		opts := corefile.Options{Sysroot: *sysroot}
		opts.Exe = prog
		if sf.batch || len(sf.ex) > 0 || sf.script != "" {
			return coreSession(corePath, opts, sf, stdout, stderr)
		}
		debug.SetGCPercent(800)
		pt, closeCore, err := traceCore(corePath, opts, copts)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
			return exitError
		}
		defer closeCore()
		return tf.print(pt, "core", stdout, stderr)
	}
	register(c)
}

// traceCore opens a core file and unwinds each of its threads with the
// engine of sfdbg bt. The returned function closes the core and its files.
func traceCore(path string, opts corefile.Options, copts compare.Options) (*debugger.ProcessTrace, func(), error) {
	c, err := corefile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	sp, err := c.Space(opts)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	pt := &debugger.ProcessTrace{Pid: c.Pid, Name: c.Name, Methods: copts.Methods, Space: sp, Terminated: termination(c)}
	for _, t := range c.Threads {
		tr := compare.Unwind(sp, t.Regs, copts)
		tr.Thread = t.Tid
		pt.Threads = append(pt.Threads, debugger.ThreadTrace{Tid: t.Tid, Name: c.Name, Trace: tr})
	}
	return pt, func() { sp.Modules.Close(); c.Close() }, nil
}

// termination says what killed the process of core c: NT_SIGINFO's
// signal, si_code and fault address, else the dumping thread's pr_cursig;
// nil when neither names a signal.
func termination(c *corefile.Core) *compare.Termination {
	sig, src := 0, "pr_cursig"
	if len(c.Threads) > 0 {
		sig = c.Threads[0].Signal
	}
	if c.Siginfo != nil {
		sig, src = c.Siginfo.Signo, "NT_SIGINFO"
	}
	if sig == 0 {
		return nil
	}
	t := &compare.Termination{Signal: sig, Source: src}
	switch syscall.Signal(sig) {
	case syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
		t.Snapshot = true
	}
	t.Name, t.Description = proc.SignalName(sig)
	if si := c.Siginfo; si != nil {
		code := si.Code
		t.Code = &code
		t.CodeName, t.CodeMeaning = si.CodeName()
		if si.HasAddr {
			addr := si.Addr
			t.Addr = &addr
		}
		t.SenderPid = si.Pid
	}
	return t
}

// addCoreSessionFlags adds the session flags of attach and run to core:
// with any of them, core opens a debugger session on the core instead of
// printing every thread's trace.
func addCoreSessionFlags(fs *flag.FlagSet) *sessionFlags {
	f := &sessionFlags{}
	fs.BoolVar(&f.batch, "batch", false, "run the -ex commands, then the -x file, on the core, then exit; exit status 2 if a command failed")
	fs.Var(&f.ex, "ex", "execute debugger command `CMD` on the core (repeatable, in order): the read-only commands of attach (bt, frame, print, info locals, info registers, x, ...)")
	fs.StringVar(&f.script, "x", "", "execute the debugger commands in `FILE` on the core, after the -ex commands")
	return f
}

// coreSession opens a debugger session on a core file: gdb's "gdb PROG
// CORE", with the REPL's read-only commands; running is refused.
func coreSession(corePath string, opts corefile.Options, sf *sessionFlags, stdout, stderr io.Writer) int {
	c, err := corefile.Open(corePath)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
		return exitError
	}
	defer c.Close()
	sp, err := c.Space(opts)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
		return exitError
	}
	defer sp.Modules.Close()
	t := debugger.NewCoreTarget(c, sp)
	return runSession(t, sf, func(s *debugger.Session) {
		var b strings.Builder
		if term := termination(c); term != nil {
			term.WriteText(&b)
		}
		s.IntroNote = strings.TrimSuffix(b.String(), "\n")
		s.Intro(fmt.Sprintf("Core of process %d", c.Pid))
	}, stdout, stderr)
}
