package arch

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/arch/s390x/s390xasm"
)

// S390X is the s390x Decoder of the code oracle. It decodes the
// instructions itself, from the z/Architecture Principles of Operation
// (SA22-7832), chapter 5 "Instruction formats" and the opcode tables of
// appendix B: the length comes from the first two bits of the opcode (00: 2
// bytes, 01 and 10: 4, 11: 6), the format from the opcode, and which
// registers are written from a table of the opcodes it knows (s390xOps).
// Every register an instruction writes is reported (OpClobber, or a more
// precise operation); an instruction has no stack effect only when its
// entry says it writes no general or floating-point register (a store, a
// compare, a branch without link, a storage-to-storage operation). Any
// other opcode is Class Unknown, "unknown opcode 0x..".
//
// Formats decoded: E, RR, RRE, RRF, RRD, RX, RXE, RXY, RS, RSY, RSI, RI,
// RIL, RIE, RRS, RIS, S, SI, SIY, SIL, SS, SSE, SSF and the vector
// formats (whose first operand V1 is a vector register; v8-v15 hold
// f8-f15).
//
// Modelled stack operations (registers are DWARF numbers, "ELF
// Application Binary Interface s390x Supplement", DWARF register mapping:
// r0-r15 0-15, f0,f2,f4,f6,f1,f3,f5,f7,f8,f10,f12,f14,f9,f11,f13,f15
// 16-31):
//   - stmg r1,r3,d(rB) / lmg: OpSave / OpRestore of each register of the
//     range at d+8*i (a restore of the base register comes last);
//   - stg/lg of r6-r15 and std/ld/stdy/ldy of f8-f15 at d(rB), without an
//     index register: OpSave / OpRestore, for any base register rB (the walk
//     follows r15, r11 and their copies; a load from a base it does not
//     know clobbers);
//   - aghi, agfi, slgfi, algfi on r15 and la/lay r15,d(r15): OpAddSP;
//   - la/lay r1,d(r2) and aghik r1,r2,i into a followed register: OpSetReg;
//   - lgr, ldgr, lgdr, ldr between two registers, one of them followed:
//     OpSetReg (lgr %r11,%r15 is r11 = r15+0; ldgr %f0,%r14 saves r14 in f0);
//   - sgr or slgr %r15,%rN: OpSubSPReg; agr %r15,%rN: OpAddSPReg;
//   - lghi and lgfi set Inst.Const;
//   - brasl/bras (Call), basr/bas (CallIndirect; both clobber their link
//     register; with a link register other than r14 (or r0 for brasl)
//     they are Jump and JumpIndirect: bras %r5,1f jumps over a literal
//     and leaves its address in r5), bcr 15,%r14 (br %r14, Return), other bcr 15 (JumpIndirect),
//     brc/brcl/j/jg (Jump with mask 15, CondJump otherwise, nothing with
//     mask 0), brct/brctg/brxh/cij/crj.. (CondJump), j .+2 (gcc's trap) and
//     opcode 0x00 (Stop).
//
// A conditional return (bcr M,%r14 with M other than 0 and 15) is
// CondReturn.
type S390X struct{}

// s390xFP, s390xRA and s390xSP are s390x.go's DWARF numbers.

// s390xFPR maps an FPR number (0-15) to its DWARF number: the ABI numbers
// the even FPRs first (f0=16, f2=17, ..., f14=27, f1=20, ..., f15=31).
var s390xFPR = [16]rule.Reg{16, 20, 17, 21, 18, 22, 19, 23, 24, 28, 25, 29, 26, 30, 27, 31}

// s390xTracked reports whether the decoder reports writes of DWARF register
// r: every GPR and FPR (0-31). The walk follows r6-r15 and f8-f15, and
// also copies of them in other registers (lgr %r1,%r15; ldgr %f0,%r14), so
// it must learn when any register is written.
func s390xTracked(r rule.Reg) bool { return r >= 0 && r <= 31 }

// Instruction formats: where the operand fields are.
const (
	sfE   uint8 = iota // op(16)
	sfRR               // op R1 R2
	sfRRE              // op(16) //// R1 R2
	sfRRF              // op(16) R3|M3 M4 R1 R2
	sfRRD              // op(16) R1 // R3 R2
	sfRX               // op R1 X2 B2 D2(12)
	sfRXE              // op R1 X2 B2 D2(12) // op2
	sfRXY              // op R1 X2 B2 DL2(12) DH2(8) op2
	sfRS               // op R1 R3 B2 D2(12)
	sfRSY              // op R1 R3 B2 DL2 DH2 op2
	sfRSI              // op R1 R3 I2(16)
	sfRI               // op R1 op2 I2(16)
	sfRIL              // op R1 op2 I2(32)
	sfRIE              // op R1 R2|R3|M3 I(16) .. op2
	sfNoR              // S, SI, SIY, SIL, SS, SSE, SSF, RRS, RIS: no register written
	sfVR               // vector formats: V1 in the R1 position, its fifth bit in RXB
)

