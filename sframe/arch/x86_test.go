package arch

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// x86Forms are instructions assembled by GNU as 2.47.50
// (/tmp/sfdbg-toolchains/v3/bin/as, then objdump -d) with what Decode
// makes of each at address 0x1000: the stack-relevant forms objtool's
// arch/x86/decode.c models, the register writes (implicit ones too) it must not
// miss, and instructions it must prove harmless. Columns: objdump's text,
// the bytes, renderInst's rendering ("" = no effect).
var x86Forms = []struct{ text, hex, want string }{
	{"push %rbp", "55", "push rbp 8"},
	{"push %rbx", "53", "push rbx 8"},
	{"push %r12", "41 54", "push r12 8"},
	{"push %r15", "41 57", "push r15 8"},
	{"push %rax", "50", "push rax 8"},
	{"pop %r15", "41 5f", "pop r15 8"},
	{"pop %rbx", "5b", "pop rbx 8"},
	{"pop %rbp", "5d", "pop rbp 8"},
	{"pop %rdi", "5f", "pop rdi 8"},
	{"push $0x1", "6a 01", "sp+=-8"},
	{"push $0x12345", "68 45 23 01 00", "sp+=-8"},
	{"push 0x8(%rax)", "ff 70 08", "sp+=-8"},
	{"push -0x8(%r10)", "41 ff 72 f8", "sp+=-8"},
	{"pop 0x10(%rax)", "8f 40 10", "sp+=8"},
	{"pushf", "9c", "sp+=-8"},
	{"popf", "9d", "sp+=8"},
	{"push %ax", "66 50", "unknown; why: 16-bit push"},
	{"data16 push %rbx (REX.W overrides 66)", "66 48 53", "push rbx 8"},
	{"sub $0x18,%rsp", "48 83 ec 18", "sp+=-24"},
	{"sub $0x1000,%rsp", "48 81 ec 00 10 00 00", "sp+=-4096"},
	{"add $0x18,%rsp", "48 83 c4 18", "sp+=24"},
	{"add $0xffffffffffffff80,%rsp", "48 83 c4 80", "sp+=-128"},
	{"lea -0x20(%rsp),%rsp", "48 8d 64 24 e0", "sp+=-32"},
	{"lea 0x20(%rsp),%rsp", "48 8d 64 24 20", "sp+=32"},
	{"lea -0x10(%rbp),%rsp", "48 8d 65 f0", "rsp=rbp-16"},
	{"lea 0x8(%rsp),%r10", "4c 8d 54 24 08", "r10=rsp+8"},
	{"lea -0x8(%r10),%rsp", "49 8d 62 f8", "rsp=r10-8"},
	{"lea 0x10(%rsp),%rbp", "48 8d 6c 24 10", "rbp=rsp+16"},
	{"lea 0x10(%rsp),%rdi", "48 8d 7c 24 10", "rdi=rsp+16"},
	{"lea (%rax,%rbx,1),%rbx", "48 8d 1c 18", "clobber rbx"},
	{"lea 0x8(%rip),%rbx", "48 8d 1d 08 00 00 00", "clobber rbx"},
	{"(bad): lea with a register source", "48 8d e5", "unknown; why: lea with a register source (invalid)"},
	{"mov %rsp,%rbp", "48 89 e5", "rbp=rsp+0"},
	{"mov %rsp,%rbp", "48 8b ec", "rbp=rsp+0"},
	{"mov %rbp,%rsp", "48 89 ec", "rsp=rbp+0"},
	{"mov %rsp,%rax", "48 89 e0", "rax=rsp+0"},
	{"mov %rax,%rsp", "48 89 c4", "rsp=rax+0"},
	{"mov %rax,%rbx", "48 89 c3", "rbx=rax+0"},
	{"mov %eax,%ebx", "89 c3", "clobber rbx"},
	{"mov %esp,%ebp", "89 e5", "clobber rbp"},
	{"mov %r12,%r13", "4d 89 e5", "r13=r12+0"},
	{"leave", "c9", "rsp=rbp+0; pop rbp 8"},
	{"enter $0x20,$0x0", "c8 20 00 00", "push rbp 8; rbp=rsp+0; sp+=-32"},
	{"enter $0x20,$0x1", "c8 20 00 01", "unknown; why: enter with a nesting level or 16-bit frame"},
	{"and $0xfffffffffffffff0,%rsp", "48 83 e4 f0", "sp&=-16"},
	{"and $0xffffffffffffffe0,%rsp", "48 83 e4 e0", "sp&=-32"},
	{"and $0xfffffff0,%esp", "83 e4 f0", "clobber rsp; why: 32- or 16-bit arithmetic on esp"},
	{"or $0x1,%rsp", "48 83 cc 01", "clobber rsp; why: or, adc, sbb or xor on rsp"},
	{"sub %rax,%rsp", "48 29 c4", "sp-=rax"},
	{"sub %rax,%rsp", "48 2b e0", "sp-=rax"},
	{"add %rax,%rsp", "48 01 c4", "sp+=rax"},
	{"sub (%rax),%rsp", "48 2b 20", "clobber rsp; why: subtracts memory or a 32-bit value from rsp"},
	{"mov %rbx,0x8(%rsp)", "48 89 5c 24 08", "save rbx@rsp+8"},
	{"mov %r12,0x10(%rsp)", "4c 89 64 24 10", "save r12@rsp+16"},
	{"mov %rbp,-0x8(%rbp)", "48 89 6d f8", "save rbp@rbp-8"},
	{"mov %r15,-0x30(%rbp)", "4c 89 7d d0", "save r15@rbp-48"},
	{"mov %rax,0x8(%rsp)", "48 89 44 24 08", "save rax@rsp+8"},
	{"mov %rbx,0x8(%rax)", "48 89 58 08", "save rbx@rax+8"},
	{"mov %rbx,0x8(%rsp,%rax,8)", "48 89 5c c4 08", ""},
	{"mov %rbx,%fs:0x8(%rsp)", "64 48 89 5c 24 08", ""},
	{"mov %ebx,0x8(%rsp)", "89 5c 24 08", ""},
	{"mov 0x8(%rsp),%rbx", "48 8b 5c 24 08", "restore rbx@rsp+8"},
	{"mov -0x30(%rbp),%r15", "4c 8b 7d d0", "restore r15@rbp-48"},
	{"mov 0x8(%rsp),%rax", "48 8b 44 24 08", "restore rax@rsp+8"},
	{"mov 0x8(%rax),%rbx", "48 8b 58 08", "restore rbx@rax+8"},
	{"mov 0x8(%rsp),%rsp", "48 8b 64 24 08", "clobber rsp; why: loads rsp from memory"},
	{"mov (%rax),%rsp", "48 8b 20", "clobber rsp; why: loads rsp from memory"},
	{"pop %rsp", "5c", "clobber rsp; why: loads rsp from memory (pop %rsp)"},
	{"xor %ebx,%ebx", "31 db", "clobber rbx"},
	{"xor %r12d,%r12d", "45 31 e4", "clobber r12"},
	{"add $0x1,%rbx", "48 83 c3 01", "rbx=rbx+1"},
	{"inc %r13", "49 ff c5", "clobber r13"},
	{"mov $0x5,%ebx", "bb 05 00 00 00", "clobber rbx"},
	{"movabs $0x123456789,%r14", "49 be 89 67 45 23 01 00 00 00", "clobber r14"},
	{"mov $0x1,%bh", "b7 01", "clobber rbx"},
	{"mov $0x1,%ah", "b4 01", "clobber rax"},
	{"mov $0x1,%bpl", "40 b5 01", "clobber rbp"},
	{"setne %bl", "0f 95 c3", "clobber rbx"},
	{"sete %ah", "0f 94 c4", "clobber rax"},
	{"cmp %rbx,%rax", "48 39 d8", ""},
	{"test %rbp,%rbp", "48 85 ed", ""},
	{"cmp $0x3,%rsp", "48 83 fc 03", ""},
	{"xchg %rax,%rbx", "48 93", "clobber rax; clobber rbx"},
	{"xchg %rax,%r12", "49 94", "clobber rax; clobber r12"},
	{"cmovne %rax,%rbp", "48 0f 45 e8", "clobber rbp"},
	{"movzbl %al,%ebx", "0f b6 d8", "clobber rbx"},
	{"movslq %eax,%r12", "4c 63 e0", "clobber r12"},
	{"imul %rax,%rbx", "48 0f af d8", "clobber rbx"},
	{"bswap %r12", "49 0f cc", "clobber r12"},
	{"popcnt %rax,%r13", "f3 4c 0f b8 e8", "clobber r13"},
	{"cpuid", "0f a2", "clobber rax; clobber rcx; clobber rdx; clobber rbx"},
	{"xadd %rax,%rbx", "48 0f c1 c3", "clobber rbx; clobber rax"},
	{"cmpxchg %rbx,(%rax)", "48 0f b1 18", "clobber rax"},
	{"cmpxchg %rax,%rbx", "48 0f b1 c3", "clobber rax; clobber rbx"},
	{"movq %xmm0,%rbx", "66 48 0f 7e c3", "clobber rbx"},
	{"movq %rbx,%xmm0", "66 48 0f 6e c3", ""},
	{"movq %xmm1,%xmm2", "f3 0f 7e d1", ""},
	{"movd %xmm5,%ebp", "66 0f 7e ed", "clobber rbp"},
	{"pextrd $0x1,%xmm0,%ebx", "66 0f 3a 16 c3 01", "clobber rbx"},
	{"cvttsd2si %xmm0,%r12", "f2 4c 0f 2c e0", "clobber r12"},
	{"pmovmskb %xmm0,%ebp", "66 0f d7 e8", "clobber rbp"},
	{"vpmovmskb %ymm0,%ebx", "c5 fd d7 d8", "clobber rbx"},
	{"vmovq %xmm0,%rbx", "c4 e1 f9 7e c3", "clobber rbx"},
	{"vmovd %xmm1,%r13d", "c4 c1 79 7e cd", "clobber r13"},
	{"andn %rax,%rcx,%rbx", "c4 e2 f0 f2 d8", "clobber rbx"},
	{"blsr %rax,%rbp", "c4 e2 d0 f3 c8", "clobber rbp"},
	{"shlx %rax,%rcx,%r12", "c4 62 f9 f7 e1", "clobber r12"},
	{"mulx %rax,%rbx,%rcx", "c4 e2 e3 f6 c8", "clobber rcx; clobber rbx"},
	{"rorx $0x3,%rax,%r14", "c4 63 fb f0 f0 03", "clobber r14"},
	{"rdfsbase %rbx", "f3 48 0f ae c3", "clobber rbx"},
	{"rdrand %rbx", "48 0f c7 f3", "clobber rbx"},
	{"rdsspq %rbx", "f3 48 0f 1e cb", "clobber rbx"},
	{"addps %xmm4,%xmm5", "0f 58 ec", ""},
	{"vaddps %ymm4,%ymm5,%ymm3", "c5 d4 58 dc", ""},
	{"vmovdqu64 %zmm4,%zmm5", "62 f1 fe 48 6f ec", ""},
	{"mulsd %xmm12,%xmm13", "f2 45 0f 59 ec", ""},
	{"movaps %xmm5,-0x20(%rsp)", "0f 29 6c 24 e0", ""},
	{"mul %rbx", "48 f7 e3", "clobber rax; clobber rdx"},
	{"div %rbp", "48 f7 f5", "clobber rax; clobber rdx"},
	{"neg %rbx", "48 f7 db", "clobber rbx"},
	{"not %rbp", "48 f7 d5", "clobber rbp"},
	{"shl $0x2,%rbx", "48 c1 e3 02", "clobber rbx"},
	{"sar %cl,%r12", "49 d3 fc", "clobber r12"},
	{"adc %rax,%rbx", "48 11 c3", "clobber rbx"},
	{"rep stos %al,(%rdi)", "f3 aa", "clobber rcx; clobber rdi"},
	{"syscall", "0f 05", "clobber rax; clobber rcx; clobber r11"},
	{"rdtsc", "0f 31", "clobber rax; clobber rdx"},
	{"call 0 <f>", "e8 35 fe ff ff", "call 0xe3a"},
	{"call *%rax", "ff d0", "call*"},
	{"call *0x8(%rax)", "ff 50 08", "call*"},
	{"notrack call *%rax", "3e ff d0", "call*"},
	{"jmp 0 <f>", "e9 28 fe ff ff", "jmp 0xe2d"},
	{"jmp 1da <f+0x1da>", "eb 00", "jmp 0x1002"},
	{"jne 0 <f>", "0f 85 20 fe ff ff", "jcc 0xe26"},
	{"je 1da <f+0x1da>", "74 f8", "jcc 0xffa"},
	{"jmp *%rax", "ff e0", "jmp*; why: indirect jump"},
	{"notrack jmp *(%rax,%rcx,8)", "3e ff 24 c8", "jmp*; why: indirect jump"},
	{"jrcxz 1da <f+0x1da>", "e3 f0", "jcc 0xff2"},
	{"loop 1da <f+0x1da>", "e2 ee", "jcc 0xff0; clobber rcx"},
	{"ret", "c3", "ret"},
	{"bnd ret", "f2 c3", "ret"},
	{"ret $0x8", "c2 08 00", "ret"},
	{"lretq", "48 cb", "unknown; why: far return"},
	{"iretq", "48 cf", "unknown; why: interrupt return"},
	{"ljmp *(%rax)", "ff 28", "unknown; why: far jump"},
	{"lcall *(%rax)", "ff 18", "unknown; why: far call"},
	{"ud2", "0f 0b", "stop"},
	{"hlt", "f4", "stop"},
	{"int3", "cc", "stop"},
	{"int $0x80", "cd 80", "clobber rax; clobber rcx; clobber r11"},
	{"endbr64", "f3 0f 1e fa", ""},
	{"nop", "90", ""},
	{"nopl (%rax)", "0f 1f 00", ""},
	{"nopw (%rax,%rax,1)", "66 0f 1f 04 00", ""},
	{"xchg %ax,%ax", "66 90", ""},
	{"xchg %eax,%r8d", "41 90", "clobber r8; clobber rax"},
	{"pause", "f3 90", ""},
	{"sysenter", "0f 34", "unknown; why: context switch (sysret, sysenter, sysexit)"},
	{"xbegin 1da <f+0x1da>", "c7 f8 bf ff ff ff", "jcc 0xfc5"},
	{"xabort $0x1", "c6 f8 01", ""},
	{"xend", "0f 01 d5", ""},
	{"xgetbv", "0f 01 d0", "clobber rax; clobber rdx"},
	{"rdtscp", "0f 01 f9", "clobber rax; clobber rcx; clobber rdx"},
	{"lfence", "0f ae e8", ""},
	{"mfence", "0f ae f0", ""},
	{"fldl 0x8(%rsp)", "dd 44 24 08", ""},
	{"fstp %st(1)", "dd d9", ""},
	{"fnstsw %ax", "df e0", "clobber rax"},
	{"crc32 %rbx,%rax", "f2 48 0f 38 f1 c3", "clobber rax"},
	{"crc32 %bl,%ebx", "f2 0f 38 f0 db", "clobber rbx"},
	{"movbe (%rax),%rbx", "48 0f 38 f0 18", "clobber rbx"},
	{"adcx %rax,%rbx", "66 48 0f 38 f6 d8", "clobber rbx"},
	{"lar %ax,%bx", "66 0f 02 d8", "clobber rbx"},
	{"bt $0x3,%rbx", "48 0f ba e3 03", ""},
	{"bts $0x3,%rbx", "48 0f ba eb 03", "clobber rbx"},
	{"bsf %rax,%rbx", "48 0f bc d8", "clobber rbx"},
	{"shld $0x3,%rax,%rbx", "48 0f a4 c3 03", "clobber rbx"},
	{"setb %r12b", "41 0f 92 c4", "clobber r12"},
	{"movsbl %bh,%ebp", "0f be ef", "clobber rbp"},
	{"lahf", "9f", "clobber rax"},
	{"movsq (%rsi),(%rdi)", "48 a5", "clobber rcx; clobber rsi; clobber rdi"},
	{"kmovw %k1,%ebx", "c5 f8 93 d9", "clobber rbx"},
	{"sub $0x8,%esp", "83 ec 08", "clobber rsp; why: 32- or 16-bit arithmetic on esp"},
	{"add %esp,%esp", "01 e4", "clobber rsp; why: adds a register or memory to rsp"},
	{"mov %ax,%sp", "66 89 c4", "clobber rsp; why: copies 32 or 16 bits of a register to rsp"},
}

