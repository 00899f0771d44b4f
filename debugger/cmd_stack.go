package debugger

import (
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// cmdBacktrace implements "bt [full] [N|-N] [sframe|cfi|fp|all|compare]",
// the words in any order: N innermost frames, -N outermost frames, full
// each frame's locals after its line (locals.go).
func cmdBacktrace(s *Session, args string) error {
	limit := 0
	methods := compare.All
	full := false
	for _, w := range strings.Fields(args) {
		if m, err := compare.ParseMethods(w); err == nil {
			methods = m
			continue
		}
		if w == "full" || w == "-full" {
			full = true
			continue
		}
		n, err := strconv.Atoi(w)
		if err != nil || n == 0 {
			return fmt.Errorf("bt: %q is neither a frame count (N or -N) nor a method (%s, all, compare)", w, compare.MethodNames(", "))
		}
		limit = n
	}
	tr, err := s.trace(s.thread, methods)
	if err != nil {
		return err
	}
	if s.listed != tr {
		s.listed, s.frame = tr, 0
	}
	opts := compare.TextOptions{Limit: limit, Width: -1}
	if w := s.width(); w > 0 {
		opts.Width = w
	}
	opts.Args, opts.After = s.btVarOptions(tr, full)
	tr.WriteText(s.ui, opts)
	return nil
}

// printFrameLine prints the frame shown as sh the way gdb's "frame" does,
// plus how it was found and how the methods compare.
func (s *Session) printFrameLine(tr *compare.Trace, sh compare.Shown) {
	f := &tr.Frames[sh.Frame]
	switch {
	case f.SignalTrampoline():
		s.printf("#%-3d<signal handler called>\n", sh.Level)
	default:
		s.printf("%s\n", compare.WrapFrameLine(fmt.Sprintf("#%-3d%s", sh.Level, s.frameLocation(tr, sh)), s.width()))
	}
	if sum := frameSummary(tr, sh); sum != "" {
		s.printf("    %s\n", sum)
	}
}

// frameSummary says how the frame shown as sh was found and, in an
// all-methods trace, SFrame's verdict and the frame-pointer check for its
// step: "found by cfi; sframe agree, fp ok". An inline frame has no step:
// "inlined into frame 3".
func frameSummary(tr *compare.Trace, sh compare.Shown) string {
	if sh.Inline {
		return fmt.Sprintf("inlined into frame %d; no unwind step of its own (frame %d's is compared)", sh.InlinedInto, tr.Level(sh.Frame))
	}
	if sh.TailCall {
		return fmt.Sprintf("tail call (virtual, from DWARF call sites); no unwind step of its own (frame %d's is compared)", tr.Level(sh.Frame))
	}
	f := &tr.Frames[sh.Frame]
	var parts []string
	if f.Level > 0 {
		parts = append(parts, "found by "+f.FoundBy.String())
	}
	if j := tr.JudgementText(sh.Frame); j != "" {
		parts = append(parts, j)
	}
	return strings.Join(parts, "; ")
}

// printSelected prints the selected frame's line (printFrameLine). A
// plain list then lists around that frame's line, as in gdb.
func (s *Session) printSelected() error {
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	s.listFile = ""
	s.printFrame(tr, sh, printLevelSrcAndLoc, "")
	return nil
}

// cmdFrame implements "frame [N]": N is a level of the last printed
// backtrace, as gdb numbers frames (inline frames counted).
func cmdFrame(s *Session, args string) error {
	if strings.TrimSpace(args) != "" {
		n, err := parseCount(args, 0)
		if err != nil {
			return err
		}
		tr, err := s.list()
		if err != nil {
			return err
		}
		if _, ok := tr.ShownAt(n); !ok {
			return errors.New("No frame at level " + strings.TrimSpace(args) + ".")
		}
		s.frame = n
	}
	return s.printSelected()
}

// cmdUpDown implements "up [N]" (dir 1) and "down [N]" (dir -1), over
// frames as gdb numbers them.
func cmdUpDown(s *Session, args string, dir int) error {
	n, err := parseCount(args, 1)
	if err != nil {
		return err
	}
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	_, above := tr.ShownAt(sh.Level + 1)
	switch {
	case dir < 0 && sh.Level == 0:
		return errors.New("Bottom (innermost) frame selected; you cannot go down.")
	case dir > 0 && !above:
		return errors.New("Initial frame selected; you cannot go up.")
	}
	to := max(0, sh.Level+dir*n)
	if _, ok := tr.ShownAt(to); !ok {
		to = tr.Levels() - 1
	}
	s.frame = to
	return s.printSelected()
}

// cmdInfoFrame implements "info frame [N]". An inline frame shares its
// physical frame's CFA, registers and rules, and says which frame it is
// inlined into, as gdb does.
func cmdInfoFrame(s *Session, args string) error {
	if strings.TrimSpace(args) != "" {
		if err := cmdFrame(s, args); err != nil {
			return err
		}
	}
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	n := sh.Frame
	sp := tr.Space()
	f := &tr.Frames[n]
	steps, _ := tr.StepsAt(n)
	cfa := f.CFA
	for m := range steps {
		if cfa == 0 && steps[m].CFA != 0 {
			cfa = steps[m].CFA
		}
	}
	s.printf("Stack level %d, frame at ", sh.Level)
	if cfa != 0 {
		s.printf("%#x (CFA):\n", cfa)
	} else {
		s.printf("<unknown CFA>:\n")
	}
	s.printf(" pc = %#x in %s\n", f.PC, tr.ShownLocation(sh))
	if sum := frameSummary(tr, sh); sum != "" && !sh.Inline {
		s.printf(" %s\n", sum)
	}
	switch {
	case f.Interrupted:
		s.printf(" PC is exact (interrupted frame): rows are looked up at PC\n")
	case f.SignalTrampoline():
		s.printf(" PC is exact (a signal trampoline, entered by the kernel): rows are looked up at PC\n")
	default:
		s.printf(" PC is a return address: rows are looked up at PC-1 = %#x\n", f.LookupPC())
	}
	// The frames above and below as gdb numbers them: an inline frame
	// has the CFA of its physical frame.
	shownCFA := func(level int) (compare.Shown, string, bool) {
		o, ok := tr.ShownAt(level)
		if !ok {
			return o, "", false
		}
		c := &tr.Frames[o.Frame]
		name := shortLoc(sp, c.LookupPC())
		if o.Inline {
			name = o.Function
		}
		return o, fmt.Sprintf("%s (#%d, %s)", cfaText(c.CFA), o.Level, name), true
	}
	if sh.Inline {
		into, _ := tr.ShownAt(sh.InlinedInto)
		name := into.Function
		if !into.Inline {
			name = shortLoc(sp, f.LookupPC())
		}
		s.printf(" inlined into frame %d (%s): no unwind step of its own; the rules below are frame %d's\n",
			sh.InlinedInto, name, tr.Level(n))
	} else if _, text, ok := shownCFA(sh.Level + 1); ok {
		s.printf(" called by frame at %s\n", text)
	}
	if sh.Level > 0 {
		_, text, _ := shownCFA(sh.Level - 1)
		s.printf(" caller of frame at %s\n", text)
	}
	s.printf(" sp = %#x", f.SP)
	if f.FPKnown {
		s.printf(", rbp = %#x\n", f.FP)
	} else {
		s.printf(", rbp unknown\n")
	}
	s.printf(" Rules each method used to unwind this frame:\n")
	var taken *compare.Step
	if n+1 < len(tr.Frames) {
		taken = &steps[tr.Frames[n+1].FoundBy]
	}
	for _, m := range tr.LiveMethods() {
		st := &steps[m]
		s.printf("  %-8s", m.String()+":")
		if st.Row == nil {
			if st.Err != nil {
				s.printf("%s\n", compare.StopText(st.Err))
			} else {
				s.printf("not computed (the trace ended below this frame)\n")
			}
			continue
		}
		r := st.Row
		s.printf("%s\n", r.Src)
		s.printf("           CFA = %s", frames.RuleString(r.CFA))
		if st.CFA != 0 {
			s.printf(" = %#x", st.CFA)
		}
		s.printf("\n")
		s.printf("           RA  %s\n", savedText(r.RA, st.CFA, sp.Mem, sp, returnAddr))
		s.printf("           FP  %s\n", savedText(r.FP, st.CFA, sp.Mem, sp, symAddr))
		if r.Signal {
			s.printf("           signal frame: the caller's registers come from the kernel's signal frame\n")
		}
		if r.Start != 0 || r.End != 0 {
			s.printf("           row covers [%#x, %#x)\n", r.Start, r.End)
		}
		switch {
		case st.Err != nil:
			s.printf("           -> %s\n", compare.StopText(st.Err))
		default:
			s.printf("           -> caller pc %s, sp %#x", returnAddr(sp, st.CallerPC), st.CallerSP)
			switch {
			case taken == st:
				s.printf(" (taken)")
			case taken != nil && taken.OK() && (st.CallerPC != taken.CallerPC || st.CallerSP != taken.CallerSP):
				s.printf(" (DIFFERS)")
			case taken != nil && taken.OK():
				s.printf(" (agrees)")
			}
			s.printf("\n")
		}
	}
	return nil
}

func cfaText(cfa uint64) string {
	if cfa != 0 {
		return fmt.Sprintf("%#x", cfa)
	}
	return "?"
}

// shortLoc names the function of a frame whose lookup PC is lookupPC
// (compare.Frame.LookupPC), or its module, or "??".
func shortLoc(sp *frames.Space, lookupPC uint64) string {
	name, _, m := funcName(sp, lookupPC)
	if name == "" {
		if m != nil {
			return m.Name
		}
		return "??"
	}
	return name
}

// savedText says where a saved value is, per its rule: "saved at CFA-8 =
// 0x7ffd...: 0x55..." or "not saved (same value)"; the value is formatted
// by format (symAddr, or returnAddr for the RA).
func savedText(r rule.Rule, cfa uint64, mem frames.Memory, sp *frames.Space, format func(*frames.Space, uint64) string) string {
	switch r.Kind {
	case rule.SameValue:
		return "not saved: unchanged in the caller (u)"
	case rule.Undefined:
		return "undefined (outermost frame)"
	case rule.Offset:
		if r.Reg == rule.CFA && cfa != 0 {
			a := uint64(int64(cfa) + r.Offset)
			v, err := frames.ReadUint64(mem, a)
			if err != nil {
				return fmt.Sprintf("saved at %s = %#x: unreadable", frames.RuleString(r), a)
			}
			return fmt.Sprintf("saved at %s = %#x: %s", frames.RuleString(r), a, format(sp, v))
		}
		return fmt.Sprintf("saved at %s", frames.RuleString(r))
	}
	return fmt.Sprintf("rule %s", frames.RuleString(r))
}

// cmdInfoSFrame implements "info sframe [PC]".
func cmdInfoSFrame(s *Session, args string) error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	pc, err := s.pcArg(args)
	if err != nil {
		return err
	}
	m := sp.Modules.Find(pc)
	if m == nil {
		return fmt.Errorf("No module contains %#x.", pc)
	}
	link := pc - m.Bias
	s.printf("PC %s is at link-time address %#x in %s\n", symAddr(sp, pc), link, m.Name)
	sec, err := m.SFrame()
	if err != nil {
		if errors.Is(err, sframe.ErrNoSection) {
			return fmt.Errorf("%s has no .sframe section.", m.Name)
		}
		return fmt.Errorf("%s: %v", m.Name, err)
	}
	h := &sec.Header
	s.printf(".sframe at %#x: version %d, %s, %d FDEs, %d FREs, CFA fixed offsets: RA %d, FP %d\n",
		sec.Addr, h.Version, h.ABI, h.NumFDEs, h.NumFREs, h.CFAFixedRAOffset, h.CFAFixedFPOffset)
	s.printf("  flags %s\n", h.Flags)
	fde, err := sec.FindFDE(link)
	if err != nil {
		s.printf("No FDE covers %#x", link)
		prev, next := neighbours(sec, link)
		if prev != nil {
			s.printf("; previous FDE #%d ends at %#x", prev.Index, prev.End())
		}
		if next != nil {
			s.printf("; next FDE #%d starts at %#x", next.Index, next.Start)
		}
		s.printf(".\n")
		return nil
	}
	name, _, _ := m.FuncName(fde.Start + m.Bias)
	if name == "" {
		name = "??"
	}
	s.printf("FDE #%d at section offset %#x: %s [%#x, %#x) %d bytes\n", fde.Index, fde.Off, name, fde.Start, fde.End(), fde.Size)
	s.printf("  %s, %s, %s", fde.PCType, fde.FREType, fde.Type)
	if fde.PCType == sframe.PCTypeMask {
		s.printf(", repetition size %d", fde.RepSize)
	}
	if fde.Signal {
		s.printf(", signal frame")
	}
	s.printf(", %d FREs\n", fde.NumFREs)
	fres, err := sec.AllFREs(fde)
	// The FRE in effect is the one a stack tracer would use.
	var match sframe.FRE
	cur, _, ferr := sec.FindFRERange(fde, link, &match)
	if ferr != nil {
		cur = -1
	}
	for i := range fres {
		fre := &fres[i]
		mark := "  "
		if i == cur {
			mark = "=>"
		}
		row, rerr := frames.SFrameRow(m, sec, fde, fre, i)
		rules := ""
		if rerr != nil {
			rules = "error: " + rerr.Error()
		} else if row.Outermost {
			rules = "outermost (RA undefined)"
		} else {
			rules = rowText(&row)
			if row.MangledRA {
				rules += " mangled-RA"
			}
		}
		words := make([]string, fre.NumWords())
		for w := range words {
			words[w] = fmt.Sprint(fre.Words[w])
		}
		s.printf("%s FRE #%-3d +%#-6x [%#x] base=%s words=%d×%dB [%s]  %s\n", mark, i, fre.StartOff,
			fde.Start+uint64(fre.StartOff), fre.Info.BaseReg(), fre.NumWords(), fre.Info.DataWordSize().Bytes(), strings.Join(words, " "), rules)
	}
	if err != nil {
		return fmt.Errorf("FREs of FDE #%d: %v", fde.Index, err)
	}
	if cur < 0 {
		s.printf("No FRE covers offset %#x: %v.\n", link-fde.Start, ferr)
	}
	return nil
}

