package corefile

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

const cores = "../../testdata/cores"

// gdbThread is one thread of a golden gdb backtrace: its LWP and frames.
type gdbThread struct {
	lwp int
	pcs []uint64
}

var (
	gdbThreadRE = regexp.MustCompile(`^Thread \d+ \(.*\(LWP (\d+)\)\)`)
	gdbFrameRE  = regexp.MustCompile(`^#\d+\s+(0x[0-9a-f]+)`)
)

// readGDB reads testdata/golden/core-NAME.gdb.
func readGDB(t *testing.T, name string) map[int]gdbThread {
	t.Helper()
	f, err := os.Open(filepath.Join("../../testdata/golden", "core-"+name+".gdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]gdbThread{}
	cur := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := gdbThreadRE.FindStringSubmatch(sc.Text()); m != nil {
			cur, _ = strconv.Atoi(m[1])
			out[cur] = gdbThread{lwp: cur}
		} else if m := gdbFrameRE.FindStringSubmatch(sc.Text()); m != nil && cur >= 0 {
			pc, _ := strconv.ParseUint(m[1], 0, 64)
			th := out[cur]
			th.pcs = append(th.pcs, pc)
			out[cur] = th
		}
	}
	return out
}

func TestCoreReadsThreadsRegistersAndMemory(t *testing.T) {
	for _, name := range []string{"crash-v2", "crash-v3"} {
		t.Run(name+" has gdb's threads, the dying thread first, with its PC and stack", func(t *testing.T) {
			c, err := Open(filepath.Join(cores, name+".core"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			gdb := readGDB(t, name)
			if len(c.Threads) != 2 || len(gdb) != 2 {
				t.Fatalf("%d threads in the core, %d in gdb's backtrace; want 2", len(c.Threads), len(gdb))
			}
			if c.Name != name || c.Pid != c.Threads[0].Tid {
				t.Errorf("name %q pid %d, want %q and the first thread's tid %d", c.Name, c.Pid, name, c.Threads[0].Tid)
			}
			if c.Threads[0].Signal != 11 {
				t.Errorf("first thread's signal %d, want SIGSEGV (11)", c.Threads[0].Signal)
			}
			raw := func(th Thread, name string) uint64 {
				for i, n := range c.RegNames {
					if n == name {
						return th.Raw[i]
					}
				}
				t.Fatalf("no register %s", name)
				return 0
			}
			for _, th := range c.Threads {
				g, ok := gdb[th.Tid]
				if !ok {
					t.Fatalf("thread %d is not in gdb's backtrace", th.Tid)
				}
				if pc := th.Regs.PC(); pc != g.pcs[0] || raw(th, "rip") != pc {
					t.Errorf("thread %d: PC %#x (rip %#x), gdb's #0 is %#x", th.Tid, pc, raw(th, "rip"), g.pcs[0])
				}
				if sp := th.Regs.SP(); sp != raw(th, "rsp") || sp == 0 {
					t.Errorf("thread %d: SP %#x, rsp %#x", th.Tid, sp, raw(th, "rsp"))
				}
				// The stack is dumped: the word at SP reads.
				if _, err := frames.ReadUint64(c, th.Regs.SP()); err != nil {
					t.Errorf("thread %d: reading the stack: %v", th.Tid, err)
				}
			}
			want := "/tmp/sfdbg-cores/" + name
			if c.mainPath() != want {
				t.Errorf("main executable %q, want %q (NT_FILE)", c.mainPath(), want)
			}
			if len(c.mappedBuildID(want)) != 20 {
				t.Errorf("no 20-byte build-id in the core's copy of %s's ELF header", want)
			}
		})
		t.Run(name+": text left out of the core reads from EXE once Space has it, and not before", func(t *testing.T) {
			c, err := Open(filepath.Join(cores, name+".core"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			pc := c.Threads[0].Regs.PC()
			var b [4]byte
			_, err = c.ReadAt(b[:], pc)
			var me *frames.MemoryError
			if !errors.As(err, &me) || !errors.Is(err, ErrNotDumped) || me.Addr != pc {
				t.Fatalf("reading text at %#x before Space: %v, want a MemoryError at that address wrapping ErrNotDumped", pc, err)
			}
			sp, err := c.Space(Options{Exe: filepath.Join(cores, name)})
			if err != nil {
				t.Fatal(err)
			}
			defer sp.Modules.Close()
			if _, err := c.ReadAt(b[:], pc); err != nil {
				t.Fatalf("reading text at %#x: %v", pc, err)
			}
			m := sp.Modules.Find(pc)
			if m == nil || m.Name != name || m.Path != "/tmp/sfdbg-cores/"+name {
				t.Fatalf("module of %#x: %+v, want %s as the process saw it", pc, m, name)
			}
			if _, err := c.ReadAt(b[:], 0x10); !errors.As(err, &me) || me.Addr != 0x10 {
				t.Errorf("reading address 0x10: %v, want a MemoryError", err)
			}
		})
	}
}

func TestQEMUCoreWithoutNTFileMapsTheExecutableAtATPHDR(t *testing.T) {
	c, err := Open(filepath.Join(cores, "crash-v3-qemu.core"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.Files) != 0 || len(c.Threads) != 2 {
		t.Fatalf("%d NT_FILE mappings and %d threads, want none (qemu-user writes no NT_FILE) and 2", len(c.Files), len(c.Threads))
	}
	if c.mainPath() != "./crash-v3" {
		t.Errorf("main executable %q, want AT_EXECFN ./crash-v3", c.mainPath())
	}
	sp, err := c.Space(Options{Exe: filepath.Join(cores, "crash-v3")})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Modules.Close()
	for _, th := range c.Threads {
		m := sp.Modules.Find(th.Regs.PC())
		if m == nil || m.Name != "crash-v3" || m.Bias != 0 {
			t.Errorf("thread %d: module of PC %#x: %+v, want crash-v3 at bias 0 (static, not PIE)", th.Tid, th.Regs.PC(), m)
		}
	}
	// With a wrong executable, the build-id in the core's copy of the
	// ELF header says so.
	c.Files = nil
	if _, err := c.Space(Options{Exe: filepath.Join(cores, "crash-v2")}); !errors.As(err, new(*MismatchError)) {
		t.Errorf("crash-v2 for crash-v3's qemu core: %v, want a build-id mismatch", err)
	}
}

func TestCoreWithTheWrongExecutableIsAMismatch(t *testing.T) {
	c, err := Open(filepath.Join(cores, "crash-v2.core"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Space(Options{Exe: filepath.Join(cores, "crash-v3")})
	var me *MismatchError
	if !errors.As(err, &me) || me.Mapped != "/tmp/sfdbg-cores/crash-v2" || filepath.Base(me.File) != "crash-v3" || me.CoreID == me.FileID {
		t.Fatalf("got %v, want a build-id mismatch naming both files", err)
	}
}

func TestDamagedCoreIsAFormatErrorWithAnOffset(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(cores, "crash-v3.core"))
	if err != nil {
		t.Fatal(err)
	}
	phoff := binary.LittleEndian.Uint64(good[32:])
	noteOff := binary.LittleEndian.Uint64(good[phoff+8:]) // program header 0 is PT_NOTE
	tests := []struct {
		name    string
		damage  func(b []byte) []byte
		wantOff int64 // -1: any
	}{
		{"a core cut inside its notes names the note segment's program header", func(b []byte) []byte { return b[:noteOff+100] }, int64(phoff)},
		{"a core cut inside its memory names the segment's program header", func(b []byte) []byte { return b[:len(b)-4096] }, -1},
		{"a core cut inside its ELF header is not an ELF core", func(b []byte) []byte { return b[:40] }, 0},
		{"PT_NOTE headers that all name the same notes, more than the file holds, name the header that goes past", func(b []byte) []byte {
			// Each header used to read and parse the notes again: n
			// headers of 56 bytes cost n copies of the notes.
			noteSize := binary.LittleEndian.Uint64(good[phoff+32:])
			c := append([]byte(nil), b[:noteOff+noteSize]...)
			phnum := uint64(binary.LittleEndian.Uint16(c[56:]))
			for i := uint64(1); i < phnum; i++ {
				copy(c[phoff+56*i:phoff+56*i+56], c[phoff:phoff+56])
			}
			return c
		}, int64(phoff + 56)},
		{"an NT_FILE count larger than the note names the note", func(b []byte) []byte {
			c := append([]byte(nil), b...)
			for off := noteOff; off+12 < uint64(len(c)); {
				namesz, descsz, typ := binary.LittleEndian.Uint32(c[off:]), binary.LittleEndian.Uint32(c[off+4:]), binary.LittleEndian.Uint32(c[off+8:])
				desc := off + 12 + (uint64(namesz)+3)&^3
				if typ == ntFILE {
					binary.LittleEndian.PutUint64(c[desc:], 1<<40)
					return c
				}
				off = desc + (uint64(descsz)+3)&^3
			}
			t.Fatal("no NT_FILE")
			return nil
		}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "core")
			if err := os.WriteFile(p, tc.damage(good), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Open(p)
			if err == nil {
				c.Close()
				t.Fatal("opened")
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%v (%T), want a *FormatError", err, err)
			}
			if tc.wantOff >= 0 && fe.Off != tc.wantOff {
				t.Errorf("%v: offset %#x, want %#x", err, fe.Off, tc.wantOff)
			}
			t.Log(err)
		})
	}
}

// AArch64 and s390x qemu-user cores: each thread's PC (in the ABI's PC
// slot, not the link register), SP and byte order, against gdb-multiarch.
func TestForeignCoresReadRegistersInTheirByteOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		abi   sframe.ABI
		order binary.ByteOrder
		pc    string // the raw register holding the PC
	}{
		{"crash-aarch64-v3", sframe.ABIAArch64LittleEndian, binary.LittleEndian, "pc"},
		{"crash-aarch64-pac-v3", sframe.ABIAArch64LittleEndian, binary.LittleEndian, "pc"},
		{"crash-s390x-v3", sframe.ABIS390XBigEndian, binary.BigEndian, "pswa"},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, err := Open(filepath.Join(cores, c.name+".core"))
			if err != nil {
				t.Fatal(err)
			}
			defer core.Close()
			gdb := readGDB(t, c.name)
			if core.Order != c.order || len(core.Threads) != len(gdb) {
				t.Fatalf("order %v, %d threads; want %v, %d", core.Order, len(core.Threads), c.order, len(gdb))
			}
			for _, th := range core.Threads {
				want, ok := gdb[th.Tid]
				if !ok || len(want.pcs) == 0 {
					t.Fatalf("thread %d not in gdb's backtrace", th.Tid)
				}
				raw := -1
				for i, n := range core.RegNames {
					if n == c.pc {
						raw = i
					}
				}
				if frames.SFrameArch(c.abi) != th.Regs.Arch || th.Regs.PC() != want.pcs[0] || raw < 0 || th.Raw[raw] != want.pcs[0] {
					t.Errorf("thread %d: ABI %v PC %#x; want %v, gdb's %#x", th.Tid, th.Regs.Arch.Name, th.Regs.PC(), c.abi, want.pcs[0])
				}
				// The stack pointer points into a dumped segment: reading
				// a word there works, in the core's byte order.
				if _, err := frames.ReadUint64(core, th.Regs.SP()); err != nil {
					t.Errorf("thread %d: SP %#x unreadable: %v", th.Tid, th.Regs.SP(), err)
				}
			}
			if frames.ByteOrder(core) != c.order {
				t.Errorf("frames.ByteOrder(core) = %v", frames.ByteOrder(core))
			}
		})
	}
}

// NT_ARM_PAC_MASK ("LINUX" note 0x406: data_mask, insn_mask) gives the
// mask the unwinders strip signed return addresses with.
func TestPACMaskNote(t *testing.T) {
	note := func(name string, typ uint32, desc []byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)+1))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
		b = binary.LittleEndian.AppendUint32(b, typ)
		b = append(b, name...)
		for len(b)%4 != 0 || len(b) < 12+len(name)+1 {
			b = append(b, 0)
		}
		return append(b, desc...)
	}
	desc := binary.LittleEndian.AppendUint64(nil, 0x007f_0000_0000_0000)
	desc = binary.LittleEndian.AppendUint64(desc, 0xff7f_0000_0000_0000)
	c := &Core{Path: "test.core", Machine: elf.EM_AARCH64, Order: binary.LittleEndian}
	if err := c.parseNotes(note("LINUX", ntARMPACMask, desc), 0); err != nil || c.PACMask != 0xff7f_0000_0000_0000 {
		t.Errorf("PAC mask %#x, %v; want the insn_mask 0xff7f000000000000", c.PACMask, err)
	}
	c = &Core{Path: "test.core", Machine: elf.EM_AARCH64, Order: binary.LittleEndian}
	var fe *FormatError
	if err := c.parseNotes(note("LINUX", ntARMPACMask, desc[:8]), 0x100); !errors.As(err, &fe) || fe.Off != 0x100+20 {
		t.Errorf("short NT_ARM_PAC_MASK: %v, want a format error at byte 0x114", err)
	}
}
