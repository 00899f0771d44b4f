package ehabi

import (
	"encoding/binary"
	"fmt"
)

// Machine is the ELF machine whose unwinding instructions a table holds.
type Machine uint16

const (
	ARM   Machine = 40  // EM_ARM: .ARM.exidx, .ARM.extab
	C6000 Machine = 140 // EM_TI_C6000: .c6xabi.exidx, .c6xabi.extab
)

func (m Machine) String() string {
	switch m {
	case ARM:
		return "ARM"
	case C6000:
		return "TI C6000"
	}
	return fmt.Sprintf("Machine(%d)", uint16(m))
}

// Section is one section's bytes: Name as in the ELF file, Addr its
// sh_addr, Off its file offset (for messages), Order its byte order.
type Section struct {
	Name  string
	Addr  uint64
	Off   int64
	Data  []byte
	Order binary.ByteOrder
	// Relocs are the R_ARM_PREL31 relocations of the section's words in a
	// relocatable object, by byte offset (nil in linked files).
	Relocs map[uint64]Reloc
}

// Reloc is an R_ARM_PREL31 relocation: its symbol's value, section index
// and name, and its addend (RELA) or none (REL: the word's prel31 field
// is the addend).
type Reloc struct {
	SymValue uint64
	SymShndx int
	SymName  string
	Addend   int64
	RELA     bool
}

// Target is where a relocated word points: the symbol's section index
// (0 for undefined or when the word has no relocation), S+A and the
// symbol's name.
type Target struct {
	Relocated bool
	Shndx     int
	Offset    uint64
	Name      string
}

// word returns the word at off of sec with its relocation applied, as
// readelf applies it: the prel31 field becomes S+A-P (halved for C6000).
func (d *Decoder) word(sec *Section, off uint64) (uint32, Target, bool) {
	w, ok := sec.word(off)
	if !ok || sec.Relocs == nil {
		return w, Target{}, ok
	}
	r, found := sec.Relocs[off]
	if !found {
		return w, Target{}, true
	}
	offset := uint64(int64(int32(w<<1) >> 1))
	if r.RELA {
		offset = uint64(r.Addend)
	}
	offset += r.SymValue
	prel := offset - (sec.Addr + off)
	if d.Machine == C6000 {
		prel >>= 1
	}
	w = w&0x80000000 | uint32(prel)&0x7fffffff
	return w, Target{Relocated: true, Shndx: r.SymShndx, Offset: offset, Name: r.SymName}, true
}

// word returns the 32-bit word at byte off of s, or false when the word
// is not wholly inside the section.
func (s *Section) word(off uint64) (uint32, bool) {
	if off > uint64(len(s.Data)) || uint64(len(s.Data))-off < 4 {
		return 0, false
	}
	return s.Order.Uint32(s.Data[off:]), true
}

// EntryKind tells what the second word of an index entry holds.
type EntryKind uint8

const (
	// EntryCantUnwind: the word is EXIDX_CANTUNWIND (1).
	EntryCantUnwind EntryKind = iota
	// EntryInline: bit 31 set, a compact model entry inline in the index.
	EntryInline
	// EntryTable: a prel31 offset to the function's .extab entry.
	EntryTable
)

// Entry is one index table entry (EHABI 5): Off is its byte offset in the
// index section, Fn the function's address (the prel31 of the first word
// expanded; for C6000 the offset counts halfwords), Word the second
// word. For EntryTable, TableAddr is the address of the .extab entry.
// Unwind is the decoded unwinding data (nil for EntryCantUnwind or when it
// could not be found); Err is what stopped its decoding.
type Entry struct {
	Off       int64
	FnWord    uint32
	Fn        uint64
	FnTarget  Target // where the relocation of the first word points (objects)
	Kind      EntryKind
	Word      uint32
	TableAddr uint64
	Unwind    *Unwind
	Err       error
}

// Unwind is an entry's unwinding data, inline or in .extab.
//
// For the generic model (bit 31 clear in its first word), Generic is set,
// Personality is the routine's address (Section/Off locate that word),
// and, when the routine is one of GCC's (Table.IsGCC said so), Ops are
// its opcodes and Words the count of extra words; LSDA data is not
// decoded. For the compact model, Index is the personality index (0-2 with
// opcodes; for C6000 3 and 4 are the inline frame descriptions of
// SPRAB89 7.1: RestoreFromFP, StackInc, RegMask, ReturnReg).
type Unwind struct {
	Section     string
	Off         int64
	Generic     bool
	Personality uint64
	PersTarget  Target // where the relocation of the personality word points
	GCC         bool
	Index       int
	Words       int // extra words the entry declares
	Ops         []Op
	// C6000 personality 3 and 4.
	RestoreFromFP bool
	StackInc      uint32
	RegMask       uint32
	ReturnReg     int
}