// Effects of an instruction on the registers.
const (
	seNone    uint8 = iota // writes no general register (store, compare, storage op)
	seW1                   // writes GPR R1
	seW1P                  // writes the GPR pair R1, R1+1
	seW12                  // writes GPRs R1 and R2 (string instructions)
	seW1P2P                // writes R1, R1+1, R2, R2+1 (mvcl, clcl)
	seW1P3P                // writes R1, R1+1, R3, R3+1 (mvcle, clcle)
	seW13                  // writes GPRs R1 through R3 (lm, lmy, lmh)
	seF1                   // writes FPR R1
	seF1P                  // writes the FPR pair R1, R1+2 (extended BFP)
	seV1                   // writes vector register V1
	seSTG                  // stg: save
	seLG                   // lg: restore
	seSTMG                 // stmg: save a range
	seLMG                  // lmg: restore a range
	seSTD                  // std, stdy: save an FPR
	seLD                   // ld, ldy: restore an FPR
	seLA                   // la, lay: R1 = D2(X2,B2)
	seAddI                 // aghi, agfi: R1 += I
	seSubUI                // slgfi: R1 -= unsigned I
	seAddUI                // algfi: R1 += unsigned I
	seAGHIK                // aghik: R1 = R3 + I2
	seSGR                  // sgr: R1 -= R2
	seAGR                  // agr: R1 += R2
	seLGR                  // lgr: R1 = R2
	seLDGR                 // ldgr: FPR R1 = GPR R2
	seLGDR                 // lgdr: GPR R1 = FPR R2
	seLDR                  // ldr: FPR R1 = FPR R2
	seBRC                  // brc, brcl: mask M1
	seBRAS                 // bras, brasl: call
	seBASR                 // basr R1,R2
	seBAS                  // bas R1,D2(X2,B2): call through an address
	seBCR                  // bcr M1,R2
	seBC                   // bc M1,D2(X2,B2)
	seBRCT                 // brct, brctg: R1 -= 1, branch relative I2 if not 0
	seBRXH                 // brxh, brxle (RSI), brxhg, brxlg (RIE): R1 += R3, branch
	seCJ                   // compare and branch relative (RIE): mask M3, I4
	seCB                   // compare and branch to D4(B4) (RRS, RIS)
	seEX                   // ex, exrl: executes another instruction
	seBCTR                 // bctr, bctgr: R1 -= 1, branch to R2 if R2 != 0 and R1 != 0
	seVRange               // vlm: writes vector registers V1 through V3
	seSVC                  // svc: writes r2
	seUnknown              // decoded, but its effect on registers is not modelled
)

type s390xOp struct {
	format, effect uint8
	known          bool
}

// s390xOps is keyed by the opcode: the first byte shifted left 8, ORed
// with the extension (the second byte for 0x01, 0xA6?, 0xB2, 0xB3, 0xB9,
// 0xE5; its low 4 bits for 0xA5, 0xA7, 0xC0, 0xC2, 0xC4, 0xC6, 0xC8, 0xCC;
// the sixth byte for 0xE3, 0xE7, 0xEB, 0xEC, 0xED); single-byte opcodes
// are the first byte shifted left 8.
// An array, not a map: a lookup is one index (128 KiB of table).
var s390xOps [1 << 16]s390xOp

// s390xKey returns the table key of the instruction at b (len(b) is at
// least its length).
func s390xKey(b []byte) uint16 {
	op := uint16(b[0]) << 8
	switch b[0] {
	case 0x01, 0xB2, 0xB3, 0xB9, 0xE5:
		return op | uint16(b[1])
	case 0xA5, 0xA7, 0xC0, 0xC2, 0xC4, 0xC6, 0xC8, 0xCC:
		return op | uint16(b[1]&15)
	case 0xE3, 0xE6, 0xE7, 0xEB, 0xEC, 0xED:
		return op | uint16(b[5])
	}
	return op
}

// s390xOpsOnce fills s390xOps on first use (buildS390XOps): parsing the
// table costs a fraction of a millisecond that every sfdbg command would
// otherwise pay at start-up.
var s390xOpsOnce sync.Once

