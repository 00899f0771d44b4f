package debugger

import (
	"errors"
	"fmt"
	"strings"
)

// selectedPC is the PC of the selected frame, which x/i and disassemble
// mark with "=>"; 0 when there is no stack.
func (s *Session) selectedPC() uint64 {
	n, tr, err := s.selected()
	if err != nil {
		return 0
	}
	return tr.Frames[n].PC
}

// examineInsns implements x/Ni ADDR: n instructions from addr.
func (s *Session) examineInsns(addr uint64, n int) error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	insns, cut := disassemble(sp, addr, 0, n)
	s.printInsns(sp, insns, s.selectedPC(), false, false)
	s.xNext = addr
	if len(insns) > 0 {
		last := insns[len(insns)-1]
		s.xNext = last.addr + uint64(last.len)
	}
	if cut {
		return fmt.Errorf("Cannot access memory at address %#x", s.xNext)
	}
	return nil
}

// cmdDisassemble implements "disassemble [FUNC|ADDR|START,END|START,+LEN]".
func cmdDisassemble(s *Session, args string) error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	args = strings.TrimSpace(args)
	pc := s.selectedPC()
	if a, b, ok := strings.Cut(args, ","); ok {
		start, err := s.evalAddr(a)
		if err != nil {
			return err
		}
		b = strings.TrimSpace(b)
		var end uint64
		if n, ok := strings.CutPrefix(b, "+"); ok {
			l, err := s.evalAddr(n)
			if err != nil {
				return err
			}
			end = start + l
		} else if end, err = s.evalAddr(b); err != nil {
			return err
		}
		if end <= start || end-start > 1<<20 {
			return fmt.Errorf("Invalid range %#x to %#x (at most 1 MiB, end above start).", start, end)
		}
		insns, cut := disassemble(sp, start, end, 0)
		s.printf("Dump of assembler code from %#x to %#x:\n", start, end)
		s.printInsns(sp, insns, pc, false, true)
		if cut {
			return fmt.Errorf("Cannot access memory at address %#x", start+uint64(sumLen(insns)))
		}
		s.printf("End of assembler dump.\n")
		return nil
	}
	at, err := s.pcArg(args)
	if err != nil {
		return err
	}
	m := sp.Modules.Find(at)
	if m == nil {
		return fmt.Errorf("No function contains specified address %#x.", at)
	}
	sym := m.Symbolize(at)
	if sym.Name == "" || sym.Size == 0 {
		return fmt.Errorf("No function contains specified address %#x.", at)
	}
	if sym.Size > 1<<20 {
		return errors.New("The function is larger than 1 MiB; disassemble START,+LEN a part of it.")
	}
	insns, cut := disassemble(sp, sym.Addr, sym.Addr+sym.Size, 0)
	s.printf("Dump of assembler code for function %s:\n", sym.Name)
	s.printInsns(sp, insns, pc, true, true)
	if cut {
		return fmt.Errorf("Cannot access memory at address %#x", sym.Addr+uint64(sumLen(insns)))
	}
	s.printf("End of assembler dump.\n")
	return nil
}

func sumLen(insns []insn) int {
	n := 0
	for _, in := range insns {
		n += in.len
	}
	return n
}
