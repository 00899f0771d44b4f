// Package debugger stops live processes and drives sfdbg's gdb-style
// debugger. It owns everything that controls a process: ptrace, Delve's
// native backend, reading a live process's memory, signals, and the REPL.
// It feeds package frames its inputs (frames.Regs, frames.Memory,
// frames.Space) and renders compare's one model (compare.Unwind →
// compare.Trace); it does not unwind or judge frames itself. There are two
// ways into a process:
//
//   - The lean stop/read/resume path (Seize, Stop): PTRACE_SEIZE and
//     PTRACE_INTERRUPT per thread of /proc/PID/task, registers with
//     PTRACE_GETREGS, stack memory with process_vm_readv through a page
//     cache (ProcMemory), resume or detach, all ptrace requests from one
//     locked OS thread. It serves the one-shot "sfdbg bt" and "demo"
//     (TraceProcess) and sampling, where Delve's full attach (100 ms and
//     more on a large binary) would dominate. New threads are traced from
//     birth, exits reaped and an exec reported (Stop.Execs).
//   - The interactive debugger: on a process sfdbg attached to (Attach)
//     and on a program it starts (Launch), the same Stop with int3
//     breakpoints, hardware watchpoints and a stop at fatal signals
//     (liveTarget, which says why Delve's attach is not used; Launch says
//     why its launch is not).
//
// and one way to run a program: Catch ("sfdbg catch"), its own ptrace loop
// on golang.org/x/sys/unix (PTRACE_SEIZE, wait4 with __WALL,
// PTRACE_GETSIGINFO) that passes every signal on and holds the process on
// a fatal one until it has printed the backtrace.
//
// A Session runs debugger commands against a Target through one command
// table, from which help, completion and the README's Markdown list
// (CommandsMarkdown) are generated; the REPL, batch mode (-batch -ex/-x)
// and tests all go through Session.Execute, and all output goes through a
// UI (TermUI on a terminal with liner). The tests replay recorded stopped
// processes (testdata/snap) through the same Session.
//
// Safety: a Session always ends by removing its breakpoints and detaching
// (or killing a process it started): on quit, detach, end of a batch, end
// of input, SIGINT/SIGTERM/SIGHUP (Session.HandleSignals) and panics
// (Session.Recover). A Stop is released by Detach, and by the kernel if
// sfdbg dies, since a seized process is resumed when its tracer thread
// exits.
//
// Imports: sframe, frames and compare, Delve and the system; never package
// main (cmd/sfdbg), which is the only importer of this package. The layers
// are sframe ← frames ← compare ← debugger ← cmd/sfdbg.
package debugger
