package arch

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// opsText formats an Inst's class and stack operations for table tests:
// "call 0x10 | clobber x30", "other | addsp -32; save x29 [sp+0]".
func opsText(in *Inst, name func(rule.Reg) string) string {
	cls := [...]string{"other", "call", "callind", "ret", "jump", "cjump", "jumpind", "stop", "condreturn", "unknown"}[in.Class]
	if in.Class == Call || in.Class == Jump || in.Class == CondJump {
		cls += fmt.Sprintf(" %#x", in.Target)
	}
	var ops []string
	for _, op := range in.Ops[:in.NOps] {
		switch op.Kind {
		case OpPush:
			ops = append(ops, fmt.Sprintf("push %s %d", name(op.Reg), op.Imm))
		case OpPop:
			ops = append(ops, fmt.Sprintf("pop %s %d", name(op.Reg), op.Imm))
		case OpAddSP:
			ops = append(ops, fmt.Sprintf("addsp %d", op.Imm))
		case OpSetReg:
			ops = append(ops, fmt.Sprintf("set %s=%s%+d", name(op.Reg), name(op.Base), op.Imm))
		case OpAndSP:
			ops = append(ops, fmt.Sprintf("andsp %#x", op.Imm))
		case OpSubSPReg:
			ops = append(ops, fmt.Sprintf("subsp %s", name(op.Reg)))
		case OpAddSPReg:
			ops = append(ops, fmt.Sprintf("addsp %s", name(op.Reg)))
		case OpSave:
			ops = append(ops, fmt.Sprintf("save %s [%s%+d]", name(op.Reg), name(op.Base), op.Imm))
		case OpRestore:
			ops = append(ops, fmt.Sprintf("restore %s [%s%+d]", name(op.Reg), name(op.Base), op.Imm))
		case OpClobber:
			ops = append(ops, "clobber "+name(op.Reg))
		default:
			ops = append(ops, fmt.Sprintf("op%d", op.Kind))
		}
	}
	s := cls
	if len(ops) > 0 {
		s += " | " + strings.Join(ops, "; ")
	}
	if in.Why != "" {
		s += " (" + in.Why + ")"
	}
	return s
}

func arm64Name(r rule.Reg) string {
	switch {
	case r == 31:
		return "sp"
	case r < 31:
		return fmt.Sprintf("x%d", r)
	case r >= 64 && r < 96:
		return fmt.Sprintf("d%d", r-64)
	}
	return fmt.Sprintf("r%d", r)
}

