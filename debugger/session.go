package debugger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sirupsen/logrus"
)

// Session is one debugging session: a target, the UI, the selected thread
// and frame, breakpoints, and the command table every command line goes
// through, whether typed at the prompt, given with -ex, read from a -x
// script or sent by a test.
type Session struct {
	// TermWidth returns the terminal's width in columns, 0 when unknown;
	// nil when the output is no terminal or in -batch (gdb's unlimited
	// width). Frame lines wrap at it (width).
	TermWidth func() int
	ui        UI
	tgt       Target // nil after detach or kill
	cmds      *commandTable

	thread int // selected thread ID
	frame  int // selected frame level, in listed
	// listed is the trace frame, up and down select in: the one "bt" last
	// printed for the selected thread in this stop, else the thread's
	// default (all methods) trace.
	listed   *compare.Trace
	traces   map[traceKey]*compare.Trace
	threadNo map[int]int // gdb-style thread numbers, by thread ID
	nextNo   int
	bps      []*breakpoint
	nextBP   int
	xfmt     xFormat // last x/ format
	// xNext is where a plain "x" (or an empty line after x) continues:
	// the address after the last unit x printed; 0 before the first x.
	xNext uint64
	// last is the last command line typed at the prompt, which an empty
	// line repeats (see command.repeat).
	last string
	// history holds the values print printed: $1, $2, ... ($ is the last).
	history []value
	// pastMain is gdb's "set backtrace past-main": off (the default)
	// ends the REPL's traces at main.
	pastMain bool
	// listFile, listModule, listFirst and listLast are what list showed
	// last (list and an empty line continue after it); srcDirs are the
	// directories of "directory"; sources caches source files by path.
	listFile   string
	missingSrc map[string]bool // source files said missing once (gdb says it once)
	argv       []string        // the program sfdbg started (SetProgram), for run and start
	// IntroNote, when set, is printed by Intro after its first line (a
	// core's termination).
	IntroNote string
	displays  []display // display EXPR, printed after every stop
	exitCode  *int      // $_exitcode: the code of the program that last exited
	// inlineSkip is the stop's compare.Trace.SkipInline: -1 (gdb hides
	// the inline frames whose entry is the stop's PC), 0 after "step"
	// entered them or a breakpoint on the inline function stopped there.
	inlineSkip          int
	nextDisp            int
	ranOnce             bool // the started program has been resumed (run then starts it again)
	listModule          *frames.Module
	listFirst, listLast int
	srcDirs             []string
	sources             map[string][]string
	maxDepth            int               // depth limit of traces (0: frames.DefaultMaxDepth)
	settings            map[string]string // gdb settings set (gdbSettings), by name
	// mu is held while a command runs, so that a signal handler can wait
	// for it before detaching.
	mu       sync.Mutex
	quitting atomic.Bool  // quit requested (command or signal)
	signaled atomic.Int32 // the signal that ended the session, 0 if none
	// interrupted is set by Ctrl-C (SIGINT at a terminal) while a command
	// runs; long commands (stepi N) stop at the next step. Execute clears it.
	interrupted atomic.Bool
	// Batch is set for -batch: no confirmations, and SIGINT ends the
	// session (detaching) instead of interrupting the target. As in gdb
	// -batch, a failing command does not stop the batch; Failed records it.
	Batch bool
	// Failed is set once a command has failed.
	Failed bool
	// Prompt is the REPL prompt.
	Prompt string
	sigs   chan os.Signal
	// live mirrors tgt for the signal handler's goroutine.
	live atomic.Value // targetBox
}

type targetBox struct{ t Target }

// setTarget replaces the target (nil once it is gone).
func (s *Session) setTarget(t Target) {
	s.tgt = t
	s.live.Store(targetBox{t})
}

// liveTarget returns the target, from any goroutine.
func (s *Session) liveTarget() Target {
	b, _ := s.live.Load().(targetBox)
	return b.t
}

type traceKey struct {
	tid     int
	methods compare.Methods
}

