package code

import (
	"encoding/binary"
	"sort"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"golang.org/x/arch/x86/x86asm"
)

// maxTable bounds the entries of one jump table.
const maxTable = 1 << 14

// X86JumpTables returns an Options.JumpTable for the x86-64 function whose
// code is text at address start. It recognises the switch forms gcc and
// clang emit, bounded by a "cmp $N, %reg; ja/jae" on the index:
//
//	lea T(%rip),%rB; [movzbl/mov %idx,...]; movslq (%rB,%rI,4),%rX; add %rB,%rX; jmp *%rX
//	jmp *T(,%rI,8)
//
// (entries relative to T, 4 bytes each, in position-independent code;
// absolute, 8 bytes each, otherwise). read returns size bytes at a
// link-time address (nil when they are not in the file). A jump it does
// not recognise, or a table with a target in the function that is not an
// instruction of its linear decoding, or with none in the function, gives
// nil: the walk reports the jump as not followed rather than follow a
// guess. Targets outside the function (cases gcc moved to
// foo.cold) are left out: the walk does not follow them into the other
// part. The function's linear
// decoding is made on the first call and kept.
func X86JumpTables(text []byte, start uint64, read func(addr uint64, size int) []byte) func(pc uint64) []uint64 {
	return X86JumpTablesRefs(text, start, read, nil)
}

// X86JumpTablesRefs is X86JumpTables, and it also reads a relative table
// whose index no compare bounds (LLVM's switch on a Rust enum's
// discriminant: movzbl 0xdc0(%r13),%eax; lea T(%rip),%rcx; movslq
// (%rcx,%rax,4),%rax; add %rcx,%rax; jmp *%rax) when nextRef is not nil:
// the table then ends before nextRef(T), the next address the module's
// code refers to (where the next table or datum starts), before the next
// table the function itself loads, at its first entry that is not an
// instruction of the function, or at 256 entries, whichever comes first.
func X86JumpTablesRefs(text []byte, start uint64, read func(addr uint64, size int) []byte, nextRef func(addr uint64) uint64) func(pc uint64) []uint64 {
	var starts []uint32 // instruction offsets of the linear decoding, -1 marks bytes that do not decode
	var swept []x86Inst // the whole function decoded (x86Sweep), made once for all its jumps
	return func(pc uint64) []uint64 {
		if starts == nil {
			starts = x86Starts(text)
		}
		if pc < start || pc-start >= uint64(len(text)) {
			return nil
		}
		// Decode only the window before the jump in full.
		off := uint32(pc - start)
		j := sort.Search(len(starts), func(i int) bool { return starts[i]&^badByte >= off })
		if j == len(starts) || starts[j] != off {
			return nil
		}
		decode := func(lo int) []x86Inst {
			insts := make([]x86Inst, 0, j-lo+1)
			for _, o := range starts[lo : j+1] {
				in := x86Inst{pc: start + uint64(o&^badByte)}
				if o&badByte == 0 {
					if x, err := x86asm.Decode(text[o:], 64); err == nil && x.Len > 0 {
						in.in, in.ok = x, true
					}
				}
				insts = append(insts, in)
			}
			return insts
		}
		isStart := func(t uint64) bool {
			o := uint32(t - start)
			k := sort.Search(len(starts), func(i int) bool { return starts[i]&^badByte >= o })
			return k < len(starts) && starts[k] == o
		}
		all := func() []x86Inst {
			if swept == nil {
				swept = x86Sweep(text, start)
			}
			return swept
		}
		// The near window first: most tables have their base and bound
		// there, and x86asm decodes the window in full. The far one only
		// when the near one gave no bounded table, and its answer only
		// when it is bounded: what the near one finds, the far one finds
		// first too.
		lo := max(j-x86NearWindow, 0)
		targets, bounded := x86Table(decode(lo), start, uint64(len(text)), isStart, all, read, nextRef)
		if bounded || lo == 0 {
			return targets
		}
		if far, bounded := x86Table(decode(max(j-x86Window, 0)), start, uint64(len(text)), isStart, all, read, nextRef); bounded {
			return far
		}
		return targets
	}
}