func buildS390XOps() {
	// Each line: format, effect, then opcodes (hex, as in s390xKey).
	table := []struct {
		format, effect uint8
		ops            string
	}{
		// E and RR (2 bytes).
		{sfE, seNone, "010B 010C 010D 010E"}, // tam sam24 sam31 sam64
		{sfRR, seNone, "0400 1500 1900 2900 3900"},
		{sfRR, seSVC, "0A00"}, // svc: the kernel returns in r2
		{sfRR, seW1, "1000 1100 1200 1300 1400 1600 1700 1800 1A00 1B00 1E00 1F00"},
		{sfRR, seW1P, "1C00 1D00"}, // mr dr
		{sfRR, seF1, "2000 2100 2200 2300 2400 2500 2A00 2B00 2C00 2D00 2E00 2F00 3000 3100 3200 3300 3400 3500 3800 3A00 3B00 3C00 3D00 3E00 3F00"},
		{sfRR, seF1P, "2600 2700 3600 3700"},
		{sfRR, seLDR, "2800"},
		{sfRR, seBCR, "0700"},
		{sfRR, seBASR, "0500 0D00"}, // balr basr
		{sfRR, seBCTR, "0600"},
		{sfRR, seW1P2P, "0E00 0F00"}, // mvcl clcl
		// RX (4 bytes).
		{sfRX, seNone, "4000 4200 4900 4E00 5000 5500 5900 6900 7000 7900"},
		{sfRX, seW1, "4300 4800 4A00 4B00 4C00 4F00 5100 5400 5600 5700 5800 5A00 5B00 5E00 5F00 7100"},
		{sfRX, seW1P, "5C00 5D00"}, // m d
		{sfRX, seF1, "6A00 6B00 6C00 6D00 6E00 6F00 7800 7A00 7B00 7C00 7D00 7E00 7F00"},
		{sfRX, seF1P, "6700"},
		{sfRX, seLA, "4100"},
		{sfRX, seLD, "6800"},
		{sfRX, seSTD, "6000"},
		{sfRX, seBC, "4700"},
		{sfRX, seBAS, "4500 4D00"}, // bal bas
		{sfRX, seEX, "4400"},
		{sfRX, seUnknown, "4600"}, // bct: a branch to an address
		// RS, RSI (4 bytes).
		{sfRS, seW1, "8800 8900 8A00 8B00 BA00 BF00"}, // srl sll sra sla cs icm
		{sfRS, seW1P, "8C00 8D00 8E00 8F00 BB00"},     // srdl sldl srda slda cds
		{sfRS, seNone, "9000 9A00 9B00 B600 BD00 BE00"},
		{sfRS, seW13, "9800"},          // lm
		{sfRS, seW1P3P, "A800 A900"},   // mvcle clcle
		{sfRS, seUnknown, "8600 8700"}, // bxh bxle: a branch to an address
		{sfRSI, seBRXH, "8400 8500"},   // brxh brxle
		// SI, SS, SSE, SSF: storage operands only (trt, trtr, edmk write r1, r2).
		{sfNoR, seNone, "9100 9200 9400 9500 9600 9700 D000 D100 D200 D300 D400 D500 D600 D700 D900 DA00 DB00 DC00 DD00 DE00 DF00 E100 E200 E800 E900 EA00 F000 F100 F200 F300 F800 F900 FA00 FB00 FC00 FD00"},
		// RI (4 bytes).
		{sfRI, seNone, "A700 A701 A702 A703 A70E A70F"}, // tmlh tmll tmhh tmhl chi cghi
		{sfRI, seBRC, "A704"},
		{sfRI, seBRAS, "A705"},
		{sfRI, seBRCT, "A706 A707"},
		{sfRI, seW1, "A708 A709 A70A A70C A70D"}, // lhi lghi ahi mhi mghi
		{sfRI, seAddI, "A70B"},                   // aghi
		{sfRI, seW1, "A500 A501 A502 A503 A504 A505 A506 A507 A508 A509 A50A A50B A50C A50D A50E A50F"},
		// RIL (6 bytes).
		{sfRIL, seW1, "C000 C001 C006 C007 C008 C009 C00A C00B C00C C00D C00E C00F"},
		{sfRIL, seBRC, "C004"},
		{sfRIL, seBRAS, "C005"},
		{sfRIL, seW1, "C200 C201 C205 C209 C20B"}, // msgfi msfi slfi afi alfi
		{sfRIL, seSubUI, "C204"},                  // slgfi
		{sfRIL, seAddI, "C208"},                   // agfi
		{sfRIL, seAddUI, "C20A"},                  // algfi
		{sfRIL, seNone, "C20C C20D C20E C20F"},    // cgfi cfi clgfi clfi
		{sfRIL, seW1, "C402 C404 C405 C406 C408 C40C C40D C40E"},
		{sfRIL, seNone, "C407 C40B C40F"}, // sthrl stgrl strl
		{sfRIL, seEX, "C600"},
		{sfRIL, seNone, "C602 C604 C605 C606 C607 C608 C60A C60C C60D C60E C60F"},
		{sfRIL, seW1, "CC08 CC0A CC0B"}, // aih alsih alsihn
		{sfRIL, seNone, "CC0D CC0F"},    // cih clih
		// 0xB2 (S, RRE).
		{sfRRE, seW1, "B222 B24F B252 B2EC"},  // ipm ear msr etnd
		{sfRRE, seW12, "B255 B25D B25E B2BE"}, // mvst clst srst srstu
		{sfRRE, seW1P2P, "B257 B2A6 B2A7"},    // cuse cu21 cu12
		{sfNoR, seNone, "B20A B24D B24E B299 B29C B29D B2B0 B2B8 B2B9 B2BD B2E8 B2F8 B2FC"},
		// 0xB3: binary floating point (RRE, RRF, RRD).
		{sfRRE, seF1, "B300 B301 B302 B303 B304 B30A B30B B30C B30D B310 B311 B312 B313 B314 B315 B317 B31A B31B B31C B31D B344 B357 B35F B370 B371 B373 B374 B375 B390 B391 B394 B395 B3A0 B3A1 B3A4 B3A5"},
		{sfRRF, seF1, "B372"}, // cpsdr
		{sfRRE, seF1P, "B305 B306 B307 B316 B340 B341 B342 B343 B345 B346 B347 B34A B34B B34C B34D B365 B376 B392 B396 B3A2 B3A6"},
		{sfRRE, seNone, "B308 B309 B318 B319 B348 B349 B384 B385"},                        // keb ceb kdb cdb kxbr cxbr sfpc sfasr
		{sfRRE, seW1, "B38C B398 B399 B39A B39C B39D B39E B3A8 B3A9 B3AA B3AC B3AD B3AE"}, // efpc, to fixed
		{sfRRD, seF1, "B30E B30F B31E B31F"},                                              // maebr msebr madbr msdbr
		{sfRRE, seLDGR, "B3C1"},
		{sfRRE, seLGDR, "B3CD"},
		// 0xB9 (RRE, RRF).
		{sfRRE, seW1, "B900 B901 B902 B903 B906 B907 B90A B90C B90F B910 B911 B912 B913 B914 B916 B917 B918 B919 B91A B91B B91C B91F B926 B927 B980 B981 B982 B984 B985 B988 B989 B994 B995 B998 B999"},
		{sfRRE, seW1P, "B90D B91D B983 B986 B987 B996 B997"}, // dsgr dsgfr flogr mlgr dlgr mlr dlr
		{sfRRE, seW12, "B98D"},                               // epsw
		{sfRRE, seW1P2P, "B9B0 B9B1 B9B2 B9B3"},              // cu14 cu24 cu41 cu42
		{sfRRE, seLGR, "B904"},
		{sfRRE, seSGR, "B909 B90B"}, // sgr slgr
		{sfRRE, seAGR, "B908"},      // agr
		{sfRRE, seBCTR, "B946"},     // bctgr
		{sfRRE, seNone, "B920 B921 B930 B931 B960 B961 B972 B973 B9CD B9CF B9DD B9DF"},
		{sfRRF, seW1, "B9C0 B9C8 B9C9 B9CA B9CB B9D8 B9D9 B9DA B9DB B9E0 B9E1 B9E2 B9E3 B9E4 B9E5 B9E6 B9E7 B9E8 B9E9 B9EA B9EB B9ED B9F0 B9F2 B9F4 B9F5 B9F6 B9F7 B9F8 B9F9 B9FA B9FB B9FD B964 B965 B966 B967 B974 B975 B976 B977"},
		{sfRRF, seW1P, "B9EC"}, // mgrk
		// 0xE5 (SIL).
		{sfNoR, seNone, "E544 E548 E54C E554 E555 E558 E559 E55C E55D"},
		// 0xE3 (RXY).
		{sfRXY, seLG, "E304"},
		{sfRXY, seSTG, "E324"},
		{sfRXY, seLA, "E371"},
		{sfRXY, seW1, "E302 E303 E306 E308 E309 E30A E30B E30C E30E E30F E312 E313 E314 E315 E316 E317 E318 E319 E31A E31B E31C E31E E31F E32A E332 E338 E339 E33A E33B E33C E351 E353 E354 E356 E357 E358 E35A E35B E35E E35F E373 E375 E376 E377 E378 E37A E37B E37C E380 E381 E382 E383 E385 E388 E389 E390 E391 E394 E395 E398 E399 E39C E39D E39F E3C0 E3C2 E3C4 E3C6 E3C8 E3CA"},
		{sfRXY, seW1P, "E30D E31D E35C E384 E386 E387 E38F E396 E397"},
		{sfRXY, seNone, "E320 E321 E325 E326 E32E E32F E330 E331 E334 E336 E33E E33F E350 E355 E359 E370 E372 E379 E38E E3C3 E3C7 E3CB E3CD E3CF"},
		{sfRXY, seUnknown, "E346"}, // bctg: a branch to an address
		// 0xEB (RSY, SIY).
		{sfRSY, seLMG, "EB04"},
		{sfRSY, seSTMG, "EB24"},
		{sfRSY, seW1, "EB0A EB0B EB0C EB0D EB14 EB1C EB1D EB30 EB4C EB80 EB81 EBDC EBDD EBDE EBDF EBE0 EBE2 EBE4 EBE6 EBE7 EBE8 EBEA EBF2 EBF4 EBF6 EBF7 EBF8 EBFA"},
		{sfRSY, seW1P, "EB31 EB3E"},     // cdsy cdsg
		{sfRSY, seW13, "EB96 EB98"},     // lmh lmy
		{sfRSY, seW1P3P, "EB8E EB8F"},   // mvclu clclu
		{sfRSY, seUnknown, "EB44 EB45"}, // bxhg bxleg: a branch to an address
		{sfRSY, seNone, "EB17 EB20 EB21 EB23 EB26 EB2B EB2C EB2D EB90 EB9A EB9B EBE1 EBE3 EBF3"},
		{sfNoR, seNone, "EB51 EB52 EB54 EB55 EB56 EB57 EB6A EB6E EB7A EB7E EBC0"}, // SIY
		// 0xEC (RIE, RRS, RIS).
		{sfRIE, seBRXH, "EC44 EC45"}, // brxhg brxlg
		{sfRIE, seW1, "EC42 EC46 EC4E EC51 EC54 EC55 EC56 EC57 EC59 EC5D ECD8 ECDA ECDB"},
		{sfRIE, seAGHIK, "ECD9"},
		{sfRIE, seCJ, "EC64 EC65 EC76 EC77 EC7C EC7D EC7E EC7F"},
		{sfRIE, seNone, "EC70 EC71 EC72 EC73"}, // compare and trap
		{sfNoR, seCB, "ECE4 ECE5 ECF6 ECF7 ECFC ECFD ECFE ECFF"},
		// 0xED (RXE, RXY).
		{sfRXE, seF1, "ED04 ED0A ED0B ED0C ED0D ED14 ED15 ED17 ED1A ED1B ED1C ED1D"},
		{sfRXE, seF1P, "ED05 ED06 ED07"},
		{sfRXE, seNone, "ED08 ED09 ED10 ED11 ED12 ED18 ED19"},
		{sfRXY, seF1, "ED64"}, // ley
		{sfRXY, seLD, "ED65"}, // ldy
		{sfRXY, seNone, "ED66"},
		{sfRXY, seSTD, "ED67"}, // stdy
		// 0xE7: vector (V1 written unless a store or a compare).
		{sfVR, seNone, "E708 E709 E70A E70B E70E E71A E71B E73E E73F E7CA E7CB E7D8 E7D9 E7DB"},
		{sfVR, seW1, "E721 E727"}, // vlgv lcbb: GPR R1
		{sfVR, seVRange, "E736"},  // vlm
		{sfVR, seV1, "E700 E701 E702 E703 E704 E705 E706 E707 E712 E713 E722 E730 E733 E737 E740 E741 E742 E743 E744 E745 E746 E74D E750 E752 E753 E75C E75F E760 E761 E762 E764 E765 E766 E767 E768 E769 E76A E76B E76C E76D E76E E76F E770 E772 E773 E774 E775 E777 E778 E77A E77C E77D E77E E77F E780 E781 E782 E784 E785 E786 E787 E78A E78B E78C E78D E78E E78F E794 E795 E797 E79E E79F E7A1 E7A2 E7A3 E7A4 E7A5 E7A6 E7A7 E7A9 E7AA E7AB E7AC E7AD E7AE E7AF E7B4 E7B8 E7B9 E7BB E7BC E7BD E7BF E7C0 E7C1 E7C2 E7C3 E7C4 E7C5 E7C7 E7CC E7CE E7D4 E7D5 E7D6 E7D7 E7DE E7DF E7E2 E7E3 E7E5 E7E7 E7E8 E7EA E7EB E7EE E7EF E7F0 E7F1 E7F2 E7F3 E7F5 E7F7 E7F8 E7F9 E7FB E7FC E7FD E7FE E7FF"},
	}
	for _, t := range table {
		for _, f := range strings.Fields(t.ops) {
			var k uint16
			if _, err := fmt.Sscanf(f, "%x", &k); err != nil {
				panic("arch: bad s390x opcode " + f)
			}
			if s390xOps[k].known {
				panic("arch: s390x opcode " + f + " listed twice")
			}
			s390xOps[k] = s390xOp{t.format, t.effect, true}
		}
	}
}

