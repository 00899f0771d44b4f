package code

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// elfFunc is one function of an ELF file: its symbol and code.
type elfFunc struct {
	name  string
	addr  uint64
	code  []byte
	fault uint64 // the address of NAME.fault, 0 if none
}

// elfFixture is an x86-64 executable's functions, CFI and data.
type elfFixture struct {
	funcs      []elfFunc
	syms       map[string]elf.Symbol
	eh         *cfi.Table
	rodata     []byte
	rodataAddr uint64
}

func loadFixture(t testing.TB, path string) *elfFixture {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	data, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		t.Fatal(err)
	}
	fx := &elfFixture{syms: map[string]elf.Symbol{}}
	if ro := f.Section(".rodata"); ro != nil {
		if fx.rodata, err = ro.Data(); err != nil {
			t.Fatal(err)
		}
		fx.rodataAddr = ro.Addr
	}
	for _, s := range syms {
		fx.syms[s.Name] = s
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Section >= elf.SectionIndex(len(f.Sections)) ||
			f.Sections[s.Section] != text || s.Value < text.Addr || s.Value+s.Size > text.Addr+uint64(len(data)) {
			continue
		}
		off := s.Value - text.Addr
		fn := elfFunc{name: s.Name, addr: s.Value, code: data[off : off+s.Size]}
		if l, ok := fx.syms[s.Name+".fault"]; ok {
			fn.fault = l.Value
		}
		fx.funcs = append(fx.funcs, fn)
	}
	sort.Slice(fx.funcs, func(i, j int) bool { return fx.funcs[i].addr < fx.funcs[j].addr })
	if eh := f.Section(".eh_frame"); eh != nil {
		b, err := eh.Data()
		if err != nil {
			t.Fatal(err)
		}
		fx.eh, err = cfi.Parse(cfi.Section{Kind: cfi.EHFrame, Addr: eh.Addr, Order: f.ByteOrder, PtrSize: 8, Data: b})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fx
}

// tableAt returns a resolver that gives, for every indirect jump, the
// n-entry table of absolute addresses at symbol name in .rodata.
func (fx *elfFixture) table(t *testing.T, name string, n int) func(uint64) []uint64 {
	s, ok := fx.syms[name]
	if !ok {
		return nil
	}
	b := fx.rodata
	off := s.Value - fx.rodataAddr
	var out []uint64
	for i := 0; i < n; i++ {
		out = append(out, binary.LittleEndian.Uint64(b[off+uint64(8*i):]))
	}
	return func(uint64) []uint64 { return out }
}

// read returns size bytes of .rodata at addr, or nil.
func (fx *elfFixture) read(addr uint64, size int) []byte {
	if addr < fx.rodataAddr || addr-fx.rodataAddr+uint64(size) > uint64(len(fx.rodata)) {
		return nil
	}
	return fx.rodata[addr-fx.rodataAddr:][:size]
}

// disagreement is an instruction where the code's state and CFI's row
// differ.
type disagreement struct {
	pc   uint64
	what string
}

