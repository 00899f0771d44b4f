package arch

import (
	"debug/elf"
	"fmt"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/arch/x86/x86asm"
)

// x86asmGPR returns the encoding number (0-15) of a general register of
// any width, or -1.
func x86asmGPR(r x86asm.Reg) int {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		i := int(r - x86asm.AL)
		if i >= 4 {
			i -= 4 // AH-BH are rax-rbx; SPB-DIB, R8B-R15B follow
		}
		return i
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX)
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX)
	}
	return -1
}

// x86asmReadsFirst lists the x86asm operations whose first (Intel)
// operand is read, not written.
var x86asmReadsFirst = map[x86asm.Op]bool{
	x86asm.CMP: true, x86asm.TEST: true, x86asm.BT: true, x86asm.PUSH: true, x86asm.CALL: true,
	x86asm.JMP: true, x86asm.LCALL: true, x86asm.LJMP: true, x86asm.UCOMISS: true, x86asm.UCOMISD: true,
	x86asm.COMISS: true, x86asm.COMISD: true, x86asm.PTEST: true, x86asm.OUT: true,
	x86asm.MUL: true, x86asm.DIV: true, x86asm.IDIV: true, // rdx:rax = rax * src, rax/src
}

// x86asmImplicit lists, by x86asm operation, the registers (encoding
// numbers) an instruction writes without naming them as its destination
// (Intel SDM vol. 2, each instruction's "Operation"): Decode may clobber
// them.
var x86asmImplicit = map[x86asm.Op][]int{
	x86asm.MUL: {0, 2}, x86asm.DIV: {0, 2}, x86asm.IDIV: {0, 2}, x86asm.IMUL: {0, 2},
	x86asm.CBW: {0}, x86asm.CWDE: {0}, x86asm.CDQE: {0}, x86asm.CWD: {2}, x86asm.CDQ: {2}, x86asm.CQO: {2},
	x86asm.LAHF: {0}, x86asm.XLATB: {0}, x86asm.CPUID: {0, 1, 2, 3}, x86asm.SYSCALL: {0, 1, 11},
	x86asm.RDTSC: {0, 2}, x86asm.RDTSCP: {0, 1, 2}, x86asm.RDMSR: {0, 2}, x86asm.RDPMC: {0, 2},
	x86asm.XGETBV: {0, 2}, x86asm.CMPXCHG: {0}, x86asm.CMPXCHG8B: {0, 2}, x86asm.CMPXCHG16B: {0, 2},
	x86asm.MOVSB: {6, 7, 1}, x86asm.MOVSW: {6, 7, 1}, x86asm.MOVSD: {6, 7, 1}, x86asm.MOVSQ: {6, 7, 1},
	x86asm.CMPSB: {6, 7, 1}, x86asm.CMPSW: {6, 7, 1}, x86asm.CMPSD: {6, 7, 1}, x86asm.CMPSQ: {6, 7, 1},
	x86asm.STOSB: {7, 1}, x86asm.STOSW: {7, 1}, x86asm.STOSD: {7, 1}, x86asm.STOSQ: {7, 1},
	x86asm.SCASB: {7, 1}, x86asm.SCASW: {7, 1}, x86asm.SCASD: {7, 1}, x86asm.SCASQ: {7, 1},
	x86asm.LODSB: {0, 6, 1}, x86asm.LODSW: {0, 6, 1}, x86asm.LODSD: {0, 6, 1}, x86asm.LODSQ: {0, 6, 1},
	x86asm.INSB: {7, 1}, x86asm.INSW: {7, 1}, x86asm.INSD: {7, 1},
	x86asm.OUTSB: {6, 1}, x86asm.OUTSW: {6, 1}, x86asm.OUTSD: {6, 1},
	x86asm.LOOP: {1}, x86asm.LOOPE: {1}, x86asm.LOOPNE: {1}, x86asm.INT: {0, 1, 11},
	x86asm.XCHG: {0}, x86asm.FNSTSW: {0},
	x86asm.PCMPESTRI: {1}, x86asm.PCMPISTRI: {1},
}

// x86asmImplied reports whether x writes register r (an encoding
// number) implicitly.
func x86asmImplied(x x86asm.Inst, r rule.Reg) bool {
	for _, g := range x86asmImplicit[x.Op] {
		if x86Dwarf[g] == r {
			return true
		}
	}
	return false
}

// x86asmWritten returns the registers x86asm's decoding names as
// destinations: the first operand, and the second of the instructions that
// write both (xchg, xadd, mulx).
func x86asmWritten(x x86asm.Inst) map[rule.Reg]bool {
	w := map[rule.Reg]bool{}
	for i, a := range x.Args {
		if i > 1 || i == 1 && x.Op != x86asm.XCHG && x.Op != x86asm.XADD && x.Op != x86asm.MULX {
			break
		}
		if r, ok := a.(x86asm.Reg); ok {
			if g := x86asmGPR(r); g >= 0 {
				w[x86Dwarf[g]] = true
			}
		}
	}
	return w
}

