package corefile

import (
	"path/filepath"
	"strings"

	"github.com/sirupsen/logrus"
)

// Bounds of the walk of the dynamic linker's list: a core's memory is
// untrusted, so the dynamic section, the list and each name are read at
// most this far.
const (
	maxDynamic  = 4096 // entries of the dynamic section
	maxLinkMaps = 1024 // objects in the list
	maxName     = 4096 // bytes of an object's path
)

// Dynamic section tags (gABI "Dynamic Section").
const (
	dtNull  = 0
	dtDebug = 21
)

// linkMapMappings returns the mappings of the shared objects of a
// dynamically linked program, from its dump alone, as gdb's solib-svr4
// finds them: the program's dynamic section (at dyn, size bytes) holds
// DT_DEBUG, the address of the dynamic linker's struct r_debug, whose
// r_map heads the list of struct link_map {l_addr, l_name, l_ld, l_next,
// l_prev} (glibc's link.h; every field a pointer-sized word). Each object
// with a path is opened under sysroot and mapped at its l_addr by its
// PT_LOAD segments. What cannot be read (the list is in memory the core
// may lack, or garbage) ends the walk; objects that cannot be opened are
// left out. qemu-user's cores need this: they have no NT_FILE.
func (c *Core) linkMapMappings(dyn, size uint64, sysroot string) []FileMapping {
	w := uint64(c.wordSize())
	word := func(addr uint64) (uint64, bool) {
		var b [8]byte
		if n, _ := c.ReadAt(b[:w], addr); uint64(n) < w {
			return 0, false
		}
		return c.uword(b[:]), true
	}
	var rdebug uint64
	for i := uint64(0); i < min(size/(2*w), maxDynamic); i++ {
		tag, ok := word(dyn + 2*w*i)
		if !ok || tag == dtNull {
			break
		}
		if tag == dtDebug {
			rdebug, _ = word(dyn + 2*w*i + w)
			break
		}
	}
	if rdebug == 0 {
		return nil // a static PIE, or the linker had not filled it in
	}
	lm, ok := word(rdebug + w) // r_map, after the int r_version padded to a word
	if !ok {
		return nil
	}
	var out []FileMapping
	seen := map[uint64]bool{}
	for n := 0; lm != 0 && n < maxLinkMaps && !seen[lm]; n++ {
		seen[lm] = true
		base, ok1 := word(lm)
		name, ok2 := word(lm + w)
		next, ok3 := word(lm + 3*w)
		if !ok1 || !ok2 || !ok3 {
			break
		}
		lm = next
		path := c.cstringAt(name)
		if !strings.HasPrefix(path, "/") {
			continue // the program itself (""), the vDSO ("linux-vdso.so.1")
		}
		host := filepath.Join(sysroot, path)
		f, closer, err := openELF(host)
		if err != nil {
			logrus.Debugf("corefile: %s: shared object %s: %v", c.Path, path, err)
			continue
		}
		out = append(out, loadMappings(f, base, path)...)
		closer.Close()
	}
	return out
}

// cstringAt reads the NUL-terminated string at addr in the core's memory,
// at most maxName bytes; "" when unreadable.
func (c *Core) cstringAt(addr uint64) string {
	if addr == 0 {
		return ""
	}
	var b [maxName]byte
	n, _ := c.ReadAt(b[:], addr)
	if n == 0 {
		return ""
	}
	return cstring(b[:n])
}