// judgeCFI compares the code's state with CFI's row at every instruction
// the walk judged, the way a check does: CFI's CFA rule reg+k must be
// what the code knows of reg; a register CFI says is saved at CFA+k must
// be saved there (or have been loaded back from there), one without a
// rule must still be in its register.
func judgeCFI(t *testing.T, fx *elfFixture, fn *Func) []disagreement {
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
			out = append(out, disagreement{pc, "no FDE"})
			continue
		}
		row, err := fde.RowAt(pc)
		if err != nil {
			t.Fatalf("%#x: %v", pc, err)
		}
		if row.CFA.Kind != rule.ValOffset {
			out = append(out, disagreement{pc, "CFI CFA " + row.CFA.String()})
			continue
		}
		if k, ok := st.CFAVia(a, row.CFA.Reg); !ok || k != row.CFA.Offset {
			out = append(out, disagreement{pc, fmt.Sprintf("cfa: CFI %s, code %s", a.Format(row.CFA), st.Format(a))})
			continue
		}
		if m := st.Row(a).MangledRA; m != row.RASigned {
			out = append(out, disagreement{pc, fmt.Sprintf("ra signed: CFI %v, code %v", row.RASigned, m)})
			continue
		}
		if k := st.Row(a).PAuthKey; row.RASigned && (k == rule.PAuthKeyB) != row.BKey {
			out = append(out, disagreement{pc, fmt.Sprintf("ra signed with key B: CFI %v, code %v", row.BKey, k == rule.PAuthKeyB)})
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
			case rule.SameValue:
				agree = st.InRegister(a, reg)
			case rule.Offset:
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

// sweep counts the instructions of code by a linear decode.
func sweep(code []byte, pc uint64) int {
	var in arch.Inst
	n := 0
	for off := 0; off < len(code); {
		if err := (arch.X86{}).Decode(code[off:], pc+uint64(off), &in); err != nil || in.Len <= 0 {
			off++
		} else {
			off += in.Len
		}
		n++
	}
	return n
}

func TestCodeOracleFixturesX86(t *testing.T) {
	fx := loadFixture(t, filepath.Join("..", "..", "testdata", "codeoracle", "x86_64", "codeoracle-x86_64"))
	seen := map[string]bool{}
	for _, fn := range fx.funcs {
		seen[fn.name] = true
		if strings.HasPrefix(fn.name, "jump_into_fde") {
			// A jump into another FDE: judged with the module's FDEs by
			// compare (TestCheckCatchesCodeOracleFixtures); alone, the
			// walk takes it for a tail call.
			continue
		}
		t.Run(fn.name, func(t *testing.T) {
			opts := &Options{}
			if fn.name == "clean_jumptable" {
				opts.JumpTable = X86JumpTables(fn.code, fn.addr, fx.read)
				if got, want := fmt.Sprint(opts.JumpTable(fn.addr+16)), fmt.Sprint(fx.table(t, "clean_jumptable.table", 4)(0)); got != want {
					t.Errorf("X86JumpTables: %s, want %s", got, want)
				}
			}
			f := Analyze(amd64, fn.code, fn.addr, opts)
			for _, fd := range f.Findings {
				t.Errorf("finding: %s", f.Describe(fd))
			}
			if n := sweep(fn.code, fn.addr); f.Judged != n {
				t.Errorf("judged %d of %d instructions", f.Judged, n)
			}
			dis := judgeCFI(t, fx, f)
			if fn.fault == 0 {
				for _, d := range dis {
					t.Errorf("clean function: %#x: %s", d.pc, d.what)
				}
				return
			}
			if len(dis) == 0 {
				t.Fatalf("fault at %#x not caught: code and CFI agree everywhere", fn.fault)
			}
			if dis[0].pc != fn.fault {
				t.Errorf("first disagreement at %#x (%s), fault at %#x", dis[0].pc, dis[0].what, fn.fault)
			}
			t.Logf("%#x: %s", dis[0].pc, dis[0].what)
		})
	}
	for _, want := range []string{"push_noadjust", "cfa_offset_off8", "saved_nooffset", "defcfareg_early",
		"midret_norestore", "midret_nostate", "clean_fp", "clean_realign", "clean_alloca", "clean_jumptable"} {
		if !seen[want] {
			t.Errorf("fixture function %s missing", want)
		}
	}
}

// TestCodeOracleFaultKinds pins what kind of difference each fault is.
func TestCodeOracleFaultKinds(t *testing.T) {
	fx := loadFixture(t, filepath.Join("..", "..", "testdata", "codeoracle", "x86_64", "codeoracle-x86_64"))
	want := map[string]string{
		"push_noadjust":    "cfa: CFI rsp+16, code CFA=rsp+24",
		"cfa_offset_off8":  "cfa: CFI rsp+24, code CFA=rsp+32",
		"saved_nooffset":   "rbp: CFI u, code CFA=rsp+16 RA=c-8 FP=c-16",
		"defcfareg_early":  "cfa: CFI rbp+16, code CFA=rsp+16",
		"midret_norestore": "cfa: CFI rsp+16, code CFA=rsp+8",
		"midret_nostate":   "cfa: CFI rsp+8, code CFA=rsp+16",
	}
	for _, fn := range fx.funcs {
		w, ok := want[fn.name]
		if !ok {
			continue
		}
		f := Analyze(amd64, fn.code, fn.addr, nil)
		dis := judgeCFI(t, fx, f)
		if len(dis) == 0 || !strings.HasPrefix(dis[0].what, w) {
			t.Errorf("%s: %v, want %q", fn.name, dis, w)
		}
	}
}

func TestX86JumpTablesPIC(t *testing.T) {
	const start, tab = 0x1000, 0x2000
	code := []byte{
		0x83, 0xff, 0x02, // cmp $2,%edi
		0x77, 0x13, // ja +19 (default, at 24)
		0x48, 0x8d, 0x15, 0xf4, 0x0f, 0x00, 0x00, // lea 0xff4(%rip),%rdx: the table at 0x2000
		0x48, 0x63, 0x04, 0xba, // movslq (%rdx,%rdi,4),%rax
		0x48, 0x01, 0xd0, // add %rdx,%rax
		0xff, 0xe0, // jmp *%rax
		0xc3, 0xc3, 0xc3, 0xc3, // cases 0-2, default
	}
	entries := func(targets ...int64) func(uint64, int) []byte {
		b := make([]byte, 4*len(targets))
		for i, tg := range targets {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(tg-tab)))
		}
		return func(a uint64, n int) []byte {
			if a < tab || a-tab+uint64(n) > uint64(len(b)) {
				return nil
			}
			return b[a-tab : a-tab+uint64(n)]
		}
	}
	jt := X86JumpTables(code, start, entries(0x1015, 0x1016, 0x1017))
	if got := fmt.Sprint(jt(start + 19)); got != "[4117 4118 4119]" {
		t.Errorf("targets %s", got)
	}
	if got := jt(start + 16); got != nil {
		t.Errorf("targets of an add: %v", got)
	}
	// A target outside the function (a case in foo.cold) is left out;
	// a table all outside, or short, is not resolved.
	if got := fmt.Sprint(X86JumpTables(code, start, entries(0x1015, 0x3000, 0x1017))(start + 19)); got != "[4117 4119]" {
		t.Errorf("with an outside target: %s", got)
	}
	if got := X86JumpTables(code, start, entries(0x3010, 0x3000, 0x3008))(start + 19); got != nil {
		t.Errorf("all outside accepted: %v", got)
	}
	if got := X86JumpTables(code, start, entries(0x1015, 0x1006, 0x1017))(start + 19); got != nil {
		t.Errorf("target inside an instruction... accepted: %v", got)
	}
	if got := X86JumpTables(code, start, entries(0x1015, 0x1016))(start + 19); got != nil {
		t.Errorf("short table accepted: %v", got)
	}
	// Without the bound (cmp/ja made nops) and an index not an OCaml tag
	// (librsvg's mov (%rdi),%eax; rav1e's movzbl (%rdi),%eax), nothing is
	// guessed; with an OCaml tag (movzbl -0x8(%rsi),%edi) the table ends
	// at its first entry that is not an instruction of the function (or
	// at the next table, or 256).
	nb := append([]byte{}, code...)
	copy(nb, []byte{0x90, 0x90, 0x90, 0x90, 0x90})
	if got := X86JumpTables(nb, start, entries(0x1015, 0x1016, 0x1017))(start + 19); got != nil {
		t.Errorf("unbounded table of a word's index: %v", got)
	}
	copy(nb, []byte{0x0f, 0xb6, 0x3e, 0x90, 0x90}) // movzbl (%rsi),%edi
	if got := X86JumpTables(nb, start, entries(0x1015, 0x1016, 0x1017))(start + 19); got != nil {
		t.Errorf("unbounded table of a byte not a tag: %v", got)
	}
	copy(nb, []byte{0x0f, 0xb6, 0x7e, 0xf8, 0x90}) // movzbl -0x8(%rsi),%edi
	if got := fmt.Sprint(X86JumpTables(nb, start, entries(0x1015, 0x1016, 0x1017))(start + 19)); got != "[4117 4118 4119]" {
		t.Errorf("unbounded table of an OCaml tag: %s, want the three entries the section holds", got)
	}
	if got := fmt.Sprint(X86JumpTables(nb, start, entries(0x1015, 0x1006, 0x1017))(start + 19)); got != "[4117]" {
		t.Errorf("unbounded table with an entry inside an instruction: %s, want it ended there", got)
	}
	// The bound on another register than the index: nothing.
	ob := append([]byte{}, code...)
	ob[1] = 0xfe // cmp $2,%esi
	if got := X86JumpTables(ob, start, entries(0x1015, 0x1016, 0x1017))(start + 19); got != nil {
		t.Errorf("bound on another register accepted: %v", got)
	}
	// The walk follows the table: every instruction judged.
	f := Analyze(amd64, code, start, &Options{JumpTable: jt})
	if f.Judged != len(code)-21+6 {
		t.Errorf("judged %d", f.Judged)
	}
}