// neighbours returns the FDEs just before and after link-time address a.
func neighbours(sec *sframe.Section, a uint64) (prev, next *sframe.FDE) {
	fdes := sec.FDEs()
	for i := range fdes {
		f := &fdes[i]
		if f.End() <= a && (prev == nil || f.End() > prev.End()) {
			prev = f
		}
		if f.Start > a && (next == nil || f.Start < next.Start) {
			next = f
		}
	}
	return prev, next
}

// cmdInfoRegisters implements "info registers [REG...]": every register
// the selected frame knows, or those asked for, in the order asked. pc,
// sp and fp are gdb's names for rip, rsp and rbp; "general" and "all" are
// gdb's groups (here both: every register sfdbg reads). An unknown name
// is an error before anything is printed, as in gdb; a register an outer
// frame did not recover is <not saved>.
func cmdInfoRegisters(s *Session, args string) error {
	n, tr, err := s.selected()
	if err != nil {
		return err
	}
	want := strings.Fields(strings.ReplaceAll(args, "$", ""))
	if len(want) == 1 && want[0] == "all" {
		return cmdInfoAllRegisters(s, "") // gdb's "info registers all"
	}
	if len(want) == 1 && want[0] == "general" {
		want = nil
	}
	var vector []string // lines of the named x87, SSE, AVX and PKRU registers, by index in want
	for i, w := range want {
		if isRegisterName(w) {
			continue
		}
		line, err := s.vectorRegLine(w)
		if err != nil {
			return err
		}
		if vector == nil {
			vector = make([]string, len(want))
		}
		vector[i] = line
	}
	sp := tr.Space()
	var list []proc.RegValue
	if n == 0 {
		if list, err = s.tgt.RegList(s.thread); err != nil {
			return err
		}
	} else {
		f, ok := tr.FrameAt(n)
		if !ok {
			return fmt.Errorf("cannot recompute the registers of frame %d", n)
		}
		list = proc.RegListFromFrames(&f.Regs)
	}
	print := func(name string, r proc.RegValue) {
		natural := fmt.Sprint(int64(r.Value))
		switch r.Name {
		case proc.HostArch.RegName(proc.HostArch.PC):
			natural = symAddr(sp, r.Value)
		case proc.HostArch.RegName(proc.HostArch.SP), proc.HostArch.RegName(proc.HostArch.FP):
			natural = fmt.Sprintf("%#x", r.Value)
		case "eflags":
			natural = eflagsText(r.Value)
		}
		s.printf("%s\n", regLine(name, fmt.Sprintf("%#x", r.Value), natural))
	}
	if len(want) == 0 {
		for _, r := range list {
			print(r.Name, r)
		}
		if n > 0 {
			s.printf("(frame %d: only the registers the unwind recovered are known)\n", n)
		}
		return nil
	}
	for i, w := range want {
		if vector != nil && vector[i] != "" {
			s.printf("%s\n", vector[i])
			continue
		}
		name := map[string]string{"pc": proc.HostArch.RegName(proc.HostArch.PC), "sp": proc.HostArch.RegName(proc.HostArch.SP),
			"fp": proc.HostArch.RegName(proc.HostArch.FP)}[w]
		if name == "" {
			name = w
		}
		i := slices.IndexFunc(list, func(r proc.RegValue) bool { return r.Name == name })
		switch {
		case i >= 0:
			print(w, list[i])
		case n > 0:
			s.printf("%s\n", regLine(w, "<not saved>", ""))
		default:
			s.printf("%s\n", regLine(w, "<unavailable>", ""))
		}
	}
	return nil
}

