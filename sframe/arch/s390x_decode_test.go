package arch

import (
	"debug/elf"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

func s390xName(r rule.Reg) string {
	switch {
	case r < 16:
		return fmt.Sprintf("r%d", r)
	case r < 32:
		return [...]string{"f0", "f2", "f4", "f6", "f1", "f3", "f5", "f7", "f8", "f10", "f12", "f14", "f9", "f11", "f13", "f15"}[r-16]
	}
	return fmt.Sprintf("?%d", r)
}

// s390xCases are the instructions GNU as 2.47.50 assembled from
// testdata/codeoracle/decode/s390x.s (-march=z14, decode.o), in order from
// address 0: the bytes and the text objdump -d prints (without symbols;
// "" where s390xasm's text differs: it prints optional zero operands), and
// the decoder's class and stack operations (opsText).
var s390xCases = []struct {
	hex, text, want string
}{
	{"eb6ff0300024", "stmg %r6,%r15,48(%r15)", "other | save r6 [r15+48]; save r7 [r15+56]; save r8 [r15+64]; save r9 [r15+72]; save r10 [r15+80]; save r11 [r15+88]; save r12 [r15+96]; save r13 [r15+104]; save r14 [r15+112]; save r15 [r15+120]"},
	{"ebbff0580024", "stmg %r11,%r15,88(%r15)", "other | save r11 [r15+88]; save r12 [r15+96]; save r13 [r15+104]; save r14 [r15+112]; save r15 [r15+120]"},
	{"ebeff0700024", "stmg %r14,%r15,112(%r15)", "other | save r14 [r15+112]; save r15 [r15+120]"},
	{"e3f0ff60ff71", "lay %r15,-160(%r15)", "other | addsp -160"},
	{"a7fbff60", "aghi %r15,-160", "other | addsp -160"},
	{"c2f8fffe7960", "agfi %r15,-100000", "other | addsp -100000"},
	{"c2f400001000", "slgfi %r15,4096", "other | addsp -4096"},
	{"c2fa00001000", "algfi %r15,4096", "other | addsp 4096"},
	{"41f0f0a0", "la %r15,160(%r15)", "other | addsp 160"},
	{"b90400bf", "lgr %r11,%r15", "other | set r11=r15+0"},
	{"b90400fb", "lgr %r15,%r11", "other | set r15=r11+0"},
	{"41b0f0a8", "la %r11,168(%r15)", "other | set r11=r15+168"},
	{"e3b0fff8ff71", "lay %r11,-8(%r15)", "other | set r11=r15-8"},
	{"ecbf00a000d9", "aghik %r11,%r15,160", "other | set r11=r15+160"},
	{"b90400ef", "lgr %r14,%r15", "other | set r14=r15+0"},
	{"b904002b", "lgr %r2,%r11", "other | set r2=r11+0"},
	{"b9040023", "lgr %r2,%r3", "other | set r2=r3+0"},
	{"e3e0f0700024", "stg %r14,112(%r15)", "other | save r14 [r15+112]"},
	{"e3e0f0700004", "lg %r14,112(%r15)", "other | restore r14 [r15+112]"},
	{"e360b0000024", "stg %r6,0(%r11)", "other | save r6 [r11+0]"},
	{"e360b0000004", "lg %r6,0(%r11)", "other | restore r6 [r11+0]"},
	{"e36020080024", "stg %r6,8(%r2)", "other | save r6 [r2+8]"},
	{"e36020080004", "lg %r6,8(%r2)", "other | restore r6 [r2+8]"},
	{"e361f0080024", "stg %r6,8(%r1,%r15)", "other"},
	{"6080f098", "std %f8,152(%r15)", "other | save f8 [r15+152]"},
	{"6880f098", "ld %f8,152(%r15)", "other | restore f8 [r15+152]"},
	{"edf0bff8ff67", "stdy %f15,-8(%r11)", "other | save f15 [r11-8]"},
	{"edf0bff8ff65", "ldy %f15,-8(%r11)", "other | restore f15 [r11-8]"},
	{"b3c1000e", "ldgr %f0,%r14", "other | set f0=r14+0"},
	{"b3cd00e0", "lgdr %r14,%f0", "other | set r14=f0+0"},
	{"b3c1002b", "ldgr %f2,%r11", "other | set f2=r11+0"},
	{"eb6ff0d00004", "lmg %r6,%r15,208(%r15)", "other | restore r6 [r15+208]; restore r7 [r15+216]; restore r8 [r15+224]; restore r9 [r15+232]; restore r10 [r15+240]; restore r11 [r15+248]; restore r12 [r15+256]; restore r13 [r15+264]; restore r14 [r15+272]; restore r15 [r15+280]"},
	{"ebbfb0580004", "lmg %r11,%r15,88(%r11)", "other | restore r12 [r11+96]; restore r13 [r11+104]; restore r14 [r11+112]; restore r15 [r11+120]; restore r11 [r11+88]"},
	{"eb2310000004", "lmg %r2,%r3,0(%r1)", "other | restore r2 [r1+0]; restore r3 [r1+8]"},
	{"eb6710000004", "lmg %r6,%r7,0(%r1)", "other | restore r6 [r1+0]; restore r7 [r1+8]"},
	{"b90900f1", "sgr %r15,%r1", "other | subsp r1"},
	{"b90800f1", "agr %r15,%r1", "other | addsp r1"},
	{"c0e5ffffffa0", "brasl %r14,0", "call 0x0 | clobber r14"},
	{"a7e5ff9d", "bras %r14,0", "call 0x0 | clobber r14"},
	{"0de1", "basr %r14,%r1", "callind | clobber r14"},
	{"0dd0", "basr %r13,%r0", "other | clobber r13"},
	{"07fe", "br %r14", "ret"},
	{"07f1", "br %r1", "jumpind (br %r1)"},
	{"078e", "ber %r14", "condreturn"},
	{"0771", "bner %r1", "jumpind (conditional indirect jump (bcr 7,%r1))"},
	{"0707", "nopr %r7", "other"},
	{"a7f4ff94", "j 0", "jump 0x0"},
	{"c0f4ffffff92", "jg 0", "jump 0x0"},
	{"a784ff8f", "je 0", "cjump 0x0"},
	{"c074ffffff8d", "jgne 0", "cjump 0x0"},
	{"a704ff8a", "jnop 0", "other"},
	{"a767ff88", "brctg %r6,0", "cjump 0x0 | clobber r6"},
	{"ec28ff86007c", "cgije %r2,0,0", "cjump 0x0"},
	{"ec23ff838076", "crje %r2,%r3,0", "cjump 0x0"},
	{"a7f40001", "j 102", "stop (j .+2 (trap))"},
	{"0000", "", "stop (opcode 0x00 (operation exception))"},
	{"0000", "", "stop (opcode 0x00 (operation exception))"},
	{"a7b90000", "lghi %r11,0", "other | clobber r11"},
	{"a7280001", "lhi %r2,1", "other | clobber r2"},
	{"5860f000", "l %r6,0(%r15)", "other | clobber r6"},
	{"5060f000", "st %r6,0(%r15)", "other"},
	{"b92000bf", "cgr %r11,%r15", "other"},
	{"a7be0001", "chi %r11,1", "other"},
	{"b90200b2", "ltgr %r11,%r2", "other | clobber r11"},
	{"d207f000f008", "mvc 0(8,%r15),8(%r15)", "other"},
	{"e548f0a00000", "mvghi 160(%r15),0", "other"},
	{"0a01", "svc 1", "other | clobber r2"},
	{"c0b0ffffff67", "larl %r11,0", "other | clobber r11"},
	{"b9870062", "dlgr %r6,%r2", "other | clobber r6; clobber r7"},
	{"c610ffffff62", "exrl %r1,0", "unknown (execute (ex/exrl): the executed instruction is not decoded)"},
	{"b24f00b0", "ear %r11,%a0", "other | clobber r11"},
	{"ebbb0020000d", "sllg %r11,%r11,32", "other | clobber r11"},
	{"e780f0000006", "", "other | clobber f8"},
	{"e780f000000e", "", "other"},
	{"e78ff0000036", "", "other | clobber f8; clobber f9; clobber f10; clobber f11; clobber f12; clobber f13; clobber f14; clobber f15"},
	{"a8680000", "mvcle %r6,%r8,0", "other | clobber r6; clobber r7; clobber r8; clobber r9"},
	{"eb0ff0000024", "stmg %r0,%r15,0(%r15)", "other | save r0 [r15+0]; save r1 [r15+8]; save r2 [r15+16]; save r3 [r15+24]; save r4 [r15+32]; save r5 [r15+40]; save r6 [r15+48]; save r7 [r15+56]; save r8 [r15+64]; save r9 [r15+72]; save r10 [r15+80]; save r11 [r15+88]; save r12 [r15+96]; save r13 [r15+104]; save r14 [r15+112]; save r15 [r15+120]"},
	{"986ff018", "lm %r6,%r15,24(%r15)", "other | clobber r6; clobber r7; clobber r8; clobber r9; clobber r10; clobber r11; clobber r12; clobber r13; clobber r14; clobber r15"},
	{"b2220060", "ipm %r6", "other | clobber r6"},
	{"e3f1f0000071", "lay %r15,0(%r1,%r15)", "other | clobber r15"},
	{"e3f0f0000004", "lg %r15,0(%r15)", "other | restore r15 [r15+0]"},
	{"b9e280b2", "locgre %r11,%r2", "other | clobber r11"},
	{"ecb2003f0055", "", "other | clobber r11"},
	{"b3190080", "cdbr %f8,%f0", "other"},
	{"b31a0080", "adbr %f8,%f0", "other | clobber f8"},
	{"b3a950b0", "cgdbr %r11,5,%f0", "other | clobber r11"},
	{"2880", "ldr %f8,%f0", "other | set f8=f0+0"},
	{"06b0", "bctr %r11,%r0", "other | clobber r11"},
	{"06b1", "bctr %r11,%r1", "jumpind | clobber r11 (branch on count to a register)"},
	{"e76000003021", "vlgvg %r6,%v0,0", "other | clobber r6"},
	{"b90b00f0", "slgr %r15,%r0", "other | subsp r0"},
	{"a755ff2f", "bras %r5,0", "jump 0x0 | clobber r5 (branch and save into %r5: a jump)"},
	{"0d12", "basr %r1,%r2", "jumpind | clobber r1 (branch and save into %r1 through a register: not a call)"},
	{"82000000", "lpsw 0", "unknown (unknown opcode 0x82)"},
}

func TestS390XDecode(t *testing.T) {
	var d S390X
	var in Inst
	pc := uint64(0)
	for _, c := range s390xCases {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Decode(b, pc, &in); err != nil {
			t.Errorf("%#x %s: %v", pc, c.hex, err)
			continue
		}
		if in.Len != len(b) {
			t.Errorf("%#x %s: Len %d, want %d", pc, c.hex, in.Len, len(b))
		}
		if got := opsText(&in, s390xName); got != c.want {
			t.Errorf("%#x %s %s:\n got %s\nwant %s", pc, c.hex, c.text, got, c.want)
		}
		if c.text != "" {
			if got := d.Text(b, pc); got != c.text {
				t.Errorf("%#x %s Text = %q, want %q", pc, c.hex, got, c.text)
			}
		}
		// A truncated instruction is an error, never a panic.
		if err := d.Decode(b[:len(b)-1], pc, &in); err == nil {
			t.Errorf("%#x %s: %d of %d bytes decoded without error", pc, c.hex, len(b)-1, len(b))
		}
		pc += uint64(len(b))
	}
}

// TestS390XDecodeObject walks the committed decode.o from its first byte:
// the instruction boundaries must be the table's (objdump's).
func TestS390XDecodeObject(t *testing.T) {
	f, err := elf.Open("../../testdata/codeoracle/decode/s390x.o")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	var d S390X
	var in Inst
	off := 0
	for i, c := range s390xCases {
		if err := d.Decode(text[off:], uint64(off), &in); err != nil {
			t.Fatalf("%#x: %v", off, err)
		}
		if got := hex.EncodeToString(text[off : off+in.Len]); got != c.hex {
			t.Fatalf("instruction %d at %#x: %s, want %s", i, off, got, c.hex)
		}
		off += in.Len
	}
}

func TestS390XPCRef(t *testing.T) {
	for _, c := range []struct {
		name   string
		code   []byte
		n      int
		target uint64
		ref    bool
	}{
		{"larl %r2,pc+0x100", []byte{0xc0, 0x20, 0x00, 0x00, 0x00, 0x80}, 6, 0x1000 + 0x100, true},
		{"lgrl %r1,pc-8", []byte{0xc4, 0x18, 0xff, 0xff, 0xff, 0xfc}, 6, 0x1000 - 8, true},
		{"exrl %r2,pc+4", []byte{0xc6, 0x20, 0x00, 0x00, 0x00, 0x02}, 6, 0x1000 + 4, true},
		{"brasl %r14,pc+0x10: a call, not a datum", []byte{0xc0, 0xe5, 0x00, 0x00, 0x00, 0x08}, 6, 0, false},
		{"lgr %r1,%r2", []byte{0xb9, 0x04, 0x00, 0x12}, 4, 0, false},
		{"br %r14", []byte{0x07, 0xfe}, 2, 0, false},
	} {
		n, target, ref, ok := S390XPCRef(c.code, 0x1000)
		if !ok || n != c.n || ref != c.ref || ref && target != c.target {
			t.Errorf("%s: %d, %#x, %v, %v; want %d, %#x, %v", c.name, n, target, ref, ok, c.n, c.target, c.ref)
		}
	}
	if _, _, _, ok := S390XPCRef([]byte{0xc0, 0x20, 0x00}, 0x1000); ok {
		t.Error("a truncated larl: ok")
	}
}
