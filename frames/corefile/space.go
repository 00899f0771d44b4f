package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/sfdbg/sfdbg/sframe"

	"github.com/sfdbg/sfdbg/frames"
)

// Options says where Space finds the files the core's process had mapped.
type Options struct {
	// Sysroot, when set, is prepended to every mapped file's path, as
	// gdb's "set sysroot" does.
	Sysroot string
	// Exe, when set, is the main executable's file, whatever its path in
	// the core.
	Exe string
}

// Auxiliary vector types (include/uapi/linux/auxvec.h).
const (
	atPhdr        = 3
	atEntry       = 9
	atExecfn      = 31
	atSysinfoEhdr = 33
)

// MismatchError reports a file whose GNU build-id differs from the one in
// the core's copy of its ELF header: the core was not dumped from it.
type MismatchError struct {
	Core, Mapped, File string // the core, the path the process mapped, the file found for it
	CoreID, FileID     string // hex build-ids
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("core %s: %s was mapped with build-id %s, but %s has build-id %s",
		e.Core, e.Mapped, e.CoreID, e.File, e.FileID)
}

// mainPath returns the path, as the process saw it, of the main executable:
// the NT_FILE mapping holding the entry point (AT_ENTRY), or the first
// NT_FILE mapping.
func (c *Core) mainPath() string {
	if len(c.Files) == 0 {
		return c.execfn()
	}
	if e, ok := c.auxVal(atEntry); ok {
		for _, m := range c.Files {
			if e >= m.Start && e < m.End {
				return m.Path
			}
		}
	}
	return c.Files[0].Path
}

// Space returns the core as a frames.Space: the core's memory (c itself)
// and one module per mapped ELF file of NT_FILE, each opened at the path
// opts gives (Exe for the main executable, else Sysroot+path), plus the
// vDSO read from the core. The files become the core's memory past the
// segments' dumped bytes. A file that cannot be found is still a module,
// whose loads report the error. A file whose build-id differs from the
// core's is a *MismatchError. The modules' Path and Name are the paths the
// process saw.
func (c *Core) Space(opts Options) (*frames.Space, error) {
	mainPath := c.mainPath()
	if len(c.Files) == 0 {
		// qemu-user writes no NT_FILE: map the main executable where
		// AT_PHDR says its program headers are.
		host := opts.Exe
		if host == "" {
			host = filepath.Join(opts.Sysroot, mainPath)
		}
		fm, err := c.mainMappings(host, mainPath, opts.Sysroot)
		if err != nil {
			return nil, err
		}
		c.Files = fm
	}
	// A file mapped several times is opened once and is one module: its
	// mappings share the inode of its first.
	type file struct {
		host  string
		h     *os.File // nil where it cannot be opened
		inode uint64
	}
	files := map[string]*file{}
	inodeOf := map[string]uint64{}
	var maps []frames.Mapping
	targetOf := map[string]string{}
	for i, m := range c.Files {
		f := files[m.Path]
		if f == nil {
			host := m.Path
			switch {
			case m.Path == mainPath && opts.Exe != "":
				host = opts.Exe
			case opts.Sysroot != "":
				host = filepath.Join(opts.Sysroot, m.Path)
			}
			if abs, err := filepath.Abs(host); err == nil {
				host = abs
			}
			f = &file{host: host}
			files[m.Path] = f
			if err := c.checkFile(m.Path, host); err != nil {
				return nil, err
			}
			targetOf[host] = m.Path
			if h, err := os.Open(host); err == nil {
				f.h = h
				c.opened = append(c.opened, h)
			}
			if f.inode = inodeOf[host]; f.inode == 0 {
				f.inode = uint64(i + 1)
				inodeOf[host] = f.inode
			}
		}
		if f.h != nil {
			c.backing = append(c.backing, backing{start: m.Start, end: m.End, off: m.Offset, f: f.h})
		}
		maps = append(maps, frames.Mapping{Start: m.Start, End: m.End, Perms: c.perms(m.Start), Offset: m.Offset,
			Dev: "core", Inode: f.inode, Path: f.host, Range: fmt.Sprintf("%x-%x", m.Start, m.End)})
	}
	if v, ok := c.auxVal(atSysinfoEhdr); ok {
		for _, s := range c.Segments {
			if s.Addr == v {
				maps = append(maps, frames.Mapping{Start: s.Addr, End: s.Addr + s.MemSize, Perms: c.perms(s.Addr), Path: "[vdso]"})
			}
		}
	}
	mods, err := frames.ModulesFromMappings(maps, "", c)
	if err != nil {
		return nil, fmt.Errorf("core %s: %w", c.Path, err)
	}
	for _, m := range mods.List() {
		if t, ok := targetOf[m.Path]; ok {
			m.Path, m.Name = t, path.Base(t)
		}
	}
	return &frames.Space{Mem: c, Modules: mods, PACMask: c.PACMask}, nil
}