// isRegisterName reports whether name is a register info registers knows
// on the host (gdb's names of the general registers, pc, sp and fp).
func isRegisterName(name string) bool {
	switch name {
	case "pc", "sp", "fp":
		return true
	}
	_, ok := proc.HostArch.RegNamed(name)
	return ok || proc.IsRegisterName(name)
}

func eflagsText(v uint64) string {
	names := []struct {
		bit  uint
		name string
	}{{0, "CF"}, {2, "PF"}, {4, "AF"}, {6, "ZF"}, {7, "SF"}, {8, "TF"}, {9, "IF"}, {10, "DF"}, {11, "OF"}}
	var out []string
	for _, n := range names {
		if v&(1<<n.bit) != 0 {
			out = append(out, n.name)
		}
	}
	return "[ " + strings.Join(out, " ") + " ]"
}

// cmdInfoThreads implements "info threads".
func cmdInfoThreads(s *Session, _ string) error {
	tids, err := s.threads()
	if err != nil {
		return err
	}
	sp, err := s.space()
	if err != nil {
		return err
	}
	ids := make([]string, len(tids))
	width := len("Target Id")
	for i, tid := range tids {
		ids[i] = fmt.Sprintf("Thread %d \"%s\"", tid, s.tgt.ThreadName(tid))
		width = max(width, len(ids[i]))
	}
	s.printf("  %-4s %-*s %s\n", "Id", width, "Target Id", "Frame")
	for i, tid := range tids {
		mark := " "
		if tid == s.thread {
			mark = "*"
		}
		where := "<registers unreadable>"
		if regs, err := s.tgt.Regs(tid); err == nil {
			// gdb's frame 0: an inline function's, when one is
			// inlined at the PC.
			loc, showPC := compare.InnermostLocation(sp, regs.PC())
			loc = s.innermostArgs(tid, loc)
			where = loc
			if showPC {
				where = fmt.Sprintf("0x%016x in %s", regs.PC(), loc)
			}
		}
		s.printf("%s %-4d %-*s %s\n", mark, s.threadNo[tid], width, ids[i], where)
	}
	return nil
}