func TestX86JumpTablesBaseBeforeWindow(t *testing.T) {
	// lea T(%rip),%rbx, 30 nops, then cmp/ja/movslq (%rbx,%rdi,4)/add/jmp:
	// the base is set once, before the window, in a callee-saved register.
	const start, tab = 0x1000, 0x2000
	code := []byte{0x48, 0x8d, 0x1d, 0xf9, 0x0f, 0x00, 0x00} // lea 0xff9(%rip),%rbx: 0x1007+0xff9 = 0x2000
	for i := 0; i < 30; i++ {
		code = append(code, 0x90)
	}
	jmpAt := len(code) + 3 + 2 + 4 + 3
	code = append(code,
		0x83, 0xff, 0x01, // cmp $1,%edi
		0x77, 0x09, // ja default
		0x48, 0x63, 0x04, 0xbb, // movslq (%rbx,%rdi,4),%rax
		0x48, 0x01, 0xd8, // add %rbx,%rax
		0xff, 0xe0, // jmp *%rax
		0xc3, 0xc3, 0xc3) // case 0, case 1, default
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, uint32(int32(start+int64(jmpAt)+2-tab)))
	binary.LittleEndian.PutUint32(b[4:], uint32(int32(start+int64(jmpAt)+3-tab)))
	read := func(a uint64, n int) []byte {
		if a != tab || n > len(b) {
			return nil
		}
		return b[:n]
	}
	got := X86JumpTables(code, start, read)(start + uint64(jmpAt))
	if want := []uint64{start + uint64(jmpAt) + 2, start + uint64(jmpAt) + 3}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	// A second write of %rbx anywhere: the base is not known.
	code2 := append([]byte{}, code...)
	copy(code2[7:], []byte{0x48, 0x89, 0xfb}) // mov %rdi,%rbx over three nops
	if got := X86JumpTables(code2, start, read)(start + uint64(jmpAt)); got != nil {
		t.Errorf("base written twice accepted: %v", got)
	}
}

