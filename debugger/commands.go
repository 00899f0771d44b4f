package debugger

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
)

// command is one entry of the command table, after Delve's
// pkg/terminal/command.go: the first alias is the canonical name, the first
// line of help is the summary. Completion, help and the README command list
// (Markdown) are all generated from the table.
type command struct {
	aliases []string
	args    string // argument synopsis, e.g. "[N] [sframe|cfi|fp|all]"
	help    string
	// needsTarget: the command needs a live (or snapshot) target.
	needsTarget bool
	// sub holds subcommands ("info frame"); run is then optional.
	sub []*command
	// complete returns completions of the argument word being typed.
	complete func(s *Session, word string) []string
	// repeat is set for the commands an empty line at the prompt repeats,
	// as in gdb: it returns the arguments of the repeated command, given
	// those of the last one (sameArgs, or "x" continuing where it stopped).
	// nil: an empty line does nothing after this command.
	repeat func(args string) string
	run    func(s *Session, args string) error
}

func (c *command) name() string { return c.aliases[0] }

func (c *command) summary() string {
	s, _, _ := strings.Cut(c.help, "\n")
	return s
}

type commandTable struct {
	cmds []*command
}

// lookup finds the command of a line: an exact alias, else the one command
// whose canonical name starts with the word (gdb's unique prefixes). "x/4xg
// ADDR" is the command "x" with the arguments "/4xg ADDR", "p*r" "p" with
// "*r". Subcommands are
// looked up the same way in the next word.
func (t *commandTable) lookup(line string) (*command, string, error) {
	word, args := splitWord(line)
	// As gdb's find_command_name_length: the name ends at the first
	// character a command name does not hold ("p*r@2", "x/4xg").
	if i := strings.IndexFunc(word, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '$')
	}); i > 0 {
		word, args = word[:i], strings.TrimSpace(word[i:]+" "+args)
	}
	c, err := findCommand(t.cmds, word, "")
	if err != nil {
		return nil, "", err
	}
	for c.sub != nil {
		subw, rest := splitWord(args)
		if subw == "" {
			if c.run != nil {
				return c, args, nil
			}
			return nil, "", fmt.Errorf("%q must be followed by the name of a subcommand (\"help %s\" lists them).", c.name(), c.name())
		}
		sc, err := findCommand(c.sub, subw, c.name()+" ")
		if err != nil {
			return nil, "", err
		}
		c, args = sc, rest
	}
	return c, args, nil
}

// lookupHelp finds the command "help WORDS" describes: a command, or a
// subcommand ("help info frame"); a command with subcommands needs none.
func (t *commandTable) lookupHelp(words string) (*command, error) {
	w, rest := splitWord(words)
	if i := strings.IndexByte(w, '/'); i > 0 {
		w = w[:i]
	}
	c, err := findCommand(t.cmds, w, "")
	if err != nil {
		return nil, err
	}
	for c.sub != nil && rest != "" {
		w, rest = splitWord(rest)
		if c, err = findCommand(c.sub, w, c.name()+" "); err != nil {
			return nil, err
		}
	}
	if rest != "" {
		return nil, fmt.Errorf("%q has no subcommand %q.", c.name(), rest)
	}
	return c, nil
}