type breakpoint struct {
	id int
	// addrs are the breakpoint's locations: one, or several where a name
	// resolves to several places (a function and its GCC clones, a line
	// with code in several places), as gdb's "(2 locations)".
	addrs []uint64
	desc  string // "spin_here" or "*0x..."
	hits  int
	temp  bool
	watch *watchpoint // a hardware watchpoint (addrs is empty), else nil
	// cond, when set, is evaluated in the hitting thread's frame 0 at each
	// hit: the hit stops only when it is not 0 (break LOC if COND,
	// condition N COND); ignore hits are passed first (ignore N COUNT).
	cond   string
	ignore int
	// inlineAt are the locations that are an inlined copy's entry (break
	// FUNCTION on a function inlined there): a stop there shows the
	// inline function, as gdb's stopped_by_user_bp_inline_frame.
	inlineAt map[uint64]bool
	// function is the FUNCTION of "break FUNCTION" ("" for other
	// locations): info breakpoints names it, as gdb's location
	// function_name, where the address is in a function inlined into it.
	function string
}

// NewSession returns a session on target t (nil for none) talking to ui.
func NewSession(t Target, ui UI) *Session {
	s := &Session{ui: ui, tgt: t, cmds: newCommandTable(), traces: map[traceKey]*compare.Trace{}, inlineSkip: -1,
		threadNo: map[int]int{}, nextNo: 1, nextBP: 1, Prompt: "(sfdbg) ", xfmt: xFormat{count: 1, format: 'x', unit: 'w'}}
	ui.SetCompleter(s.complete)
	s.setTarget(t)
	if t != nil {
		if tids, err := t.Threads(); err == nil && len(tids) > 0 {
			s.numberThreads(tids)
			s.thread = tids[0]
		}
	}
	return s
}

// Target returns the session's target, nil once detached or killed.
func (s *Session) Target() Target { return s.tgt }

// printf writes formatted command output.
func (s *Session) printf(format string, args ...any) { fmt.Fprintf(s.ui, format, args...) }

// Execute runs one command line through the command table: the
// dispatcher of the REPL, of batch mode and of tests. Empty lines and
// lines starting with '#' do nothing. A failing command returns its error
// (already printed).
func (s *Session) Execute(line string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interrupted.Store(false)
	return s.execute(line)
}

// execute runs one command line (dispatch) and prints its error.
func (s *Session) execute(line string) error {
	err := s.dispatch(line)
	if err != nil && !errors.Is(err, errSourced) {
		s.ui.PrintErr(err.Error())
	}
	return err
}

// dispatch runs one command line through the command table and returns
// its error, unprinted; a failure sets Failed.
func (s *Session) dispatch(line string) (err error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			logrus.Debugf("panic in %q: %v\n%s", line, r, debug.Stack())
			err = fmt.Errorf("internal error in %q: %v", line, r)
		}
		if err != nil {
			s.Failed = true
		}
	}()
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		line = "shell " + rest // gdb's "!ls"
	}
	c, args, err := s.cmds.lookup(line)
	if err != nil {
		return err
	}
	if c.args == "" && c.run != nil && args != "" {
		return errNoArgs(c, commandPrefix(s.cmds, c), args)
	}
	if c.needsTarget && s.tgt == nil {
		return errors.New("The program is not being run.")
	}
	if c.needsTarget {
		if exited, status := s.tgt.Exited(); exited {
			s.setTarget(nil)
			return fmt.Errorf("The program is not being run (it exited with status %d).", status)
		}
	}
	return c.run(s, args)
}

// Source runs the commands of a file, one per line, as gdb's -x and
// "source" do: empty lines and lines starting with '#' do nothing, and the
// first failing command ends the file with "FILE:LINE: Error in sourced
// command file:" and its error. It returns that error (printed already),
// or one saying the file cannot be read.
func (s *Session) Source(path string) error {
	return s.source(path, true)
}