// TestX86JumpTablesBaseFarBack: flex's scanners (doxygen's) load the
// table's base into r15 40 instructions before the jump, and r15 is
// written again in other blocks (a pop in an epilogue), so the base is
// found only by looking that far back on the way to the jump: 64
// instructions (x86Window; 24 left doxygen's yy_act switches unread).
func TestX86JumpTablesBaseFarBack(t *testing.T) {
	const start, tab = 0x1000, 0x2000
	code := []byte{0x4c, 0x8d, 0x3d, 0xf9, 0x0f, 0x00, 0x00} // lea 0xff9(%rip),%r15: 0x1007+0xff9 = 0x2000
	for i := 0; i < 40; i++ {
		code = append(code, 0x48, 0x89, 0xf8) // mov %rdi,%rax
	}
	jmpAt := len(code) + 3 + 2 + 4 + 3
	code = append(code,
		0x83, 0xff, 0x01, // cmp $1,%edi
		0x77, 0x0b, // ja default
		0x49, 0x63, 0x04, 0xbf, // movslq (%r15,%rdi,4),%rax
		0x4c, 0x01, 0xf8, // add %r15,%rax
		0xff, 0xe0, // jmp *%rax
		0x41, 0x5f, // case 0: pop %r15
		0xc3, // ret
		0xc3, // case 1
		0xc3) // default
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, uint32(int32(start+int64(jmpAt)+2-tab)))
	binary.LittleEndian.PutUint32(b[4:], uint32(int32(start+int64(jmpAt)+5-tab)))
	read := func(a uint64, n int) []byte {
		if a != tab || n > len(b) {
			return nil
		}
		return b[:n]
	}
	got := X86JumpTables(code, start, read)(start + uint64(jmpAt))
	if want := []uint64{start + uint64(jmpAt) + 2, start + uint64(jmpAt) + 5}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	// r15 written on the way: the base is not known.
	code2 := append([]byte{}, code...)
	copy(code2[7+3*20:], []byte{0x49, 0x89, 0xff}) // mov %rdi,%r15
	if got := X86JumpTables(code2, start, read)(start + uint64(jmpAt)); got != nil {
		t.Errorf("base overwritten on the way accepted: %v", got)
	}
}

