package frames

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// moduleData is what is loaded from a module's ELF file on first use: its
// SFrame section, CFI, symbols and line table. The ELF file is opened once
// (Module.once); each kind of data is then loaded on its own first use, so
// that unwinding with SFrame never pays for DWARF and symbolizing never pays
// for SFrame.
type moduleData struct {
	file   *elf.File
	closer io.Closer // the open file behind file, nil for in-memory ELF
	// layout gives the file's sections their link-time addresses: their
	// own, or for a relocatable object those elfobj.Link places them at.
	layout *elfobj.Layout
	// arch is the file's machine (ELF header), nil with archErr (an
	// *arch.UnknownMachineError) for one sfdbg does not know.
	arch    *arch.Arch
	archErr error

	sframeOnce sync.Once
	sframe     *sframe.Section
	sframeErr  error

	// cfi is the module's DWARF CFI (.eh_frame, .debug_frame) with every
	// FDE parsed, loaded by loadCFI (cfitab.go) on first use; nil with a
	// nil error when the file has none.
	cfiOnce sync.Once
	cfi     *cfiTable
	cfiErr  error
	// cfiHdr is the module's .eh_frame indexed by .eh_frame_hdr, which
	// reads an FDE only when a PC in it is looked up (loadCFIIndex); nil
	// when the file has no index it can use.
	cfiHdrOnce sync.Once
	cfiHdr     *cfiTable

	symOnce sync.Once
	syms    *symTable // link-time addresses

	nameOnce sync.Once
	byName   map[string]uint64 // function names, aliases included, to link-time addresses; built on first LookupSymbol
	symtab   *elf.File         // the file whose .symtab syms holds: file, or debug

	// debug is the separate debug file (debuginfo.go), looked up once
	// when the module's file has no .symtab or no DWARF line table.
	debugOnce sync.Once
	debug     *elf.File

	lineOnce sync.Once
	lines    *lineTable // nil when the file has no usable DWARF line info
}

// load opens the module's ELF file once. Errors are kept and returned on
// every later call.
func (m *Module) load() (*moduleData, error) {
	m.once.Do(func() {
		if m.err != nil { // set by ModulesFromMappings when the file could not be opened
			return
		}
		d := &moduleData{}
		// The file is read through io.ReaderAt, a section at a time, after
		// sframe.NewELFFile has checked every header against its size; only
		// a regular file is opened (a FIFO would block, /dev/zero never end).
		switch {
		case m.ELF != nil:
			d.file, m.err = sframe.NewELFFile(bytes.NewReader(m.ELF), int64(len(m.ELF)))
		case m.Opened != nil || m.OpenPath != "" || m.Path != "":
			p := m.OpenPath
			if p == "" {
				p = m.Path
			}
			var f *os.File
			var size int64
			var err error
			if m.Opened != nil {
				f, size = m.Opened.R, m.Opened.Size
			} else {
				f, size, err = sframe.OpenFile(p)
			}
			if m.err = err; err == nil {
				var r io.ReaderAt = f
				if m.Size != 0 { // an archive member
					if m.Off < 0 || m.Size < 0 || m.Off > size || m.Size > size-m.Off {
						m.err = fmt.Errorf("member of %d bytes at file offset %#x lies outside the %d-byte file", m.Size, m.Off, size)
					}
					r, size = io.NewSectionReader(f, m.Off, m.Size), m.Size
				}
				if m.err == nil {
					d.file, m.err = sframe.NewELFFile(r, size)
				}
				switch {
				case m.Opened != nil: // its opener closes it
				case m.err != nil:
					f.Close()
				default:
					d.closer = f
				}
			}
		default:
			m.err = errors.New("module has neither a path nor ELF bytes")
		}
		if m.err != nil {
			m.err = fmt.Errorf("module %s: %w", m.Name, m.err)
			logrus.Debugf("frames: %v", m.err)
			return
		}
		logrus.Debugf("frames: opened module %s (bias %#x)", m.Name, m.Bias)
		d.layout = elfobj.Link(d.file)
		if d.arch, d.archErr = arch.For(d.file.Machine, d.file.ByteOrder); d.archErr != nil {
			d.archErr = fmt.Errorf("module %s: %w", m.Name, d.archErr)
		}
		m.data = d
	})
	return m.data, m.err
}