// source is Source; lock is false when a command (source) runs it with
// the session's lock already held.
func (s *Session) source(path string, lock bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		s.Failed = true
		err = fmt.Errorf("%s: %w.", path, errors.Unwrap(err))
		s.ui.PrintErr(err.Error())
		return err
	}
	for i, line := range strings.Split(string(b), "\n") {
		if s.quitting.Load() {
			return nil
		}
		if lock {
			s.mu.Lock()
			s.interrupted.Store(false)
		}
		err := s.dispatch(line)
		if lock {
			s.mu.Unlock()
		}
		if err != nil {
			s.ui.PrintErr(fmt.Sprintf("%s:%d: Error in sourced command file:", path, i+1))
			s.ui.PrintErr(err.Error())
			return fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
	}
	return nil
}

// Run reads and executes commands until quit or the end of input. Ctrl-C
// at the prompt cancels the line.
func (s *Session) Run() error {
	for !s.quitting.Load() {
		line, err := s.ui.ReadLine(s.Prompt)
		if errors.Is(err, ErrInterrupted) {
			s.printf("Quit\n")
			continue
		}
		if err == io.EOF {
			if s.ui.IsTerminal() {
				s.printf("quit\n")
			}
			break
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "" {
			line = s.repeatLine()
		} else {
			s.last = line
		}
		s.Execute(line)
	}
	return nil
}

// repeatLine returns what an empty line at the prompt runs, as in gdb: the
// last command again, with the arguments its repeat function gives ("x"
// continues after the last unit shown, "list" after the last line), or ""
// for a command gdb does not repeat (frame, bt, break, detach, ...). Empty
// lines of a batch or a -x script do nothing (RunBatch, Source).
func (s *Session) repeatLine() string {
	if s.last == "" {
		return ""
	}
	c, args, err := s.cmds.lookup(s.last)
	if err != nil || c.repeat == nil {
		return ""
	}
	line := c.name()
	if a := c.repeat(args); a != "" {
		line += argSep(c) + a
	}
	s.last = line
	return line
}

// RunBatch executes commands in order, as gdb -batch does with -ex and -x:
// a failing command is reported and the next one runs. It returns whether
// every command succeeded. A quit command ends the batch.
func (s *Session) RunBatch(cmds []string) bool {
	for _, c := range cmds {
		if s.quitting.Load() {
			break
		}
		s.Execute(c)
	}
	return !s.Failed
}

// Close ends the session safely: breakpoints removed, then the process
// detached (left running) or, if the session started it, killed, as gdb
// does on quit. It is idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeTarget()
}

func (s *Session) closeTarget() error {
	if s.tgt == nil {
		return nil
	}
	t := s.tgt
	s.setTarget(nil)
	if exited, _ := t.Exited(); exited {
		return nil
	}
	if t.Launched() {
		return t.Kill()
	}
	return s.detach(t)
}

// detach removes the session's breakpoints from t, then detaches from it
// (the process runs on).
func (s *Session) detach(t Target) error {
	var errs []error
	for _, bp := range s.bps {
		for _, a := range bp.addrs {
			if err := t.ClearBreakpoint(a); err != nil {
				errs = append(errs, err)
			}
		}
		if wt, ok := t.(watchTarget); ok && bp.watch != nil {
			if err := wt.ClearWatchpoint(bp.watch.addr); err != nil {
				errs = append(errs, err)
			}
		}
	}
	s.bps = nil
	if err := t.Detach(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// HandleSignals makes SIGINT, SIGTERM, SIGHUP and SIGPIPE safe: SIGTERM,
// SIGHUP, SIGPIPE, and SIGINT when the user is not at a terminal (batch
// mode, piped input), stop any running command, detach from the target and
// exit with 128+signal; SIGINT at a
// terminal interrupts a running target (Ctrl-C) and otherwise does
// nothing. The returned function stops the handling.
//
// A signal caught by CatchSignals before the session existed (during the
// attach) is handled first: the target is detached at once.
func (s *Session) HandleSignals(exit func(code int)) (stop func()) {
	earlyMu.Lock()
	s.sigs, early = early, nil
	earlyMu.Unlock()
	if s.sigs == nil {
		s.sigs = make(chan os.Signal, 4)
		// SIGPIPE (output to a closed pipe) would otherwise kill sfdbg
		// with the process still traced and breakpoints in it.
		signal.Notify(s.sigs, sessionSignals...)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-s.sigs:
				code := 128 + int(sig.(syscall.Signal))
				if sig == syscall.SIGINT && s.ui.IsTerminal() && !s.Batch {
					s.interrupted.Store(true)
					if t := s.liveTarget(); t != nil {
						t.Interrupt()
					}
					continue
				}
				s.signaled.Store(int32(sig.(syscall.Signal)))
				s.quitting.Store(true)
				if t := s.liveTarget(); t != nil {
					t.Interrupt()
				}
				// Wait for the running command (at most a few seconds),
				// then detach.
				locked := make(chan struct{})
				go func() { s.mu.Lock(); close(locked) }()
				select {
				case <-locked:
				case <-time.After(5 * time.Second):
				}
				err := s.closeTarget()
				if err != nil {
					s.ui.PrintErr("sfdbg: " + err.Error())
				}
				s.ui.Close()
				if sig != syscall.SIGPIPE {
					fmt.Fprintf(os.Stderr, "sfdbg: %v: detached\n", sig)
				}
				exit(code)
				return
			}
		}
	}()
	return func() {
		signal.Stop(s.sigs)
		close(done)
	}
}

