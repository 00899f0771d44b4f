package debugger

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// lineRun is a run of consecutive instructions of one function that the
// line table gives the same file and line: runtime addresses [start, end).
type lineRun struct {
	file        string
	line        int
	start, end  uint64
	funcName    string
	funcStart   uint64
	firstInFunc bool // the first run of this line in its function
}

// functionRuns splits the function that holds runtime address a into
// runs of one source line, through the module's line table
// (frames.Module.SymbolizeAt at every instruction). Code is read from the
// module's file.
func functionRuns(m *frames.Module, a uint64) ([]lineRun, error) {
	sym := m.Symbolize(a)
	if sym.Name == "" || sym.Size == 0 || sym.File == "" {
		where := fmt.Sprintf("%#x", a)
		if sym.Name != "" {
			where += fmt.Sprintf(" <%s+%d>", sym.Name, sym.Offset)
		}
		return nil, fmt.Errorf("No line number information available for address %s", where)
	}
	return scanRuns(m, sym.Name, sym.Addr, sym.Size), nil
}

// scanRuns decodes the instructions of the function name at runtime
// address start, size bytes, and groups them into runs of one line.
func scanRuns(m *frames.Module, name string, start, size uint64) []lineRun {
	code := fileBytes(m, start, int(min(size, 1<<20)))
	var runs []lineRun
	seen := map[int]bool{}
	for off := 0; off < len(code); {
		pc := start + uint64(off)
		n := 1
		if k, ok := (arch.X86{}).Len(code[off:]); ok {
			n = k
		}
		sym := m.SymbolizeAt(pc, pc)
		if k := len(runs) - 1; k >= 0 && runs[k].file == sym.File && runs[k].line == sym.Line && runs[k].end == pc {
			runs[k].end = pc + uint64(n)
		} else if sym.File != "" {
			runs = append(runs, lineRun{sym.File, sym.Line, pc, pc + uint64(n), name, start, !seen[sym.Line]})
			seen[sym.Line] = true
		}
		off += n
	}
	return runs
}

// fileBytes reads n bytes at runtime address a from the module's file
// (its loadable segments).
func fileBytes(m *frames.Module, a uint64, n int) []byte {
	f, err := m.File()
	if err != nil {
		return nil
	}
	link := a - m.Bias
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && link >= p.Vaddr && link-p.Vaddr < p.Filesz {
			n = int(min(uint64(n), p.Vaddr+p.Filesz-link))
			b := make([]byte, n)
			k, _ := p.ReadAt(b, int64(link-p.Vaddr))
			return b[:k]
		}
	}
	return nil
}

// moduleRuns returns the line runs of every function of m with an entry
// in the line table, computed once per module (a module without
// .debug_line has none).
func moduleRuns(m *frames.Module) []lineRun {
	if v, ok := runCache.Load(m); ok {
		return v.([]lineRun)
	}
	var runs []lineRun
	if f, err := m.File(); err == nil && (f.Section(".debug_line") != nil || f.Section(".zdebug_line") != nil) {
		syms, _ := f.Symbols()
		seen := map[uint64]bool{}
		for _, sy := range syms {
			if elf.ST_TYPE(sy.Info) != elf.STT_FUNC || sy.Size == 0 || sy.Value == 0 || seen[sy.Value] {
				continue
			}
			seen[sy.Value] = true
			runs = append(runs, scanRuns(m, sy.Name, sy.Value+m.Bias, sy.Size)...)
		}
	}
	v, _ := runCache.LoadOrStore(m, runs)
	return v.([]lineRun)
}

// runCache holds moduleRuns per module (*frames.Module -> []lineRun).
var runCache sync.Map

// sameFile reports whether the line table's file name names the file the
// user wrote: the same path, or a path ending in /want (deep.c matches
// testdata/src/deep.c), as gdb matches file names in locations.
func sameFile(file, want string) bool {
	return file == want || strings.HasSuffix(file, "/"+strings.TrimPrefix(want, "./"))
}