// x86asmDisagreement compares Decode's view of the instruction at code[0]
// (want bytes long, as objdump delimits it) with x86asm's: the registers
// written. When x86asm's destination (its first operand) is a tracked
// register, Decode must report an operation on it (or Unknown); when
// Decode reports a clobber, the register must be x86asm's destination
// (cpuid's rbx aside). It returns what disagrees, "" when nothing does,
// and whether x86asm decoded the instruction (it does not know endbr64 and
// hint nops).
func x86asmDisagreement(code []byte, pc uint64, want int, in *Inst) (string, bool) {
	x, err := x86asm.Decode(code, 64)
	if err != nil || x.Len != want || x.Op == 0 || x.Op == x86asm.RDRAND && x.Args[0] == nil {
		return "", false // x86asm gives no rdrand/rdseed operand
	}
	named := x86asmWritten(x)
	touched := map[rule.Reg]bool{}
	for _, o := range in.Ops[:in.NOps] {
		switch o.Kind {
		case OpAddSP, OpAndSP, OpSubSPReg, OpAddSPReg:
			touched[x86RSP] = true
		case OpPop, OpRestore, OpSetReg, OpClobber:
			touched[o.Reg] = true
		}
		if o.Kind == OpClobber && !named[o.Reg] && !x86asmImplied(x, o.Reg) {
			return fmt.Sprintf("%#x %v (% x): Decode clobbers %s, which is not x86asm's destination", pc, x, code[:want], x86TestReg(o.Reg)), true
		}
	}
	if r, ok := x.Args[0].(x86asm.Reg); ok && !x86asmReadsFirst[x.Op] && !(x.Op == x86asm.IMUL && x.Args[1] == nil) && in.Class != Unknown {
		if g := x86asmGPR(r); g >= 0 && tracked(uint8(g)) && !touched[x86Dwarf[g]] {
			return fmt.Sprintf("%#x %v (% x): x86asm writes %s, Decode says %q", pc, x, code[:want], x86TestReg(x86Dwarf[g]), renderInst(in)), true
		}
	}
	return "", true
}

// TestX86DecodeAgreesWithX86asm decodes every instruction of the x86-64
// fixtures both with Decode and with x86asm and compares the registers
// written (x86asmDisagreement). No instruction of these compiled programs
// may be Unknown. It is the table's test against an independent decoder.
func TestX86DecodeAgreesWithX86asm(t *testing.T) {
	for _, name := range x86Fixtures {
		t.Run(name, func(t *testing.T) {
			bad, checked := 0, 0
			total := forEachObjdumpInsn(t, name, func(code []byte, pc uint64, want int) {
				var in Inst
				if err := (X86{}).Decode(code, pc, &in); err != nil {
					t.Errorf("%#x: %v", pc, err)
					return
				}
				if in.Class == Unknown {
					if bad++; bad <= 10 {
						t.Errorf("%#x (% x): Unknown (%s) in compiled code", pc, code[:want], in.Why)
					}
				}
				msg, ok := x86asmDisagreement(code, pc, want, &in)
				if ok {
					checked++
				}
				if msg != "" {
					if bad++; bad <= 10 {
						t.Error(msg)
					}
				}
			})
			if bad > 0 {
				t.Errorf("%d of %d instructions disagree (%d compared)", bad, total, checked)
			}
		})
	}
}

// TestX86DecodeAgreesWithX86asmOnLibc makes the same comparison over the
// host's libc.so.6 (glibc's hand-written string functions, AVX2 and
// AVX-512 included), delimited by a linear sweep with Len; it skips when
// there is no x86-64 libc.
func TestX86DecodeAgreesWithX86asmOnLibc(t *testing.T) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(libc)
	if err != nil {
		t.Skipf("no host libc: %v", err)
	}
	defer f.Close()
	s := f.Section(".text")
	if f.Machine != elf.EM_X86_64 || s == nil {
		t.Skip("the host libc is not x86-64 or has no .text")
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	bad, total, checked, unknown := 0, 0, 0, 0
	var in Inst
	for off := 0; off < len(data); {
		pc := s.Addr + uint64(off)
		if err := (X86{}).Decode(data[off:], pc, &in); err != nil {
			off++
			continue
		}
		total++
		if in.Class == Unknown {
			unknown++
		}
		msg, ok := x86asmDisagreement(data[off:], pc, in.Len, &in)
		if ok {
			checked++
		}
		if msg != "" {
			if bad++; bad <= 10 {
				t.Error(msg)
			}
		}
		off += in.Len
	}
	t.Logf("%s: %d instructions, %d compared with x86asm, %d Unknown", libc, total, checked, unknown)
	if bad > 0 {
		t.Errorf("%d of %d instructions disagree", bad, total)
	}
}