// sessionSignals are the signals HandleSignals handles.
var sessionSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

var (
	earlyMu sync.Mutex
	early   chan os.Signal // caught by CatchSignals, not yet handed to a session
)

// CatchSignals starts catching SIGINT, SIGTERM, SIGHUP and SIGPIPE; it is
// called before the first ptrace request of an attach. Until then their
// default action would kill sfdbg half-way through the attach, with the
// target's threads left in the stop of PTRACE_ATTACH's SIGSTOP and no
// tracer. A signal caught here waits for the attach to end: the next
// HandleSignals takes the signals over and detaches at once, or, if the
// attach failed, PendingSignal reports it.
func CatchSignals() {
	earlyMu.Lock()
	defer earlyMu.Unlock()
	if early == nil {
		early = make(chan os.Signal, 4)
		signal.Notify(early, sessionSignals...)
	}
}

// PendingSignal returns a signal caught by CatchSignals and not yet
// handled, or 0, and stops catching.
func PendingSignal() syscall.Signal {
	earlyMu.Lock()
	defer earlyMu.Unlock()
	if early == nil {
		return 0
	}
	signal.Stop(early)
	ch := early
	early = nil
	for {
		select {
		case sig := <-ch:
			if sig != syscall.SIGPIPE {
				return sig.(syscall.Signal)
			}
		default:
			return 0
		}
	}
}

// Quitting reports whether quit was asked for (a command or a signal).
func (s *Session) Quitting() bool { return s.quitting.Load() }

// Signaled returns the signal (SIGINT, SIGTERM, SIGHUP) that ended the
// session, or 0.
func (s *Session) Signaled() syscall.Signal { return syscall.Signal(s.signaled.Load()) }

// Recover is deferred by callers of Run and RunBatch: on a panic it
// detaches from the target before the panic continues.
func (s *Session) Recover() {
	if r := recover(); r != nil {
		s.closeTarget()
		s.ui.Close()
		panic(r)
	}
}

// numberThreads gives new threads the next gdb-style numbers.
func (s *Session) numberThreads(tids []int) {
	sorted := append([]int(nil), tids...)
	proc.SortTids(sorted, s.pid())
	for _, tid := range sorted {
		if _, ok := s.threadNo[tid]; !ok {
			s.threadNo[tid] = s.nextNo
			s.nextNo++
		}
	}
}

func (s *Session) pid() int {
	if s.tgt == nil {
		return 0
	}
	return s.tgt.Pid()
}

// invalidate forgets everything computed for the last stop.
func (s *Session) invalidate() {
	clear(s.traces)
	s.listed = nil
	s.frame = 0
}

// space returns the target's memory and modules.
func (s *Session) space() (*frames.Space, error) {
	if s.tgt == nil {
		return nil, errors.New("No registers.") // gdb's words with no process
	}
	return s.tgt.Space()
}