// x86Window is how many instructions before an indirect jump are searched
// for its table's base and bound: flex's scanners load the base 40
// instructions before their yy_act switch (24 left 59,000 of doxygen's
// instructions unreached; 64 reads them, with no finding more on the
// amd64 scan).
const x86Window = 64

// x86NearWindow is the window tried first (x86Window only when it gives no
// bounded table).
const x86NearWindow = 24

// badByte marks an entry of x86Starts that is a byte that does not
// decode.
const badByte = 1 << 31

type x86Inst struct {
	pc uint64
	in x86asm.Inst
	ok bool
}

// x86Starts delimits the instructions of text linearly with the fast
// length decoder (arch.X86.Len), a byte at a time over what does not
// decode (marked badByte).
func x86Starts(text []byte) []uint32 {
	out := make([]uint32, 0, len(text)/4+1)
	for off := 0; off < len(text) && off < badByte; {
		n, ok := arch.X86{}.Len(text[off:])
		if !ok || n <= 0 {
			out = append(out, uint32(off)|badByte)
			off++
			continue
		}
		out = append(out, uint32(off))
		off += n
	}
	return out
}

// x86Sweep decodes text linearly in full (x86asm), for tests.
func x86Sweep(text []byte, start uint64) []x86Inst {
	var out []x86Inst
	for _, o := range x86Starts(text) {
		in := x86Inst{pc: start + uint64(o&^badByte)}
		if o&badByte == 0 {
			if x, err := x86asm.Decode(text[o:], 64); err == nil && x.Len > 0 {
				in.in, in.ok = x, true
			}
		}
		out = append(out, in)
	}
	return out
}

// family maps a general register of any width to 0-15 (rax ... r15), or
// -1.
func family(r x86asm.Reg) int {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX)
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX)
	case r >= x86asm.AL && r <= x86asm.BL:
		return int(r - x86asm.AL)
	case r >= x86asm.SPB && r <= x86asm.DIB:
		return int(r-x86asm.SPB) + 4
	case r >= x86asm.R8B && r <= x86asm.R15B:
		return int(r-x86asm.R8B) + 8
	case r >= x86asm.AH && r <= x86asm.BH:
		return int(r - x86asm.AH)
	}
	return -1
}

func regArg(a x86asm.Arg) (x86asm.Reg, bool) {
	r, ok := a.(x86asm.Reg)
	return r, ok
}

// writes reports whether in may write general register family f (its
// first operand is the destination in x86asm's Intel order; compares and
// tests write none, and instructions with implicit outputs are assumed to
// write every register).
func writes(in *x86asm.Inst, f int) bool {
	switch in.Op {
	case x86asm.CMP, x86asm.TEST, x86asm.NOP, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE,
		x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE, x86asm.JS, x86asm.JNS, x86asm.JO, x86asm.JNO, x86asm.JP, x86asm.JNP,
		x86asm.JMP, x86asm.RET:
		return false
	case x86asm.PUSH:
		return f == 4 // rsp
	case x86asm.CALL:
		return f < 0 || f > 15 || x86CalleeSaved>>f&1 == 0
	case x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.LEA, x86asm.ADD, x86asm.SUB, x86asm.AND,
		x86asm.OR, x86asm.XOR, x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT:
		if r, ok := regArg(in.Args[0]); ok {
			return family(r) == f
		}
		return false
	}
	return true
}

// onlyLEA returns the address T when the only instruction of insts that
// writes register family f is lea T(%rip),%f.
func onlyLEA(insts []x86Inst, f int) (uint64, bool) {
	var base uint64
	n := 0
	for i := range insts {
		if !insts[i].ok {
			return 0, false
		}
		in := &insts[i].in
		if !writes(in, f) {
			continue
		}
		n++
		mem, ok := in.Args[1].(x86asm.Mem)
		if in.Op != x86asm.LEA || !ok || mem.Base != x86asm.RIP || mem.Index != 0 || n > 1 {
			return 0, false
		}
		base = insts[i].pc + uint64(in.Len) + ripDisp(mem)
	}
	return base, n == 1
}

