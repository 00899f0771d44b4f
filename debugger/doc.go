// Package debugger drives sfdbg's gdb-style debugger and its live
// commands. The tracer, everything that controls a process with ptrace,
// is package debugger/proc; this package is its client, with a policy per
// command. It feeds package frames its inputs (frames.Regs, frames.Memory,
// frames.Space) and renders compare's one model (compare.Unwind →
// compare.Trace); it does not unwind or judge frames itself. There are two
// ways into a process, both on proc.Stop:
//
//   - The lean stop/read/resume path: the one-shot "sfdbg bt" and "demo"
//     (TraceProcess) and sampling.
//   - The interactive debugger: on a process sfdbg attached to (Attach)
//     and on a program it starts (Launch), the same Stop with breakpoints,
//     hardware watchpoints and a stop at fatal signals (liveTarget).
//
// and one way to run a program: Catch ("sfdbg catch"), on a proc.Tree (the
// program and, with --follow-fork, the processes it forks, each a Stop on
// the same event loop) with its own policy: every signal is passed on, and
// a fatal one holds the process until its backtrace is printed.
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