// Table is a decoded index section and the unwinding data it refers to.
type Table struct {
	Machine Machine
	Index   *Section
	Entries []Entry
}

// Decoder supplies what decoding an index table needs beyond its bytes.
type Decoder struct {
	Machine Machine
	// SectionAt returns the section holding addr (the .extab entries),
	// or nil.
	SectionAt func(addr uint64) *Section
	// IsGCC reports whether the personality routine at addr (its word's
	// relocation pointing to t) is one of GCC's (__gcc_personality_v0,
	// __gxx_personality_v0, ...), whose data starts with the compact
	// opcodes; nil for none.
	IsGCC func(addr uint64, t Target) bool
	// SectionByIndex returns the section of ELF index i (the section of a
	// relocation's symbol), or nil.
	SectionByIndex func(i int) *Section
	// MaxOpBytes bounds the opcode bytes decoded for one index section
	// (0: 8 per byte of the index plus 4096; armhf libc.so.6 uses 0.3). Every
	// entry may point at up to 1023 opcode bytes and entries may share
	// them, so without it a 64 KiB index could cost 8 million opcodes.
	// Entries past the limit get an error and no Unwind.
	MaxOpBytes int
}

// prel31 expands the 31-bit place-relative offset in w at address where;
// for C6000 the offset counts halfwords.
func (d *Decoder) prel31(w uint32, where uint64) uint64 {
	off := int64(int32(w<<1) >> 1)
	if d.Machine == C6000 {
		off <<= 1
	}
	return uint64(int64(where)+off) & 0xffffffff
}

