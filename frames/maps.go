package frames

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End uint64 // runtime address range [Start, End)
	Perms      string // "r-xp" and so on
	Offset     uint64 // file offset of Start
	Dev        string // "08:01"
	Inode      uint64
	// Path is the mapped file's path, or a pseudo-path such as "[vdso]",
	// "" for anonymous mappings. A " (deleted)" suffix is removed and
	// reported in Deleted.
	Path    string
	Deleted bool
	// Range is the address range as the line spells it ("7f12a000-7f12b000"),
	// the name of the mapping's entry in /proc/PID/map_files.
	Range string
}

// Exec reports whether the mapping is executable.
func (m *Mapping) Exec() bool { return len(m.Perms) > 2 && m.Perms[2] == 'x' }

// ReadMaps parses the text of /proc/PID/maps. Malformed lines are an error
// naming the line number.
func ReadMaps(r io.Reader) ([]Mapping, error) {
	var out []Mapping
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20) // grows for a longer line
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m, err := parseMapsLine(line)
		if err != nil {
			return out, fmt.Errorf("maps line %d: %w", n, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// parseMapsLine parses "start-end perms offset dev inode   path".
func parseMapsLine(line string) (Mapping, error) {
	var m Mapping
	rest := line
	field := func() string {
		rest = strings.TrimLeft(rest, " \t")
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			f := rest
			rest = ""
			return f
		}
		f := rest[:i]
		rest = rest[i:]
		return f
	}
	m.Range = field()
	m.Perms = field()
	off, dev, ino := field(), field(), field()
	lo, hi, ok := strings.Cut(m.Range, "-")
	var err error
	if !ok {
		return m, fmt.Errorf("bad address range %q", m.Range)
	}
	if m.Start, err = strconv.ParseUint(lo, 16, 64); err != nil {
		return m, fmt.Errorf("bad start address %q", lo)
	}
	if m.End, err = strconv.ParseUint(hi, 16, 64); err != nil || m.End < m.Start {
		return m, fmt.Errorf("bad end address %q", hi)
	}
	if m.Offset, err = strconv.ParseUint(off, 16, 64); err != nil {
		return m, fmt.Errorf("bad offset %q", off)
	}
	if m.Inode, err = strconv.ParseUint(ino, 10, 64); err != nil {
		return m, fmt.Errorf("bad inode %q", ino)
	}
	if len(m.Perms) != 4 {
		return m, fmt.Errorf("bad permissions %q", m.Perms)
	}
	m.Dev = dev
	m.Path = strings.TrimLeft(rest, " \t")
	if p, ok := strings.CutSuffix(m.Path, " (deleted)"); ok {
		m.Path, m.Deleted = p, true
	}
	return m, nil
}

var procRootRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(/proc/[0-9]+(?:/task/[0-9]+)?)/root/?$`) })

// ModulesFromMaps reads /proc/PID/maps and builds the modules of process
// pid: each ELF file opened through /proc/PID/root, deleted files through
// /proc/PID/map_files, and the vDSO read from mem, the target's memory
// (left out if mem is nil). Errors are those of opening and parsing the
// maps file; a module whose file cannot be opened reports it when loaded.
//
// A process whose main thread has exited (pthread_exit) while others run
// shows no mappings in /proc/PID/maps: the maps and files of one of its
// live threads (/proc/PID/task/TID) are read instead.
func ModulesFromMaps(pid int, mem Memory) (*Modules, error) {
	dir := fmt.Sprintf("/proc/%d", pid)
	maps, err := readMapsFile(dir + "/maps")
	if err != nil {
		return nil, err
	}
	if len(maps) == 0 {
		if tasks, _ := os.ReadDir(dir + "/task"); len(tasks) > 0 {
			for _, tk := range tasks {
				td := dir + "/task/" + tk.Name()
				if tm, err := readMapsFile(td + "/maps"); err == nil && len(tm) > 0 {
					maps, dir = tm, td
					break
				}
			}
		}
	}
	return ModulesFromMappings(maps, dir+"/root", mem)
}

// readMapsFile reads and parses one maps file.
func readMapsFile(path string) ([]Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	maps, err := ReadMaps(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return maps, nil
}

// ModulesFromMappings groups mappings into modules: all mappings of one file
// (same device, inode and path; a new module starts when the file is mapped
// again from offset 0) form one module spanning their addresses. The load
// bias comes from the PT_LOAD segment holding the file offset of the
// module's executable mapping (or its first). The vDSO ("[vdso]") is read
// from mem when mem is not nil. Only ELF files become modules; a file that
// cannot be opened still does, with an error that its loads report.
func ModulesFromMappings(maps []Mapping, root string, mem Memory) (*Modules, error) {
	type group struct {
		maps    []Mapping
		hasZero bool
	}
	var groups []*group
	cur := map[string]*group{}
	for _, m := range maps {
		if m.Path == "" || (strings.HasPrefix(m.Path, "[") && m.Path != "[vdso]") {
			continue
		}
		if m.Path != "[vdso]" && (m.Inode == 0 || !strings.HasPrefix(m.Path, "/")) {
			continue
		}
		key := m.Dev + " " + strconv.FormatUint(m.Inode, 10) + " " + m.Path
		g := cur[key]
		if g == nil || (m.Offset == 0 && g.hasZero) {
			g = &group{}
			groups = append(groups, g)
			cur[key] = g
		}
		g.maps = append(g.maps, m)
		g.hasZero = g.hasZero || m.Offset == 0
	}
	pidDir := ""
	if sm := procRootRE().FindStringSubmatch(root); sm != nil {
		pidDir = sm[1]
	}
	root = strings.TrimSuffix(root, "/")
	var mods []*Module
	for _, g := range groups {
		first := g.maps[0]
		mod := &Module{Name: path.Base(first.Path), Path: first.Path, Start: first.Start, End: first.End}
		for _, m := range g.maps[1:] {
			mod.Start = min(mod.Start, m.Start)
			mod.End = max(mod.End, m.End)
		}
		ref := first
		for _, m := range g.maps {
			if m.Exec() {
				ref = m
				break
			}
		}
		var bias uint64
		var err error
		if first.Path == "[vdso]" {
			if mem == nil {
				continue
			}
			img := make([]byte, first.End-first.Start)
			if n, rerr := mem.ReadAt(img, first.Start); n < len(img) {
				logrus.Debugf("frames: reading the vDSO at %#x: %v", first.Start, rerr)
				continue
			}
			mod.ELF = img
			bias, err = loadBias(bytes.NewReader(img), ref)
		} else {
			mod.OpenPath = root + first.Path
			if first.Deleted && pidDir != "" {
				mod.OpenPath = pidDir + "/map_files/" + first.Range
			}
			f, oerr := os.Open(mod.OpenPath)
			if oerr != nil {
				// Keep the module so that unwinders name the file; its
				// loads report the error. Assume p_vaddr == p_offset.
				mod.Bias = ref.Start - ref.Offset
				mod.err = fmt.Errorf("module %s: %w", mod.Name, oerr)
				mods = append(mods, mod)
				continue
			}
			bias, err = loadBias(f, ref)
			f.Close()
		}
		if errors.Is(err, errNotELF) {
			continue
		}
		if err != nil {
			logrus.Debugf("frames: %s: %v", mod.Path, err)
			bias = ref.Start - ref.Offset
		}
		mod.Bias = bias
		mods = append(mods, mod)
	}
	return NewModules(mods...), nil
}

var errNotELF = errors.New("not an ELF file")

// loadBias reads the ELF header and program headers of r and returns the
// load bias of mapping m: its start minus the link-time address of its file
// offset in the PT_LOAD segment holding that offset (for a page-aligned
// mapping, the segment whose file range the page starts or lies in). Where
// segments share a page, the one whose flags match the mapping's
// permissions (executable, writable) wins.
func loadBias(r io.ReaderAt, m Mapping) (uint64, error) {
	// One read usually holds the ELF header and the program headers, which
	// linkers place right after it.
	var buf [4096]byte
	n, _ := r.ReadAt(buf[:], 0)
	head := buf[:n]
	if len(head) < elf.EI_NIDENT || string(head[:4]) != elf.ELFMAG {
		return 0, errNotELF
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if elf.Data(head[elf.EI_DATA]) == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	// ELF gABI: e_phoff, e_phentsize and e_phnum, and the Elf32_Phdr /
	// Elf64_Phdr fields p_type, p_flags, p_offset, p_vaddr and p_filesz.
	var phoff uint64
	var phentsize, phnum, hdrSize int
	is64 := false
	switch elf.Class(head[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		is64, hdrSize = true, 64
		if len(head) < hdrSize {
			return 0, fmt.Errorf("ELF header: %w", io.ErrUnexpectedEOF)
		}
		phoff, phentsize, phnum = bo.Uint64(head[32:]), int(bo.Uint16(head[54:])), int(bo.Uint16(head[56:]))
		if phentsize != 56 {
			return 0, fmt.Errorf("bad program header table (%d entries of %d bytes)", phnum, phentsize)
		}
	case elf.ELFCLASS32:
		hdrSize = 52
		if len(head) < hdrSize {
			return 0, fmt.Errorf("ELF header: %w", io.ErrUnexpectedEOF)
		}
		phoff, phentsize, phnum = uint64(bo.Uint32(head[28:])), int(bo.Uint16(head[42:])), int(bo.Uint16(head[44:]))
		if phentsize != 32 {
			return 0, fmt.Errorf("bad program header table (%d entries of %d bytes)", phnum, phentsize)
		}
	default:
		return 0, errNotELF
	}
	if phnum > 4096 {
		return 0, fmt.Errorf("bad program header table (%d entries of %d bytes)", phnum, phentsize)
	}
	size := uint64(phnum * phentsize)
	var ph []byte
	if phoff <= uint64(len(head)) && size <= uint64(len(head))-phoff {
		ph = head[phoff : phoff+size]
	} else {
		if phoff > 1<<62 {
			return 0, fmt.Errorf("program headers at %#x: beyond any file", phoff)
		}
		ph = make([]byte, size)
		if k, err := r.ReadAt(ph, int64(phoff)); k < len(ph) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return 0, fmt.Errorf("program headers: %w", err)
		}
	}
	type load struct {
		off, vaddr, filesz uint64
		flags              elf.ProgFlag
	}
	var loads []load
	for i := 0; i < phnum; i++ {
		p := ph[i*phentsize:]
		if elf.ProgType(bo.Uint32(p)) != elf.PT_LOAD {
			continue
		}
		if is64 {
			loads = append(loads, load{bo.Uint64(p[8:]), bo.Uint64(p[16:]), bo.Uint64(p[32:]), elf.ProgFlag(bo.Uint32(p[4:]))})
		} else {
			loads = append(loads, load{uint64(bo.Uint32(p[4:])), uint64(bo.Uint32(p[8:])), uint64(bo.Uint32(p[16:])), elf.ProgFlag(bo.Uint32(p[24:]))})
		}
	}
	if len(loads) == 0 {
		return 0, errors.New("no PT_LOAD segment")
	}
	const page = 4096
	off, exec, write := m.Offset, m.Exec(), len(m.Perms) > 1 && m.Perms[1] == 'w'
	best, bestScore := -1, -1
	for i, l := range loads {
		if off < l.off&^(page-1) || off >= l.off+max(l.filesz, 1) {
			continue
		}
		score := 0
		if (l.flags&elf.PF_X != 0) == exec {
			score += 2
		}
		if (l.flags&elf.PF_W != 0) == write {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("no PT_LOAD segment holds file offset %#x", off)
	}
	l := loads[best]
	return m.Start - (l.vaddr - (l.off - off)), nil
}