// TestX86JumpTablesUnboundedRustEnum: LLVM's switch on a Rust enum's
// discriminant reads the index from memory with no compare (the enum has
// only those values): the table is read up to the next address the
// module's code refers to (nextRef), and ends sooner at an entry that is
// no instruction of the function. Without nextRef nothing is guessed
// (Debian 12's sd, bat, fd, rg: 262,000 Rust instructions were "not
// reached" behind such jumps).
func TestX86JumpTablesUnboundedRustEnum(t *testing.T) {
	const start, tab = 0x1000, 0x2000
	code := []byte{
		0x41, 0x0f, 0xb6, 0x85, 0xc0, 0x0d, 0x00, 0x00, // movzbl 0xdc0(%r13),%eax
		0x48, 0x8d, 0x0d, 0xf1, 0x0f, 0x00, 0x00, // lea 0xff1(%rip),%rcx: 0x100f+0xff1 = 0x2000
		0x48, 0x63, 0x04, 0x81, // movslq (%rcx,%rax,4),%rax
		0x48, 0x01, 0xc8, // add %rcx,%rax
		0xff, 0xe0, // jmp *%rax (at 0x16)
		0xc3, 0xc3, 0xc3, // cases 0-2 at 0x1018..0x101a
	}
	// Three entries, then the next table (another function's, whose
	// entries relative to 0x2000 would land in this one: 0x1018 again).
	b := make([]byte, 4*5)
	for i, tg := range []int64{0x1018, 0x1019, 0x101a, 0x1018, 0x1019} {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(tg-tab)))
	}
	read := func(a uint64, n int) []byte {
		if a < tab || a-tab+uint64(n) > uint64(len(b)) {
			return nil
		}
		return b[a-tab : a-tab+uint64(n)]
	}
	if got := X86JumpTables(code, start, read)(start + 0x16); got != nil {
		t.Errorf("without nextRef: %v, want nothing guessed", got)
	}
	next := func(a uint64) uint64 {
		if a < tab+12 {
			return tab + 12 // the next table
		}
		return 0
	}
	if got := fmt.Sprint(X86JumpTablesRefs(code, start, read, next)(start + 0x16)); got != "[4120 4121 4122]" {
		t.Errorf("targets %s, want the three entries before the next table", got)
	}
	none := func(uint64) uint64 { return 0 }
	if got := X86JumpTablesRefs(code, start, read, none)(start + 0x16); got != nil {
		t.Errorf("with no address known after the table: %v, want nothing guessed", got)
	}
}

