package frames

// A module's merged symbol table (loadSymbols), kept by build ID in
// DebugCacheDir next to the decompressed DWARF: with Debian's libc6-dbg,
// building libc's table reads the debug file's .symtab and .strtab (200 KB)
// and sorts 5,000 candidates, 1.5-4 ms of a one-shot backtrace that takes
// 10 ms in all; read back from the cache it takes a tenth of that.
//
// The file is DIR/symbols/xx/yyyy-KEY, where xxyyyy is the module's build
// ID and KEY names the format and what the table was built from (which
// file's .symtab, and the sizes of .symtab and .dynsym), so that a debug
// file installed later, or a new format, takes a new file. Its layout, in
// the host's byte order (little-endian hosts only):
//
//	magic "SFDBGSYM", version u32, 0 u32, n u64, blob size u64
//	addrs [n]u64, sizes [n]u64, refs [n]u64 (offsets into blob)
//	blob: each entry's name, NUL-terminated
//
// A file that does not check out (a size that does not add up, addresses
// out of order, a size of 0, a name offset past the blob) is ignored and
// the table built again.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// symCacheVersion is the version of the cached table: bump it whenever
// loadSymbols would build another table from the same file.
const symCacheVersion = 1

// symCacheMin is the number of symbol table entries (.symtab and .dynsym)
// below which a table is not cached: a small one builds in microseconds.
const symCacheMin = 1024

// symCacheMagic starts a cached symbol table.
const symCacheMagic = "SFDBGSYM"

// symCacheHeader is the size of a cached table's header in bytes.
const symCacheHeader = 32

// symCachePath returns the cache file of the table built from file (the
// module's ELF file) with .symtab from symtab (file itself or its debug
// file), "" when there is none: no cache directory, no build ID, a
// relocatable object (its addresses are elfobj.Link's placement), fewer
// than symCacheMin entries, or a big-endian host.
func symCachePath(file, symtab *elf.File) string {
	if DebugCacheDir == "" || file.Type == elf.ET_REL || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return ""
	}
	id := buildID(file)
	if len(id) < 4 {
		return ""
	}
	which := "file"
	if symtab != file {
		which = "debug"
	}
	size := func(f *elf.File, typ elf.SectionType) uint64 {
		for _, s := range f.Sections {
			if s.Type == typ {
				return s.Size
			}
		}
		return 0
	}
	symSize, dynSize := size(symtab, elf.SHT_SYMTAB), size(file, elf.SHT_DYNSYM)
	if (symSize+dynSize)/24 < symCacheMin {
		return "" // too few entries (Elf64_Sym: 24 bytes) to be worth a file
	}
	key := fmt.Sprintf("v%d-%s-%x-%x", symCacheVersion, which, symSize, dynSize)
	return filepath.Join(DebugCacheDir, "symbols", id[:2], id[2:]+"-"+key)
}

// readSymCache returns the table cached at path, nil when there is none
// or it does not check out. The file is mapped read-only (mapCacheFile)
// and its arrays are views of the mapping, never unmapped: a table lives
// as long as its module.
func readSymCache(path string) *symTable {
	b := mapCacheFile(path, func(n int64) bool { return n >= symCacheHeader })
	if b == nil {
		return nil
	}
	// The mapping starts on a page: its words are 8-byte aligned.
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	t, err := decodeSymCache(words, b)
	if err != nil {
		unix.Munmap(b)
		logrus.Debugf("frames: symbol cache %s: %v", path, err)
		return nil
	}
	return t
}

// decodeSymCache checks a cached table held in b, which words views as
// 8-byte words (len(b)/8 of them), and returns its views.
func decodeSymCache(words []uint64, b []byte) (*symTable, error) {
	if len(b) < symCacheHeader || string(b[:8]) != symCacheMagic {
		return nil, fmt.Errorf("no %s header", symCacheMagic)
	}
	if v := binary.NativeEndian.Uint32(b[8:]); v != symCacheVersion {
		return nil, fmt.Errorf("version %d, want %d", v, symCacheVersion)
	}
	n, blob := words[2], words[3]
	// Checked without overflow: n and blob are the file's, any values.
	rest := uint64(len(b)) - symCacheHeader
	if n > rest/24 || blob != rest-24*n {
		return nil, fmt.Errorf("%d entries and %d bytes of names do not make %d bytes", n, blob, len(b))
	}
	w := words[symCacheHeader/8:]
	t := &symTable{addrs: w[:n:n], sizes: w[n : 2*n : 2*n], refs: w[2*n : 3*n : 3*n]}
	t.strs[symFromSymtab] = b[symCacheHeader+24*n:]
	for i := range t.addrs {
		if i > 0 && t.addrs[i] <= t.addrs[i-1] {
			return nil, fmt.Errorf("entry %d: address %#x not above %#x", i, t.addrs[i], t.addrs[i-1])
		}
		if t.sizes[i] == 0 {
			return nil, fmt.Errorf("entry %d: size 0", i)
		}
		if t.refs[i] >= blob || t.refs[i] >= 1<<32 { // a ref's high half would be its source
			return nil, fmt.Errorf("entry %d: name at %d of %d bytes", i, t.refs[i], blob)
		}
	}
	return t, nil
}

// encodeSymCache returns t in the cache's layout, every name copied into
// the blob.
func encodeSymCache(t *symTable) []byte {
	var names bytes.Buffer
	refs := make([]uint64, len(t.addrs))
	for i := range t.addrs {
		refs[i] = uint64(names.Len())
		names.WriteString(t.name(i))
		names.WriteByte(0)
	}
	n := uint64(len(t.addrs))
	out := make([]byte, 0, symCacheHeader+24*n+uint64(names.Len()))
	out = append(out, symCacheMagic...)
	out = binary.NativeEndian.AppendUint32(out, symCacheVersion)
	out = binary.NativeEndian.AppendUint32(out, 0)
	out = binary.NativeEndian.AppendUint64(out, n)
	out = binary.NativeEndian.AppendUint64(out, uint64(names.Len()))
	for _, a := range [...][]uint64{t.addrs, t.sizes, refs} {
		for _, v := range a {
			out = binary.NativeEndian.AppendUint64(out, v)
		}
	}
	return append(out, names.Bytes()...)
}