// File returns the module's ELF file, opening it on first use. The file
// belongs to the module: callers must not close it.
func (m *Module) File() (*elf.File, error) {
	d, err := m.load()
	if err != nil {
		return nil, err
	}
	return d.file, nil
}

// Arch returns the machine of the module's ELF file, opening it on first
// use. A machine sfdbg does not know is an error wrapping an
// *arch.UnknownMachineError: it is refused, never taken for another.
func (m *Module) Arch() (*arch.Arch, error) {
	d, err := m.load()
	if err != nil {
		return nil, err
	}
	return d.arch, d.archErr
}

// Layout returns the link-time addresses of the module's sections
// (elfobj.Layout): the file's own, or for a relocatable object (ET_REL)
// the ones sfdbg places its sections at, against which its SFrame, CFI and
// symbols are read. It opens the file on first use.
func (m *Module) Layout() (*elfobj.Layout, error) {
	d, err := m.load()
	if err != nil {
		return nil, err
	}
	return d.layout, nil
}

// Close releases the module's open file. The module must not be used
// afterwards.
func (m *Module) Close() error {
	if m.data == nil {
		return nil
	}
	if lt := m.data.lines; lt != nil {
		if lt.sparse != nil {
			lt.sparse.secs.close() // its whole-file table's too
		}
		if lt.secs != nil {
			lt.secs.close()
		}
	}
	if m.data.debug != nil {
		m.data.debug.Close()
	}
	if m.data.closer != nil {
		return m.data.closer.Close()
	}
	return nil
}

// SFrame returns the module's SFrame section (FDE start addresses are
// link-time addresses: subtract Bias from runtime PCs), loading it on first
// use. A module without one returns an error wrapping sframe.ErrNoSection;
// an unreadable file or a malformed section returns that error; a file of
// a machine sfdbg does not know returns Arch's error.
func (m *Module) SFrame() (*sframe.Section, error) {
	d, err := m.load()
	if err != nil {
		return nil, err
	}
	if d.archErr != nil {
		return nil, d.archErr
	}
	d.sframeOnce.Do(func() {
		d.sframe, d.sframeErr = d.layout.SFrame()
		if d.sframeErr == nil {
			// The section's rules are read by its ABI's registers, the
			// file's code by its machine's: they must be one machine.
			if a := SFrameArch(d.sframe.ABI); a != d.arch {
				d.sframe, d.sframeErr = nil, &sframe.FormatError{Off: 4, Msg: fmt.Sprintf("ABI %v is not the file's machine (%s, %s)",
					d.sframe.ABI, d.arch.Name, orderName(d.arch.ByteOrder))}
			}
		}
		if d.sframeErr != nil {
			logrus.Debugf("frames: %s: %v", m.Name, d.sframeErr)
		}
	})
	return d.sframe, d.sframeErr
}

// cfiData returns the module's DWARF CFI table, loading it on first use. A
// module without CFI returns nil, nil. With perPC, for lookups at single
// PCs, it is the table loadCFIIndex (cfitab.go) builds over .eh_frame_hdr,
// which parses only the FDEs looked up, when the file has an index it can
// use; otherwise, and for walks over the whole module (CFIRows, CFIFDEs),
// it is the table of every FDE that loadCFI (cfitab.go) parses.
func (m *Module) cfiData(perPC bool) (*cfiTable, error) {
	d, err := m.load()
	if err != nil {
		return nil, err
	}
	if perPC {
		d.cfiHdrOnce.Do(func() {
			var why error
			if d.cfiHdr, why = loadCFIIndex(d.layout, m.Bias); why != nil {
				logrus.Debugf("frames: %s: CFI: parsing all of it: %v", m.Name, why)
			}
		})
		if d.cfiHdr != nil {
			return d.cfiHdr, nil
		}
	}
	d.cfiOnce.Do(func() {
		d.cfi, d.cfiErr = loadCFI(d.layout, m.Bias)
		if d.cfiErr != nil {
			logrus.Debugf("frames: %s: CFI: %v", m.Name, d.cfiErr)
		}
	})
	return d.cfi, d.cfiErr
}