// TestX86JumpTablesBelowTheCode: lld places .rodata before .text, so the
// lea of a table has a negative displacement, which x86asm reports
// zero-extended (0xfffff7f4): the table's address was read 4 GiB off and
// no table of an lld-linked file was followed.
func TestX86JumpTablesBelowTheCode(t *testing.T) {
	const start, tab = 0x1000, 0x800
	code := []byte{
		0x83, 0xff, 0x02, // cmp $2,%edi
		0x77, 0x13, // ja +19 (default, at 24)
		0x48, 0x8d, 0x15, 0xf4, 0xf7, 0xff, 0xff, // lea -0x80c(%rip),%rdx: 0x100c-0x80c = 0x800
		0x48, 0x63, 0x04, 0xba, // movslq (%rdx,%rdi,4),%rax
		0x48, 0x01, 0xd0, // add %rdx,%rax
		0xff, 0xe0, // jmp *%rax
		0xc3, 0xc3, 0xc3, 0xc3, // cases 0-2, default
	}
	b := make([]byte, 12)
	for i, tg := range []int64{0x1015, 0x1016, 0x1017} {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(tg-tab)))
	}
	read := func(a uint64, n int) []byte {
		if a < tab || a-tab+uint64(n) > uint64(len(b)) {
			return nil
		}
		return b[a-tab : a-tab+uint64(n)]
	}
	if got := fmt.Sprint(X86JumpTables(code, start, read)(start + 19)); got != "[4117 4118 4119]" {
		t.Errorf("targets %s", got)
	}
}

func TestX86JumpTablesO0(t *testing.T) {
	// gcc -O0: cmpl $1,-0x14(%rbp); ja; mov -0x14(%rbp),%eax;
	// lea 0x0(,%rax,4),%rdx; lea T(%rip),%rax; mov (%rdx,%rax,1),%eax;
	// cltq; lea T(%rip),%rdx; add %rdx,%rax; jmp *%rax.
	const start, tab = 0x1000, 0x2000
	code := []byte{
		0x83, 0x7d, 0xec, 0x01, // cmpl $1,-0x14(%rbp)           0
		0x77, 0x22, // ja default                                  4
		0x8b, 0x45, 0xec, // mov -0x14(%rbp),%eax                  6
		0x48, 0x8d, 0x14, 0x85, 0, 0, 0, 0, // lea 0x0(,%rax,4),%rdx  9
		0x48, 0x8d, 0x05, 0xea, 0x0f, 0, 0, // lea 0xfea(%rip),%rax: 0x1017+0xfe9... 17
		0x8b, 0x04, 0x02, // mov (%rdx,%rax,1),%eax               24
		0x48, 0x98, // cltq                                        27
		0x48, 0x8d, 0x15, 0xdb, 0x0f, 0, 0, // lea 0xfdb(%rip),%rdx  29
		0x48, 0x01, 0xd0, // add %rdx,%rax                         36
		0xff, 0xe0, // jmp *%rax                                   39
		0xc3, 0xc3, 0xc3, // cases, default                        41
	}
	// Both leas must name the table: 0x1018+disp and 0x1024+disp = 0x2000.
	binary.LittleEndian.PutUint32(code[20:], uint32(tab-(start+24)))
	binary.LittleEndian.PutUint32(code[32:], uint32(tab-(start+36)))
	b := make([]byte, 8)
	rel := func(t int64) uint32 { return uint32(int32(t - tab)) }
	binary.LittleEndian.PutUint32(b, rel(start+41))
	binary.LittleEndian.PutUint32(b[4:], rel(start+42))
	read := func(a uint64, n int) []byte {
		if a != tab || n > len(b) {
			return nil
		}
		return b[:n]
	}
	got := X86JumpTables(code, start, read)(start + 39)
	if want := []uint64{start + 41, start + 42}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("targets %#x, want %#x", got, want)
	}
	// The bound on another variable: not resolved.
	other := append([]byte{}, code...)
	other[2] = 0xe8 // cmpl $1,-0x18(%rbp)
	if got := X86JumpTables(other, start, read)(start + 39); got != nil {
		t.Errorf("bound on another variable accepted: %#x", got)
	}
}

