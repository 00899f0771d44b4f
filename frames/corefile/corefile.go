// Package corefile reads a Linux ELF core file (ET_CORE) as an address space
// the unwinders read like a live process's: memory from its PT_LOAD
// segments (and from the mapped files where the core left a segment out),
// threads and registers from NT_PRSTATUS notes, mapped files from NT_FILE,
// the program's name from NT_PRPSINFO and the auxiliary vector from NT_AUXV.
//
// The note layouts are those of the Linux kernel's ELF core writer
// (fs/binfmt_elf.c fill_note_info, include/uapi/linux/elfcore.h struct
// elf_prstatus and elf_prpsinfo, fill_files_note for NT_FILE), which gdb's
// gcore and qemu-user (linux-user/elfload.c) write the same way. x86-64,
// AArch64 (either byte order) and s390x (big-endian) ELFCLASS64 cores and
// 32-bit ARM ELFCLASS32 cores are read; each field is decoded in the
// core's byte order, and every pointer-sized field (pr_reg's registers,
// the auxiliary vector, NT_FILE's fields) has the core's class's size.
package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"

	"github.com/sfdbg/sfdbg/frames"
)

// FormatError reports a malformed core file at a byte offset of the file.
type FormatError struct {
	Path string
	Off  int64
	Msg  string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("core %s: at byte %#x: %s", e.Path, e.Off, e.Msg)
}

// ErrUnsupported is wrapped by the errors of cores sfdbg cannot unwind yet
// (another architecture, 32-bit, big-endian).
var ErrUnsupported = errors.New("unsupported core")

// Thread is one NT_PRSTATUS note: a thread and its registers at the time of
// the dump.
type Thread struct {
	Tid    int
	Signal int // pr_cursig: the signal the thread was stopped by (0: none)
	// Regs holds the registers that have a DWARF number, by that number.
	Regs frames.Regs
	// Raw is pr_reg, the machine's register struct, in its kernel order
	// (Core.RegNames).
	Raw []uint64
}

// FileMapping is one entry of NT_FILE: a file mapped at [Start, End) from
// byte Offset of the file at Path (the path the dumped process saw).
type FileMapping struct {
	Start, End, Offset uint64
	Path               string
}

// Segment is one PT_LOAD segment: the memory [Addr, Addr+MemSize) of which
// the first FileSize bytes are in the core at byte Off.
type Segment struct {
	Addr, MemSize, FileSize uint64
	Off                     uint64
	Flags                   elf.ProgFlag
}

// Core is an opened core file. It implements frames.Memory over its
// segments. Close it when done.
type Core struct {
	Path    string
	Machine elf.Machine
	Pid     int    // the pid of the first NT_PRSTATUS (the thread that died)
	Name    string // pr_fname of NT_PRPSINFO (the comm, at most 15 bytes)
	Args    string // pr_psargs of NT_PRPSINFO
	Threads []Thread
	Files   []FileMapping
	// Segments are the PT_LOAD segments sorted by address.
	Segments []Segment
	// Auxv is NT_AUXV as (type, value) pairs.
	Auxv [][2]uint64
	// RegNames names the fields of Thread.Raw.
	RegNames []string

	// PACMask is NT_ARM_PAC_MASK's insn_mask on AArch64 (0 without one):
	// the bits of a code address that hold a pointer-authentication code.
	PACMask uint64
	// Order is the core's byte order.
	Order binary.ByteOrder
	// Siginfo is the NT_SIGINFO note: the signal that killed the process,
	// its si_code and fault address; nil when the core has none (then
	// Threads[0].Signal, pr_cursig, is all there is).
	Siginfo *Siginfo

	// arch is the core's machine, whose Core says where pr_reg's
	// registers are; word32 is set when its pointers are 4 bytes (an
	// ELFCLASS32 core), not 8.
	arch   *arch.Arch
	word32 bool

	f     io.ReaderAt
	close func() error
	size  int64
	// backing files for memory the core leaves out (Space sets them), and
	// the files opened for them, each once.
	backing []backing
	opened  []*os.File
}