// S390XLen is the length in bytes (2, 4 or 6) of the s390x instruction
// whose first byte is b0 (Principles of Operation, "Instruction formats":
// bits 0-1 of the opcode).
func S390XLen(b0 byte) int {
	switch b0 >> 6 {
	case 0:
		return 2
	case 3:
		return 6
	}
	return 4
}

// S390XPCRef returns the length of the s390x instruction at code[0],
// which is at address pc, and the address it refers to relative to the
// PC, with ref true when it has one: larl, and the RIL-b loads, stores,
// compares and prefetch of the C4 and C6 opcodes (lgrl, lrl, stgrl,
// cgrl, clrl, pfdrl, exrl, ...: pc + 2 * I2; z/Architecture Principles of
// Operation, chapter 5, "Relative addressing"). ok is false when code is
// shorter than the instruction.
func S390XPCRef(code []byte, pc uint64) (n int, target uint64, ref, ok bool) {
	if len(code) == 0 {
		return 0, 0, false, false
	}
	n = S390XLen(code[0])
	if len(code) < n {
		return 0, 0, false, false
	}
	if n == 6 && (code[0] == 0xC0 && code[1]&15 == 0 || code[0] == 0xC4 || code[0] == 0xC6) {
		i2 := int64(int32(uint32(code[2])<<24 | uint32(code[3])<<16 | uint32(code[4])<<8 | uint32(code[5])))
		return n, pc + uint64(2*i2), true, true
	}
	return n, 0, false, true
}