// cmdThread implements "thread [N]" and "thread apply all|LIST CMD".
func cmdThread(s *Session, args string) error {
	args = strings.TrimSpace(args)
	if rest, ok := strings.CutPrefix(args, "apply"); ok {
		tids, cmd, err := s.applyThreads(rest)
		if err != nil {
			return err
		}
		saved, savedFrame := s.thread, s.frame
		var errs []error
		for _, tid := range tids {
			s.thread, s.frame = tid, 0
			s.printf("\nThread %d (Thread %d \"%s\"):\n", s.threadNo[tid], tid, s.tgt.ThreadName(tid))
			if err := s.execute(cmd); err != nil {
				errs = append(errs, err)
			}
		}
		s.thread, s.frame = saved, savedFrame
		if len(errs) > 0 {
			return fmt.Errorf("%d of %d threads failed", len(errs), len(tids))
		}
		return nil
	}
	if _, err := s.threads(); err != nil {
		return err
	}
	if args != "" {
		n, err := parseCount(args, 0)
		if err != nil {
			return err
		}
		tid, ok := s.threadByNumber(n)
		if !ok {
			return fmt.Errorf("Invalid thread ID: %d", n)
		}
		s.thread, s.frame = tid, 0
		s.printf("[Switching to thread %d (Thread %d)]\n", n, tid)
	} else {
		s.printf("[Current thread is %d (Thread %d)]\n", s.threadNo[s.thread], s.thread)
	}
	return s.printSelected()
}