func TestX86DecodeForms(t *testing.T) {
	for _, tc := range x86Forms {
		code, err := hex.DecodeString(strings.ReplaceAll(tc.hex, " ", ""))
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		// Trailing bytes must not change the decoding.
		code = append(code, 0x90, 0xcc)
		var in Inst
		if err := (X86{}).Decode(code, 0x1000, &in); err != nil {
			t.Errorf("%s (%s): %v", tc.text, tc.hex, err)
			continue
		}
		if in.Len != len(code)-2 {
			t.Errorf("%s (%s): Len %d, want %d", tc.text, tc.hex, in.Len, len(code)-2)
		}
		if got := renderInst(&in); got != tc.want {
			t.Errorf("%s (%s):\n got %q\nwant %q", tc.text, tc.hex, got, tc.want)
		}
		if in.Class == Unknown && in.Why == "" {
			t.Errorf("%s: Unknown without a reason", tc.text)
		}
	}
}

func TestX86DecodeReusesInst(t *testing.T) {
	var in Inst
	x := X86{}
	if err := x.Decode([]byte{0xc9}, 0, &in); err != nil || in.NOps != 2 { // leave
		t.Fatalf("leave: %v, %d ops", err, in.NOps)
	}
	if err := x.Decode([]byte{0xff, 0xe0}, 0, &in); err != nil { // jmp *%rax
		t.Fatal(err)
	}
	if err := x.Decode([]byte{0x90}, 0, &in); err != nil || in.NOps != 0 || in.Class != Other || in.Why != "" || in.Target != 0 {
		t.Errorf("nop after leave and jmp *%%rax: %+v", in)
	}
}