// s390xFields are the decoded operand fields.
type s390xFields struct {
	r1, r2, r3, x2, b2 uint8
	d2                 int64
}

func s390xDecodeFields(format uint8, b []byte) (f s390xFields) {
	switch format {
	case sfRR:
		f.r1, f.r2 = b[1]>>4, b[1]&15
	case sfRRE:
		f.r1, f.r2 = b[3]>>4, b[3]&15
	case sfRRF:
		f.r1, f.r2, f.r3 = b[3]>>4, b[3]&15, b[2]>>4
	case sfRRD:
		f.r1, f.r3, f.r2 = b[2]>>4, b[3]>>4, b[3]&15
	case sfRX, sfRXE:
		f.r1, f.x2, f.b2 = b[1]>>4, b[1]&15, b[2]>>4
		f.d2 = int64(b[2]&15)<<8 | int64(b[3])
	case sfRXY, sfRSY:
		f.r1, f.x2, f.b2 = b[1]>>4, b[1]&15, b[2]>>4
		f.r3 = f.x2
		if format == sfRSY {
			f.x2 = 0
		}
		f.d2 = int64(int8(b[4]))<<12 | int64(b[2]&15)<<8 | int64(b[3])
	case sfRS, sfRSI:
		f.r1, f.r3, f.b2 = b[1]>>4, b[1]&15, b[2]>>4
		f.d2 = int64(b[2]&15)<<8 | int64(b[3])
	case sfRI, sfRIL, sfVR:
		f.r1 = b[1] >> 4
	case sfRIE:
		f.r1, f.r2, f.r3 = b[1]>>4, b[1]&15, b[1]&15
	}
	return f
}