// cmdInfoShared implements "info sharedlibrary".
func cmdInfoShared(s *Session, _ string) error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	// Addresses as %#x (user-space addresses take 14 columns); a path
	// that would pass 100 columns goes on a line of its own.
	const row = "%-16s%-16s%-16s%-15s"
	s.printf(row+"%s\n", "From", "To", "Load bias", "SFrame", "Module")
	for _, m := range sp.Modules.List() {
		sf := "no"
		if sec, err := m.SFrame(); err == nil {
			sf = fmt.Sprintf("v%d, %d FDEs", sec.Version, len(sec.FDEs()))
		} else if !errors.Is(err, sframe.ErrNoSection) {
			sf = "error"
		}
		line := fmt.Sprintf(row, fmt.Sprintf("%#x", m.Start), fmt.Sprintf("%#x", m.End), fmt.Sprintf("%#x", m.Bias), sf)
		if len(line)+len(m.Path) > maxWidth {
			s.printf("%s\n    %s\n", strings.TrimRight(line, " "), m.Path)
		} else {
			s.printf("%s%s\n", line, m.Path)
		}
	}
	return nil
}

// functionNames lists the function symbols of every module, in the
// modules' address order, each module's sorted; cached per module.
func functionNames(sp *frames.Space) []string {
	var out []string
	for _, m := range sp.Modules.List() {
		out = append(out, moduleFuncs(m)...)
	}
	return out
}

