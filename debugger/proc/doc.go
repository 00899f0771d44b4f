// Package proc is sfdbg's tracer: the one ptrace layer under package
// debugger. It imports frames (for frames.Regs, frames.Memory,
// frames.Space) and nothing above it; the commands, the REPL and the
// rendering stay in debugger, and "bt", "sample", "attach", "run" and
// "catch" are its clients, each with its own policy.
//
// It holds:
//   - seize and launch (Seize, Launch, StartTraced): PTRACE_SEIZE per
//     thread of /proc/PID/task, PTRACE_INTERRUPT, every new thread traced
//     from its birth, an exec reported;
//   - the event loop (events_linux.go, Stop.Wait): exits reaped, clones,
//     execs, group stops and signals handled as wait4 reports them. It
//     blocks between events on the kernel's SIGCHLD (chld_linux.go); it
//     never sleeps to poll. All ptrace requests come from one locked OS
//     thread (tracer);
//   - threads, software breakpoints (per host: int3, brk #0, s390x's
//     0x0001), hardware watchpoints (x86-64's debug registers), registers
//     (per host: regs_amd64.go, regs_arm64.go, regs_s390x.go; any regset
//     with Stop.RegSet) and memory (ProcMemory: process_vm_readv through a
//     page cache, in the host's byte order);
//   - the one signal table (signals.go: gdb's names, and which signals
//     stop a traced program);
//   - /proc readers and the sentences of attach errors (errors.go).
package proc