// lineAddrs finds the code of FILE:LINE: the first address of the line in
// every function with code for it; a line without code moves to the next
// line that has some, as in gdb. It returns the addresses, the file as
// the line table names it and the line used.
func lineAddrs(sp *frames.Space, file string, line int) ([]uint64, string, int, error) {
	var match []lineRun
	var mod *frames.Module
	found := false
	for _, m := range mainFirst(sp) {
		for _, r := range moduleRuns(m) {
			if sameFile(r.file, file) {
				found = true
				if r.line >= line {
					match = append(match, r)
				}
			}
		}
		if found {
			mod = m
			break
		}
	}
	if !found {
		return nil, "", 0, fmt.Errorf("No source file named %s.", file)
	}
	if len(match) == 0 {
		return nil, "", 0, fmt.Errorf("Line %d is out of range for \"%s\".", line, file)
	}
	best := match[0].line
	for _, r := range match {
		best = min(best, r.line)
	}
	// In each function, the line's first statement (is_stmt), as gdb's
	// decode_digits_ordinary takes only is_stmt entries: GCC often puts
	// a line's first instructions before a loop (is_stmt 0) and its
	// statement in the loop, where a breakpoint stops each iteration.
	// Without a statement, the line's first instruction.
	byFunc := map[uint64][]lineRun{}
	var funcs []uint64
	name := ""
	for _, r := range match {
		if r.line != best {
			continue
		}
		if _, ok := byFunc[r.funcStart]; !ok {
			funcs = append(funcs, r.funcStart)
		}
		byFunc[r.funcStart] = append(byFunc[r.funcStart], r)
		name = r.file
	}
	var addrs []uint64
	for _, fs := range funcs {
		runs := byFunc[fs]
		sort.Slice(runs, func(i, j int) bool { return runs[i].start < runs[j].start })
		addr := runs[0].start
		for _, r := range runs {
			if a, ok := stmtIn(mod, r); ok {
				addr = a
				break
			}
		}
		addrs = append(addrs, addr)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	return addrs, name, best, nil
}

// stmtIn returns the first address of run r that starts a statement
// (an is_stmt row of the line table).
func stmtIn(m *frames.Module, r lineRun) (uint64, bool) {
	code := fileBytes(m, r.start, int(min(r.end-r.start, 4096)))
	for off := 0; off < len(code); {
		pc := r.start + uint64(off)
		if m.StmtAt(pc) {
			return pc, true
		}
		n := 1
		if k, ok := (arch.X86{}).Len(code[off:]); ok {
			n = k
		}
		off += n
	}
	return 0, false
}

// location is where a linespec points: addresses, and the source line if
// known.
type location struct {
	addrs []uint64
	file  string
	line  int
	// function is set for a FUNCTION location, in module: its entries.
	function bool
	module   *frames.Module
}

// resolveLocation parses a location as break, tbreak, until, advance,
// list and info line take it: *EXPR (an address), FILE:LINE, LINE (in the
// default file: the one last listed, else the selected frame's) or
// FUNCTION (its first instruction; list and info line show its first
// line).
func (s *Session) resolveLocation(spec string) (location, error) {
	spec = strings.TrimSpace(spec)
	sp, err := s.space()
	if err != nil {
		return location{}, err
	}
	if e, ok := strings.CutPrefix(spec, "*"); ok {
		a, err := s.evalAddr(e)
		if err != nil {
			return location{}, err
		}
		return location{addrs: []uint64{a}}, nil
	}
	file, lineText, hasFile := strings.Cut(spec, ":")
	if !hasFile {
		file, lineText = "", spec
	}
	if n, err := strconv.Atoi(lineText); err == nil {
		if !hasFile {
			if file = s.defaultFile(); file == "" {
				return location{}, errors.New("No default source file; name one: break FILE:LINE.")
			}
		}
		addrs, f, l, err := lineAddrs(sp, file, n)
		if err != nil {
			return location{}, err
		}
		return location{addrs: addrs, file: f, line: l}, nil
	}
	if hasFile {
		return location{}, fmt.Errorf("Invalid line number %q in %s (FILE:LINE).", lineText, spec)
	}
	addrs, m := lookupFunctions(sp, spec)
	if len(addrs) == 0 {
		return location{}, fmt.Errorf("Function \"%s\" not defined.", spec)
	}
	sym := m.Symbolize(addrs[0])
	return location{addrs: addrs, file: sym.File, line: sym.Line, module: m, function: true}, nil
}

// afterPrologues moves the addresses of a FUNCTION location to where gdb
// breaks on a function (prologueEnd); other locations are kept.
func (s *Session) afterPrologues(loc location) location {
	if !loc.function || loc.module == nil {
		return loc
	}
	out := loc
	out.addrs = nil
	for _, a := range loc.addrs {
		if _, off, ok := loc.module.FuncName(a); ok && off == 0 {
			a = s.prologueEnd(loc.module, a)
		}
		out.addrs = append(out.addrs, a) // an inlined copy's entry has no prologue
	}
	if len(out.addrs) > 0 {
		sym := loc.module.Symbolize(out.addrs[0])
		if sym.File != "" {
			out.file, out.line = sym.File, sym.Line
		}
	}
	return out
}

// defaultFile is the source file a bare LINE refers to: the one list
// showed last, else the selected frame's.
func (s *Session) defaultFile() string {
	if s.listFile != "" {
		return s.listFile
	}
	if sym, ok := s.selectedLine(); ok {
		return sym.File
	}
	return ""
}

// selectedLine is the source line of the selected frame.
// For an inline frame and a frame an inlined call was made from, it is
// the line gdb shows: the inlined call's (compare.Trace.ShownLine).
func (s *Session) selectedLine() (frames.Symbol, bool) {
	sh, tr, err := s.selectedShown()
	if err != nil {
		return frames.Symbol{}, false
	}
	f := &tr.Frames[sh.Frame]
	m := tr.Space().Modules.Find(f.LookupPC())
	if m == nil {
		return frames.Symbol{}, false
	}
	sym := m.SymbolizeAt(f.PC, f.LookupPC())
	if sh.Inline || sh.Caller {
		sym.File, sym.Line = tr.ShownLine(sh)
	}
	return sym, sym.File != ""
}

// cmdInfoLine implements "info line [LOCATION]": the address range of a
// source line, as gdb prints it.
func cmdInfoLine(s *Session, args string) error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	var addrs []uint64
	args = strings.TrimSpace(args)
	switch {
	case args == "":
		n, tr, err := s.selected()
		if err != nil {
			return err
		}
		addrs = []uint64{tr.Frames[n].LookupPC()}
	default:
		loc, err := s.resolveLocation(args)
		if err != nil {
			return err
		}
		addrs = loc.addrs
	}
	// A function with several locations (clones, inlined copies): a
	// line for each, as gdb prints them.
	var errs []error
	for _, a := range addrs {
		if err := s.infoLineAt(sp, a); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// infoLineAt prints "info line" for address a.
func (s *Session) infoLineAt(sp *frames.Space, a uint64) error {
	m := sp.Modules.Find(a)
	if m == nil {
		return fmt.Errorf("No line number information available for address %#x", a)
	}
	print := func(file string, line int, lo, hi uint64) {
		// gdb's one line, broken before "and ends" where it would pass
		// 100 columns.
		start := fmt.Sprintf("Line %d of \"%s\" starts at address %#x%s", line, file, lo, symbolSuffix(sp, lo))
		end := fmt.Sprintf("and ends at %#x%s.", hi, symbolSuffix(sp, hi))
		sep := " "
		if len(start)+1+len(end) > maxWidth {
			sep = "\n"
		}
		s.printf("%s%s%s\n", start, sep, end)
	}
	// gdb's line table entries (frames.Module.LineRange), else the runs
	// of one line in the function's code.
	if file, line, lo, hi, ok := m.LineRange(a); ok && hi > lo {
		print(file, line, lo, hi)
		return nil
	}
	runs, err := functionRuns(m, a)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if a >= r.start && a < r.end {
			print(r.file, r.line, r.start, r.end)
			return nil
		}
	}
	return fmt.Errorf("No line number information available for address %#x%s", a, symbolSuffix(sp, a))
}

// findSource finds a source file the line table names: an absolute path
// as it is; a relative one (relative to the compilation directory, which
// may itself be relative, as with -ffile-prefix-map=$PWD=.) in the
// directories of "directory", the current directory, and the directory of
// the module's file and each of its parents.
func (s *Session) findSource(file string, m *frames.Module) (string, error) {
	if filepath.IsAbs(file) {
		if _, err := os.Stat(file); err != nil {
			return "", fmt.Errorf("%s: No such file or directory.", file)
		}
		return file, nil
	}
	dirs := append([]string(nil), s.srcDirs...)
	if m != nil {
		// The compilation directory of the selected frame's unit, as
		// gdb's $cdir: a unit's own file is named relative to it ("q.c").
		if pc := s.selectedPC(); pc != 0 {
			if cu, ok := m.CompUnitAt(pc); ok && filepath.IsAbs(cu.CompDir) {
				dirs = append(dirs, cu.CompDir)
			}
		}
	}
	dirs = append(dirs, ".")
	if m != nil {
		p := m.OpenPath
		if p == "" {
			p = m.Path
		}
		if abs, err := filepath.Abs(p); err == nil {
			for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
				dirs = append(dirs, d)
				if d == filepath.Dir(d) {
					break
				}
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, file)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: No such file or directory (looked in the current directory, the program's directory and its parents; \"directory DIR\" adds DIR).", file)
}

// sourceLines returns the lines of a source file, read once.
func (s *Session) sourceLines(path string) ([]string, error) {
	if l, ok := s.sources[path]; ok {
		return l, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if s.sources == nil {
		s.sources = map[string][]string{}
	}
	s.sources[path] = l
	return l, nil
}

// listLines is the number of lines list prints, as gdb's default
// "set listsize 10".
const listLines = 10

// cmdList implements "list [LOCATION | FIRST,LAST | -]": source lines
// around a line, ten at a time. Without an argument it lists around the
// selected frame's line the first time, then continues.
func cmdList(s *Session, args string) error {
	args = strings.TrimSpace(args)
	var first, last int
	file, mod := s.listFile, s.listModule
	switch {
	case args == "" && s.listFile != "":
		first = s.listLast + 1
	case args == "-":
		if s.listFile == "" {
			return errors.New("No default source file; list FUNCTION or FILE:LINE first.")
		}
		if s.listFirst <= 1 {
			return errors.New("Already at the start of " + s.listFile + ".")
		}
		first = max(1, s.listFirst-listLines)
		last = s.listFirst - 1
	case args == "":
		sym, ok := s.selectedLine()
		if !ok {
			return errors.New("No line number information for the selected frame; list FUNCTION or FILE:LINE.")
		}
		file, mod = sym.File, s.selectedModule()
		first = max(1, sym.Line-listLines/2)
	default:
		a, b, isRange := strings.Cut(args, ",")
		loc, err := s.listLocation(a)
		if err != nil {
			return err
		}
		file, mod = loc.file, loc.mod
		first = max(1, loc.line-listLines/2)
		if isRange {
			first = loc.line
			n, err := strconv.Atoi(strings.TrimSpace(b))
			if err != nil || n < first {
				return fmt.Errorf("Invalid range %s: list FIRST,LAST takes line numbers, LAST >= FIRST.", args)
			}
			last = n
		}
	}
	if last == 0 {
		last = first + listLines - 1
	}
	path, err := s.findSource(file, mod)
	if err != nil {
		return err
	}
	lines, err := s.sourceLines(path)
	if err != nil {
		return err
	}
	if first > len(lines) {
		return fmt.Errorf("Line number %d out of range; \"%s\" has %d lines.", first, file, len(lines))
	}
	last = min(last, len(lines))
	for i := first; i <= last; i++ {
		s.printf("%d\t%s\n", i, lines[i-1])
	}
	s.listFile, s.listModule, s.listFirst, s.listLast = file, mod, first, last
	return nil
}

// listPlace is a file and line to list, with the module whose line table
// named the file (to find it on disk).
type listPlace struct {
	file string
	line int
	mod  *frames.Module
}

// listLocation resolves list's argument: LINE, FILE:LINE, FUNCTION or
// *ADDR.
func (s *Session) listLocation(spec string) (listPlace, error) {
	spec = strings.TrimSpace(spec)
	if n, err := strconv.Atoi(spec); err == nil {
		file := s.defaultFile()
		if file == "" {
			return listPlace{}, errors.New("No default source file; list FILE:LINE.")
		}
		mod := s.listModule
		if s.listFile == "" {
			mod = s.selectedModule()
		}
		return listPlace{file, n, mod}, nil
	}
	sp, err := s.space()
	if err != nil {
		return listPlace{}, err
	}
	if f, l, ok := strings.Cut(spec, ":"); ok {
		n, err := strconv.Atoi(l)
		if err != nil {
			return listPlace{}, fmt.Errorf("Invalid line number %q in %s (FILE:LINE).", l, spec)
		}
		for _, m := range mainFirst(sp) {
			for _, r := range moduleRuns(m) {
				if sameFile(r.file, f) {
					return listPlace{r.file, n, m}, nil
				}
			}
		}
		return listPlace{}, fmt.Errorf("No source file named %s.", f)
	}
	loc, err := s.resolveLocation(spec)
	if err != nil {
		return listPlace{}, err
	}
	m := sp.Modules.Find(loc.addrs[0])
	if loc.file == "" && m != nil {
		sym := m.Symbolize(loc.addrs[0])
		loc.file, loc.line = sym.File, sym.Line
	}
	if loc.file == "" {
		return listPlace{}, fmt.Errorf("No line number information available for %s.", spec)
	}
	return listPlace{loc.file, loc.line, m}, nil
}

// selectedModule is the module of the selected frame's code, or nil.
func (s *Session) selectedModule() *frames.Module {
	n, tr, err := s.selected()
	if err != nil {
		return nil
	}
	return tr.Space().Modules.Find(tr.Frames[n].LookupPC())
}

// cmdDirectory implements "directory [DIR...]": add directories to search
// for source files, or without DIR forget them.
func cmdDirectory(s *Session, args string) error {
	dirs := strings.Fields(args)
	if len(dirs) == 0 {
		s.srcDirs = nil
		s.printf("Source directories searched: the current directory, the program's directory and its parents.\n")
		return nil
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Errorf("%s: not a directory.", d)
		}
	}
	s.srcDirs = append(dirs, s.srcDirs...)
	s.sources = nil
	s.printf("Source directories searched: %s, then the current directory, the program's directory and its parents.\n", strings.Join(s.srcDirs, ":"))
	return nil
}
