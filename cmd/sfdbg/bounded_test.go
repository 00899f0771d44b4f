package main

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allocBound is the most a dump or check of a small file may allocate,
// whatever its headers claim (runtime.MemStats.TotalAlloc, bytes).
const allocBound = 64 << 20

// runBounded runs sfdbg in process and returns its status, output and the
// bytes it allocated. A run that does not end within a minute fails the
// test (a hang guard, not a speed assertion); unblock, if set, is called
// then to let the stuck goroutine go.
func runBounded(t *testing.T, unblock func(), args ...string) (code int, stdout, stderr string, alloc uint64) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan result, 1)
	go func() {
		c, o, e := runSfdbg(args...)
		done <- result{c, o, e}
	}()
	select {
	case r := <-done:
		runtime.ReadMemStats(&after)
		return r.code, r.out, r.err, after.TotalAlloc - before.TotalAlloc
	case <-time.After(time.Minute):
		if unblock != nil {
			unblock()
		}
		t.Fatalf("sfdbg %s did not end within a minute", strings.Join(args, " "))
	}
	return
}

// elfLayout is where the ELF64 little-endian fixture b keeps its section
// header table, and each section's header offset in the file by name.
type elfLayout struct {
	shoff, shentsize, shnum int
	hdr                     map[string]int // section name -> file offset of its header
	off                     map[string]int // section name -> file offset of its contents
}

func layoutOf(t *testing.T, b []byte) elfLayout {
	t.Helper()
	le := binary.LittleEndian
	l := elfLayout{shoff: int(le.Uint64(b[0x28:])), shentsize: int(le.Uint16(b[0x3a:])), shnum: int(le.Uint16(b[0x3c:])),
		hdr: map[string]int{}, off: map[string]int{}}
	strndx := int(le.Uint16(b[0x3e:]))
	strOff := int(le.Uint64(b[l.shoff+strndx*l.shentsize+0x18:]))
	for i := 0; i < l.shnum; i++ {
		h := l.shoff + i*l.shentsize
		name := b[strOff+int(le.Uint32(b[h:])):]
		name = name[:strings.IndexByte(string(name), 0)]
		l.hdr[string(name)] = h
		l.off[string(name)] = int(le.Uint64(b[h+0x18:]))
	}
	return l
}

func TestDumpAndCheckRefuseWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, cmd := range []string{"dump", "check"} {
		t.Run(cmd+" of a named pipe says so instead of waiting for a writer", func(t *testing.T) {
			unblock := func() {
				// Open the other end, so that the reader's open returns.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
			}
			code, out, errOut, _ := runBounded(t, unblock, cmd, fifo)
			errOut += out
			if code != exitError || !strings.Contains(errOut, fifo) || !strings.Contains(errOut, "not a regular file") {
				t.Errorf("exit %d, stderr %q; want %d and a sentence naming the file", code, errOut, exitError)
			}
		})
		t.Run(cmd+" of /dev/zero says so instead of reading without end", func(t *testing.T) {
			// Under a 1 GiB address-space limit, in its own process: reading
			// /dev/zero to its end would take all the memory there is.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 1048576 && exec "$@"`, "sh", sfdbgBinary(t), cmd, "/dev/zero")
			// Few threads and glibc arenas, whose reservations count too.
			c.Env = append(os.Environ(), "GOMAXPROCS=2", "MALLOC_ARENA_MAX=2")
			out, err := c.CombinedOutput()
			code := c.ProcessState.ExitCode()
			if ctx.Err() != nil || code != exitError || !strings.Contains(string(out), "/dev/zero") ||
				!strings.Contains(string(out), "not a regular file") || strings.Contains(string(out), "fatal error") {
				t.Errorf("exit %d (%v), output %.300q; want %d and a sentence naming the file", code, err, out, exitError)
			}
		})
	}
	t.Run("dump of a directory says so", func(t *testing.T) {
		code, _, errOut, _ := runBounded(t, nil, "dump", dir)
		if code != exitError || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "directory") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}