func TestX86DecodeRefusesWhatIsNoInstruction(t *testing.T) {
	for _, code := range [][]byte{nil, {0x48}, {0xe8, 1, 2}, {0x0f}, {0x06}, {0xd6}, {0x48, 0x8b}, {0x62, 0xf1}} {
		var in Inst
		if err := (X86{}).Decode(code, 0, &in); err == nil {
			t.Errorf("% x: decoded as %d bytes (%s), want an error", code, in.Len, renderInst(&in))
		}
	}
}

func TestX86Text(t *testing.T) {
	for _, tc := range []struct{ hex, want string }{
		{"f3 0f 1e fa", "endbr64"},
		{"55", "push   %rbp"},
		{"48 89 e5", "mov    %rsp,%rbp"},
		{"48 83 ec 18", "sub    $0x18,%rsp"},
		{"48 63 d0", "movslq %eax,%rdx"},
		{"48 98", "cltq"},
		{"c3", "ret"},
		{"e8 00 00 00 00", "call   0x1005"},
		{"48 8b 05 72 ff ff ff", "mov    -0x8e(%rip),%rax        # 0xf79"},
		{"0f b6 04 07", "movzbl (%rdi,%rax,1),%eax"},
		{"06", "(bad)"},
		{"c5 f8 77 48 89 e5", "vzeroupper"},
		// CET and MPX branch prefixes, as objdump 2.47.50 prints them.
		{"3e ff e2", "notrack jmp *%rdx"},
		{"3e ff 10", "notrack call *(%rax)"},
		{"3e ff 24 c5 00 00 00 00", "notrack jmp *0x0(,%rax,8)"},
		{"f2 ff e0", "bnd jmp *%rax"},
		{"f2 3e ff e0", "bnd notrack jmp *%rax"},
		{"f2 c3", "bnd ret"},
		{"f2 e8 00 00 00 00", "bnd call 0x1006"},
		{"f2 e9 00 00 00 00", "bnd jmp 0x1006"},
		{"f2 74 00", "bnd je 0x1003"},
		{"3e 74 00", "je,pt  0x1003"},
		// Forms x86asm misprints or does not know, as objdump 2.47.50
		// prints them (a sweep of the host's libc, libstdc++, libcrypto
		// and gdb found them).
		{"c4 e2 65 3b 67 61", "vpminud 0x61(%rdi),%ymm3,%ymm4"},
		{"c4 62 f9 f7 e1", "shlx   %rax,%rcx,%r12"},
		{"c4 e2 d0 f3 c8", "blsr   %rax,%rbp"},
		{"62 f3 7d 28 3e c1 00", "vpcmpequb %ymm1,%ymm0,%k0"},
		{"c5 fd 6f 05 00 00 00 00", "vmovdqa 0x0(%rip),%ymm0        # 0x1008"},
		{"48 8d 14 d5 f8 ff ff ff", "lea    -0x8(,%rdx,8),%rdx"},
		{"dd d8", "fstp   %st(0)"},
		{"d9 c0", "fld    %st(0)"},
		{"d8 c0", "fadd   %st(0),%st"},
		{"dc c0", "fadd   %st,%st(0)"},
		{"d8 c1", "fadd   %st(1),%st"},
		{"0f 01 ee", "rdpkru"},
		{"0f 01 ef", "wrpkru"},
		{"66 4c 0f 38 f6 13", "adcx   (%rbx),%r10"},
		{"f3 4d 0f 38 f6 c0", "adox   %r8,%r8"},
		{"0f c7 fa", "rdseed %edx"},
		{"48 0f c7 f3", "rdrand %rbx"},
		{"f3 c3", "repz ret"},
		{"c7 f8 00 00 00 00", "xbegin 0x1006"},
		{"cb", "lret"},
		{"48 cb", "lretq"},
		{"f1", "int1"},
		{"c8 10 00 00", "enter  $0x10,$0x0"},
		{"66 66 48 e8 00 00 00 00", "data16 data16 rex.W call 0x1008"},
		{"62 f1 fe 28 6f 0e", "vmovdqu64 (%rsi),%ymm1"},
		{"62 f1 7d 2a 6f 0e", "vmovdqa32 (%rsi),%ymm1{%k2}"},
		{"64 48 8b 04 25 f8 ff ff ff", "mov    %fs:0xfffffffffffffff8,%rax"},
		{"64 48 8b 04 25 28 00 00 00", "mov    %fs:0x28,%rax"},
		{"48 8b 04 25 10 00 00 00", "mov    0x10,%rax"},
		{"c5 fc 77 c3", "vzeroall"},
	} {
		code, _ := hex.DecodeString(strings.ReplaceAll(tc.hex, " ", ""))
		if got := (X86{}).Text(code, 0x1000); got != tc.want {
			t.Errorf("% x: %q, want %q", code, got, tc.want)
		}
	}
	// x86asm took the ret after vzeroupper into it (4 bytes): the
	// debugger's disassembly then lost the ret.
	if _, n := (X86{}).Format([]byte{0xc5, 0xf8, 0x77, 0xc3}, 0, nil); n != 3 {
		t.Errorf("vzeroupper: Format length %d, want 3", n)
	}
	code, _ := hex.DecodeString("e800000000")
	text, n := X86{}.Format(code, 0x1000, func(a uint64) string { return " <f>" })
	if text != "call   0x1005 <f>" || n != 5 {
		t.Errorf("Format with a symbolizer: %q, %d", text, n)
	}
}

func TestAMD64DecodesWithX86(t *testing.T) {
	a, err := For(elf.EM_X86_64, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Decoder.(X86); !ok {
		t.Errorf("x86-64's Decoder is %T, want X86", a.Decoder)
	}
}
