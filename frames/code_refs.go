package frames

import (
	"slices"
	"sync"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// ripRefs are the addresses a module's code refers to relative to the PC
// (x86-64: lea T(%rip), mov T(%rip), movsd T(%rip), ...; s390x: larl,
// lgrl, ...), sorted and without duplicates: where a datum of .rodata
// starts. A jump table whose index no compare bounds ends before the next
// of them (code.X86JumpTablesRefs, code.S390XJumpTablesRefs).
type ripRefs struct {
	once sync.Once
	refs []uint64
}

// chunk is how much code nextRef's sweep reads at a time.
const refChunk = 1 << 20

// nextRef returns the least address above addr that the module's code
// refers to relative to the PC, or 0 when there is none. The module's
// executable sections are swept once, at the first call, a chunk at a
// time, instruction by instruction (arch.X86.RIPRef, a byte that does not
// decode stepped over; arch.S390XPCRef); other machines have none.
func (c *CodeAnalyzer) nextRef(addr uint64) uint64 {
	r := &c.rip
	var pcRef func(code []byte, pc uint64) (int, uint64, bool, bool)
	switch c.a {
	case arch.AMD64Arch:
		pcRef = arch.X86{}.RIPRef
	case arch.S390XArch:
		pcRef = arch.S390XPCRef
	default:
		return 0
	}
	r.once.Do(func() {
		l, err := c.m.Layout()
		if err != nil {
			return
		}
		for _, span := range l.ExecRanges() {
			for pc := span[0]; pc < span[1]; {
				b := c.m.codeBytesUpTo(pc, int(min(refChunk, span[1]-pc)))
				if len(b) == 0 {
					break
				}
				off := 0
				// The last 15 bytes are read with the next chunk, unless
				// the section ends here.
				end := len(b)
				if pc+uint64(len(b)) < span[1] && end > 15 {
					end -= 15
				}
				for off < end {
					n, t, ref, ok := pcRef(b[off:], pc+uint64(off))
					if !ok || n <= 0 {
						off++
						continue
					}
					if ref {
						r.refs = append(r.refs, t)
					}
					off += n
				}
				pc += uint64(off)
			}
		}
		slices.Sort(r.refs)
		r.refs = slices.Compact(r.refs)
		r.refs = slices.Clip(r.refs)
	})
	i, _ := slices.BinarySearch(r.refs, addr+1)
	if i >= len(r.refs) {
		return 0
	}
	return r.refs[i]
}
