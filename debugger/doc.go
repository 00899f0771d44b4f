// Package debugger stops live processes and drives sfdbg's gdb-style
// debugger. It has two ways into a process, feeding the same frames
// interfaces (frames.Regs, frames.Memory, frames.Space):
//
//   - The lean stop/read/resume path (Seize, Stop): PTRACE_SEIZE and
//     PTRACE_INTERRUPT per thread of /proc/PID/task, registers with
//     PTRACE_GETREGS, stack memory with process_vm_readv through a page
//     cache (ProcMemory), resume or detach, all ptrace requests from one
//     locked OS thread. It serves the one-shot "sfdbg bt" and sampling,
//     where Delve's full attach (100 ms and more on a large binary) would
//     dominate.
//   - The interactive debugger (DelveTarget via Attach and Launch): Delve's
//     native backend (pkg/proc/native, pkg/proc) for threads, registers,
//     breakpoints, continue, stepi and detach.
//
// A Session runs debugger commands against a Target (a DelveTarget, or a
// Snapshot for tests) through one command table, from which help,
// completion and the README's Markdown list (CommandsMarkdown) are
// generated; the REPL, batch mode (-batch -ex/-x) and tests all go through
// Session.Execute, and all output goes through a UI (TermUI on a terminal
// with liner, ScriptUI in tests). Backtrace computes a thread's backtrace
// with one method or with all three compared (the adapter to package
// frames); CompareProcess runs compare.Stack on every thread of a Stop.
//
// Safety: a Session always ends by removing its breakpoints and detaching
// (or killing a process it started): on quit, detach, end of a batch, end
// of input, SIGINT/SIGTERM/SIGHUP (HandleSignals) and panics (Recover). A
// Stop is released by Detach, and by the kernel if sfdbg dies, since a
// seized process is resumed when its tracer thread exits.
package debugger