// perms spells the flags of the segment at addr as /proc/PID/maps does.
func (c *Core) perms(addr uint64) string {
	p := []byte("---p")
	for _, s := range c.Segments {
		if s.Addr == addr {
			if s.Flags&elf.PF_R != 0 {
				p[0] = 'r'
			}
			if s.Flags&elf.PF_W != 0 {
				p[1] = 'w'
			}
			if s.Flags&elf.PF_X != 0 {
				p[2] = 'x'
			}
		}
	}
	return string(p)
}

// checkFile compares the build-id of the file at host with the one in the
// core's copy of the ELF header of the file the process mapped at mapped.
// Either without a build-id, or a file that cannot be opened, passes.
func (c *Core) checkFile(mapped, host string) error {
	coreID := c.mappedBuildID(mapped)
	if coreID == nil {
		return nil
	}
	f, closer, err := openELF(host)
	if err != nil {
		return nil
	}
	defer closer.Close()
	fileID := fileBuildID(f)
	if fileID == nil || bytes.Equal(coreID, fileID) {
		return nil
	}
	return &MismatchError{Core: c.Path, Mapped: mapped, File: host,
		CoreID: hex.EncodeToString(coreID), FileID: hex.EncodeToString(fileID)}
}

// mappedBuildID returns the GNU build-id of the file mapped at path p as
// the core holds it (from the ELF header the kernel dumps with the first
// page of every ELF file mapping), or nil.
func (c *Core) mappedBuildID(p string) []byte {
	for _, m := range c.Files {
		if m.Path != p || m.Offset != 0 {
			continue
		}
		if id := c.buildIDAt(m.Start); id != nil {
			return id
		}
	}
	return nil
}

// buildIDAt reads the ELF header at addr in the core's memory, then its
// program headers and PT_NOTE segments, for NT_GNU_BUILD_ID. Either ELF
// class is read (gABI "ELF Header", "Program Header").
func (c *Core) buildIDAt(addr uint64) []byte {
	var h [64]byte
	if n, _ := c.ReadAt(h[:52], addr); n < 52 || string(h[:4]) != elf.ELFMAG {
		return nil
	}
	var le binary.ByteOrder = binary.LittleEndian
	if elf.Data(h[elf.EI_DATA]) == elf.ELFDATA2MSB {
		le = binary.BigEndian
	}
	// The fields of a program header: p_type, p_vaddr and p_memsz, by
	// class; word reads a p_ field.
	var phoff, phentsize, phnum, vaddrOff, memszOff uint64
	var word func([]byte) uint64
	switch elf.Class(h[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		if n, _ := c.ReadAt(h[52:], addr+52); n < len(h)-52 {
			return nil
		}
		phoff, phentsize, phnum = le.Uint64(h[32:]), uint64(le.Uint16(h[54:])), uint64(le.Uint16(h[56:]))
		vaddrOff, memszOff, word = 16, 40, le.Uint64
		if phentsize != 56 {
			return nil
		}
	case elf.ELFCLASS32:
		phoff, phentsize, phnum = uint64(le.Uint32(h[28:])), uint64(le.Uint16(h[42:])), uint64(le.Uint16(h[44:]))
		vaddrOff, memszOff = 8, 20
		word = func(b []byte) uint64 { return uint64(le.Uint32(b)) }
		if phentsize != 32 {
			return nil
		}
	default:
		return nil
	}
	if phnum > 256 || phoff > 1<<20 {
		return nil
	}
	ph := make([]byte, phnum*phentsize)
	if n, _ := c.ReadAt(ph, addr+phoff); n < len(ph) {
		return nil
	}
	// The first PT_LOAD (offset 0) is mapped at addr: bias from its vaddr.
	var base uint64
	found := false
	for i := uint64(0); i < phnum; i++ {
		p := ph[i*phentsize:]
		if elf.ProgType(le.Uint32(p)) == elf.PT_LOAD {
			base, found = word(p[vaddrOff:])&^0xfff, true
			break
		}
	}
	if !found {
		return nil
	}
	var b []byte
	for i := uint64(0); i < phnum; i++ {
		p := ph[i*phentsize:]
		if elf.ProgType(le.Uint32(p)) != elf.PT_NOTE {
			continue
		}
		vaddr, size := word(p[vaddrOff:]), word(p[memszOff:])
		if size > 1<<16 || vaddr < base {
			continue
		}
		// One buffer for every PT_NOTE: phnum of them may each declare
		// 64 KiB of memory that the core need not hold.
		b = slices.Grow(b[:0], int(size))[:size]
		if n, _ := c.ReadAt(b, addr+vaddr-base); n < len(b) {
			continue
		}
		if id := frames.GNUBuildID(b, le); id != nil {
			return id
		}
	}
	return nil
}

// fileBuildID returns the GNU build-id of an ELF file from its PT_NOTE
// segments, or nil.
func fileBuildID(f *elf.File) []byte {
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<16 {
			continue
		}
		b, err := io.ReadAll(p.Open())
		if err != nil {
			continue
		}
		if id := frames.GNUBuildID(b, f.ByteOrder); id != nil {
			return id
		}
	}
	return nil
}

