package ehabi

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// A fixture function: its EHABI entry is cantunwind, an inline word or
// words of .extab (the first may be a generic personality word, written as
// personality, or a compact word).
type genFunc struct {
	name        string // "" for no symbol
	cantUnwind  bool
	inline      uint32
	extab       []uint32
	personality string // the first .extab word is a prel31 to this symbol
	// badTable points the index entry outside every section.
	badTable bool
}

// genELF writes a linked (ET_EXEC) 32-bit ELF file of machine m in byte
// order o with .text, the index and table sections of m, .symtab and
// .strtab: each function gets 0x20 bytes of .text, an STT_FUNC symbol and
// an 8-byte index entry; extra function symbols (personality routines)
// follow them in .text.
func genELF(m Machine, o binary.ByteOrder, funcs []genFunc, extra []string) []byte {
	const textAddr, idxAddr, tabAddr = 0x8000, 0x9000, 0xa000
	idxName, tabName := ".ARM.exidx", ".ARM.extab"
	if m == C6000 {
		idxName, tabName = ".c6xabi.exidx", ".c6xabi.extab"
	}
	prel31 := func(target, where uint32) uint32 {
		d := target - where
		if m == C6000 {
			d = uint32(int32(d) >> 1)
		}
		return d & 0x7fffffff
	}
	put := func(b *bytes.Buffer, v uint32) { binary.Write(b, o, v) }
	funcAddr := func(i int) uint32 { return textAddr + 0x20*uint32(i) }
	symAddr := map[string]uint32{}
	for i, n := range extra {
		symAddr[n] = funcAddr(len(funcs) + i)
	}
	var idx, tab bytes.Buffer
	for i, f := range funcs {
		where := idxAddr + uint32(idx.Len())
		put(&idx, prel31(funcAddr(i), where))
		switch {
		case f.cantUnwind:
			put(&idx, 1)
		case f.badTable:
			put(&idx, prel31(0x40000, where+4))
		case f.extab == nil && f.personality == "":
			put(&idx, f.inline)
		default:
			at := tabAddr + uint32(tab.Len())
			put(&idx, prel31(at, where+4))
			if f.personality != "" {
				put(&tab, prel31(symAddr[f.personality], at))
			}
			for _, w := range f.extab {
				put(&tab, w)
			}
		}
	}
	// Symbols and strings.
	var strtab, symtab bytes.Buffer
	strtab.WriteByte(0)
	symtab.Write(make([]byte, 16))
	addSym := func(name string, value uint32) {
		if name == "" {
			return
		}
		put(&symtab, uint32(strtab.Len()))
		strtab.WriteString(name)
		strtab.WriteByte(0)
		put(&symtab, value)
		put(&symtab, 0x20)
		symtab.WriteByte(0x12) // STB_GLOBAL, STT_FUNC
		symtab.WriteByte(0)
		binary.Write(&symtab, o, uint16(1)) // .text
	}
	for i, f := range funcs {
		addSym(f.name, funcAddr(i))
	}
	for _, n := range extra {
		addSym(n, symAddr[n])
	}
	textSize := 0x20 * uint32(len(funcs)+len(extra))
	type shdr struct {
		name                               string
		typ, flags, addr, size, link, info uint32
		align, entsize                     uint32
		data                               []byte
	}
	shs := []shdr{
		{},
		{name: ".text", typ: 1, flags: 6, addr: textAddr, size: textSize, align: 4, data: make([]byte, textSize)},
		{name: idxName, typ: 0x70000001, flags: 0x82, addr: idxAddr, link: 1, align: 4, data: idx.Bytes()},
		{name: tabName, typ: 1, flags: 2, addr: tabAddr, align: 4, data: tab.Bytes()},
		{name: ".symtab", typ: 2, link: 5, info: 1, align: 4, entsize: 16, data: symtab.Bytes()},
		{name: ".strtab", typ: 3, align: 1, data: strtab.Bytes()},
		{name: ".shstrtab", typ: 3, align: 1},
	}
	var shstr bytes.Buffer
	shstr.WriteByte(0)
	names := make([]uint32, len(shs))
	for i := 1; i < len(shs); i++ {
		names[i] = uint32(shstr.Len())
		shstr.WriteString(shs[i].name)
		shstr.WriteByte(0)
	}
	shs[6].data = shstr.Bytes()
	var body bytes.Buffer
	offs := make([]uint32, len(shs))
	for i := 1; i < len(shs); i++ {
		for (52+body.Len())%4 != 0 {
			body.WriteByte(0)
		}
		offs[i] = uint32(52 + body.Len())
		body.Write(shs[i].data)
	}
	for (52+body.Len())%4 != 0 {
		body.WriteByte(0)
	}
	shoff := uint32(52 + body.Len())
	var out bytes.Buffer
	data := byte(1)
	if o == binary.BigEndian {
		data = 2
	}
	out.Write([]byte{0x7f, 'E', 'L', 'F', 1, data, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	h16 := func(v uint16) { binary.Write(&out, o, v) }
	h32 := func(v uint32) { binary.Write(&out, o, v) }
	h16(2) // ET_EXEC
	h16(uint16(m))
	h32(1)
	h32(textAddr)
	h32(0)     // phoff
	h32(shoff) // shoff
	flags := uint32(0)
	if m == ARM {
		flags = 0x05000400 // EABI5, hard float
	}
	h32(flags)
	h16(52)
	h16(0)
	h16(0)
	h16(40)
	h16(uint16(len(shs)))
	h16(6)
	out.Write(body.Bytes())
	for i, s := range shs {
		size := uint32(len(s.data))
		if i == 0 {
			size = 0
		}
		for _, v := range []uint32{names[i], s.typ, s.flags, s.addr, offs[i], size, s.link, s.info, s.align, s.entsize} {
			h32(v)
		}
	}
	return out.Bytes()
}

// packOps packs opcode bytes into compact words after a first word whose
// top byte is head (0x81, 0x82: personality 1 or 2 with a more-words
// count; 0x80: personality 0, three opcodes only), most significant byte
// first, padding with pad (0xb0 "finish" for ARM).
func packOps(head byte, ops []byte, pad byte) []uint32 {
	var b []byte
	if head == 0x80 {
		b = append([]byte{head}, ops...)
	} else {
		n := (len(ops) - 2 + 3) / 4
		if n < 0 {
			n = 0
		}
		b = append([]byte{head, byte(n)}, ops...)
	}
	for len(b)%4 != 0 {
		b = append(b, pad)
	}
	ws := make([]uint32, len(b)/4)
	for i := range ws {
		ws[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return ws
}

// armFixture has every ARM EHABI opcode (EHABI 9.3), spare, reserved and
// unsupported ones included, and each kind of entry.
func armFixture() ([]genFunc, []string) {
	var all []byte
	for op := 0; op < 0x100; op++ {
		c := byte(op)
		switch {
		case c&0xf0 == 0x80:
			all = append(all, c, byte(op*7))
		case c == 0xb1, c == 0xc7:
			all = append(all, c, 0x00, c, 0x05, c, 0x13)
		case c == 0xb2:
			all = append(all, c, 0x00, c, 0x81, 0x01, c, 0xff, 0x7f)
		case c == 0xb3, c == 0xc6, c == 0xc8, c == 0xc9:
			all = append(all, c, 0x00, c, 0x23)
		default:
			all = append(all, c)
		}
	}
	all = append(all, 0x80, 0x00) // refuse to unwind
	var fs []genFunc
	for i := 0; i < len(all); i += 60 {
		chunk := all[i:min(i+60, len(all))]
		fs = append(fs, genFunc{name: fmt.Sprintf("ops%d", i/60), extab: packOps(0x81, chunk, 0xb0)})
	}
	fs = append(fs,
		genFunc{name: "cant", cantUnwind: true},
		genFunc{name: "inline0", inline: 0x8003a8b0},
		genFunc{name: "inline1", inline: 0x810084a8}, // personality 1 inline: two opcodes
		genFunc{inline: 0x80b0b0b0},                  // no symbol
		genFunc{name: "pers2", extab: packOps(0x82, []byte{0x97, 0x84, 0x0f, 0xc9, 0x12, 0x02}, 0xb0)},
		genFunc{name: "reserved3", inline: 0x83000000},
		genFunc{name: "badbits", inline: 0x90b0b0b0},
		genFunc{name: "gxx", personality: "__gxx_personality_v0", extab: []uint32{0x0108ab01, 0x97b0b0b0, 0xdeadbeef}},
		genFunc{name: "gcc", personality: "__gcc_personality_v0", extab: []uint32{0x01a8b0b0, 0x0b84b0b0, 0x12345678}},
		genFunc{name: "other", personality: "my_personality", extab: []uint32{0x11223344}},
		genFunc{name: "trunc", extab: []uint32{0x8100b085}},
		genFunc{name: "uleb9", extab: []uint32{0x8103b280, 0x80808080, 0x80808080, 0x80808080}},
		genFunc{name: "badtable", badTable: true},
		// Last: declares 5 more words, the section holds 1.
		genFunc{name: "clipped", extab: []uint32{0x8105b0b0, 0x01020304}},
	)
	return fs, []string{"__gxx_personality_v0", "__gcc_personality_v0", "my_personality"}
}

// c6000Fixture has every C6000 opcode (SPRAB89 7.2), the compact frame
// forms, personalities 0-5 and generic entries.
func c6000Fixture() ([]genFunc, []string) {
	var all []byte
	for op := 0; op < 0x100; op++ {
		c := byte(op)
		switch {
		case c&0xc0 == 0x80:
			all = append(all, c, byte(op*5))
		case c&0xf0 == 0xc0:
			all = append(all, c)
			for i := 0; i < int(c&0x0f); i++ {
				all = append(all, byte(0x1f+i*0x23))
			}
		case c == 0xd2:
			all = append(all, c, 0x00, c, 0x81, 0x01)
		default:
			all = append(all, c)
		}
	}
	all = append(all, 0x80, 0x00, 0xc2, 0xff, 0xff) // refuse; a frame of pads only
	var fs []genFunc
	for i := 0; i < len(all); i += 60 {
		chunk := all[i:min(i+60, len(all))]
		fs = append(fs, genFunc{name: fmt.Sprintf("ops%d", i/60), extab: packOps(0x81, chunk, 0xe7)})
	}
	fs = append(fs,
		genFunc{name: "cant", cantUnwind: true},
		genFunc{name: "inline0", inline: 0x8003d1e7},
		genFunc{name: "pers3", inline: 0x83012347},
		genFunc{name: "pers3fp", inline: 0x83fe1fff},
		genFunc{name: "pers4", inline: 0x84ab5672},
		genFunc{name: "pers5", inline: 0x85000000},
		genFunc{name: "pers2", extab: packOps(0x82, []byte{0x01, 0xd0, 0xa0, 0x10, 0xe3}, 0xe7)},
		genFunc{name: "gxx", personality: "__gxx_personality_v0", extab: []uint32{0x0102d1e7, 0xe7e7e7e7, 0xcafef00d}},
		genFunc{name: "other", personality: "my_personality", extab: []uint32{0x11223344}},
		genFunc{name: "trunc", extab: []uint32{0x8100e781}},
		genFunc{name: "badtable", badTable: true},
		genFunc{name: "uleb9", extab: []uint32{0x8103d280, 0x80808080, 0x80808080, 0x80808080}},
		genFunc{name: "clipped", extab: []uint32{0x8105e7e7, 0x01020304}},
	)
	return fs, []string{"__gxx_personality_v0", "my_personality"}
}
