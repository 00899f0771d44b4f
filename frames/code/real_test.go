package code

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/arch/x86/x86asm"
)

// program is an x86-64 executable prepared for the walk: its functions
// (symbols in .text, with foo.cold parts), CFI, and what a caller knows of
// call targets (PLT names).
type program struct {
	*elfFixture
	names map[uint64]string // PLT entries and function symbols by address
	dead  map[uint64]bool   // local functions found not to return
	secs  []loadedSec       // allocated sections with file bytes, for jump tables
}

type loadedSec struct {
	addr uint64
	data []byte
}

// read returns size bytes at link-time address addr, or nil.
func (p *program) read(addr uint64, size int) []byte {
	for _, s := range p.secs {
		if addr >= s.addr && addr-s.addr < uint64(len(s.data)) && uint64(size) <= uint64(len(s.data))-(addr-s.addr) {
			return s.data[addr-s.addr : addr-s.addr+uint64(size)]
		}
	}
	return nil
}

func loadProgram(t testing.TB, path string) *program {
	t.Helper()
	fx := loadFixture(t, path)
	p := &program{elfFixture: fx, names: map[uint64]string{}, dead: map[uint64]bool{}}
	for _, fn := range fx.funcs {
		p.names[fn.addr] = fn.name
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && s.Addr != 0 {
			if b, err := s.Data(); err == nil {
				p.secs = append(p.secs, loadedSec{s.Addr, b})
			}
		}
	}
	if dyn, err := f.DynamicSymbols(); err == nil {
		for _, s := range dyn {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && p.names[s.Value] == "" {
				p.names[s.Value] = s.Name
			}
		}
	}
	// .rela.plt entry i (JUMP_SLOT) is served by .plt.sec entry i (IBT
	// PLT) or .plt entry i+1.
	rela := f.Section(".rela.plt")
	dyn, _ := f.DynamicSymbols()
	if rela == nil || dyn == nil {
		return p
	}
	b, err := rela.Data()
	if err != nil {
		t.Fatal(err)
	}
	// Entry i of .plt.sec (IBT PLT), or .plt after its header: 16-byte
	// entries after 16 bytes on x86-64 and 32 on AArch64; 32-byte
	// entries after 32 bytes on s390x.
	plt, first, size := f.Section(".plt.sec"), uint64(0), uint64(16)
	if plt == nil {
		plt, first = f.Section(".plt"), 1
		switch f.Machine {
		case elf.EM_AARCH64:
			first = 2
		case elf.EM_S390:
			size = 32
		}
	}
	if plt == nil {
		return p
	}
	// The entry follows from the GOT slot the relocation patches (the
	// relocations are not in slot order: IRELATIVE ones come last).
	gotplt := f.Section(".got.plt")
	if gotplt == nil {
		return p
	}
	for i := 0; (i+1)*24 <= len(b); i++ {
		off := binary.LittleEndian.Uint64(b[i*24:])
		info := binary.LittleEndian.Uint64(b[i*24+8:])
		sym := int(info >> 32)
		if sym == 0 || sym > len(dyn) || off < gotplt.Addr+24 {
			continue
		}
		slot := (off-gotplt.Addr)/8 - 3
		p.names[plt.Addr+size*(slot+first)] = dyn[sym-1].Name
	}
	return p
}

func (p *program) noReturn(target uint64) bool {
	if p.dead[target] {
		return true
	}
	name := p.names[target]
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	return NoReturnNames[name]
}

// coldParent returns the parent of a cold part ("foo" for "foo.cold",
// "foo.cold.1").
func coldParent(name string) (string, bool) {
	i := strings.Index(name, ".cold")
	if i <= 0 {
		return "", false
	}
	return name[:i], true
}

// result is the walk over a whole program.
type result struct {
	funcs, swept, decoded, judged int
	padding                       int             // unreached nops (alignment padding)
	bad                           map[string]bool // functions with a finding or a disagreement
	findings                      map[Kind]int
	dis                           []disagreement
	disFuncs                      int
	examples                      []string
	visits                        int
}

