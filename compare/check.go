package compare

import (
	"debug/elf"
	"io"
	"sort"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// Finding is one disagreement or observation, at link-time addresses for
// static checks and runtime addresses for live ones.
type Finding struct {
	Kind     Kind   `json:"kind"`
	Module   string `json:"module"`
	Function string `json:"function,omitempty"`
	// FuncStart is the function's start address (SFrame FDE, else CFI FDE).
	FuncStart uint64 `json:"func_start"`
	// PC and PCEnd bound the affected PCs, [PC, PCEnd).
	PC    uint64 `json:"pc"`
	PCEnd uint64 `json:"pc_end,omitempty"`
	// Instructions is the number of instruction boundaries affected.
	Instructions int `json:"instructions,omitempty"`
	// Shift is, for KindFREBoundary, the SFrame FRE start minus the CFI row
	// start in bytes (positive: the FRE starts late).
	Shift int64 `json:"shift,omitempty"`
	// Frame is the frame level for live findings, -1 for static ones.
	Frame int `json:"frame"`
	// Rules are the raw rules each method used, for humans, by
	// frames.Method ("cfa=rsp+16 ra=c-8 fp=u"; "" where the method gave
	// none). JSON (findingJSON): "rules", an object keyed by method name,
	// and as before "sframe", "cfi" and "fp".
	Rules MethodRules `json:"-"`
	// Message says what is wrong in a sentence.
	Message string `json:"message"`
	// Section and SectionOff locate FuncStart in a relocatable object
	// (ET_REL), whose addresses are those sfdbg places its sections at
	// (elfobj.Link): the section's name and FuncStart's offset in it in
	// bytes; empty for linked files and for whole-file findings.
	Section    string `json:"section,omitempty"`
	SectionOff uint64 `json:"section_offset,omitempty"`
	// Known names the known producer fault (KnownFault.Text, and how the
	// producer was identified) whose signature the finding matches;
	// KnownID is its id. Empty when none does.
	Known   string `json:"known,omitempty"`
	KnownID string `json:"known_id,omitempty"`
	// Class names the class of a code-oracle finding whose signature the
	// instructions around it match (Classes), "" when none does.
	Class string `json:"class,omitempty"`
	// Suppressed names the suppression rule ("FILE:LINE") that matched
	// (check --suppressions); Baselined is set when the finding was in
	// the --baseline report. Neither fails the run (Gate).
	Suppressed string `json:"suppressed,omitempty"`
	Baselined  bool   `json:"baselined,omitempty"`

	ev    *evidence // the rows judged, for known faults (static checks)
	place string    // the section holding FuncStart (static checks)
}

// Summary counts what a check covered and found.
type Summary struct {
	FunctionsSFrame int    `json:"functions_sframe"`
	FunctionsCFI    int    `json:"functions_cfi"`
	FunctionsBoth   int    `json:"functions_compared"`
	BytesSFrame     uint64 `json:"bytes_sframe"`
	BytesCFI        uint64 `json:"bytes_cfi"`
	Instructions    int    `json:"instructions_compared"`
	// ByKind counts findings by kind.
	ByKind map[Kind]int `json:"by_kind"`
	// Disagreements counts findings for which Kind.Disagreement holds.
	Disagreements int `json:"disagreements"`
	// Code counts what the code oracle judged, when the check had one
	// (CheckOptions.Code); nil otherwise.
	Code *CodeSummary `json:"code,omitempty"`
	// EHABI counts what an ARM EHABI check covered (FormatEHABI); nil
	// for SFrame.
	EHABI *EHABISummary `json:"ehabi,omitempty"`
}

func (s *Summary) add(f Finding) {
	if s.ByKind == nil {
		s.ByKind = map[Kind]int{}
	}
	s.ByKind[f.Kind]++
	if f.Kind.Disagreement() {
		s.Disagreements++
	}
}

// FileReport is the result of checking one ELF file.
type FileReport struct {
	File     string    `json:"file"`
	Version  int       `json:"sframe_version,omitempty"`
	ABI      string    `json:"abi,omitempty"`
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
	// Err is set when the file could not be checked (unreadable, not ELF,
	// no .sframe); then the rest is empty.
	Err string `json:"error,omitempty"`
	// NoSFrame is set when the file has no SFrame section: then either its
	// CFI alone was judged against the code (no Err), or Err says why not.
	NoSFrame bool `json:"no_sframe,omitempty"`
	// NoUnwindTables is set, with NoSFrame and Err, when the file has
	// neither SFrame nor CFI that could be judged (a Go or Free Pascal
	// program, a stub): nothing in it claims anything about the stack.
	NoUnwindTables bool `json:"no_unwind_tables,omitempty"`
	// OtherMachine is set, with Err, when the file is for a machine sfdbg
	// does not know (i386 in a multilib package; a Go object's EM_NONE).
	OtherMachine bool `json:"other_machine,omitempty"`
	// Acceptance holds, when check computed them (CheckOptions.Consumers),
	// the verdicts of the Linux kernel's loader and of libsframe on the
	// section (AddAcceptance).
	Acceptance []sframe.Acceptance `json:"acceptance,omitempty"`
	// AcceptanceNotJudged says why the verdicts were not computed: a
	// relocatable object, which neither the kernel nor libsframe reads.
	AcceptanceNotJudged string `json:"acceptance_not_judged,omitempty"`
	// Format is "ctf_frame" (FormatCTFFrame) when the section checked was
	// the pre-release CTF Frame format, read as SFrame v1; empty for SFrame.
	Format string `json:"format,omitempty"`

	// Producers names the tools .comment names, and "GNU ld"/"GNU as"
	// where the file does not rule them out (producerSet.names): what a
	// suppression rule's producer glob is matched against.
	Producers []string `json:"producers,omitempty"`
	// Gate counts how the findings were classified for the exit status
	// (Gate.Classify); nil before.
	Gate *GateCounts `json:"gate,omitempty"`
}

// CFISource gives the CFI of a module at link-time addresses: the ranges of
// its FDEs, and the rows of a range in address order, each with Start/End.
type CFISource interface {
	FDERanges() ([]Range, error)
	Rows(start, end uint64) ([]frames.Row, error)
}

// Range is a half-open address range [Start, End).
type Range struct{ Start, End uint64 }

// Symbolizer names the function containing a link-time address ("" if none).
type Symbolizer func(addr uint64) string

// checker holds the state of one static check.
type checker struct {
	name   string
	f      *elf.File
	layout *elfobj.Layout // addresses of f's sections (an object's are synthetic)
	arch   *arch.Arch     // f's machine
	sec    *sframe.Section
	cfi    CFISource
	sym    Symbolizer
	rep    *FileReport
	text   []textRange
	code   []byte // the bytes of the span read last (codeSpan)
	// spanBuf holds a span of a section not read whole (funcCode).
	spanBuf []byte
	// codeSpan is the span c.code holds (funcCode).
	codeSpan Range
	// oracle analyzes the file's functions (CheckOptions.Code), or nil.
	oracle CodeFuncs
	// cfiOnlyInsts is judgeCFIOnly's buffer of instruction boundaries,
	// sfBuf sfRows' of rows.
	cfiOnlyInsts []uint64
	sfBuf        []frames.Row
	// exec holds the executable ranges (execRanges); clips and outside,
	// per FDE, its range clipped to them (clipFDEs); freLeft the FRE
	// decodes the check may still make (newFREBudget).
	exec    []Range
	clips   []Range
	outside []bool
	freLeft int64
	// noFDEWhy is noFDEReason's answer, computed on first use.
	noFDEWhy string
}

// textRange is an executable section read on demand through r: whole,
// once (data), or a span at a time (partial: not read whole).
type textRange struct {
	addr, size uint64
	r          io.ReaderAt
	data       []byte
	partial    bool
}

// maxDecodeSpan bounds, in bytes, the code of one FDE read and decoded at
// once; a longer span (no real function is that long) is compared at FRE
// and CFI row boundaries instead.
const maxDecodeSpan = 64 << 20

// sfRows returns the SFrame rows of an FDE as common rows with runtime
// ranges equal to link-time ones, in a buffer of c's: valid until the
// next call.
func (c *checker) sfRows(fde *sframe.FDE) ([]frames.Row, error) {
	rows := c.sfBuf[:0]
	defer func() { c.sfBuf = rows[:0] }()
	it := c.sec.FREs(fde)
	for it.Next() {
		fre := it.FRE()
		row, err := frames.SFrameRow(nil, c.sec, fde, fre, it.Index())
		if err != nil {
			return rows, err
		}
		row.Start = fde.Start + uint64(fre.StartOff)
		if n := len(rows); n > 0 {
			rows[n-1].End = row.Start
		}
		row.End = fde.End()
		rows = append(rows, row)
	}
	return rows, it.Err()
}

// rowAt returns the index of the row covering pc in rows sorted by Start,
// or -1.
func rowAt(rows []frames.Row, pc uint64) int {
	i := sort.Search(len(rows), func(i int) bool { return rows[i].Start > pc }) - 1
	if i >= 0 && pc < rows[i].End {
		return i
	}
	return -1
}

// add records a finding about a function (FuncStart), located by
// section in a relocatable object.
func (c *checker) add(f Finding) {
	if c.layout != nil {
		if sec, off, ok := c.layout.Locate(f.FuncStart); ok {
			f.place = sec.Name
			if c.layout.Synthetic() {
				f.Section, f.SectionOff = sec.Name, off
			}
		}
	}
	c.addFileWide(f)
}

// addFileWide records a finding about the whole file.
func (c *checker) addFileWide(f Finding) {
	f.Frame = -1
	if f.Module == "" {
		f.Module = c.name
	}
	c.rep.Findings = append(c.rep.Findings, f)
	c.rep.Summary.add(f)
}

func (c *checker) funcName(addr uint64) string {
	if c.sym == nil {
		return ""
	}
	return c.sym(addr)
}