// arm64Cases are the words GNU as 2.47.50 assembled from
// testdata/codeoracle/decode/aarch64.s (-march=armv8.5-a+pauth+sve), at
// address 0 + 4*index; want is opsText, text what objdump -d prints
// (without symbols and comments).
var arm64Cases = []struct {
	word uint32
	text string
	want string
}{
	{0xa9be7bfd, "stp x29, x30, [sp, #-32]!", "other | addsp -32; save x29 [sp+0]; save x30 [sp+8]"},
	{0xa90153f3, "stp x19, x20, [sp, #16]", "other | save x19 [sp+16]; save x20 [sp+24]"},
	{0x910003fd, "mov x29, sp", "other | set x29=sp+0"},
	{0x910043fd, "add x29, sp, #0x10", "other | set x29=sp+16"},
	{0xf81f0ff5, "str x21, [sp, #-16]!", "other | addsp -16; save x21 [sp+0]"},
	{0xf84107f5, "ldr x21, [sp], #16", "other | restore x21 [sp+0]; addsp 16"},
	{0xfd000fe8, "str d8, [sp, #24]", "other | save d8 [sp+24]"},
	{0xfd400fe8, "ldr d8, [sp, #24]", "other | restore d8 [sp+24]"},
	{0x6dbf27e8, "stp d8, d9, [sp, #-16]!", "other | addsp -16; save d8 [sp+0]; save d9 [sp+8]"},
	{0x6cc127e8, "ldp d8, d9, [sp], #16", "other | restore d8 [sp+0]; restore d9 [sp+8]; addsp 16"},
	{0xd10103ff, "sub sp, sp, #0x40", "other | addsp -64"},
	{0x910103ff, "add sp, sp, #0x40", "other | addsp 64"},
	{0xd14007ff, "sub sp, sp, #0x1, lsl #12", "other | addsp -4096"},
	{0xcb2063ff, "sub sp, sp, x0", "other | subsp x0"},
	{0x910003bf, "mov sp, x29", "other | set sp=x29+0"},
	{0xd10043bf, "sub sp, x29, #0x10", "other | set sp=x29-16"},
	{0xa94153f3, "ldp x19, x20, [sp, #16]", "other | restore x19 [sp+16]; restore x20 [sp+24]"},
	{0xa8c27bfd, "ldp x29, x30, [sp], #32", "other | restore x29 [sp+0]; restore x30 [sp+8]; addsp 32"},
	{0xd503233f, "paciasp", "other (" + WhyPAuthSignA + ")"},
	{0xd503237f, "pacibsp", "other (" + WhyPAuthSignB + ")"},
	{0xd50323bf, "autiasp", "other (" + WhyPAuthAuthA + ")"},
	{0xd50323ff, "autibsp", "other (" + WhyPAuthAuthB + ")"},
	{0xd65f0bff, "retaa", "ret (" + WhyPAuthAuthA + ")"},
	{0xd65f0fff, "retab", "ret (" + WhyPAuthAuthB + ")"},
	{0x97ffffe8, "bl 0", "call 0x0 | clobber x30"},
	{0xd63f0020, "blr x1", "callind | clobber x30"},
	{0x17ffffe6, "b 0", "jump 0x0"},
	{0x54fffca1, "b.ne 0", "cjump 0x0"},
	{0xb4fffc80, "cbz x0, 0", "cjump 0x0"},
	{0x35fffc61, "cbnz w1, 0", "cjump 0x0"},
	{0x361ffc42, "tbz w2, #3, 0", "cjump 0x0"},
	{0x370ffc23, "tbnz w3, #1, 0", "cjump 0x0"},
	{0xd61f0200, "br x16", "jumpind (br x16)"},
	{0xd65f03c0, "ret", "ret"},
	{0xd65f0020, "ret x1", "ret (ret x1)"},
	{0xd4207d00, "brk #0x3e8", "stop"},
	{0x00000000, "udf #0", "stop"},
	{0xaa0003f3, "mov x19, x0", "other | set x19=x0+0"},
	{0xd280001d, "mov x29, #0x0", "other | clobber x29"},
	{0x910043e0, "add x0, sp, #0x10", "other | set x0=sp+16"},
	{0xf940001e, "ldr x30, [x0]", "other | restore x30 [x0+0]"},
	{0xb9400bf3, "ldr w19, [sp, #8]", "other | clobber x19"},
	{0xb9000bf3, "str w19, [sp, #8]", "other"},
	{0xf81f83b3, "stur x19, [x29, #-8]", "other | save x19 [x29-8]"},
	{0xf85f83b3, "ldur x19, [x29, #-8]", "other | restore x19 [x29-8]"},
	{0x927cec1f, "and sp, x0, #0xfffffffffffffff0", "other | clobber sp"},
	{0x8b2163ff, "add sp, sp, x1", "other | addsp x1"},
	{0xf100067f, "cmp x19, #0x1", "other"},
	{0xb1000673, "adds x19, x19, #0x1", "other | set x19=x19+1"},
	{0xc85f7c13, "ldxr x19, [x0]", "other | clobber x19"},
	{0xc8137c01, "stxr w19, x1, [x0]", "other | clobber x19; clobber x1"},
	{0xf8e10013, "", "other | clobber x19"},
	{0xf8616813, "ldr x19, [x0, x1]", "other | clobber x19"},
	{0x58000273, "ldr x19, 120", "other | clobber x19"},
	{0xf98007e0, "prfm pldl1keep, [sp, #8]", "other"},
	{0x4cdf73e0, "ld1 {v0.16b}, [sp], #16", "other | clobber sp"},
	{0x9e670008, "fmov d8, x0", "other | clobber d8"},
	{0xd53bd053, "", "other | clobber x19"},
	{0xd503201f, "nop", "other"},
	{0xd503245f, "bti c", "other"},
	{0xd4000001, "svc #0x0", "other | clobber x0"},
	{0xf94003bd, "ldr x29, [x29]", "other | restore x29 [x29+0]"},
	{0xa9bf7bbd, "stp x29, x30, [x29, #-16]!", "other | set x29=x29-16; save x30 [x29+8]"},
	{0xf81f0ffe, "str x30, [sp, #-16]!", "other | addsp -16; save x30 [sp+0]"},
	{0xf84107fe, "ldr x30, [sp], #16", "other | restore x30 [sp+0]; addsp 16"},
	{0xf2a0003e, "movk x30, #0x1, lsl #16", "other | clobber x30"},
	{0x9a820034, "csel x20, x1, x2, eq", "other | clobber x20"},
	{0xca01039c, "eor x28, x28, x1", "other | clobber x28"},
	{0x04a0e3e0, "", "unknown (unknown instruction 0x04a0e3e0)"},
	{0x29bf53f3, "stp w19, w20, [sp, #-8]!", "other | addsp -8"},
	{0x694053f3, "ldpsw x19, x20, [sp]", "other | clobber x19; clobber x20"},
}

