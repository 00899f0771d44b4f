package frames

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// Module is one ELF file mapped into the target: the main executable, a
// shared library or the vDSO. Its unwind data and symbols are loaded once,
// lazily, the first time a PC in it is unwound or symbolized: the ELF file
// is opened on first use (OpenPath, else Path, else the ELF bytes), then
// each kind of data (SFrame, CFI, symbols, DWARF lines) on its own first
// use (data.go), and its machine (Arch) with the file. A Module is safe for concurrent use; set its exported
// fields before first use and do not change them afterwards.
type Module struct {
	// Name is the file's base name ("libc.so.6", "[vdso]").
	Name string
	// Path is the file's path as the target sees it (/proc/PID/maps).
	Path string
	// OpenPath is the path sfdbg opens, e.g. "/proc/PID/root/usr/lib/...";
	// empty for modules given as bytes (ELF).
	OpenPath string
	// ELF holds the file's bytes for modules not read from a path (the vDSO
	// read from target memory, tests).
	ELF []byte
	// Opened, when set, is the file at OpenPath already open and
	// classified (elfobj.Open): the module reads it rather than opening
	// the path again, and leaves closing it to its opener, which must not
	// close it before the module's last use.
	Opened *elfobj.File
	// Off and Size, when Size is not 0, say that the ELF file is the Size
	// bytes at file offset Off of the file at OpenPath (else Path): a
	// member of an ar archive (elfobj.Member).
	Off, Size int64
	// Start and End bound the runtime addresses of the module's mappings.
	Start, End uint64
	// Bias is the load bias: runtime address = link-time address + Bias.
	Bias uint64

	once     sync.Once
	prefetch atomic.Bool // Prefetch has started
	memo     sync.Map    // Memo's values, by key
	data     *moduleData
	err      error // the error opening the file (set early by ModulesFromMappings when it cannot be opened)
	// eagerDWARF makes the line table read the whole of the DWARF
	// (loadLines) rather than the units asked for (loadSparse): the
	// reference tests compare the two against.
	eagerDWARF bool
}

// Memo returns the value stored under key on the module, building it with
// build on first use: data other packages derive from the module (a static
// check's findings) lives on the module and goes with it, not in a
// package-level cache that would keep every module ever seen. key is
// compared as a map key (use an unexported type of the caller's package);
// build may run more than once when called concurrently, one value wins.
func (m *Module) Memo(key any, build func() any) any {
	if v, ok := m.memo.Load(key); ok {
		return v
	}
	v, _ := m.memo.LoadOrStore(key, build())
	return v
}

// Contains reports whether pc lies in the module's mappings.
func (m *Module) Contains(pc uint64) bool { return pc >= m.Start && pc < m.End }

// Modules is the set of modules of an address space, sorted by Start.
type Modules struct {
	list []*Module
}

// NewModules returns a set of the given modules.
func NewModules(mods ...*Module) *Modules {
	ms := &Modules{list: append([]*Module(nil), mods...)}
	sort.Slice(ms.list, func(i, j int) bool { return ms.list[i].Start < ms.list[j].Start })
	return ms
}

// List returns the modules sorted by start address.
func (ms *Modules) List() []*Module { return ms.list }

// Find returns the module containing pc, or nil.
func (ms *Modules) Find(pc uint64) *Module {
	if ms == nil {
		return nil
	}
	i := sort.Search(len(ms.list), func(i int) bool { return ms.list[i].End > pc })
	if i < len(ms.list) && ms.list[i].Contains(pc) {
		return ms.list[i]
	}
	return nil
}

// Space is what an unwinder reads: the target's memory and its modules.
type Space struct {
	Mem     Memory
	Modules *Modules
	// PACMask is, on AArch64, the bits of a code address that hold a
	// pointer-authentication code (NT_ARM_PAC_MASK's insn_mask, or the
	// process's). 0 means DefaultPACMask.
	PACMask uint64
}

// DefaultPACMask is the PAC mask for a Linux user-space code address with
// a 48-bit virtual address space: bits 48-54 hold the PAC, and with top-byte
// ignore bits 56-63 too (arch/arm64 ptrauth_user_pac_mask, GENMASK(54,
// VA_BITS), and the top byte). Bit 55 selects the address half and stays.
const DefaultPACMask = 0xff7f_0000_0000_0000

// StripPAC removes a pointer-authentication code from a signed AArch64
// code address, as gdb's aarch64_remove_top_bits does: the mask's bits are
// cleared in a user-space address (bit 55 clear) and set in a kernel one.
func (s *Space) StripPAC(addr uint64) uint64 {
	mask := s.PACMask
	if mask == 0 {
		mask = DefaultPACMask
	}
	if addr&(1<<55) != 0 {
		return addr | mask
	}
	return addr &^ mask
}

// Close releases the files of all modules that were opened.
func (ms *Modules) Close() error {
	if ms == nil {
		return nil
	}
	var first error
	for _, m := range ms.list {
		if err := m.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DescribeFrame names the code of frame f the way a debugger names code
// locations: "module!function+0xoff at file.c:123", "module!function+0xoff",
// "module+0xoff" (link-time offset, when no symbol covers the PC) or "0x..."
// (no module). Module, function and line are those of f.LookupPC(), the
// offset is the PC's: a return address past its function's end is
// "module!function+0xsize".
func (sp *Space) DescribeFrame(f *Frame) string { return sp.DescribeAt(f.PC, f.LookupPC()) }

// DescribeAt is DescribeFrame for a frame at pc whose lookup address is
// lookupPC.
func (sp *Space) DescribeAt(pc, lookupPC uint64) string {
	var m *Module
	if sp != nil {
		m = sp.Modules.Find(lookupPC)
	}
	if m == nil {
		return fmt.Sprintf("%#x", pc)
	}
	s := m.SymbolizeAt(pc, lookupPC)
	var b strings.Builder
	if s.Name == "" {
		fmt.Fprintf(&b, "%s+%#x", m.Name, pc-m.Bias)
	} else {
		fmt.Fprintf(&b, "%s!%s+%#x", m.Name, s.Name, s.Offset)
	}
	if s.File != "" {
		fmt.Fprintf(&b, " at %s:%d", filepath.Base(s.File), s.Line)
	}
	return b.String()
}