// Decode decodes the s390x instruction at code[0] (address pc). It returns
// an error only when code is shorter than the instruction's length.
func (S390X) Decode(code []byte, pc uint64, inst *Inst) error {
	if len(code) < 2 {
		return fmt.Errorf("s390x: truncated instruction at %#x: %d of 2 bytes", pc, len(code))
	}
	n := S390XLen(code[0])
	if len(code) < n {
		return fmt.Errorf("s390x: truncated instruction at %#x: %d of %d bytes", pc, len(code), n)
	}
	inst.reset(n)
	b := code[:n]
	if b[0] == 0 {
		inst.Class = Stop
		inst.Why = "opcode 0x00 (operation exception)"
		return nil
	}
	key := s390xKey(b)
	s390xOpsOnce.Do(buildS390XOps)
	e := &s390xOps[key]
	if !e.known {
		inst.Class = Unknown
		inst.Why = fmt.Sprintf("unknown opcode %#x", s390xOpcodeText(b, key))
		return nil
	}
	f := s390xDecodeFields(e.format, b)
	r1 := rule.Reg(f.r1)
	switch e.effect {
	case seNone:
	case seW1:
		inst.clobberIf(r1, s390xTracked)
		switch key {
		case 0xA709: // lghi: R1 = sign-extended I2 (16 bits)
			inst.SetConst(r1, int64(int16(binary.BigEndian.Uint16(b[2:]))), 0)
		case 0xC001: // lgfi: R1 = sign-extended I2 (32 bits)
			inst.SetConst(r1, int64(int32(binary.BigEndian.Uint32(b[2:]))), 0)
		}
	case seW1P:
		inst.clobberIf(r1, s390xTracked)
		inst.clobberIf(rule.Reg((f.r1+1)&15), s390xTracked)
	case seW12:
		inst.clobberIf(r1, s390xTracked)
		inst.clobberIf(rule.Reg(f.r2), s390xTracked)
	case seW1P2P, seW1P3P:
		r := f.r2
		if e.effect == seW1P3P {
			r = f.r3
		}
		for _, x := range [...]uint8{f.r1, f.r1 + 1, r, r + 1} {
			inst.clobberIf(rule.Reg(x&15), s390xTracked)
		}
	case seW13:
		for x := f.r1; ; x = (x + 1) & 15 {
			inst.clobberIf(rule.Reg(x), s390xTracked)
			if x == f.r3 {
				break
			}
		}
	case seF1:
		inst.clobberIf(s390xFPR[f.r1], s390xTracked)
	case seF1P:
		inst.clobberIf(s390xFPR[f.r1], s390xTracked)
		inst.clobberIf(s390xFPR[(f.r1+2)&15], s390xTracked)
	case seV1:
		if v := f.r1 | (b[4]&8)<<1; v < 16 {
			inst.clobberIf(s390xFPR[v], s390xTracked)
		}
	case seSTG, seSTD:
		r := r1
		if e.effect == seSTD {
			r = s390xFPR[f.r1]
		}
		if s390xStackBase(f) && s390xTracked(r) {
			inst.Add(StackOp{Kind: OpSave, Reg: r, Base: rule.Reg(f.b2), Imm: f.d2})
		}
	case seLG, seLD:
		r := r1
		if e.effect == seLD {
			r = s390xFPR[f.r1]
		}
		if s390xStackBase(f) {
			if s390xTracked(r) {
				inst.Add(StackOp{Kind: OpRestore, Reg: r, Base: rule.Reg(f.b2), Imm: f.d2})
			}
		} else {
			inst.clobberIf(r, s390xTracked)
		}
	case seSTMG, seLMG:
		s390xMulti(inst, e.effect == seSTMG, f)
	case seLA:
		base := f.b2 // the one address register, if there is one
		if base == 0 {
			base = f.x2
		} else if f.x2 != 0 {
			base = 16 // two registers
		}
		switch {
		case !s390xTracked(r1):
		case base == 0 || base == 16:
			inst.Add(StackOp{Kind: OpClobber, Reg: r1})
		case r1 == s390xSP && base == 15:
			inst.Add(StackOp{Kind: OpAddSP, Imm: f.d2})
		default:
			inst.Add(StackOp{Kind: OpSetReg, Reg: r1, Base: rule.Reg(base), Imm: f.d2})
		}
	case seAddI, seAddUI, seSubUI:
		var k int64
		switch {
		case e.format == sfRI:
			k = int64(int16(binary.BigEndian.Uint16(b[2:])))
		case e.effect == seAddI:
			k = int64(int32(binary.BigEndian.Uint32(b[2:])))
		case e.effect == seAddUI:
			k = int64(binary.BigEndian.Uint32(b[2:]))
		default:
			k = -int64(binary.BigEndian.Uint32(b[2:]))
		}
		if r1 == s390xSP {
			inst.Add(StackOp{Kind: OpAddSP, Imm: k})
		} else if s390xTracked(r1) {
			inst.Add(StackOp{Kind: OpSetReg, Reg: r1, Base: r1, Imm: k})
		}
	case seAGHIK:
		k := int64(int16(binary.BigEndian.Uint16(b[2:])))
		if s390xTracked(r1) {
			inst.Add(StackOp{Kind: OpSetReg, Reg: r1, Base: rule.Reg(f.r3), Imm: k})
		}
	case seSGR, seAGR:
		switch {
		case r1 != s390xSP:
			inst.clobberIf(r1, s390xTracked)
		case e.effect == seSGR:
			inst.Add(StackOp{Kind: OpSubSPReg, Reg: rule.Reg(f.r2)})
		default:
			inst.Add(StackOp{Kind: OpAddSPReg, Reg: rule.Reg(f.r2)})
		}
	case seLGR:
		s390xCopy(inst, r1, rule.Reg(f.r2))
	case seLDGR:
		s390xCopy(inst, s390xFPR[f.r1], rule.Reg(f.r2))
	case seLGDR:
		s390xCopy(inst, r1, s390xFPR[f.r2])
	case seLDR:
		s390xCopy(inst, s390xFPR[f.r1], s390xFPR[f.r2])
	case seBRC:
		var off int64
		if e.format == sfRI {
			off = int64(int16(binary.BigEndian.Uint16(b[2:])))
		} else {
			off = int64(int32(binary.BigEndian.Uint32(b[2:])))
		}
		switch f.r1 { // the mask M1
		case 0: // nop
		case 15:
			inst.Class = Jump
			inst.Target = pc + uint64(off*2)
			if off == 1 && e.format == sfRI {
				// j .+2, gcc's __builtin_trap: it branches into its own
				// second halfword, 0x0001, an invalid opcode.
				inst.Class = Stop
				inst.Why = "j .+2 (trap)"
				inst.Target = 0
			}
		default:
			inst.Class = CondJump
			inst.Target = pc + uint64(off*2)
		}
	case seBRAS:
		var off int64
		if e.format == sfRI {
			off = int64(int16(binary.BigEndian.Uint16(b[2:])))
		} else {
			off = int64(int32(binary.BigEndian.Uint32(b[2:])))
		}
		inst.Target = pc + uint64(off*2)
		inst.Class = Call
		if f.r1 != 14 && f.r1 != 0 {
			// Not a call of the ABI (whose link register is r14; r0 is
			// -mfentry's): bras %r5,1f over a literal, its address in r5.
			inst.Class = Jump
			inst.Why = fmt.Sprintf("branch and save into %%r%d: a jump", f.r1)
		}
		inst.clobberIf(r1, s390xTracked)
	case seBASR, seBAS:
		if e.effect == seBAS || f.r2 != 0 {
			inst.Class = CallIndirect
			if f.r1 != 14 {
				inst.Class = JumpIndirect
				inst.Why = fmt.Sprintf("branch and save into %%r%d through a register: not a call", f.r1)
			}
		}
		inst.clobberIf(r1, s390xTracked)
	case seBCR:
		switch {
		case f.r1 == 0 || f.r2 == 0: // nopr; bcr 15,0 serializes
		case f.r1 == 15 && f.r2 == 14:
			inst.Class, inst.RetJump = Return, true
		case f.r1 == 15:
			inst.Class = JumpIndirect
			inst.Why = fmt.Sprintf("br %%r%d", f.r2)
		case f.r2 == 14:
			inst.Class, inst.RetJump = CondReturn, true
		default:
			inst.Class = JumpIndirect
			inst.Why = fmt.Sprintf("conditional indirect jump (bcr %d,%%r%d)", f.r1, f.r2)
		}
	case seBC:
		if f.r1 != 0 {
			inst.Class = JumpIndirect
			inst.Why = "branch to a computed address (bc)"
		}
	case seBRCT:
		inst.Class = CondJump
		inst.Target = pc + uint64(int64(int16(binary.BigEndian.Uint16(b[2:])))*2)
		inst.clobberIf(r1, s390xTracked)
	case seBRXH:
		inst.Class = CondJump
		inst.Target = pc + uint64(int64(int16(binary.BigEndian.Uint16(b[2:])))*2)
		inst.clobberIf(r1, s390xTracked)
	case seCJ:
		m := b[1] & 15 // RIE-c: R1 M3 I4 I2
		switch key & 0xFF {
		case 0x64, 0x65, 0x76, 0x77: // RIE-b: R1 R2 I4 M3
			m = b[4] >> 4
		}
		target := pc + uint64(int64(int16(binary.BigEndian.Uint16(b[2:])))*2)
		switch m & 14 {
		case 0: // never
		case 14:
			inst.Class = Jump
			inst.Target = target
		default:
			inst.Class = CondJump
			inst.Target = target
		}
	case seCB:
		inst.Class = JumpIndirect
		inst.Why = "compare and branch to a computed address"
	case seSVC:
		inst.Syscall = true
		inst.Add(StackOp{Kind: OpClobber, Reg: 2})
	case seBCTR:
		inst.clobberIf(r1, s390xTracked)
		if f.r2 != 0 {
			inst.Class = JumpIndirect
			inst.Why = "branch on count to a register"
		}
	case seVRange:
		v1 := f.r1 | (b[4]&8)<<1
		v3 := b[1]&15 | (b[4]&4)<<2
		for v := v1; v <= v3 && v < 16; v++ {
			inst.clobberIf(s390xFPR[v], s390xTracked)
		}
	case seEX:
		inst.Class = Unknown
		inst.Why = "execute (ex/exrl): the executed instruction is not decoded"
	default:
		inst.Class = Unknown
		inst.Why = fmt.Sprintf("opcode %#x: effect on registers not modelled", s390xOpcodeText(b, key))
	}
	return nil
}