// Prefetch starts loading the module's symbol table and DWARF line table
// in the background, once: a caller that will print a trace calls it when
// an unwind first enters the module, so that loading overlaps the rest of
// the unwind (on another core) instead of following it. It returns at once;
// Symbolize waits for what is still loading.
func (m *Module) Prefetch() {
	if m.prefetch.Swap(true) {
		return
	}
	go func() {
		d, err := m.load()
		if err != nil {
			return
		}
		m.symbols(d)
		m.lineData(d)
	}()
}

// Symbol is what is known about the code at a PC.
type Symbol struct {
	// Module is the name of the module holding the PC, "" if none.
	Module string
	// Name is the function's name as gdb names a frame: the DWARF
	// subprogram's (Module.FunctionName: "weigh" in weigh.isra.0) where
	// DWARF covers the PC, else the ELF symbol's; "" if unknown. PLT
	// entries are named "puts@plt" as gdb does.
	Name string
	// ELFName is the ELF symbol (.symtab, .dynsym) holding the PC
	// ("weigh.isra.0", "__qsort_r"), as gdb's "info symbol" names it;
	// "" if none.
	ELFName string
	// Addr is the function's runtime start address and Size its size in
	// bytes (0, 0 if unknown).
	Addr, Size uint64
	// Offset is PC - Addr in bytes.
	Offset uint64
	// File and Line locate the PC in the source (DWARF line table; "", 0 if
	// unknown). File is the full path the DWARF data gives.
	File string
	Line int
}

// Symbolize describes pc (a runtime address in the module): its function
// from the merged .symtab and .dynsym and, if the file has DWARF line
// information, its file and line. Loading happens on first use. For a
// frame, use SymbolizeAt with its lookup PC (Frame.LookupPC).
func (m *Module) Symbolize(pc uint64) Symbol {
	return m.SymbolizeAt(pc, pc)
}

// SymbolizeAt describes the frame at pc whose lookup address is lookupPC
// (Frame.PC and Frame.LookupPC(): pc-1 for a return address): the function,
// file and line are those of lookupPC, as gdb's find_frame_funname and
// find_frame_sal take them, and Offset is pc's offset from that function's
// start. A return address one past its function's end (a call to a
// noreturn function last) is thus named after the function of the call,
// with Offset equal to its size.
func (m *Module) SymbolizeAt(pc, lookupPC uint64) Symbol {
	s := Symbol{Module: m.Name}
	d, err := m.load()
	if err != nil {
		return s
	}
	t := m.symbols(d)
	if i := t.find(lookupPC - m.Bias); i >= 0 {
		s.Name, s.Addr, s.Size, s.Offset = t.name(i), t.addrs[i]+m.Bias, t.sizes[i], pc-m.Bias-t.addrs[i]
		s.ELFName = s.Name
	}
	if lt := m.lineData(d); lt != nil {
		s.File, s.Line = lt.find(lookupPC - m.Bias)
		if name, ok := m.FunctionName(lookupPC); ok {
			s.Name = name
		}
	}
	return s
}

// FuncName returns the name of the function holding pc and pc's offset
// into it, without touching the line table. ok is false when no symbol
// covers pc.
func (m *Module) FuncName(pc uint64) (name string, off uint64, ok bool) {
	d, err := m.load()
	if err != nil {
		return "", 0, false
	}
	t := m.symbols(d)
	if i := t.find(pc - m.Bias); i >= 0 {
		return t.name(i), pc - m.Bias - t.addrs[i], true
	}
	return "", 0, false
}