func TestARM64Decode(t *testing.T) {
	var d ARM64
	var in Inst
	for i, c := range arm64Cases {
		pc := uint64(4 * i)
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], c.word)
		if err := d.Decode(b[:], pc, &in); err != nil {
			t.Errorf("%#x %08x: %v", pc, c.word, err)
			continue
		}
		if in.Len != 4 {
			t.Errorf("%#x %08x: Len %d", pc, c.word, in.Len)
		}
		if got := opsText(&in, arm64Name); got != c.want {
			t.Errorf("%#x %08x %s:\n got %s\nwant %s", pc, c.word, c.text, got, c.want)
		}
		if c.text != "" {
			if got := d.Text(b[:], pc); got != c.text {
				t.Errorf("%#x %08x Text = %q, want %q", pc, c.word, got, c.text)
			}
		}
	}
	if err := d.Decode([]byte{1, 2, 3}, 0, &in); err == nil {
		t.Errorf("3 bytes decoded without error")
	}
}

// TestARM64AdrIsAnAddress: adr gives its PC-relative address as a Const
// marked ConstPC (glibc's swapcontext: adr x30, 2f at 0x49988 is
// 0x49a38), forward and backward, and writes its register.
func TestARM64AdrIsAnAddress(t *testing.T) {
	for _, c := range []struct {
		w    uint32
		pc   uint64
		reg  rule.Reg
		addr uint64
	}{
		{0x1000059e, 0x49988, 30, 0x49a38}, // adr x30, 49a38
		{0x10ffffe1, 0x1000, 1, 0xffc},     // adr x1, .-4
		{0x70000000, 0x1000, 0, 0x1003},    // adr x0, .+3
	} {
		var in Inst
		if err := (ARM64{}).Decode(binary.LittleEndian.AppendUint32(nil, c.w), c.pc, &in); err != nil {
			t.Fatal(err)
		}
		if !in.Const || !in.ConstPC || in.ConstReg != c.reg || uint64(in.Const64) != c.addr {
			t.Errorf("%#08x at %#x: Const %v PC %v x%d = %#x, want x%d = %#x", c.w, c.pc, in.Const, in.ConstPC, in.ConstReg, in.Const64, c.reg, c.addr)
		}
		if in.NOps != 1 || in.Ops[0].Kind != OpClobber || in.Ops[0].Reg != c.reg {
			t.Errorf("%#08x: ops %v, want a clobber of x%d", c.w, in.Ops[:in.NOps], c.reg)
		}
	}
}
