package debugger

import (
	"debug/elf"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/s390x/s390xasm"
)

// insn is one decoded instruction at a runtime address: its length in
// bytes and its text in GNU syntax as gdb prints it (AT&T on x86-64,
// targets symbolized by arch.X86.Format; golang.org/x/arch's GNU syntax
// on AArch64 and s390x).
type insn struct {
	addr uint64
	len  int
	text string
}

// maxInsnLen is the longest instruction of any host, in bytes (AMD64's
// 15; A64's are 4, s390x's at most 6).
const maxInsnLen = 15

// formatInsn decodes one instruction of the host's machine at pc: its
// text and length, n = 0 where the bytes do not decode.
func formatInsn(code []byte, pc uint64, symbolize func(uint64) string) (string, int) {
	switch proc.HostArch.Machine {
	case elf.EM_AARCH64:
		if len(code) < 4 {
			return "", 0
		}
		in, err := arm64asm.Decode(code[:4])
		if err != nil {
			return "", 0
		}
		text := arm64asm.GNUSyntax(in)
		for _, a := range in.Args {
			if rel, ok := a.(arm64asm.PCRel); ok {
				// gdb's "bl 0x4005d0 <f>", not the ".+0x10" of the Go package.
				target := pc + uint64(int64(rel))
				text = strings.Replace(text, rel.String(), fmt.Sprintf("%#x", target), 1) + symbolize(target)
			}
		}
		return text, 4
	case elf.EM_S390:
		in, err := s390xasm.Decode(code)
		if err != nil || in.Len == 0 {
			return "", 0
		}
		return s390xasm.GNUSyntax(in, pc), in.Len
	}
	return arch.X86{}.Format(code, pc, symbolize)
}

// disassemble decodes the instructions in [start, end) (count instructions
// from start when count > 0; end is then ignored). Code is read with
// readCode. Bytes that do not decode are one "(bad)" instruction each, as
// objdump shows them. It returns the instructions decoded before memory
// ran out, and whether it ran out.
func disassemble(sp *frames.Space, start, end uint64, count int) ([]insn, bool) {
	size := int(end - start)
	if count > 0 {
		size = count * maxInsnLen
	}
	code := readCode(sp, start, size+maxInsnLen)
	symbolize := func(a uint64) string { return symbolSuffix(sp, a) }
	var out []insn
	off := 0
	for (count > 0 && len(out) < count) || (count <= 0 && uint64(off) < end-start) {
		if off >= len(code) {
			return out, true
		}
		pc := start + uint64(off)
		text, n := formatInsn(code[off:], pc, symbolize)
		if n == 0 {
			if len(code)-off < maxInsnLen && count > 0 && len(code) < size+maxInsnLen {
				return out, true // cut by unreadable memory
			}
			out = append(out, insn{pc, 1, "(bad)"})
			off++
			continue
		}
		out = append(out, insn{pc, n, text})
		off += n
	}
	return out, false
}

// printInsns prints instructions as x/i and disassemble do: "=>" at pc,
// each address followed by its symbol (<func+off>, or <+off> when
// relative is set: disassemble of one function).
func (s *Session) printInsns(sp *frames.Space, insns []insn, pc uint64, relative bool, wide bool) {
	for _, in := range insns {
		mark := "   "
		if in.addr == pc {
			mark = "=> "
		}
		addr := fmt.Sprintf("%#x", in.addr)
		if wide {
			addr = hex16(in.addr)
		}
		var sym string
		if relative {
			_, off, _ := symbolAt(sp, in.addr)
			sym = fmt.Sprintf(" <+%d>", off)
		} else {
			sym = symbolSuffix(sp, in.addr)
			if wide && sym != "" && !strings.Contains(sym, "+") {
				// disassemble START,END: gdb's <weigh+0> (x/i: <weigh>).
				sym = strings.TrimSuffix(sym, ">") + "+0>"
			}
		}
		s.printf("%s%s%s:\t%s\n", mark, addr, sym, in.text)
	}
}
