package debugger

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// This file is the test-only snapshot target: a stopped process recorded
// to testdata/snap (TestCaptureSnapshots with -capture) and replayed, without
// ptrace, by the REPL transcript tests.

// Snapshot is a stopped process saved to a file: every thread's registers,
// the stack memory near each thread's SP, and the modules (by file) it
// refers to. It implements Target read-only, so that debugger sessions can
// be replayed without ptrace in golden transcript tests.
type Snapshot struct {
	f     snapFile
	mods  *frames.Modules
	mem   *rangeMemory
	byTid map[int]*frames.Regs
}

// snapFile is the JSON form of a snapshot.
type snapFile struct {
	Name    string       `json:"name"`
	Threads []snapThread `json:"threads"`
	Modules []snapModule `json:"modules"`
	Memory  []snapMemory `json:"memory"`
}

type snapThread struct {
	Tid  int               `json:"tid"`
	Name string            `json:"name"`
	Regs map[string]uint64 `json:"regs"` // by AMD64 register name
}

type snapModule struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	File  string `json:"file,omitempty"` // file to open, relative to the snapshot; "" to leave the module without data
	Start uint64 `json:"start"`
	End   uint64 `json:"end"`
	Bias  uint64 `json:"bias"`
}

type snapMemory struct {
	Addr uint64 `json:"addr"`
	Data []byte `json:"data"`
}