// trace returns the backtrace of thread tid with the given methods,
// computed once per stop, up to the session's depth limit.
func (s *Session) trace(tid int, methods compare.Methods) (*compare.Trace, error) {
	sp, err := s.space()
	if err != nil {
		return nil, err
	}
	k := traceKey{tid, methods}
	if tr := s.traces[k]; tr != nil {
		return tr, nil
	}
	regs, err := s.tgt.Regs(tid)
	if err != nil {
		return nil, err
	}
	tr := compare.Unwind(sp, regs, compare.Options{Methods: methods, MaxDepth: s.maxDepth, StopAtMain: !s.pastMain})
	tr.Thread = tid
	tr.SkipInline = s.inlineSkip
	s.traces[k] = tr
	return tr, nil
}

// list returns the trace frame selection refers to: the last printed one
// for the selected thread, else its default trace.
func (s *Session) list() (*compare.Trace, error) {
	if s.listed != nil && s.listed.Thread == s.thread {
		return s.listed, nil
	}
	tr, err := s.trace(s.thread, compare.All)
	if err != nil {
		return nil, err
	}
	s.listed = tr
	return tr, nil
}

// selected returns the index in the selected thread's listed trace of the
// physical frame of the selected frame (the frame itself, or the frame an
// inline frame is inlined into: their registers are the same).
func (s *Session) selected() (int, *compare.Trace, error) {
	sh, tr, err := s.selectedShown()
	return sh.Frame, tr, err
}

// selectedShown returns the selected frame as gdb numbers frames (s.frame
// is its level, inline frames counted) in the selected thread's listed
// trace.
func (s *Session) selectedShown() (compare.Shown, *compare.Trace, error) {
	tr, err := s.list()
	if err != nil {
		return compare.Shown{}, nil, err
	}
	if len(tr.Frames) == 0 {
		return compare.Shown{}, nil, errors.New("No stack.")
	}
	sh, ok := tr.ShownAt(s.frame)
	if !ok {
		s.frame = tr.Levels() - 1
		sh, _ = tr.ShownAt(s.frame)
	}
	return sh, tr, nil
}

// threads returns the target's threads, numbering new ones.
func (s *Session) threads() ([]int, error) {
	tids, err := s.tgt.Threads()
	if err != nil {
		return nil, err
	}
	s.numberThreads(tids)
	if _, ok := s.threadNo[s.thread]; !ok || !slices.Contains(tids, s.thread) {
		if len(tids) > 0 {
			s.thread = tids[0]
		}
	}
	return tids, nil
}

// threadByNumber maps a gdb thread number to a thread ID.
func (s *Session) threadByNumber(n int) (int, bool) {
	for tid, no := range s.threadNo {
		if no == n {
			return tid, true
		}
	}
	return 0, false
}

func sortedBreakpoints(bps []*breakpoint) []*breakpoint {
	out := append([]*breakpoint(nil), bps...)
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// Intro prints how a session starts: msg ("Attached to process 1234"), the
// program's name and thread count, and where the selected thread stopped.
func (s *Session) Intro(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tgt == nil {
		return
	}
	tids, err := s.threads()
	if err == nil && len(tids) == 0 {
		err = errors.New("no threads")
	}
	if err != nil {
		s.ui.PrintErr(err.Error())
		return
	}
	name := s.tgt.ThreadName(tids[0])
	s.printf("%s (%s), %s.\n", msg, name, plural(len(tids), "thread", "threads"))
	if _, ok := s.tgt.(*stoppedTarget); ok {
		s.printf("It was stopped (SIGSTOP or Ctrl-Z) and stays stopped: sfdbg inspects it without running it.\n")
	}
	if s.IntroNote != "" {
		s.printf("%s\n", s.IntroNote)
	}
	if n, ok := s.tgt.(interface{ LeaderNote() string }); ok {
		if note := n.LeaderNote(); note != "" {
			s.printf("%s\n", note)
		}
	}
	if s.ui.IsTerminal() {
		leave := "detach and leave"
		if s.tgt.Launched() {
			leave = "kill it and leave" // as gdb's quit does to a program it started
		}
		s.printf("Type \"help\" for the commands, \"bt\" for the backtrace, \"quit\" to %s.\n", leave)
	}
	s.printSelected() // no stack: nothing to show
}