// s390xOpcodeText is the opcode as the Principles of Operation write it
// (0xe324, 0xa7b, 0x18).
func s390xOpcodeText(b []byte, key uint16) uint16 {
	switch b[0] {
	case 0xA5, 0xA7, 0xC0, 0xC2, 0xC4, 0xC6, 0xC8, 0xCC:
		return key>>4 | key&15
	case 0x01, 0xB2, 0xB3, 0xB9, 0xE5, 0xE3, 0xE6, 0xE7, 0xEB, 0xEC, 0xED:
		return key
	}
	return key >> 8
}

// s390xStackBase reports whether an RX/RXY operand is d(rB) with no index
// register: a slot the walk can follow when it knows rB (r15, r11, or a
// copy of them: std %f8,0(%r14) after lgr %r14,%r15; aghi %r14,-8).
func s390xStackBase(f s390xFields) bool {
	return f.x2 == 0 && f.b2 != 0
}

// s390xMulti emits stmg's saves or lmg's restores of R1 through R3
// (wrapping from r15 to r0) at D2(B2)+8*i. lmg's restore of its own base
// register comes last (the address is computed before any load).
func s390xMulti(inst *Inst, save bool, f s390xFields) {
	stack := f.b2 != 0
	base := rule.Reg(f.b2)
	kind := OpRestore
	if save {
		kind = OpSave
	}
	var baseAt int64
	restoreBase := false
	for i, x := 0, f.r1; i < 16; i, x = i+1, (x+1)&15 {
		r := rule.Reg(x)
		at := f.d2 + 8*int64(i)
		switch {
		case !s390xTracked(r):
		case !save && r == base:
			baseAt, restoreBase = at, true
		case stack:
			inst.Add(StackOp{Kind: kind, Reg: r, Base: base, Imm: at})
		case !save:
			inst.Add(StackOp{Kind: OpClobber, Reg: r})
		}
		if x == f.r3 {
			break
		}
	}
	if restoreBase {
		if stack {
			inst.Add(StackOp{Kind: OpRestore, Reg: base, Base: base, Imm: baseAt})
		} else {
			inst.Add(StackOp{Kind: OpClobber, Reg: base})
		}
	}
}