// LoadSnapshot reads a snapshot written by WriteSnapshot. Module files are
// looked up relative to the snapshot's directory.
func LoadSnapshot(path string) (*Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Snapshot
	if err := json.Unmarshal(b, &s.f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(path)
	var mods []*frames.Module
	for _, m := range s.f.Modules {
		mod := &frames.Module{Name: m.Name, Path: m.Path, Start: m.Start, End: m.End, Bias: m.Bias}
		if m.File != "" {
			mod.OpenPath = filepath.Join(dir, m.File)
		} else {
			mod.ELF = emptyELF() // named, but without symbols or unwind data
		}
		mods = append(mods, mod)
	}
	s.mods = frames.NewModules(mods...)
	s.mem = &rangeMemory{}
	s.mem.ranges = append(s.mem.ranges, s.f.Memory...)
	sort.Slice(s.mem.ranges, func(i, j int) bool { return s.mem.ranges[i].Addr < s.mem.ranges[j].Addr })
	s.byTid = map[int]*frames.Regs{}
	for i := range s.f.Threads {
		r := frames.NewRegs(proc.HostArch)
		for name, v := range s.f.Threads[i].Regs {
			if reg, ok := proc.HostArch.RegNamed(name); ok {
				r.Set(reg, v)
			}
		}
		s.byTid[s.f.Threads[i].Tid] = &r
	}
	return &s, nil
}

// WriteSnapshot saves the threads and stacks of a stopped process: for each
// thread, the registers and up to stackBytes of stack from below its SP
// (the red zone) up. Modules whose path satisfies keep are recorded with
// their file copied next to the snapshot (by base name); the others are
// recorded without data, so that their PCs name them but do not unwind.
func WriteSnapshot(path string, st *proc.Stop, stackBytes int, keep func(path string) bool) error {
	sp, err := st.Space()
	if err != nil {
		return err
	}
	snap := snapFile{Name: proc.ProcessName(st.Pid())}
	dir := filepath.Dir(path)
	for _, m := range sp.Modules.List() {
		sm := snapModule{Name: m.Name, Path: m.Path, Start: m.Start, End: m.End, Bias: m.Bias}
		if keep(m.Path) && m.OpenPath != "" {
			b, err := os.ReadFile(m.OpenPath)
			if err != nil {
				return err
			}
			sm.File = filepath.Base(m.Path)
			if err := os.WriteFile(filepath.Join(dir, sm.File), b, 0o755); err != nil {
				return err
			}
		}
		snap.Modules = append(snap.Modules, sm)
	}
	for i, tid := range st.Threads() {
		regs, err := st.Regs(tid)
		if err != nil {
			return err
		}
		t := snapThread{Tid: i + 1, Name: snap.Name, Regs: map[string]uint64{}}
		for k, n := range proc.HostArch.RegNames {
			if v, ok := regs.Get(k); ok {
				t.Regs[n] = v
			}
		}
		snap.Threads = append(snap.Threads, t)
		lo := regs.SP() - 256
		buf := make([]byte, stackBytes)
		n := 0
		for n < len(buf) {
			chunk := min(len(buf)-n, proc.PageSize-int((lo+uint64(n))%proc.PageSize))
			k, err := st.Memory().ReadAt(buf[n:n+chunk], lo+uint64(n))
			n += k
			if err != nil {
				break
			}
		}
		snap.Memory = append(snap.Memory, snapMemory{Addr: lo, Data: buf[:n]})
	}
	b, err := json.MarshalIndent(&snap, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// rangeMemory is a Memory over several disjoint ranges, sorted by address.
type rangeMemory struct {
	ranges []snapMemory
}

func (m *rangeMemory) ReadAt(p []byte, addr uint64) (int, error) {
	for _, r := range m.ranges {
		if addr >= r.Addr && addr-r.Addr < uint64(len(r.Data)) {
			n := copy(p, r.Data[addr-r.Addr:])
			if n < len(p) {
				return n, fmt.Errorf("address %#x is not in the snapshot", addr+uint64(n))
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("address %#x is not in the snapshot", addr)
}

var errSnapshot = errors.New("not possible on a snapshot: it cannot run")

// Pid implements Target: 0.
func (s *Snapshot) Pid() int { return 0 }

// Threads implements Target: thread IDs 1, 2, ...
func (s *Snapshot) Threads() ([]int, error) {
	var out []int
	for _, t := range s.f.Threads {
		out = append(out, t.Tid)
	}
	return out, nil
}

// ThreadName implements Target.
func (s *Snapshot) ThreadName(tid int) string {
	for _, t := range s.f.Threads {
		if t.Tid == tid {
			return t.Name
		}
	}
	return ""
}

// Regs implements Target.
func (s *Snapshot) Regs(tid int) (frames.Regs, error) {
	if r := s.byTid[tid]; r != nil {
		return *r, nil
	}
	return frames.Regs{}, fmt.Errorf("no thread %d in the snapshot", tid)
}

// RegList implements Target.
func (s *Snapshot) RegList(tid int) ([]proc.RegValue, error) {
	r, err := s.Regs(tid)
	if err != nil {
		return nil, err
	}
	return proc.RegListFromFrames(&r), nil
}

// Space implements Target.
func (s *Snapshot) Space() (*frames.Space, error) {
	return &frames.Space{Mem: s.mem, Modules: s.mods}, nil
}

// SetBreakpoint implements Target.
func (s *Snapshot) SetBreakpoint(uint64) error { return errSnapshot }

// ClearBreakpoint implements Target.
func (s *Snapshot) ClearBreakpoint(uint64) error { return nil }

// Continue implements Target.
func (s *Snapshot) Continue() (Event, error) { return Event{}, errSnapshot }

// StepInstruction implements Target.
func (s *Snapshot) StepInstruction(int) (Event, error) { return Event{}, errSnapshot }

// Interrupt implements Target.
func (s *Snapshot) Interrupt() error { return nil }

// Detach implements Target.
func (s *Snapshot) Detach() error { return nil }

// Kill implements Target.
func (s *Snapshot) Kill() error { return nil }

// Launched implements Target.
func (s *Snapshot) Launched() bool { return false }

// Exited implements Target.
func (s *Snapshot) Exited() (bool, int) { return false, 0 }

// emptyELF returns an ELF64 little-endian x86-64 header with no sections
// and no segments: a module that has no symbols, no SFrame and no CFI.
func emptyELF() []byte {
	b := make([]byte, 64)
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1 // ELFCLASS64, ELFDATA2LSB, EV_CURRENT
	b[16] = 3                  // ET_DYN
	b[18] = 62                 // EM_X86_64
	b[20] = 1                  // e_version
	b[52] = 64                 // e_ehsize
	b[54] = 56                 // e_phentsize
	b[58] = 64                 // e_shentsize
	return b
}

var capture = flag.Bool("capture", false, "recapture the snapshots in testdata/snap from live fixtures (then run with -update)")

// TestCaptureSnapshots rewrites testdata/snap/deep-MODE.json from the
// deep-v3-O2 fixture and testdata/snap/inline-spin.json from inline-v3-O2
// when run with -capture (one of them: -run TestCaptureSnapshots/NAME).
// The goldens of the transcript tests depend on these files, not on a
// live process.
func TestCaptureSnapshots(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to recapture the snapshots")
	}
	for _, c := range []struct{ snap, fixture, mode string }{
		{"deep-spin", "deep-v3-O2", "spin"},
		{"deep-threads", "deep-v3-O2", "threads"},
		{"deep-signal", "deep-v3-O2", "signal"},
		{"inline-spin", "inline-v3-O2", "spin"},
	} {
		t.Run(c.snap, func(t *testing.T) {
			cmd := startFixture(t, c.fixture, c.mode)
			st, err := proc.Seize(cmd.Process.Pid)
			skipIfNoPtrace(t, err)
			if err != nil {
				t.Fatal(err)
			}
			err = WriteSnapshot(filepath.Join("testdata", "snap", c.snap+".json"), st, 12<<10,
				func(p string) bool { return strings.HasSuffix(p, "/"+c.fixture) })
			st.Detach()
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