// execfn returns the path AT_EXECFN points to in the core's memory, or "".
func (c *Core) execfn() string {
	a, ok := c.auxVal(atExecfn)
	if !ok {
		return ""
	}
	var b [4096]byte
	n, _ := c.ReadAt(b[:], a)
	return cstring(b[:n])
}

// mainMappings returns the mappings of the main executable, the ELF file
// at host, for a core without NT_FILE: its PT_LOAD segments, page-aligned,
// at the load bias that puts its program headers at AT_PHDR. The mappings
// are named mapped, the path the process saw. A dynamically linked
// program's shared objects follow (linkMapMappings), found under sysroot.
func (c *Core) mainMappings(host, mapped, sysroot string) ([]FileMapping, error) {
	phdr, ok := c.auxVal(atPhdr)
	if !ok || host == "" {
		return nil, nil
	}
	f, closer, err := openELF(host)
	if err != nil {
		return nil, fmt.Errorf("core %s has no NT_FILE note: the main executable: %w", c.Path, err)
	}
	defer closer.Close()
	var phVaddr uint64
	found := false
	for _, p := range f.Progs {
		if p.Type == elf.PT_PHDR {
			phVaddr, found = p.Vaddr, true
		}
	}
	if !found {
		// The program headers sit in the PT_LOAD of file offset 0, e_phoff
		// bytes in (gABI "ELF Header": 8 bytes at 32 in ELF64, 4 at 28 in
		// ELF32).
		var phoff [8]byte
		if r, err := os.Open(host); err == nil {
			var off uint64
			if f.Class == elf.ELFCLASS32 {
				_, err = r.ReadAt(phoff[:4], 28)
				off = uint64(f.ByteOrder.Uint32(phoff[:]))
			} else {
				_, err = r.ReadAt(phoff[:], 32)
				off = f.ByteOrder.Uint64(phoff[:])
			}
			r.Close()
			for _, p := range f.Progs {
				if err == nil && p.Type == elf.PT_LOAD && p.Off == 0 {
					phVaddr, found = p.Vaddr+off, true
					break
				}
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("core %s has no NT_FILE note, and %s has no program header table to place it by", c.Path, host)
	}
	bias := phdr - phVaddr
	out := loadMappings(f, bias, mapped)
	for _, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC {
			// A dynamically linked program: the dynamic linker's list
			// says where the shared objects are.
			out = append(out, c.linkMapMappings(p.Vaddr+bias, p.Memsz, sysroot)...)
		}
	}
	return out, nil
}

// loadMappings returns the PT_LOAD segments of the ELF file f loaded at
// bias, page-aligned, as mappings of the file at path.
func loadMappings(f *elf.File, bias uint64, path string) []FileMapping {
	const page = 4096
	var out []FileMapping
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Filesz == 0 {
			continue
		}
		start := (p.Vaddr + bias) &^ (page - 1)
		end := (p.Vaddr + bias + p.Filesz + page - 1) &^ (page - 1)
		out = append(out, FileMapping{Start: start, End: end, Offset: p.Off &^ (page - 1), Path: path})
	}
	return out
}

// openELF opens the ELF file at path with sframe.NewELFFile, which checks
// every header table against the file's size before debug/elf reads it.
// Close the returned closer when done with the file.
func openELF(path string) (*elf.File, io.Closer, error) {
	fh, size, err := sframe.OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := sframe.NewELFFile(fh, size)
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, fh, nil
}