func TestASparseFileCostsOnlyWhatItsSectionsNeed(t *testing.T) {
	b, err := os.ReadFile(dumpFixture(t, "deep-v3-O2"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "sparse")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 2<<30); err != nil { // a hole: no disk used
		t.Skip(err)
	}
	for _, args := range [][]string{{"dump", p}, {"check", p}} {
		code, _, errOut, alloc := runBounded(t, nil, args...)
		if code == exitError {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
		if alloc > allocBound {
			t.Errorf("%v: allocated %d MB for a 2 GiB file whose sections take %d KB", args, alloc>>20, len(b)>>10)
		}
	}
}

func TestBadELFFilesAreErrorsNamingFileAndOffset(t *testing.T) {
	raw, err := os.ReadFile(dumpFixture(t, "deep-v3-O2"))
	if err != nil {
		t.Fatal(err)
	}
	l := layoutOf(t, raw)
	le := binary.LittleEndian
	dir := t.TempDir()
	patch := func(name string, fn func(b []byte) []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, fn(append([]byte(nil), raw...)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cut := func(n int) func([]byte) []byte { return func(b []byte) []byte { return b[:n] } }
	tests := []struct {
		name string
		file string
		want []string // substrings of stderr besides the file name
	}{
		{"a .sframe section header claiming 2 GiB", patch("sframe-2g", func(b []byte) []byte {
			le.PutUint64(b[l.hdr[".sframe"]+0x20:], 2<<30)
			return b
		}), []string{".sframe", "past the end", "file offset 0x"}},
		{"a .text section header claiming 2 GiB", patch("text-2g", func(b []byte) []byte {
			le.PutUint64(b[l.hdr[".text"]+0x20:], 2<<30)
			return b
		}), []string{".text", "past the end", "file offset 0x"}},
		{"a .sframe section placed past the end of the file", patch("sframe-past-eof", func(b []byte) []byte {
			le.PutUint64(b[l.hdr[".sframe"]+0x18:], 1<<40)
			return b
		}), []string{".sframe", "past the end", "file offset 0x10000000000"}},
		{"e_shnum 0xffff", patch("shnum-ffff", func(b []byte) []byte {
			le.PutUint16(b[0x3c:], 0xffff)
			return b
		}), []string{"section header table", "65535", fmt.Sprintf("file offset %#x", l.shoff)}},
		{"a file of 3 bytes", patch("cut-3", cut(3)), []string{"too short"}},
		{"an ELF file cut in its ELF header", patch("cut-40", cut(40)), []string{"ELF header", "file offset 0x0"}},
		{"an ELF file cut in its program headers", patch("cut-100", cut(100)), []string{"program header table", "file offset 0x40"}},
		{"an ELF file cut in its .sframe section", patch("cut-sframe", cut(l.off[".sframe"]+10)), []string{"past the end", "file offset 0x"}},
		{"an ELF file cut in its section headers", patch("cut-shdrs", cut(l.shoff+100)), []string{"section header table", fmt.Sprintf("file offset %#x", l.shoff)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range []string{"dump", "check"} {
				code, out, errOut, alloc := runBounded(t, nil, cmd, tc.file)
				errOut += out
				if code != exitError {
					t.Errorf("%s: exit %d, want %d (stderr %q)", cmd, code, exitError, errOut)
				}
				for _, w := range append([]string{tc.file}, tc.want...) {
					if !strings.Contains(errOut, w) {
						t.Errorf("%s: stderr %q lacks %q", cmd, errOut, w)
					}
				}
				if alloc > allocBound {
					t.Errorf("%s: allocated %d MB", cmd, alloc>>20)
				}
			}
		})
	}
}

// elfOffsets is a sanity check of layoutOf against debug/elf.
func TestLayoutOfFindsTheSections(t *testing.T) {
	p := dumpFixture(t, "deep-v3-O2")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := layoutOf(t, raw)
	for _, name := range []string{".sframe", ".text"} {
		if s := f.Section(name); s == nil || int(s.Offset) != l.off[name] {
			t.Errorf("%s at %d, debug/elf says %v", name, l.off[name], s)
		}
	}
}