func TestX86JumpTablesClangO0(t *testing.T) {
	// clang -O0: mov %rax,-0xb0(%rbp); sub $1,%rax; ja; mov
	// -0xb0(%rbp),%rcx; lea T(%rip),%rax; movslq (%rax,%rcx,4),%rcx;
	// add %rcx,%rax; jmp *%rax.
	const start, tab = 0x1000, 0x2000
	code := []byte{
		0x48, 0x89, 0x85, 0x50, 0xff, 0xff, 0xff, // 0
		0x48, 0x83, 0xe8, 0x01, // 7
		0x77, 0x19, // 11
		0x48, 0x8b, 0x8d, 0x50, 0xff, 0xff, 0xff, // 13
		0x48, 0x8d, 0x05, 0, 0, 0, 0, // 20
		0x48, 0x63, 0x0c, 0x88, // 27
		0x48, 0x01, 0xc8, // 31
		0xff, 0xe0, // 34
		0xc3, 0xc3, 0xc3, // 36
	}
	binary.LittleEndian.PutUint32(code[23:], uint32(tab-(start+27)))
	rel := func(t int64) uint32 { return uint32(int32(t - tab)) }
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, rel(start+36))
	binary.LittleEndian.PutUint32(b[4:], rel(start+37))
	read := func(a uint64, n int) []byte {
		if a != tab || n > len(b) {
			return nil
		}
		return b[:n]
	}
	got := X86JumpTables(code, start, read)(start + 34)
	if want := []uint64{start + 36, start + 37}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("targets %#x, want %#x", got, want)
	}
	// The reload from another slot: not resolved.
	other := append([]byte{}, code...)
	other[16] = 0x48 // mov -0xb8(%rbp),%rcx
	if got := X86JumpTables(other, start, read)(start + 34); got != nil {
		t.Errorf("reload of another variable accepted: %#x", got)
	}
}

// TestX86JumpTablesBlockAndWindow: a compare before the instruction that
// ends the previous block (ret) bounds nothing of the jump's block (its
// table is read up to nextRef, 3 entries, not the 6 the other block's
// compare would give); and an unrelated compare in the far window does
// not throw away the near window's open table. (Both from a review of the
// 64-instruction window.)
func TestX86JumpTablesBlockAndWindow(t *testing.T) {
	const start, tab = 0x1000, 0x2000
	build := func(prefix []byte, filler []byte, load []byte, idx byte) ([]byte, int) {
		code := append([]byte{}, prefix...)
		for i := 0; i < 30; i++ {
			code = append(code, filler...)
		}
		code = append(code, load...)
		leaAt := len(code)
		disp := uint32(tab - (start + leaAt + 7))
		code = append(code, 0x48, 0x8d, 0x0d, byte(disp), byte(disp>>8), byte(disp>>16), byte(disp>>24)) // lea T(%rip),%rcx
		code = append(code, 0x48, 0x63, 0x04, idx, 0x48, 0x01, 0xc8)                                     // movslq (%rcx,%rI,4),%rax; add %rcx,%rax
		jmpAt := len(code)
		return append(code, 0xff, 0xe0, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3), jmpAt
	}
	read := func(jmpAt int) func(uint64, int) []byte {
		b := make([]byte, 24)
		for i := 0; i < 6; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(int64(start+jmpAt+2+i)-tab)))
		}
		return func(a uint64, n int) []byte {
			if a < tab || a-tab+uint64(n) > uint64(len(b)) {
				return nil
			}
			return b[a-tab : a-tab+uint64(n)]
		}
	}
	next := func(uint64) uint64 { return tab + 12 } // three entries
	// cmp $5,%edi; ja; ret, then the block: movslq (%rcx,%rdi,4).
	code, jmpAt := build([]byte{0x83, 0xff, 0x05, 0x77, 0x00, 0xc3}, []byte{0x48, 0x89, 0xf2}, nil, 0xb9)
	if got := X86JumpTablesRefs(code, start, read(jmpAt), next)(start + uint64(jmpAt)); len(got) != 3 {
		t.Errorf("a compare before a ret: %d targets %v, want the 3 before the next address", len(got), got)
	}
	// cmp $1,%esi; ja 30 instructions back, then an enum switch on eax.
	code, jmpAt = build([]byte{0x83, 0xfe, 0x01, 0x77, 0x00}, []byte{0x48, 0x89, 0xfa}, []byte{0x41, 0x0f, 0xb6, 0x85, 0xc0, 0x0d, 0x00, 0x00}, 0x81)
	if got := X86JumpTablesRefs(code, start, read(jmpAt), next)(start + uint64(jmpAt)); len(got) != 3 {
		t.Errorf("an unrelated compare in the far window: %v, want the near window's 3 targets", got)
	}
}