// LookupSymbol returns the runtime address and size of the function named
// name, or ok false.
func (m *Module) LookupSymbol(name string) (addr, size uint64, ok bool) {
	d, err := m.load()
	if err != nil {
		return 0, 0, false
	}
	t := m.symbols(d)
	d.nameOnce.Do(func() {
		// Every name of a function, aliases included (the table keeps one
		// name per address: with a debug file's .symtab, libc's
		// "clock_gettime" is an alias of "__clock_gettime"), and without
		// its symbol version ("memcpy@@GLIBC_2.14" is also "memcpy").
		d.byName = make(map[string]uint64, len(t.addrs))
		add := func(name string, addr uint64) {
			if i := strings.IndexByte(name, '@'); i > 0 && !strings.HasSuffix(name, "@plt") {
				name = name[:i]
			}
			if _, dup := d.byName[name]; !dup && name != "" {
				d.byName[name] = addr
			}
		}
		for i := range t.addrs {
			add(t.name(i), t.addrs[i])
		}
		for _, tab := range [...]rawSymtab{readSymtab(d.symtab, elf.SHT_SYMTAB), readSymtab(d.file, elf.SHT_DYNSYM)} {
			for i, n := 0, tab.len(); i < n; i++ {
				sym := tab.sym(i)
				typ := elf.ST_TYPE(sym.info)
				// In an object a function's value is its offset in its section, 0 included.
				if (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) && (sym.value != 0 || d.layout.Synthetic()) && sym.shndx != uint16(elf.SHN_UNDEF) {
					add(tab.name(sym.name), d.layout.SymbolAddr(sym.value, elf.SectionIndex(sym.shndx)))
				}
			}
		}
	})
	a, found := d.byName[name]
	if !found {
		return 0, 0, false
	}
	if i := t.find(a); i >= 0 && t.addrs[i] == a {
		size = t.sizes[i]
	}
	return a + m.Bias, size, true
}

// cloneSuffix matches the suffixes GCC gives the copies of a function it
// specializes (gcc/ipa-*.cc): weigh.isra.0, scale.constprop.0,
// check.part.0, add_path.constprop.0.isra.0, f.lto_priv.0. A .cold
// partition is not a copy: it has no entry of its own.
var cloneSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\.(isra|constprop|part|lto_priv|localalias|specialized)\.[0-9]+)+$`)
})

// CloneBase returns the name of the function a GCC clone was made of
// ("weigh" for weigh.isra.0); ok is false for a name without a clone
// suffix.
func CloneBase(name string) (base string, ok bool) {
	for i := 1; i < len(name); i++ {
		if name[i] == '.' && cloneSuffix().MatchString(name[i:]) {
			return name[:i], true
		}
	}
	return "", false
}

// LookupFunction returns the runtime entry addresses of the function
// called name in the module, as gdb resolves a function name to
// locations: the symbol of that name, and the clones GCC made of it
// (name.isra.0, name.constprop.1, name.part.0), sorted. It is nil when
// there is none.
func (m *Module) LookupFunction(name string) []uint64 {
	var addrs []uint64
	if a, _, ok := m.LookupSymbol(name); ok {
		addrs = append(addrs, a)
	}
	d, err := m.load()
	if err != nil || name == "" {
		return addrs
	}
	for n, a := range d.byName { // filled by LookupSymbol
		if rest, ok := strings.CutPrefix(n, name); ok && cloneSuffix().MatchString(rest) {
			addrs = append(addrs, a+m.Bias)
		}
	}
	slices.Sort(addrs)
	return slices.Compact(addrs)
}

// symbols loads the merged symbol table once.
func (m *Module) symbols(d *moduleData) *symTable {
	d.symOnce.Do(func() {
		t0 := time.Now()
		symtab := d.file
		if !hasSection(d.file, ".symtab") {
			if df := m.debugFile(d); df != nil && hasSection(df, ".symtab") {
				symtab = df
			}
		}
		d.symtab = symtab
		path := symCachePath(d.file, symtab)
		if path != "" {
			if d.syms = readSymCache(path); d.syms != nil {
				logrus.Debugf("frames: %s: %d symbols from the cache in %v", m.Name, len(d.syms.addrs), time.Since(t0))
				return
			}
		}
		d.syms = loadSymbols(d.layout, symtab)
		logrus.Debugf("frames: %s: %d symbols in %v", m.Name, len(d.syms.addrs), time.Since(t0))
		if path != "" {
			writeCacheFile(path, encodeSymCache(d.syms))
		}
	})
	return d.syms
}

// orderName names a byte order as the ELF header's EI_DATA does.
func orderName(o binary.ByteOrder) string {
	if o == binary.BigEndian {
		return "big-endian"
	}
	return "little-endian"
}