// leaBase returns T and the index of the instruction when the last write
// of register family f at or before insts[from] (and not before lo) is
// lea T(%rip).
func leaBase(insts []x86Inst, from, lo, f int) (uint64, int, bool) {
	i := prevWriting(insts, from, lo, f)
	if i < 0 || insts[i].in.Op != x86asm.LEA {
		return 0, 0, false
	}
	in := &insts[i].in
	mem, ok := in.Args[1].(x86asm.Mem)
	if !ok || mem.Base != x86asm.RIP || mem.Index != 0 {
		return 0, 0, false
	}
	return insts[i].pc + uint64(in.Len) + ripDisp(mem), i, true
}

// endsBlock reports whether op ends a block: no path goes from it to the
// next instruction.
func endsBlock(op x86asm.Op) bool {
	switch op {
	case x86asm.JMP, x86asm.RET, x86asm.UD2, x86asm.HLT, x86asm.LJMP, x86asm.LRET:
		return true
	}
	return false
}

// ripDisp returns a RIP-relative operand's displacement as the amount to
// add to the next instruction's address: x86asm leaves a negative disp32
// zero-extended there (lea -0x10(%rip) comes back with Disp 0xfffffff0), as
// in every table below its code (lld puts .rodata before .text).
func ripDisp(m x86asm.Mem) uint64 { return uint64(int64(int32(m.Disp))) }

// x86CalleeSaved is the set of register families a call preserves (System
// V AMD64 psABI: rbx, rsp, rbp, r12-r15).
const x86CalleeSaved = 1<<3 | 1<<4 | 1<<5 | 1<<12 | 1<<13 | 1<<14 | 1<<15