func findCommand(cmds []*command, word, prefix string) (*command, error) {
	for _, c := range cmds {
		if slices.Contains(c.aliases, word) {
			return c, nil
		}
	}
	var cands []*command
	for _, c := range cmds {
		if strings.HasPrefix(c.name(), word) {
			cands = append(cands, c)
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return nil, fmt.Errorf("Undefined command: \"%s%s\".  Try \"help\".", prefix, word)
	}
	var names []string
	for _, c := range cands {
		names = append(names, prefix+c.name())
	}
	return nil, fmt.Errorf("Ambiguous command \"%s%s\": %s.", prefix, word, strings.Join(names, ", "))
}

func splitWord(s string) (string, string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// complete returns the completions of a whole line: command names, then
// subcommand names, then what the command completes (function names for
// break, methods for bt).
func (s *Session) complete(line string) []string {
	words := strings.Fields(line)
	trailingSpace := strings.HasSuffix(line, " ")
	if len(words) == 0 || (len(words) == 1 && !trailingSpace) {
		prefix := ""
		if len(words) == 1 {
			prefix = words[0]
		}
		var out []string
		for _, c := range s.cmds.cmds {
			if strings.HasPrefix(c.name(), prefix) {
				out = append(out, c.name()+" ")
			}
		}
		return out
	}
	c, err := findCommand(s.cmds.cmds, words[0], "")
	if err != nil {
		return nil
	}
	head := words[0] + " "
	rest := words[1:]
	for c.sub != nil {
		if len(rest) == 0 || (len(rest) == 1 && !trailingSpace) {
			p := ""
			if len(rest) == 1 {
				p = rest[0]
			}
			var out []string
			for _, sc := range c.sub {
				if strings.HasPrefix(sc.name(), p) {
					out = append(out, head+sc.name()+" ")
				}
			}
			return out
		}
		sc, err := findCommand(c.sub, rest[0], "")
		if err != nil {
			return nil
		}
		head += rest[0] + " "
		c, rest = sc, rest[1:]
	}
	if c.complete == nil {
		return nil
	}
	word := ""
	if len(rest) > 0 && !trailingSpace {
		word = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
	}
	if len(rest) > 0 {
		head += strings.Join(rest, " ") + " "
	}
	var out []string
	for _, w := range c.complete(s, word) {
		out = append(out, head+w+" ")
	}
	return out
}

func completeWords(words ...string) func(*Session, string) []string {
	return func(_ *Session, w string) []string {
		var out []string
		for _, x := range words {
			if strings.HasPrefix(x, w) {
				out = append(out, x)
			}
		}
		return out
	}
}

// newCommandTable returns the debugger's commands. Names and short forms
// are gdb's.
func newCommandTable() *commandTable {
	t := &commandTable{}
	setSettings, showSettings := settingCommands()
	t.cmds = []*command{
		{aliases: []string{"backtrace", "bt", "where"}, args: "[full] [N|-N] [" + compare.MethodNames("|") + "|all|compare]", needsTarget: true,
			help: `Print the backtrace of the selected thread.
N prints the innermost N frames, -N the outermost N; the words may come in
any order. The method says how the stack is unwound: sframe (the .sframe
sections only), cfi (DWARF CFI, .eh_frame and .debug_frame), fp (the
frame-pointer chain) or all (the default; compare is the same): the trace
follows DWARF CFI, the reference gdb uses, where it can, else SFrame, else
frame pointers, and at every frame all three methods compute the caller
from the same registers. Columns of "all": FOUND is the method whose
answer found the frame; SFRAME is SFrame's verdict for the step from the
frame to its caller (agree, DISAGREE with a finding below, not covered,
end: both say outermost); FP is the same check for the frame-pointer
chain (ok, differs). It prints what "sfdbg bt" prints for the thread: one
engine. "frame", "up" and "down" then select in the list it printed.
A trace stops at the backtrace limit (256 frames; "set backtrace limit").
Frame lines show the arguments as gdb does (r=0x..., n=n@entry=5,
<optimized out>); "bt full" adds each frame's locals.`,
			complete: completeWords("sframe", "cfi", "fp", "all", "compare"),
			run:      cmdBacktraceNotes},
		{aliases: []string{"frame", "f"}, args: "[N]", needsTarget: true,
			help: `Select and print frame N, or print the selected frame.
N is a level of the backtrace "bt" printed last (else of the default one).`,
			run: cmdFrame},
		{aliases: []string{"up"}, args: "[N]", needsTarget: true,
			help:   "Select the frame N levels up, towards main (default 1).",
			repeat: sameArgs,
			run:    func(s *Session, a string) error { return cmdUpDown(s, a, 1) }},
		{aliases: []string{"down", "do"}, args: "[N]", needsTarget: true,
			help:   "Select the frame N levels down, towards frame 0 (default 1).",
			repeat: sameArgs,
			run:    func(s *Session, a string) error { return cmdUpDown(s, a, -1) }},
		{aliases: []string{"info", "i"},
			help: "Show things about the program; \"help info\" lists them.",
			sub: []*command{
				{aliases: []string{"frame", "f"}, args: "[N]", needsTarget: true,
					help: `Describe the selected frame: CFA, saved RA and FP, raw rules.
Shows where the frame's return address and saved frame pointer are, and
the rules each method used to find its caller: the SFrame FDE and FRE,
the DWARF CFI row, the frame-pointer record, with the caller each found.`,
					run: cmdInfoFrame},
				{aliases: []string{"sframe", "sf"}, args: "[PC]", needsTarget: true,
					help: `Decode the SFrame FDE and FREs at PC (=> the FRE in effect).
PC defaults to the selected frame's lookup PC (PC-1 for a return
address). PC may be a number, a function name or $pc, $sp, ...`,
					complete: completeFunctions,
					run:      cmdInfoSFrame},
				{aliases: []string{"registers", "r", "reg"}, args: "[REG...]", needsTarget: true,
					help: `Print the selected frame's registers, or REG... in order.
Frame 0: all of them; outer frames: those the unwind recovered.
With REG..., those registers in that order (rip or pc, rsp or sp, rbp or
fp, rax, eflags, ...); an unknown name is an error, as in gdb. A register
the unwind did not recover in an outer frame is <not saved>. "info
registers all" is "info all-registers".`,
					run: cmdInfoRegisters},
				{aliases: []string{"all-registers"}, needsTarget: true,
					help: `Print every register: general, x87, SSE and AVX, as gdb does.
The general registers as "info registers"; then st0-st7, fctrl ... fop,
mxcsr, then k0-k7 and zmm0-31 (AVX-512), ymm0-15 (AVX) or xmm0-15, from
the thread's XSAVE area (PTRACE_GETREGSET); a snapshot has none of them.`,
					run: cmdInfoAllRegisters},
				{aliases: []string{"threads", "thr"}, needsTarget: true,
					help: "List the threads and their innermost frames; * is selected.",
					run:  cmdInfoThreads},
				{aliases: []string{"proc"}, args: "[mappings]", needsTarget: true,
					help: `Show the process's command line, cwd and executable.
"info proc mappings" lists its memory mappings (/proc/PID/maps) as gdb
prints them.`,
					run: cmdInfoProc},
				{aliases: []string{"inferiors", "inf"},
					help: "List the program being debugged (sfdbg debugs one at a time).",
					run:  cmdInfoInferiors},
				{aliases: []string{"sharedlibrary", "shared", "dll"}, needsTarget: true,
					help: `List the modules: addresses, load bias, SFrame section, path.
Modules are the executable, the shared libraries and the vDSO.`,
					run: cmdInfoShared},
				{aliases: []string{"signals", "sig", "handle"}, args: "[SIG]",
					help: `Show how signals are handled: stop, print, pass, as gdb does.
sfdbg passes signals to the program at once, without stopping or
printing, except SIGTRAP (its breakpoints and steps) and a fatal signal
(SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS): the program stops
there, as in gdb, and continue, stepi or detach deliver it; the program
then ends as it would have ("Program terminated with signal ...").`,
					run: cmdInfoSignals},
				{aliases: []string{"line"}, args: "[LOCATION]", needsTarget: true,
					help: `Show the addresses of a source line, as gdb does.
"Line 62 of "deep.c" starts at address ... and ends at ...": LOCATION is
FILE:LINE, LINE, FUNCTION or *ADDR; without it, the selected frame's line.
Through the module's DWARF line table.`,
					run: cmdInfoLine},
				{aliases: []string{"source"}, needsTarget: true,
					help: `Describe the source file of the selected frame, as gdb does.
Its name and compilation directory, where it was found and how many lines
it has, its language, producer and DWARF version, from its compilation
unit's DWARF.`,
					run: cmdInfoSource},
				{aliases: []string{"symbol", "sym"}, args: "ADDR", needsTarget: true,
					help: `Show the symbol and section holding ADDR, as gdb does.
"spin_here + 19 in section .text of /path/prog"; function and data
symbols. ADDR is an expression, as print takes it.`,
					run: cmdInfoSymbol},
				{aliases: []string{"breakpoints", "b", "break"},
					help: "List the breakpoints and watchpoints.",
					run:  cmdInfoBreakpoints},
				{aliases: []string{"watchpoints"},
					help: "List the watchpoints.",
					run:  cmdInfoWatchpoints},
				{aliases: []string{"display"},
					help: "List the expressions display prints after every stop.",
					run:  cmdInfoDisplay},
				localsCommands[0], localsCommands[1],
			}},
		{aliases: []string{"thread", "t"}, args: "[N] | apply all|LIST CMD", needsTarget: true,
			help: `Select thread N, or run a command in threads (thread apply).
Thread N is selected and its frame printed.
N is the thread's number in "info threads"; without N the selected thread
is printed. "thread apply all CMD" runs CMD in every thread, e.g.
"thread apply all bt"; "thread apply 2 4-5 CMD" in threads 2, 4 and 5.`,
			run: cmdThread},
		{aliases: []string{"print", "p", "inspect"}, args: "[/F] EXPR",
			help: `Print an expression's value in the selected frame, as $N.
EXPR has numbers (0x1f, 017, 31), registers ($pc, $sp, $fp, $cfa, $rax,
...), the values printed before ($, $$, $N), function names (their
address), data symbols (their value, read with the symbol's size: 1, 2, 4
or 8 bytes), &sym (its address), *EXPR (the 64-bit word at EXPR, gdb's
*(long *)EXPR), unary -, + - * / and parentheses. Pointer arithmetic is in
bytes. Without DWARF types, an integer prints in decimal, $sp as
(void *) 0x..., $pc and functions with their symbol. /F prints in format
F: x hex, d signed, u unsigned, o octal, t binary, a address, c char.
C variables (the selected frame's locals and arguments, globals) print
as gdb prints them, from DWARF: VAR, *VAR, &VAR, VAR.F, VAR->F, VAR[N];
in arithmetic, a scalar's value or an array's address.`,
			complete: completeFunctions,
			repeat:   sameArgs,
			run:      cmdPrint},
		localsCommands[2], localsCommands[3],
		{aliases: []string{"x"}, args: "/NFU ADDR", needsTarget: true,
			help: `Examine memory at ADDR: N units of size U in format F.
N units (default 1) of size U (b 1, h 2, w 4, g 8 bytes; default w) in
format F (x hex, d signed, u unsigned, a address with its symbol,
i instructions as disassemble prints them, s NUL-terminated strings;
default x) at ADDR. ADDR is
an expression, as print takes it: $sp+16, &spin_count, *($sp+8),
spin_here+4; its value is the address (a data symbol's value, so write
&var). Format and size are remembered. Without ADDR, x continues after
the last unit shown, as an empty line does.`,
			repeat: xRepeat,
			run:    cmdExamine},
		{aliases: []string{"disassemble", "disas"}, args: "[FUNC|ADDR|START,END|START,+LEN]", needsTarget: true,
			help: `Disassemble a function or an address range; => marks the PC.
Without an argument, the function of the selected frame; with FUNC or an
ADDR expression, the function holding it; START,END or START,+LEN, that
range. GNU (AT&T) syntax, as gdb prints it: branch targets and
RIP-relative operands are followed by their symbol, <func+off>.`,
			complete: completeFunctions,
			run:      cmdDisassemble},
		{aliases: []string{"list", "l"}, args: "[LINE|FILE:LINE|FUNCTION|*ADDR|FIRST,LAST|-]", needsTarget: true,
			help: `List source lines, ten at a time.
Without an argument: around the selected frame's line, then the ten after
the last listed (an empty line does the same); "list -" the ten before.
LINE is in the file listed last; FUNCTION lists around its first line.
Source files are found through the line table: a path relative to the
compilation directory is looked up in the "directory" directories, the
current directory and the directory of the program and its parents.`,
			complete: completeFunctions,
			repeat:   func(string) string { return "" },
			run:      cmdList},
		{aliases: []string{"directory", "dir"}, args: "[DIR...]",
			help: "Search DIR for source files too; without DIR, forget them.",
			run:  cmdDirectory},
		{aliases: []string{"break", "b", "br"}, args: "[FUNCTION | FILE:LINE | LINE | *ADDR]", needsTarget: true,
			help: `Set a breakpoint at a function, a line or an address.
As gdb, "break FUNCTION" stops past the function's prologue (x86-64:
past "push %rbp; mov %rsp,%rbp", then at the start of the next line);
"break *FUNCTION" stops at its first instruction, where SFrame's rules
are most often wrong, as is the prologue. FUNCTION is also found in the copies GCC
makes of it (weigh.isra.0, scale.constprop.0, check.part.0): one
breakpoint with a location in each, as gdb resolves the name. "break FILE:LINE" (deep.c:62) stops at the
line's first instruction in every function with code for it (a line
without code: the next one that has some); LINE is in the default file
(the one listed last, else the selected frame's). "break *ADDR" stops at
ADDR, an expression as print takes it.`,
			complete: completeFunctions,
			run:      cmdBreak},
		{aliases: []string{"tbreak", "tb"}, args: "[FUNCTION | FILE:LINE | LINE | *ADDR]", needsTarget: true,
			help:     `Set a temporary breakpoint: as break, deleted when it is hit.`,
			complete: completeFunctions,
			run:      cmdTbreak},
		{aliases: []string{"watch"}, args: "VAR | *ADDR | *(TYPE *)ADDR", needsTarget: true,
			help: `Stop when the program writes a new value to VAR or ADDR.
A hardware watchpoint (a debug register, DR0-DR3), set by sfdbg in
every thread, those created later too. VAR is a variable or a part of
one (p.x, r->key, a[2]) in memory: a local's watch ends when its frame
returns, as gdb's ("Watchpoint N deleted because the program has left
the block..."); *ADDR
watches the int at ADDR, *(TYPE *)ADDR the TYPE (int, long, uint64_t,
...). 1, 2, 4 or 8 bytes at an address that is a multiple of the size.
As in gdb, a stop prints "Hardware watchpoint N: EXPR" with "Old value"
and "New value"; a write of the same value does not stop.`,
			run: cmdWatch},
		{aliases: []string{"rwatch"}, args: "VAR | *ADDR | *(TYPE *)ADDR", needsTarget: true,
			help: `Stop when the program reads VAR or ADDR.
As watch, with a debug register that traps on loads and stores (x86-64
has no load-only one; AArch64's is set the same way): a hit that
changed the value was a write and does not stop, as in gdb. A stop
prints "Hardware read watchpoint N: EXPR" and "Value = ...".`,
			run: cmdRwatch},
		{aliases: []string{"awatch"}, args: "VAR | *ADDR | *(TYPE *)ADDR", needsTarget: true,
			help: `Stop when the program reads or writes VAR or ADDR.
As watch, for every load and store: a stop prints "Hardware access
(read/write) watchpoint N: EXPR", then "Old value" and "New value" when
the value changed, else "Value = ...".`,
			run: cmdAwatch},
		{aliases: []string{"delete", "d"}, args: "[N...]",
			help: "Delete breakpoints and watchpoints N..., or all of them.",
			run:  cmdDelete},
		{aliases: []string{"continue", "c", "cont"}, needsTarget: true,
			help:   "Run until a breakpoint, fatal signal or exit; Ctrl-C stops.\nOther signals are passed to the program without stopping, as gdb's\ndefault \"handle\" does; after a fatal signal, continue delivers it.",
			repeat: sameArgs,
			run:    cmdContinue},
		{aliases: []string{"condition"}, args: "N [COND]",
			help: `Stop at breakpoint N only when COND is not 0 (none: always).
COND is evaluated at each hit in the hitting thread's frame 0, as print
evaluates it; a COND that cannot be evaluated stops, with gdb's message.
"break LOCATION if COND" sets one with the breakpoint.`,
			run: cmdCondition},
		{aliases: []string{"ignore"}, args: "N COUNT",
			help: "Pass the next COUNT hits of breakpoint N (counted as hits).",
			run:  cmdIgnore},
		{aliases: []string{"output"}, args: "[/FMT] EXPR", needsTarget: true,
			help: "Print EXPR's value alone: no $N =, no history, no newline.",
			run:  cmdOutput},
		{aliases: []string{"printf"}, args: `"FORMAT", ARG...`, needsTarget: true,
			help: `Print ARGs with C's printf FORMAT (%d %u %x %o %c %s %p).`,
			run:  cmdPrintf},
		{aliases: []string{"display", "disp"}, args: "[/FMT] [EXPR]",
			help: `Print EXPR after every stop ("1: i = 3"), and now.
Without EXPR, print every display now. /FMT is one of print's letters.`,
			run: cmdDisplay},
		{aliases: []string{"undisplay"}, args: "[N...]",
			help: "Delete displays N..., or all of them.",
			run:  cmdUndisplay},
		{aliases: []string{"run", "r"}, args: "[ARGS]",
			help: `Run the program sfdbg started, or start it again.
A program not yet resumed runs; one that has run or exited is killed
and started again from the beginning (asked first at a terminal), run to
its entry, and its breakpoints set again where their locations now are.
ARGS replace the program's arguments. Only for "sfdbg run -- PROG".`,
			run: func(s *Session, a string) error { return cmdRun(s, a, false) }},
		{aliases: []string{"start"}, args: "[ARGS]",
			help: `Run the program to main, as tbreak main then run.`,
			run:  func(s *Session, a string) error { return cmdRun(s, a, true) }},
		{aliases: []string{"stepi", "si"}, args: "[N]", needsTarget: true,
			help:   "Execute N instructions in the selected thread (default 1).",
			repeat: sameArgs,
			run:    cmdStepi},
		{aliases: []string{"verify"}, args: "[N]", needsTarget: true,
			help: `Check each method against N executed instructions.
Single-steps every thread for N instructions (default 10000; Ctrl-C
stops) and checks each instruction's SFrame, CFI, code and FP rule
against the CFA and return address the execution gives (the frames
entered by a call while verify runs), as "sfdbg verify" does.`,
			run: cmdVerify},
		{aliases: []string{"step", "s"}, args: "[N]", needsTarget: true,
			help: `Step to the next source line, entering calls (N times).
As gdb's step: a call to a function with line information is entered
and the step stops after its first line (its prologue); a function
without line information is stepped over. A return continues to the end
of the caller's line. Prints the line, and the function when it changed,
then sfdbg's verdict on frame 0 as stepi does. Breakpoints, signals that
stop and Ctrl-C end the step.`,
			repeat: sameArgs,
			run:    func(s *Session, a string) error { return cmdStepLine(s, a, stepInto) }},
		{aliases: []string{"next", "n"}, args: "[N]", needsTarget: true,
			help: `Step to the next source line, over calls (N times).
As gdb's next: a call is run to its return (a temporary breakpoint at
the return address, hit by the same thread with its SP back, so a
recursive call does not stop it), then stepping goes on to the first
statement of another line. Prints as step does.`,
			repeat: sameArgs,
			run:    func(s *Session, a string) error { return cmdStepLine(s, a, stepOver) }},
		{aliases: []string{"until", "u"}, args: "LOCATION", needsTarget: true,
			help: `Run to LOCATION in the selected frame, or until it returns.
LOCATION is FUNCTION, FILE:LINE, LINE or *ADDR; it counts only in the
selected frame or a frame it returns to (its CFA not below the selected
frame's), so a recursive call on the way does not stop it. Temporary
breakpoints, as in gdb. Without LOCATION, until is next that does not
stop on a jump back (the end of a loop runs to its exit), as gdb's. In
gdb "u" is until, so sfdbg does not take "u" for up. Ctrl-C stops the
program.`,
			complete: completeFunctions,
			run: func(s *Session, a string) error {
				if strings.TrimSpace(a) == "" {
					return cmdStepLine(s, "", stepUntil)
				}
				return cmdUntil(s, a, true)
			}},
		{aliases: []string{"advance"}, args: "LOCATION", needsTarget: true,
			help: `Run to LOCATION in any frame, or until this frame returns.
As until LOCATION, but a recursive call reaching LOCATION stops too.`,
			complete: completeFunctions,
			run:      func(s *Session, a string) error { return cmdUntil(s, a, false) }},
		{aliases: []string{"finish", "fin"}, needsTarget: true,
			help: `Run until the selected frame returns, then print its caller.
The return address and CFA come from the listed backtrace (the one "bt"
printed last, else the all-methods trace); a recursive call returning to
the same address earlier does not count. Ctrl-C stops the program. As in
gdb, "Value returned is $N = V" follows for a function whose DWARF type is
an integer, character, boolean, enum or pointer (read from rax; a float
or a structure is named, not read).`,
			repeat: sameArgs,
			run:    cmdFinish},
		{aliases: []string{"detach"}, needsTarget: true,
			help: "Remove the breakpoints and detach; the process runs on.",
			run:  cmdDetach},
		{aliases: []string{"kill", "k"}, needsTarget: true,
			help: "Kill the program (asks first at a terminal).",
			run:  cmdKill},
		{aliases: []string{"quit", "q", "exit"},
			help: `Leave: detach from an attached process, kill a started one.
An attached process runs on; a process sfdbg started (run) is killed, as in gdb.`,
			run: cmdQuit},
		{aliases: []string{"handle"}, args: "SIG [nostop|noprint|pass]",
			help: `Set how a signal is handled (nostop, noprint, pass).
nostop, noprint and pass are accepted.
stop, print and nopass are refused with the reason: sfdbg passes every
signal but SIGTRAP to the program at once (see "info signals"). SIG is a name (SIGSEGV, SEGV) or a number.`,
			run: cmdHandle},
		{aliases: []string{"set"},
			help: "Change a setting: backtrace limit, and gdb's usual settings.\nSettings gdb scripts carry (pagination, confirm, width, height, print\npretty) are accepted; \"help set NAME\" says what each changes in sfdbg.",
			sub: append([]*command{
				{aliases: []string{"backtrace", "bt"}, args: "limit N|unlimited | past-main on|off",
					help: `Set the backtrace limit, or whether it goes past main.
limit (default 256): every trace stops there, and bt then ends with
"(More stack frames follow...)"; frame, up, down, info frame and finish
see only those frames. N is 1 to 1000000; unlimited (or 0, as in gdb) is
1000000. past-main (default off, as in gdb): off ends the traces at the
program's main; on shows the frames past it (__libc_start_call_main,
_start), as one-shot "sfdbg bt" always does.`,
					run: cmdSetBacktrace},
				localsCommands[4],
			}, setSettings...)},
		{aliases: []string{"show"},
			help: "Show a setting: backtrace limit, pagination, confirm, ...",
			sub: append([]*command{
				{aliases: []string{"backtrace", "bt"}, args: "limit | past-main",
					help: "Show the backtrace limit or the past-main setting.",
					run:  cmdShowBacktrace},
			}, showSettings...)},
		{aliases: []string{"shell", "!"}, args: "[COMMAND]",
			help: `Run a shell command and show its output.
COMMAND runs in $SHELL (else /bin/sh); without COMMAND, an interactive
shell starts. "!COMMAND" is the same.`,
			run: cmdShell},
		{aliases: []string{"source"}, args: "FILE",
			help: `Run the debugger commands in FILE, one per line, as -x does.
The first failing command ends the file: "FILE:LINE: Error in sourced
command file:" and its error, as in gdb. Empty lines do nothing.`,
			run: cmdSource},
		{aliases: []string{"help", "h"}, args: "[COMMAND]",
			help:     "List the commands, or describe one.",
			complete: completeCommands,
			run:      cmdHelp},
	}
	return t
}

// sameArgs repeats a command with its arguments.
func sameArgs(args string) string { return args }

// xRepeat repeats "x/NFU ADDR" as "x/NFU": the same format and count,
// from the address after the last unit shown.
func xRepeat(args string) string {
	if rest, ok := strings.CutPrefix(args, "/"); ok {
		spec, _ := splitWord(rest)
		return "/" + spec
	}
	return ""
}

// refuse returns the run function of a gdb command sfdbg does not
// implement: it fails with msg, so that a gdb habit never runs another
// command under its name.
func refuse(msg string) func(*Session, string) error {
	return func(*Session, string) error { return errors.New(msg) }
}

func completeCommands(s *Session, w string) []string {
	var out []string
	for _, c := range s.cmds.cmds {
		if strings.HasPrefix(c.name(), w) {
			out = append(out, c.name())
		}
	}
	return out
}

// completeFunctions completes function names from the modules' symbol
// tables (the main executable first).
func completeFunctions(s *Session, w string) []string {
	if s.tgt == nil || w == "" || strings.HasPrefix(w, "*") {
		return nil
	}
	sp, err := s.space()
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, name := range functionNames(sp) {
		if strings.HasPrefix(name, w) && !seen[name] {
			seen[name] = true
			out = append(out, name)
			if len(out) >= 200 {
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// parseCount parses an optional positive count.
func parseCount(a string, dflt int) (int, error) {
	a = strings.TrimSpace(a)
	if a == "" {
		return dflt, nil
	}
	n, err := strconv.Atoi(a)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("Invalid number %q.", a)
	}
	return n, nil
}

// parseAddr parses a number: 0x hex, or decimal.
func parseAddr(a string) (uint64, error) {
	a = strings.TrimSpace(a)
	v, err := strconv.ParseUint(a, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("Invalid address %q.", a)
	}
	return v, nil
}