// Decode decodes every 8-byte entry of the index section idx (trailing
// bytes short of an entry are ignored, as readelf ignores them). Problems
// in one entry are left in its Err; the error returned is a *DecodeError
// for the section as a whole (never with entries decoded so far lost).
func (d *Decoder) Decode(idx *Section) (*Table, error) {
	t := &Table{Machine: d.Machine, Index: idx}
	n := len(idx.Data) / 8
	t.Entries = make([]Entry, 0, n)
	limit := d.MaxOpBytes
	if limit <= 0 {
		limit = 8*len(idx.Data) + 4096
	}
	work := 0
	for i := 0; i < n; i++ {
		if i > 0 {
			if u := t.Entries[i-1].Unwind; u != nil {
				for k := range u.Ops {
					work += len(u.Ops[k].Bytes)
				}
			}
		}
		off := uint64(8 * i)
		w0, t0, _ := d.word(idx, off)
		w1, t1, _ := d.word(idx, off+4)
		e := Entry{Off: int64(off), FnWord: w0, Word: w1, FnTarget: t0}
		e.Fn = d.prel31(w0, idx.Addr+off)
		if w0&0x80000000 != 0 {
			e.Err = malformed(idx.Name, int64(off), "index entry's function word %#x has bit 31 set", w0)
		}
		switch {
		case work > limit && w1 != 1:
			e.Kind = EntryInline
			if w1&0x80000000 == 0 {
				e.Kind = EntryTable
				e.TableAddr = d.prel31(w1, idx.Addr+off+4)
			}
			e.Err = malformed(idx.Name, int64(off), "work limit: %d opcode bytes decoded for the entries before this one (limit %d)", work, limit)
		case w1 == 1:
			e.Kind = EntryCantUnwind
		case w1&0x80000000 != 0:
			e.Kind = EntryInline
			u, err := d.decodeUnwind(idx, off+4, w1, true)
			e.Unwind = u
			if e.Err == nil {
				e.Err = err
			}
		default:
			e.Kind = EntryTable
			e.TableAddr = d.prel31(w1, idx.Addr+off+4)
			var sec *Section
			var toff uint64
			if t1.Relocated && t1.Shndx != 0 && d.SectionByIndex != nil {
				// In an object: the section of the relocation's symbol.
				if sec = d.SectionByIndex(t1.Shndx); sec != nil {
					toff = t1.Offset
					if toff > uint64(len(sec.Data)) {
						if e.Err == nil {
							e.Err = malformed(idx.Name, int64(off+4), "unwind table entry at offset %#x of %s, past its %d bytes", toff, sec.Name, len(sec.Data))
						}
						break
					}
				}
			}
			if sec == nil && d.SectionAt != nil {
				if sec = d.SectionAt(e.TableAddr); sec != nil {
					toff = e.TableAddr - sec.Addr
				}
			}
			if sec == nil {
				if e.Err == nil {
					e.Err = malformed(idx.Name, int64(off+4), "no section holds the unwind table entry at %#x", e.TableAddr)
				}
				break
			}
			w, _, ok := d.word(sec, toff)
			if !ok {
				if e.Err == nil {
					e.Err = malformed(idx.Name, int64(off+4), "unwind table entry at offset %#x of %s: word past its %d bytes", toff, sec.Name, len(sec.Data))
				}
				break
			}
			u, err := d.decodeUnwind(sec, toff, w, false)
			e.Unwind = u
			if e.Err == nil {
				e.Err = err
			}
		}
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

// decodeUnwind decodes the unwinding data whose first word w is at byte
// off of sec (inline: the index entry's second word, no more words).
func (d *Decoder) decodeUnwind(sec *Section, off uint64, w uint32, inline bool) (u *Unwind, err error) {
	u = &Unwind{Section: sec.Name, Off: int64(off), Index: -1}
	var s *stream
	if w&0x80000000 == 0 {
		u.Generic = true
		u.Personality = d.prel31(w, sec.Addr+off)
		_, u.PersTarget, _ = d.word(sec, off)
		if inline || d.IsGCC == nil || !d.IsGCC(u.Personality, u.PersTarget) {
			return u, nil
		}
		u.GCC = true
		w2, _, ok := d.word(sec, off+4)
		if !ok {
			return u, malformed(sec.Name, int64(off), "GCC personality routine's data: its count word at byte %#x is past the section's %d bytes", off+4, len(sec.Data))
		}
		u.Words = int(w2 >> 24)
		s = d.opcodes(sec, off+4, w2, 3, u.Words)
	} else {
		u.Index = int(w >> 24 & 0x7f)
		var bad error
		if d.Machine == ARM && w&0x70000000 != 0 {
			// readelf warns and decodes it all the same.
			bad = malformed(sec.Name, int64(off), "compact model entry %#x: bits 30-28 not zero", w)
		}
		defer func() {
			if bad != nil {
				err = bad
			}
		}()
		switch {
		case u.Index == 0:
			s = d.opcodes(sec, off, w, 3, 0)
		case u.Index < 3:
			if inline {
				// readelf reads the count, and no words follow an index entry.
				u.Words = int(w >> 16 & 0xff)
				s = d.opcodes(sec, off, w, 2, 0)
			} else {
				u.Words = int(w >> 16 & 0xff)
				s = d.opcodes(sec, off, w, 2, u.Words)
			}
		case d.Machine == C6000 && u.Index < 5:
			u.RestoreFromFP = w>>17&0x7f == 0x7f
			u.StackInc = w >> 14 & 0x1fc
			u.RegMask = w >> 4 & 0x1fff
			u.ReturnReg = int(w & 0xf)
			return u, nil
		default:
			return u, malformed(sec.Name, int64(off), "unknown compact model index %d", u.Index)
		}
	}
	u.Ops, err = decodeOps(d.Machine, s)
	if err == nil && s.clipped {
		err = malformed(sec.Name, int64(off), "entry declares %d more words, the section holds %d", u.Words, s.avail)
	}
	return u, err
}

// opcodes returns the opcode stream of an entry: the low n bytes of w (at
// byte off of sec), then the words after it, at most more of them and no
// more than the section holds.
func (d *Decoder) opcodes(sec *Section, off uint64, w uint32, n, more int) *stream {
	avail := 0
	if rest := uint64(len(sec.Data)); off+4 <= rest {
		avail = int(min((rest-off-4)/4, 255))
	}
	words := min(more, avail)
	s := &stream{sec: sec.Name, b: make([]byte, 0, n+4*words), order: sec.Order, first: n, words: make([]uint64, 0, 1+words)}
	s.clipped, s.avail = more > avail, avail
	add := func(w uint32, at uint64, k int) {
		s.words = append(s.words, at)
		for i := 4 - k; i < 4; i++ {
			s.b = append(s.b, byte(w>>(24-8*i)))
		}
	}
	add(w, off, n)
	for j := 1; j <= words; j++ {
		at := off + 4*uint64(j)
		wj, _, _ := d.word(sec, at)
		add(wj, at, 4)
	}
	return s
}

// byteOff is the offset of byte i (0 = most significant) of the word at
// off in byte order o.
func byteOff(o binary.ByteOrder, off uint64, i int) uint64 {
	if o == binary.BigEndian {
		return off + uint64(i)
	}
	return off + 3 - uint64(i)
}