// x86Table resolves the indirect jump at pc (see X86JumpTables), and says
// whether a compare bounded the table it read.
// insts is the window of instructions that ends with the jump; isStart
// says whether an address starts an instruction of the function's linear
// decoding.
//
// all decodes the whole function: when the table's base register is not
// set in the window, it is found there if the function writes that
// register exactly once, with the lea (a callee-saved register gcc loads
// the table's address into before a loop).
func x86Table(insts []x86Inst, start, size uint64, isStart func(uint64) bool, all func() []x86Inst, read func(uint64, int) []byte, nextRef func(uint64) uint64) ([]uint64, bool) {
	j := len(insts) - 1
	if j < 0 || !insts[j].ok || insts[j].in.Op != x86asm.JMP {
		return nil, false
	}
	jmp := &insts[j].in
	// The jump's block starts after the last instruction before it that
	// ends one (jmp, ret, ud2, hlt): what comes after such an instruction
	// is entered by branches from elsewhere, so neither a compare nor a
	// lea before it says anything about the jump.
	lo := 0
	for i := j - 1; i >= 0; i-- {
		if insts[i].ok && endsBlock(insts[i].in.Op) {
			lo = i + 1
			break
		}
	}
	var base uint64  // the table's address
	var entry int    // entry size: 4 (relative to base) or 8 (absolute)
	var index = -1   // index register family
	var firstUse = j // the first instruction using the index for the table
	switch a := jmp.Args[0].(type) {
	case x86asm.Mem: // jmp *T(,%rI,8)
		if a.Segment != 0 || a.Base != 0 || a.Scale != 8 || a.Index == 0 {
			return nil, false
		}
		// The disp32 is sign-extended (x86asm leaves it zero-extended).
		base, entry, index = uint64(int64(int32(a.Disp))), 8, family(a.Index)
	case x86asm.Reg:
		// add %rB,%rX; jmp *%rX, where rB holds T (lea T(%rip),%rB) and
		// rX the entry: movslq (%rB,%rI,4),%rX (gcc -O1 and up, clang),
		// or mov (%rY,%rZ,1),%eax; cltq with rY and rZ holding T and
		// rI*4 (gcc -O0). Other instructions may be scheduled between.
		x := family(a)
		k := prevWriting(insts, j-1, lo, x)
		if k < 0 || insts[k].in.Op != x86asm.ADD {
			return nil, false
		}
		add := &insts[k].in
		d, ok1 := regArg(add.Args[0])
		b, ok2 := regArg(add.Args[1])
		if !ok1 || !ok2 || family(d) != x {
			return nil, false
		}
		bf := family(b)
		if t, at, ok := leaBase(insts, k-1, lo, x); ok {
			// clang -O0: lea T(%rip),%rX; movslq (%rX,%rI,4),%rB;
			// add %rB,%rX: the roles of the add's registers swapped.
			kk := prevWriting(insts, k-1, lo, bf)
			if kk < 0 || kk < at || insts[kk].in.Op != x86asm.MOVSXD {
				return nil, false
			}
			d2, ok1 := regArg(insts[kk].in.Args[0])
			m, ok2 := insts[kk].in.Args[1].(x86asm.Mem)
			if !ok1 || !ok2 || family(d2) != bf || family(m.Base) != x || m.Scale != 4 || m.Disp != 0 || m.Index == 0 {
				return nil, false
			}
			base, entry, index, firstUse = t, 4, family(m.Index), kk
			break
		}
		t, at, ok := leaBase(insts, k-1, lo, bf)
		if !ok {
			if t, ok = onlyLEA(all(), bf); !ok {
				return nil, false
			}
			at = -1
		}
		base, entry = t, 4
		k = prevWriting(insts, k-1, lo, x)
		if k < 0 {
			return nil, false
		}
		switch mv := &insts[k].in; mv.Op {
		case x86asm.MOVSXD:
			d2, ok1 := regArg(mv.Args[0])
			m, ok2 := mv.Args[1].(x86asm.Mem)
			if !ok1 || !ok2 || family(d2) != x || family(m.Base) != bf || m.Scale != 4 || m.Disp != 0 || m.Index == 0 || at > k {
				return nil, false
			}
			index, firstUse = family(m.Index), k
		case x86asm.CDQE:
			k = prevWriting(insts, k-1, lo, 0)
			if x != 0 || k < 0 || insts[k].in.Op != x86asm.MOV {
				return nil, false
			}
			ld := &insts[k].in
			d2, ok1 := regArg(ld.Args[0])
			m, ok2 := ld.Args[1].(x86asm.Mem)
			if !ok1 || !ok2 || d2 != x86asm.EAX || m.Segment != 0 || m.Scale != 1 || m.Disp != 0 || m.Base == 0 || m.Index == 0 {
				return nil, false
			}
			// One register holds T, the other the index times 4.
			for _, p := range [][2]x86asm.Reg{{m.Base, m.Index}, {m.Index, m.Base}} {
				t2, _, ok := leaBase(insts, k-1, lo, family(p[0]))
				if !ok || t2 != t {
					continue
				}
				i4 := prevWriting(insts, k-1, lo, family(p[1]))
				if i4 < 0 || insts[i4].in.Op != x86asm.LEA {
					continue
				}
				sm, ok := insts[i4].in.Args[1].(x86asm.Mem)
				if !ok || sm.Base != 0 || sm.Scale != 4 || sm.Disp != 0 || sm.Index == 0 || sm.Segment != 0 {
					continue
				}
				index, firstUse = family(sm.Index), i4
				break
			}
			if index < 0 {
				return nil, false
			}
		default:
			return nil, false
		}
	default:
		return nil, false
	}
	// The bound: cmp $N,%r; ja (N+1 entries) or jae (N), then the index
	// reaches the table's load through copies and zero extensions only.
	n := -1
	for i := firstUse - 1; i >= lo; i-- {
		if !insts[i].ok {
			return nil, false
		}
		in := &insts[i].in
		if in.Op == x86asm.JA || in.Op == x86asm.JAE {
			if i == 0 || !insts[i-1].ok {
				continue
			}
			cmp := &insts[i-1].in
			compared := cmp.Args[0]
			switch cmp.Op {
			case x86asm.CMP:
			case x86asm.SUB:
				// clang -O0: mov %rI,M; sub $N,%rI; ja: the flags are
				// cmp's, the index lives on in M.
				r, ok := regArg(cmp.Args[0])
				if i < 2 || !ok || !insts[i-2].ok || insts[i-2].in.Op != x86asm.MOV {
					return nil, false
				}
				st := &insts[i-2].in
				m, ok1 := st.Args[0].(x86asm.Mem)
				sr, ok2 := regArg(st.Args[1])
				if !ok1 || !ok2 || !wide(sr) {
					return nil, false
				}
				if family(sr) != family(r) {
					// mov %eI,%eC; mov %rC,M; sub $N,%eI: a copy stored.
					if i < 3 || !insts[i-3].ok || insts[i-3].in.Op != x86asm.MOV {
						return nil, false
					}
					cd, ok1 := regArg(insts[i-3].in.Args[0])
					cs, ok2 := regArg(insts[i-3].in.Args[1])
					if !ok1 || !ok2 || family(cd) != family(sr) || family(cs) != family(r) || !wide(cd) || !wide(cs) {
						return nil, false
					}
				}
				compared = m
			default:
				continue
			}
			imm, ok := cmp.Args[1].(x86asm.Imm)
			if !ok || imm < 0 || imm >= maxTable {
				return nil, false
			}
			if !flowsTo(insts[i+1:firstUse], compared, index) {
				return nil, false
			}
			n = int(imm) + 1
			if in.Op == x86asm.JAE {
				n--
			}
			break
		}
	}
	if n <= 0 {
		if entry != 4 || index < 0 {
			return nil, false
		}
		// No bound checked on the index: OCaml switches on a constructor
		// tag (cmp $N,%rax; jl only). The table then ends where the
		// function's next table starts, at its first entry that is not an
		// instruction of the function, or at 256 entries (a byte's
		// values). Any other index only with nextRef, whose next address
		// ends the table too.
		if tagIndex(insts, firstUse-1, lo, index) {
			return x86OpenTable(base, start, size, isStart, all, read, 0), false
		}
		if nextRef == nil {
			return nil, false
		}
		end := nextRef(base)
		if end == 0 {
			return nil, false // nothing after it is known
		}
		return x86OpenTable(base, start, size, isStart, all, read, end), false
	}
	if nextRef != nil && entry == 4 {
		// A table the compare says is longer than the room before the
		// next address the code refers to: the compare is not this
		// table's.
		if end := nextRef(base); end != 0 && base+uint64(n*entry) > end {
			return nil, false
		}
	}
	b := read(base, n*entry)
	if len(b) < n*entry {
		return nil, false
	}
	targets := make([]uint64, 0, n)
	for i := 0; i < n; i++ {
		var t uint64
		if entry == 4 {
			t = base + uint64(int64(int32(binary.LittleEndian.Uint32(b[4*i:]))))
		} else {
			t = binary.LittleEndian.Uint64(b[8*i:])
		}
		if t < start || t-start >= size {
			continue
		}
		if !isStart(t) {
			return nil, false
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil, false // none here: not a table of this function's cases
	}
	return targets, true
}

// tagIndex reports whether the index register family f reaching
// insts[from] is an OCaml block's constructor tag, the byte 8 before the
// block (movzbq -0x8(%rX)), moved since only by constants (add $-28: the
// tag less the first case's) and register copies: ocamlopt's switch on a
// variant, whose table has one entry per constructor and no compare on
// the index. Other tables without a compare (LLVM's on a Rust enum's
// discriminant, read past its end by rav1e's and librsvg's, named blocks
// in the middle of an epilogue) are not read.
func tagIndex(insts []x86Inst, from, lo, f int) bool {
	for steps := 0; steps < 8; steps++ {
		i := prevWriting(insts, from, lo, f)
		if i < 0 {
			return false
		}
		in := &insts[i].in
		switch in.Op {
		case x86asm.MOVZX:
			m, ok := in.Args[1].(x86asm.Mem)
			return ok && in.MemBytes == 1 && m.Segment == 0 && m.Disp == -8 && m.Base != 0 && m.Base != x86asm.RIP && m.Index == 0
		case x86asm.ADD, x86asm.SUB:
			if _, ok := in.Args[1].(x86asm.Imm); !ok {
				return false
			}
		case x86asm.MOV:
			r, ok := regArg(in.Args[1])
			if !ok || !wide(r) {
				return false
			}
			f = family(r)
		default:
			return false
		}
		from = i - 1
	}
	return false
}

// x86OpenTable reads the relative table at base of a jump whose index
// no compare bounds (x86Table): entries up to the next table the function
// loads with lea T(%rip) after base, or before end (0: none), or 256 of
// them, each a target in the function at an instruction of its linear
// decoding; the first entry that is not ends the table. nil when no entry
// is.
func x86OpenTable(base, start, size uint64, isStart func(uint64) bool, all func() []x86Inst, read func(uint64, int) []byte, end uint64) []uint64 {
	limit := uint64(256)
	if end > base {
		// The next address the module refers to: the function's own
		// tables are among those, so its leas need not be looked for.
		limit = min(limit, (end-base)/4)
	} else {
		limit = min(limit, x86NextTable(base, all()))
	}
	var targets []uint64
	whole := read(base, int(4*limit)) // one read; entry by entry where the section ends sooner
	for i := uint64(0); i < limit; i++ {
		var b []byte
		if whole != nil {
			b = whole[4*i:]
		} else if b = read(base+4*i, 4); len(b) < 4 {
			break
		}
		t := base + uint64(int64(int32(binary.LittleEndian.Uint32(b))))
		if t < start || t-start >= size || !isStart(t) {
			break
		}
		targets = append(targets, t)
	}
	return targets
}

// x86NextTable returns how many 4-byte entries fit between base and the
// first table after it that the function's instructions (all) load with
// lea T(%rip), or 256.
func x86NextTable(base uint64, all []x86Inst) uint64 {
	limit := uint64(256)
	for i := range all {
		in := &all[i]
		if !in.ok || in.in.Op != x86asm.LEA {
			continue
		}
		if mem, ok := in.in.Args[1].(x86asm.Mem); ok && mem.Base == x86asm.RIP && mem.Index == 0 {
			if t := in.pc + uint64(in.in.Len) + ripDisp(mem); t > base && (t-base)/4 < limit {
				limit = (t - base) / 4
			}
		}
	}
	return limit
}

// prevWriting returns the index of the last instruction at or before i
// (and not before lo) that may write register family f, or -1 (also for
// an undecodable one on the way).
func prevWriting(insts []x86Inst, i, lo, f int) int {
	for ; i >= lo; i-- {
		if !insts[i].ok {
			return -1
		}
		if writes(&insts[i].in, f) {
			return i
		}
	}
	return -1
}

// wide reports whether r is a 32- or 64-bit register (a write of one
// zero-extends to 64 bits).
func wide(r x86asm.Reg) bool {
	return r >= x86asm.EAX && r <= x86asm.R15L || r >= x86asm.RAX && r <= x86asm.R15
}

// flowsTo reports whether, along the straight-line code mid, the value
// compared (cmpArg: a register, or a variable in memory that mid loads)
// reaches register family to by copies (mov of a 32-
// or 64-bit register, movzx) with no other write of it. The compare gives
// the table's size whatever the register's upper bits (the compiler knows
// them zero when it compares 8 or 16 bits), so a low-part bound counts.
func flowsTo(mid []x86Inst, cmpArg x86asm.Arg, to int) bool {
	const (
		none = iota
		low  // the low 8 or 16 bits are bounded
		full // the whole register is
	)
	var bounded [16]uint8
	if to < 0 {
		return false
	}
	cmpMem, isMem := cmpArg.(x86asm.Mem) // gcc -O0 compares the variable in memory
	if !isMem {
		cmpReg, ok := cmpArg.(x86asm.Reg)
		from := family(cmpReg)
		if !ok || from < 0 {
			return false
		}
		bounded[from] = low
		if wide(cmpReg) {
			bounded[from] = full
		}
	}
	for i := range mid {
		if !mid[i].ok {
			return false
		}
		in := &mid[i].in
		if isMem && (in.Op == x86asm.MOV || in.Op == x86asm.MOVZX) {
			if d, ok := regArg(in.Args[0]); ok && family(d) >= 0 {
				if m, ok := in.Args[1].(x86asm.Mem); ok && m == cmpMem && wide(d) {
					bounded[family(d)] = full // the compared variable, loaded
					continue
				}
			}
		}
		if in.Op == x86asm.MOV || in.Op == x86asm.MOVZX {
			d, ok1 := regArg(in.Args[0])
			s, ok2 := regArg(in.Args[1])
			if ok1 && ok2 && family(d) >= 0 && family(s) >= 0 {
				v := uint8(none)
				switch {
				case !wide(d):
				case in.Op == x86asm.MOVZX && bounded[family(s)] >= low:
					v = full
				case in.Op == x86asm.MOV && wide(s) && bounded[family(s)] == full:
					v = full
				}
				bounded[family(d)] = v
				continue
			}
		}
		for f := range bounded {
			if bounded[f] != none && writes(in, f) {
				bounded[f] = none
			}
		}
	}
	return bounded[to] != none
}