// analyzeProgram walks every function: parents first, then each cold
// part (foo.cold) from the state of a jump to its start. Local functions
// whose walk finds no way back to the caller (Func.Returns) are added to
// the noreturn set and the program is walked again, up to four times.
func analyzeProgram(t testing.TB, p *program, judge bool) *result {
	var r *result
	for round := 0; round < 4; round++ {
		before := len(p.dead)
		r = analyzeOnce(p, judge)
		if len(p.dead) == before {
			break
		}
	}
	return r
}

func analyzeOnce(p *program, judge bool) *result {
	r := &result{findings: map[Kind]int{}, bad: map[string]bool{}}
	in := func(fn elfFunc) func(uint64) bool {
		return func(a uint64) bool { return a >= fn.addr && a < fn.addr+uint64(len(fn.code)) }
	}
	var colds, hots []elfFunc
	for _, fn := range p.funcs {
		if _, ok := coldParent(fn.name); ok {
			colds = append(colds, fn)
		} else {
			hots = append(hots, fn)
		}
	}
	inAny := func(fns []elfFunc) func(uint64) bool {
		return func(a uint64) bool {
			i := sort.Search(len(fns), func(i int) bool { return fns[i].addr+uint64(len(fns[i].code)) > a })
			return i < len(fns) && in(fns[i])(a)
		}
	}
	entries := map[uint64]*State{}
	run := func(fn elfFunc, opts *Options) {
		f := Analyze(amd64, fn.code, fn.addr, opts)
		r.funcs++
		r.swept += sweep(fn.code, fn.addr)
		r.decoded += f.Decoded
		r.judged += f.Judged
		r.visits += f.Visits
		for _, x := range x86Sweep(fn.code, fn.addr) {
			if x.ok && x.in.Op == x86asm.NOP && f.Index(x.pc) < 0 {
				r.padding++
			}
		}
		if !f.Returns && !strings.Contains(fn.name, ".cold") {
			p.dead[fn.addr] = true
		}
		for _, fd := range f.Findings {
			r.findings[fd.Kind]++
			if fd.Kind != KindUnknown && fd.Kind != KindFallThrough {
				r.bad[fn.name] = true
			}
			if fd.Kind != KindUnknown && fd.Kind != KindFallThrough && len(r.examples) < 20 {
				r.examples = append(r.examples, fmt.Sprintf("%s: %s", fn.name, f.Describe(fd)))
			}
		}
		for _, e := range f.Exits {
			if entries[e.Target] == nil {
				st := e.State
				entries[e.Target] = &st
			}
		}
		if judge {
			if d := judgeCFIAll(p.elfFixture, f); len(d) > 0 {
				r.dis = append(r.dis, d...)
				r.disFuncs++
				r.bad[fn.name] = true
				if len(r.examples) < 40 {
					r.examples = append(r.examples, fmt.Sprintf("%s: %#x %s", fn.name, d[0].pc, d[0].what))
				}
			}
		}
	}
	for _, fn := range hots {
		run(fn, &Options{NoReturn: p.noReturn, Partition: inAny(colds), JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
	}
	for _, fn := range colds {
		st := entries[fn.addr]
		if st == nil {
			continue // no jump to its start found: not judged
		}
		run(fn, &Options{NoReturn: p.noReturn, Entry: st, Partition: inAny(hots), JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
	}
	return r
}

// judgeCFIAll is judgeCFI for programs: instructions without an FDE or
// with a CFA expression are skipped.
func judgeCFIAll(fx *elfFixture, fn *Func) []disagreement {
	a := fn.Arch
	var out []disagreement
	for _, in := range fn.Insts {
		if in.State < 0 {
			continue
		}
		pc := fn.Start + uint64(in.Off)
		st := fn.States[in.State]
		fde, err := fx.eh.FDEForPC(pc)
		if err != nil {
			continue
		}
		row, err := fde.RowAt(pc)
		if err != nil || row.CFA.Kind != 3 /* ValOffset */ || row.CFA.Reg != a.SP && row.CFA.Reg != a.FP || row.Signal {
			continue // a rule the walk cannot judge; a signal trampoline is not entered by a call
		}
		if ra, ok := row.Rule(a.RA); ok && ra.Kind == 0 /* Undefined: outermost frame */ {
			continue
		}
		if k, ok := st.CFAVia(a, row.CFA.Reg); !ok || k != row.CFA.Offset {
			out = append(out, disagreement{pc, fmt.Sprintf("cfa: CFI %s, code %s", a.Format(row.CFA), st.Format(a))})
			continue
		}
		for _, reg := range Tracked(a) {
			cr, ok := row.Rule(reg)
			if !ok {
				cr = ruleSame
			}
			code, _ := st.Saved(a, reg)
			agree := false
			switch cr.Kind {
			case 1: // SameValue
				agree = st.InRegister(a, reg)
			case 2: // Offset
				k, ok := st.SavedAt(a, reg)
				agree = code == cr || ok && k == cr.Offset
			case rule.Register:
				r, ok := st.CopiedTo(a, reg)
				agree = code == cr || ok && r == cr.Reg
			default:
				agree = code == cr
			}
			if !agree {
				out = append(out, disagreement{pc, fmt.Sprintf("%s: CFI %s, code %s", a.RegName(reg), a.Format(cr), st.Format(a))})
				break
			}
		}
	}
	return out
}

// TestRealPrograms walks every function of the compiled x86-64 fixtures
// and compares the code with their CFI at every instruction judged:
// compiled code must give no finding and no disagreement.
func TestRealPrograms(t *testing.T) {
	bins, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "bin", "*"))
	var names []string
	for _, b := range bins {
		base := filepath.Base(b)
		// verify-faults has hand-written CFI faults (the fixture of sfdbg
		// verify): not compiled code.
		if strings.HasPrefix(base, "aarch64") || strings.HasPrefix(base, "s390x") || strings.HasPrefix(base, "features") || strings.HasPrefix(base, "ctf") || strings.HasPrefix(base, "verify-faults") {
			continue
		}
		if st, err := os.Stat(b); err != nil || st.IsDir() {
			continue
		}
		names = append(names, b)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Skip("no compiled fixtures in testdata/bin")
	}
	for _, b := range names {
		t.Run(filepath.Base(b), func(t *testing.T) {
			p := loadProgram(t, b)
			if p.eh == nil {
				t.Skip("no .eh_frame")
			}
			r := analyzeProgram(t, p, true)
			cover := float64(r.judged) / float64(r.swept-r.padding)
			t.Logf("%d functions, %d instructions (%d unreached nops), %d decoded, %d judged (%.1f%% of the non-padding), %d visits; findings %v; %d disagreements in %d functions",
				r.funcs, r.swept, r.padding, r.decoded, r.judged, 100*cover, r.visits, r.findings, len(r.dis), r.disFuncs)
			for _, e := range r.examples {
				t.Log(e)
			}
			// Compiled code: no finding, no disagreement with CFI. The
			// static glibc in sortcrash has hand-written assembly whose
			// differences are triaged (see known).
			for name := range r.bad {
				if !known[name] {
					t.Errorf("%s: a finding or a CFI disagreement in compiled code", name)
				}
			}
			if strings.HasPrefix(filepath.Base(b), "sqlite") && cover < 0.95 {
				t.Errorf("coverage %.1f%%, want >= 95%%", 100*cover)
			}
		})
	}
}

// known are the functions of the static glibc (2.36, Debian 12) linked
// into sortcrash-v3 where the code and CFI differ, triaged by hand:
//   - __mpn_addmul_1, __mpn_submul_1 (sysdeps/x86_64/addmul_1.S): push
//     %rbx and push %rbp with no CFI at all (FDE without instructions):
//     an annotation fault in glibc.
//   - clone, __clone (sysdeps/unix/sysv/linux/x86_64/clone.S): the
//     child's path pops its function and argument from the new stack,
//     calls it and ends in the exit syscall, which the walk does not know
//     for noreturn: it falls into the error path with the child's stack.
//   - _dl_runtime_resolve_*, _dl_runtime_profile_* (dl-trampoline.h):
//     entered from the PLT with two more words pushed (CFI: CFA=rsp+24 at
//     entry), not at a call's entry state.
var known = map[string]bool{
	"__mpn_addmul_1": true, "__mpn_submul_1": true, "clone": true, "__clone": true,
	"_dl_runtime_resolve_fxsave": true, "_dl_runtime_resolve_xsave": true, "_dl_runtime_resolve_xsavec": true,
	"_dl_runtime_profile_sse": true, "_dl_runtime_profile_avx": true, "_dl_runtime_profile_avx512": true,
}
