package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// The 32-bit ARM core qemu-arm wrote (ELFCLASS32, no NT_FILE, no
// NT_SIGINFO): its thread's registers are pr_reg's eighteen 32-bit words,
// the PC gdb-multiarch prints, and the executable maps at AT_PHDR.
func TestARMCoreReadsThirtyTwoBitRegistersAndMemory(t *testing.T) {
	c, err := Open(filepath.Join(cores, "arm-crash.core"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gdb := readARMGDB(t)
	if c.Machine != elf.EM_ARM || c.Order != binary.LittleEndian || len(c.Threads) != 1 || c.Name != "arm-crash" {
		t.Fatalf("machine %v, %v, %d threads, name %q; want EM_ARM, little-endian, 1, arm-crash", c.Machine, c.Order, len(c.Threads), c.Name)
	}
	th := c.Threads[0]
	if th.Regs.Arch != arch.ARMArch || len(th.Raw) != 18 || len(c.RegNames) != 18 || c.RegNames[16] != "cpsr" {
		t.Fatalf("arch %v, %d raw registers named %v", th.Regs.Arch.Name, len(th.Raw), c.RegNames)
	}
	if th.Tid != gdb.lwp || th.Signal != 11 || th.Regs.PC() != gdb.pcs[0] || th.Raw[15] != gdb.pcs[0] {
		t.Errorf("thread %d signal %d PC %#x (raw %#x); gdb: LWP %d at %#x, SIGSEGV", th.Tid, th.Signal, th.Regs.PC(), th.Raw[15], gdb.lwp, gdb.pcs[0])
	}
	// crash_leaf is Thumb code: the CPSR's T bit, kept at its slot.
	if cpsr, ok := th.Regs.Get(arch.ARMArch.Thumb.CPSR); !ok || cpsr != th.Raw[16] || cpsr&arch.CPSRT == 0 {
		t.Errorf("CPSR %#x (known %v), raw %#x: want the T bit", cpsr, ok, th.Raw[16])
	}
	// Every register word is 32 bits: no word holds bits above.
	for i, v := range th.Raw {
		if v>>32 != 0 {
			t.Errorf("%s = %#x: wider than 32 bits", c.RegNames[i], v)
		}
	}
	if _, ok := c.auxVal(atPhdr); !ok || len(c.Auxv) < 10 {
		t.Errorf("auxiliary vector of %d entries without AT_PHDR: %v", len(c.Auxv), c.Auxv)
	}
	if _, err := frames.ReadPtr(c, th.Regs.SP(), 4); err != nil {
		t.Errorf("SP %#x unreadable: %v", th.Regs.SP(), err)
	}
	sp, err := c.Space(Options{Exe: filepath.Join(cores, "arm-crash")})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Modules.Close()
	if m := sp.Modules.Find(th.Regs.PC()); m == nil || m.Name != "arm-crash" || m.Bias != 0 {
		t.Errorf("module of PC %#x: %+v, want arm-crash at bias 0", th.Regs.PC(), m)
	}
}

// readARMGDB reads the one thread of core-arm-crash.gdb: "Thread 1 (LWP
// N):", without the pthread address of a threaded program's line.
func readARMGDB(t *testing.T) gdbThread {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/golden", "core-arm-crash.gdb"))
	if err != nil {
		t.Fatal(err)
	}
	var th gdbThread
	for _, line := range strings.Split(string(b), "\n") {
		if m := armThreadRE.FindStringSubmatch(line); m != nil {
			th.lwp, _ = strconv.Atoi(m[1])
		} else if m := gdbFrameRE.FindStringSubmatch(line); m != nil {
			pc, _ := strconv.ParseUint(m[1], 0, 64)
			th.pcs = append(th.pcs, pc)
		}
	}
	if th.lwp == 0 || len(th.pcs) == 0 {
		t.Fatalf("no thread with frames in core-arm-crash.gdb: %+v", th)
	}
	return th
}

var armThreadRE = regexp.MustCompile(`^Thread \d+ \(LWP (\d+)\):$`)

// armCore builds a little-endian ELFCLASS32 ARM core: one PT_NOTE with
// the given notes (name "CORE") and one PT_LOAD of 4 KiB at 0x10000.
func armCore(notes ...[]byte) []byte {
	le := binary.LittleEndian
	var nb []byte
	for _, n := range notes {
		nb = append(nb, n...)
	}
	const ehsize, phsize = 52, 32
	noteOff := uint32(ehsize + 2*phsize)
	loadOff := (noteOff + uint32(len(nb)) + 4095) &^ 4095
	b := make([]byte, loadOff+4096)
	copy(b, "\x7fELF\x01\x01\x01")
	le.PutUint16(b[16:], uint16(elf.ET_CORE))
	le.PutUint16(b[18:], uint16(elf.EM_ARM))
	le.PutUint32(b[20:], 1)
	le.PutUint32(b[28:], ehsize) // e_phoff
	le.PutUint16(b[40:], ehsize)
	le.PutUint16(b[42:], phsize)
	le.PutUint16(b[44:], 2)
	ph := b[ehsize:]
	le.PutUint32(ph[0:], uint32(elf.PT_NOTE))
	le.PutUint32(ph[4:], noteOff)
	le.PutUint32(ph[16:], uint32(len(nb)))
	ph = b[ehsize+phsize:]
	le.PutUint32(ph[0:], uint32(elf.PT_LOAD))
	le.PutUint32(ph[4:], loadOff)
	le.PutUint32(ph[8:], 0x10000)
	le.PutUint32(ph[16:], 4096)
	le.PutUint32(ph[20:], 4096)
	le.PutUint32(ph[24:], uint32(elf.PF_R|elf.PF_X))
	copy(b[noteOff:], nb)
	b[loadOff] = 0x2a
	return b
}

// coreNote is a "CORE" note of type typ in little-endian byte order.
func coreNote(typ uint32, desc []byte) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 5)
	b = le.AppendUint32(b, uint32(len(desc)))
	b = le.AppendUint32(b, typ)
	b = append(b, "CORE\x00\x00\x00\x00"...)
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// words is n 32-bit little-endian words.
func words(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// armNotes are the notes of a kernel-written ARM core: NT_PRSTATUS (148
// bytes: pr_pid at 24, pr_reg at 72), NT_PRPSINFO (124 bytes), NT_AUXV
// and NT_FILE of 32-bit words, NT_SIGINFO (si_addr at 12).
func armNotes() [][]byte {
	prstatus := make([]byte, 148)
	binary.LittleEndian.PutUint16(prstatus[12:], 11) // pr_cursig
	binary.LittleEndian.PutUint32(prstatus[24:], 4242)
	for i := range 18 {
		binary.LittleEndian.PutUint32(prstatus[72+4*i:], 0x100+uint32(i))
	}
	binary.LittleEndian.PutUint32(prstatus[72+4*15:], 0x10020) // pc
	binary.LittleEndian.PutUint32(prstatus[72+4*16:], 0x30)    // cpsr: Thumb
	prpsinfo := make([]byte, 124)
	copy(prpsinfo[28:], "prog")
	copy(prpsinfo[44:], "./prog arg")
	auxv := words(atPhdr, 0x10034, atEntry, 0x10100, 0, 0)
	file := words(2, 4096, 0x10000, 0x11000, 0, 0x20000, 0x21000, 1)
	file = append(file, "/bin/prog\x00/lib/libc.so.6\x00"...)
	siginfo := words(11, 0, 1, 0xdead)
	siginfo = append(siginfo, make([]byte, 128-len(siginfo))...)
	return [][]byte{coreNote(ntPRSTATUS, prstatus), coreNote(ntPRPSINFO, prpsinfo), coreNote(ntAUXV, auxv),
		coreNote(ntFILE, file), coreNote(ntSIGINFO, siginfo)}
}

func TestARMCoreNotesAreReadWithThirtyTwoBitFields(t *testing.T) {
	b := armCore(armNotes()...)
	c, err := newCore(bytes.NewReader(b), int64(len(b)), "arm.core")
	if err != nil {
		t.Fatal(err)
	}
	th := c.Threads[0]
	if c.Pid != 4242 || th.Signal != 11 || th.Regs.PC() != 0x10020 || th.Raw[0] != 0x100 || th.Raw[17] != 0x111 {
		t.Errorf("pid %d signal %d PC %#x r0 %#x orig_r0 %#x", c.Pid, th.Signal, th.Regs.PC(), th.Raw[0], th.Raw[17])
	}
	if sp, _ := th.Regs.Get(13); sp != 0x10d {
		t.Errorf("sp %#x, want 0x10d", sp)
	}
	if c.Name != "prog" || c.Args != "./prog arg" {
		t.Errorf("name %q args %q", c.Name, c.Args)
	}
	if v, ok := c.auxVal(atEntry); !ok || v != 0x10100 || len(c.Auxv) != 2 {
		t.Errorf("auxv %v", c.Auxv)
	}
	want := []FileMapping{{0x10000, 0x11000, 0, "/bin/prog"}, {0x20000, 0x21000, 4096, "/lib/libc.so.6"}}
	if len(c.Files) != 2 || c.Files[0] != want[0] || c.Files[1] != want[1] {
		t.Errorf("NT_FILE %+v, want %+v", c.Files, want)
	}
	if si := c.Siginfo; si == nil || si.Signo != 11 || si.Code != 1 || !si.HasAddr || si.Addr != 0xdead {
		t.Errorf("NT_SIGINFO %+v, want SIGSEGV SEGV_MAPERR at 0xdead", si)
	}
	if v, err := frames.ReadPtr(c, 0x10000, 4); err != nil || v != 0x2a {
		t.Errorf("word at 0x10000: %#x, %v", v, err)
	}
}

func TestDamagedARMCoreIsAFormatError(t *testing.T) {
	notes := armNotes()
	for _, tc := range []struct {
		name string
		n    int // the note replaced
		desc []byte
	}{
		{"an NT_PRSTATUS too short for pr_reg", 0, make([]byte, 100)},
		{"an NT_PRPSINFO too short for pr_psargs", 1, make([]byte, 100)},
		{"an NT_FILE count larger than the note", 3, words(1<<30, 4096)},
		{"an NT_FILE shorter than its header", 3, words(1)},
		{"an NT_FILE mapping that ends before it starts", 3, append(words(1, 4096, 0x2000, 0x1000, 0), "x\x00"...)},
		{"an NT_SIGINFO without si_addr", 4, words(11, 0, 1)},
	} {
		t.Run(tc.name+" names its note", func(t *testing.T) {
			ns := append([][]byte(nil), notes...)
			typ := binary.LittleEndian.Uint32(ns[tc.n][8:])
			ns[tc.n] = coreNote(typ, tc.desc)
			b := armCore(ns...)
			_, err := newCore(bytes.NewReader(b), int64(len(b)), "arm.core")
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Off < 52+64 {
				t.Fatalf("%v, want a *FormatError inside the notes", err)
			}
			t.Log(err)
		})
	}
	t.Run("a 32-bit core of a 64-bit machine is unsupported", func(t *testing.T) {
		b := armCore(notes...)
		binary.LittleEndian.PutUint16(b[18:], uint16(elf.EM_AARCH64))
		if _, err := newCore(bytes.NewReader(b), int64(len(b)), "arm.core"); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%v, want ErrUnsupported", err)
		}
	})
}

// A qemu core of a dynamically linked program has no NT_FILE: the shared
// objects are found through DT_DEBUG, r_debug and the link_map list, which
// a damaged core may make cyclic.
func TestLinkMapWalkFindsSharedObjectsAndEnds(t *testing.T) {
	b := armCore(armNotes()...)
	le := binary.LittleEndian
	load := uint64(le.Uint32(b[52+32+4:])) // PT_LOAD's p_offset: memory 0x10000
	put := func(addr uint64, v ...uint32) {
		for i, x := range v {
			le.PutUint32(b[load+addr-0x10000+4*uint64(i):], x)
		}
	}
	put(0x10000, dtDebug, 0x10100, dtNull, 0)     // the dynamic section
	put(0x10100, 1, 0x10200)                      // r_debug: r_version, r_map
	put(0x10200, 0x40000000, 0x10300, 0, 0x10240) // l_addr, l_name, l_ld, l_next
	put(0x10240, 0, 0x10310, 0, 0x10200)          // the program (""), back to the first: a cycle
	copy(b[load+0x300:], "/arm-crash\x00")
	c, err := newCore(bytes.NewReader(b), int64(len(b)), "arm.core")
	if err != nil {
		t.Fatal(err)
	}
	got := c.linkMapMappings(0x10000, 16, cores)
	if len(got) == 0 {
		t.Fatal("no mappings")
	}
	for _, m := range got {
		if m.Path != "/arm-crash" || m.Start < 0x40000000 || m.End <= m.Start {
			t.Errorf("mapping %+v, want /arm-crash above 0x40000000", m)
		}
	}
	// Without DT_DEBUG (a static program) there is no list.
	put(0x10000, dtNull, 0)
	if got := c.linkMapMappings(0x10000, 16, cores); got != nil {
		t.Errorf("mappings %+v without DT_DEBUG", got)
	}
}