// Size limits: a note segment larger than this is refused before it is read.
const maxNotes = 64 << 20

// Open reads the headers and notes of the core file at path. Errors are
// *FormatError for a malformed file (naming the byte offset), or wrap
// ErrUnsupported.
func Open(path string) (*Core, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("core %s: not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	c, err := newCore(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	c.close = f.Close
	return c, nil
}

// newCore reads the headers and notes of the core file of size bytes in r;
// path names it in errors. Errors are those of Open.
func newCore(r io.ReaderAt, size int64, path string) (*Core, error) {
	c := &Core{Path: path, f: r, size: size}
	// The header tables are checked against size before debug/elf reads
	// them: debug/elf alone allocates up to 10 MiB for a table a 64-byte
	// header declares. Segments are checked below, naming their header.
	sr := io.NewSectionReader(r, 0, size)
	err := sframe.CheckELFHeaders(sr, size)
	var ef *elf.File
	if err == nil {
		ef, err = elf.NewFile(sr)
	}
	if err != nil {
		return nil, &FormatError{path, 0, "not an ELF core: " + err.Error()}
	}
	if ef.Type != elf.ET_CORE {
		return nil, &FormatError{path, 0x10, fmt.Sprintf("ELF type %v, not ET_CORE", ef.Type)}
	}
	c.Machine, c.Order = ef.Machine, ef.ByteOrder
	// The class must be the machine's: a 64-bit machine's registers in
	// a 32-bit core (or the reverse) are not where its layout says.
	class := map[int]elf.Class{4: elf.ELFCLASS32, 8: elf.ELFCLASS64}
	if a, err := arch.For(ef.Machine, ef.ByteOrder); err == nil && ef.Class == class[a.PtrSize] && a.Core.Names != nil {
		c.arch, c.RegNames, c.word32 = a, a.Core.Names, a.PtrSize == 4
	}
	if c.arch == nil {
		return nil, fmt.Errorf("core %s: %w: %v %v %v (x86-64, AArch64 and s390x 64-bit cores and 32-bit ARM cores are read)",
			path, ErrUnsupported, ef.Machine, ef.Class, ef.Data)
	}
	// e_phoff and the size of a program header (ELF gABI, "ELF Header").
	phoff, phentsize := int64(c.uword(headerField(r, 32))), int64(56)
	if c.word32 {
		phoff, phentsize = int64(c.uword(headerField(r, 28))), 32
	}
	var notes uint64 // bytes of PT_NOTE segments read so far
	for i, p := range ef.Progs {
		ph := phoff + int64(i)*phentsize
		if p.Off > uint64(c.size) || p.Filesz > uint64(c.size)-p.Off {
			return nil, &FormatError{path, ph, fmt.Sprintf("program header %d: segment [%#x, %#x) beyond the end of the file (%d bytes)",
				i, p.Off, p.Off+p.Filesz, c.size)}
		}
		switch p.Type {
		case elf.PT_LOAD:
			if p.Filesz > p.Memsz {
				return nil, &FormatError{path, ph, fmt.Sprintf("program header %d: file size %#x larger than memory size %#x", i, p.Filesz, p.Memsz)}
			}
			c.Segments = append(c.Segments, Segment{Addr: p.Vaddr, MemSize: p.Memsz, FileSize: p.Filesz, Off: p.Off, Flags: p.Flags})
		case elf.PT_NOTE:
			// Program headers may all name the same bytes: bound the notes
			// read in all by the file's size, not only each segment.
			if notes += p.Filesz; p.Filesz > maxNotes || notes > uint64(c.size) {
				return nil, &FormatError{path, ph, fmt.Sprintf("note segment of %d bytes makes %d bytes of notes in a file of %d bytes (segments overlap)", p.Filesz, notes, c.size)}
			}
			buf := make([]byte, p.Filesz)
			if n, err := r.ReadAt(buf, int64(p.Off)); n < len(buf) {
				return nil, &FormatError{path, int64(p.Off), fmt.Sprintf("reading notes: %v", err)}
			}
			if err := c.parseNotes(buf, int64(p.Off)); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(c.Segments, func(i, j int) bool { return c.Segments[i].Addr < c.Segments[j].Addr })
	if len(c.Threads) == 0 {
		return nil, &FormatError{path, 0, "no NT_PRSTATUS note: the core has no thread"}
	}
	c.Pid = c.Threads[0].Tid
	return c, nil
}

// headerField reads 8 bytes of the ELF header at off (NewELFFile checked
// that the header is there).
func headerField(f io.ReaderAt, off int64) []byte {
	b := make([]byte, 8)
	f.ReadAt(b, off)
	return b
}

// Close closes the core file and the files opened for its memory.
func (c *Core) Close() error {
	for _, f := range c.opened {
		f.Close()
	}
	c.backing, c.opened = nil, nil
	if c.close == nil {
		return nil
	}
	return c.close()
}

// Note types of the "CORE" notes, and of the "LINUX" note
// NT_ARM_PAC_MASK (include/uapi/linux/elf.h).
const (
	ntPRSTATUS    = 1
	ntPRPSINFO    = 3
	ntAUXV        = 6
	ntFILE        = 0x46494c45
	ntSIGINFO     = 0x53494749
	ntARMPACMask  = 0x406
	pacMaskLength = 16 // struct user_pac_mask: data_mask, insn_mask
)

// Offsets in the 64-bit struct elf_prstatus (before pr_reg, whose offset
// and size the machine's arch.Core gives) and elf_prpsinfo (136 bytes),
// and in the 32-bit ones of 32-bit ARM (pr_pid after a 4-byte pr_sigpend
// and pr_sighold; elf_prpsinfo of 124 bytes, its pr_uid and pr_gid 16-bit).
const (
	prstatusCursig  = 12
	prstatusPid     = 32
	prpsinfoFname   = 40
	prpsinfoArgs    = 56
	prpsinfoSize    = 136
	prstatusPid32   = 24
	prpsinfoFname32 = 28
	prpsinfoArgs32  = 44
	prpsinfoSize32  = 124
)

// wordSize is the size of the core's pointers in bytes: 4 in an
// ELFCLASS32 core, 8 in an ELFCLASS64 one.
func (c *Core) wordSize() int {
	if c.word32 {
		return 4
	}
	return 8
}

// uword reads a pointer-sized word of the core (wordSize bytes) at the
// start of b, which must hold one.
func (c *Core) uword(b []byte) uint64 {
	if c.word32 {
		return uint64(c.Order.Uint32(b))
	}
	return c.Order.Uint64(b)
}

// parseNotes reads the notes of one PT_NOTE segment; base is its file
// offset.
func (c *Core) parseNotes(b []byte, base int64) error {
	le := c.Order
	for off := 0; off < len(b); {
		if len(b)-off < 12 {
			return &FormatError{c.Path, base + int64(off), "truncated note header"}
		}
		namesz, descsz, typ := uint64(le.Uint32(b[off:])), uint64(le.Uint32(b[off+4:])), le.Uint32(b[off+8:])
		nameOff := uint64(off) + 12
		descOff := nameOff + (namesz+3)&^3
		end := descOff + (descsz+3)&^3
		if descOff > uint64(len(b)) || descOff+descsz > uint64(len(b)) {
			return &FormatError{c.Path, base + int64(off), fmt.Sprintf("note of type %#x (%d+%d bytes) beyond the note segment", typ, namesz, descsz)}
		}
		name := string(bytes.TrimRight(b[nameOff:nameOff+namesz], "\x00"))
		desc := b[descOff : descOff+descsz]
		at := base + int64(descOff)
		switch {
		case name == "CORE":
			if err := c.note(typ, desc, at); err != nil {
				return err
			}
		case name == "LINUX" && typ == ntARMPACMask && c.Machine == elf.EM_AARCH64:
			if len(desc) < pacMaskLength {
				return &FormatError{c.Path, at, fmt.Sprintf("NT_ARM_PAC_MASK of %d bytes, want %d", len(desc), pacMaskLength)}
			}
			c.PACMask = le.Uint64(desc[8:])
		}
		off = int(min(end, uint64(len(b))))
	}
	return nil
}

func (c *Core) note(typ uint32, d []byte, at int64) error {
	le := c.Order
	switch typ {
	case ntPRSTATUS:
		l := &c.arch.Core
		if size := l.Off + c.wordSize()*len(l.Names); len(d) < size {
			return &FormatError{c.Path, at, fmt.Sprintf("NT_PRSTATUS of %d bytes, want at least %d", len(d), size)}
		}
		pid := prstatusPid
		if c.word32 {
			pid = prstatusPid32
		}
		t := Thread{Tid: int(int32(le.Uint32(d[pid:]))), Signal: int(le.Uint16(d[prstatusCursig:])),
			Regs: frames.NewRegs(c.arch), Raw: make([]uint64, len(l.Names))}
		for i := range t.Raw {
			t.Raw[i] = c.uword(d[l.Off+c.wordSize()*i:])
			if r := l.Regs[i]; r >= 0 {
				t.Regs.Set(r, t.Raw[i])
			}
		}
		c.Threads = append(c.Threads, t)
	case ntPRPSINFO:
		size, fname, args := prpsinfoSize, prpsinfoFname, prpsinfoArgs
		if c.word32 {
			size, fname, args = prpsinfoSize32, prpsinfoFname32, prpsinfoArgs32
		}
		if len(d) < size {
			return &FormatError{c.Path, at, fmt.Sprintf("NT_PRPSINFO of %d bytes, want %d", len(d), size)}
		}
		c.Name = cstring(d[fname : fname+16])
		c.Args = strings.TrimRight(cstring(d[args:args+80]), " ")
	case ntAUXV:
		w := c.wordSize()
		for i := 0; i+2*w <= len(d); i += 2 * w {
			a, v := c.uword(d[i:]), c.uword(d[i+w:])
			if a == 0 {
				break
			}
			c.Auxv = append(c.Auxv, [2]uint64{a, v})
		}
	case ntFILE:
		return c.fileNote(d, at)
	case ntSIGINFO:
		return c.siginfoNote(d, at)
	}
	return nil
}

// fileNote parses NT_FILE: count and page size, count (start, end, file
// offset in pages) triples, then count NUL-terminated paths; every number
// is a pointer-sized word (wordSize bytes).
func (c *Core) fileNote(d []byte, at int64) error {
	w := uint64(c.wordSize())
	hdr, ent := 2*w, 3*w
	if uint64(len(d)) < hdr {
		return &FormatError{c.Path, at, "NT_FILE shorter than its header"}
	}
	count, page := c.uword(d), c.uword(d[w:])
	if count > (uint64(len(d))-hdr)/ent {
		return &FormatError{c.Path, at, fmt.Sprintf("NT_FILE: %d mappings do not fit in %d bytes", count, len(d))}
	}
	names := d[hdr+ent*count:]
	nameAt := at + int64(hdr+ent*count)
	for i := uint64(0); i < count; i++ {
		e := d[hdr+ent*i:]
		j := bytes.IndexByte(names, 0)
		if j < 0 {
			return &FormatError{c.Path, nameAt, fmt.Sprintf("NT_FILE: path %d of %d is not terminated", i+1, count)}
		}
		m := FileMapping{Start: c.uword(e), End: c.uword(e[w:]), Offset: c.uword(e[2*w:]) * page, Path: string(names[:j])}
		if m.End < m.Start {
			return &FormatError{c.Path, at + int64(hdr+ent*i), fmt.Sprintf("NT_FILE: mapping [%#x, %#x) ends before it starts", m.Start, m.End)}
		}
		c.Files = append(c.Files, m)
		names, nameAt = names[j+1:], nameAt+int64(j)+1
	}
	return nil
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// auxVal returns the value of auxiliary vector entry typ (AT_ENTRY = 9,
// AT_SYSINFO_EHDR = 33).
func (c *Core) auxVal(typ uint64) (uint64, bool) {
	for _, a := range c.Auxv {
		if a[0] == typ {
			return a[1], true
		}
	}
	return 0, false
}