var funcCache sync.Map // *frames.Module -> []string

func moduleFuncs(m *frames.Module) []string {
	if v, ok := funcCache.Load(m); ok {
		return v.([]string)
	}
	var names []string
	if f, err := m.File(); err == nil {
		seen := map[string]bool{}
		add := func(syms []elf.Symbol) {
			for _, sy := range syms {
				if elf.ST_TYPE(sy.Info) == elf.STT_FUNC && sy.Value != 0 && sy.Name != "" && !seen[sy.Name] {
					seen[sy.Name] = true
					names = append(names, sy.Name)
				}
			}
		}
		if syms, err := f.Symbols(); err == nil {
			add(syms)
		}
		if syms, err := f.DynamicSymbols(); err == nil {
			add(syms)
		}
		sort.Strings(names)
	}
	funcCache.Store(m, names)
	return names
}

// lookupFunctions returns every location of the function called name, as
// gdb resolves a function name for break and list: in every module, the
// main executable's first, the symbol of that name, the clones GCC made of
// it (frames.Module.LookupFunction) and its inlined copies
// (frames.Module.InlinedEntries), sorted in each module. m is the module
// of the first.
func lookupFunctions(sp *frames.Space, name string) (addrs []uint64, m *frames.Module) {
	for _, mod := range mainFirst(sp) {
		var here []uint64
		for _, a := range append(mod.LookupFunction(name), mod.InlinedEntries(name)...) {
			if a != mod.Bias {
				here = append(here, a)
			}
		}
		if len(here) > 0 && m == nil {
			m = mod
		}
		slices.Sort(here)
		addrs = append(addrs, slices.Compact(here)...)
	}
	return addrs, m
}

// lookupFunction finds a function by name in the main executable first,
// then in the other modules.
func lookupFunction(sp *frames.Space, name string) (uint64, *frames.Module, bool) {
	// The main executable is the module mapped from /proc/PID/exe; without
	// knowing it, try modules that are not shared libraries first.
	for _, m := range mainFirst(sp) {
		if a, _, ok := m.LookupSymbol(name); ok && a != m.Bias {
			return a, m, true
		}
	}
	// A function GCC only cloned (weigh.isra.0), as gdb finds "weigh" by
	// its DWARF name: its first copy.
	for _, m := range mainFirst(sp) {
		for _, a := range m.LookupFunction(name) {
			if a != m.Bias {
				return a, m, true
			}
		}
	}
	return 0, nil, false
}