// s390xCopy emits dst = src (lgr, ldgr, lgdr, ldr) when either register is
// followed.
func s390xCopy(inst *Inst, dst, src rule.Reg) {
	if s390xTracked(dst) || s390xTracked(src) {
		inst.Add(StackOp{Kind: OpSetReg, Reg: dst, Base: src})
	}
}

// Text formats the instruction at code[0] (address pc) as objdump -d does,
// without symbols ("stmg %r11,%r15,88(%r15)", "brasl %r14,0x10006e8"),
// with golang.org/x/arch's s390xasm; ".long 0x........" (".short",
// ".byte" by length) where it cannot.
func (S390X) Text(code []byte, pc uint64) string {
	if len(code) < 2 {
		return "(bad)"
	}
	n := S390XLen(code[0])
	if len(code) < n {
		return "(bad)"
	}
	if d, err := s390xasm.Decode(code[:n]); err == nil && d.Len == n {
		t, ok := s390xGNU(d, pc)
		if !ok {
			return s390xData(code[:n])
		}
		// objdump prints a relative branch's target as bare hex.
		for _, a := range d.Args {
			switch a.(type) {
			case s390xasm.RegIm12, s390xasm.RegIm16, s390xasm.RegIm24, s390xasm.RegIm32:
				if as := a.String(pc); strings.HasPrefix(as, "0x") {
					t = strings.Replace(t, as, as[2:], 1)
				}
			}
		}
		return t
	}
	return s390xData(code[:n])
}

// s390xData is an instruction of 2, 4 or 6 bytes as data directives.
func s390xData(code []byte) string {
	switch len(code) {
	case 2:
		return fmt.Sprintf(".short 0x%04x", binary.BigEndian.Uint16(code))
	case 4:
		return fmt.Sprintf(".long 0x%08x", binary.BigEndian.Uint32(code))
	}
	return fmt.Sprintf(".long 0x%08x; .short 0x%04x", binary.BigEndian.Uint32(code), binary.BigEndian.Uint16(code[4:]))
}

// s390xGNU is s390xasm.GNUSyntax, which panics on some vector encodings
// (golang.org/x/arch v0.32.0 gnu.go HandleExtndMnemonic: an Imm where it
// expects a Mask; FuzzS390XDecode found it): ok is false then.
func s390xGNU(d s390xasm.Inst, pc uint64) (t string, ok bool) {
	defer func() {
		if recover() != nil {
			t, ok = "", false
		}
	}()
	return s390xasm.GNUSyntax(d, pc), true
}
