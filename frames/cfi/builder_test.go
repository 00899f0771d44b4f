package cfi

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
)

// builder assembles a CFI section for tests: CIEs and FDEs in either byte
// order, 32- or 64-bit DWARF, .eh_frame or .debug_frame.
type builder struct {
	kind    Kind
	order   binary.ByteOrder
	dwarf64 bool
	ptrSize int
	addr    uint64 // section address (pc-relative pointers)
	buf     []byte
	cies    map[int64]cieSpec
}

// cieSpec describes a CIE to build. Zero fields take defaults: version 1,
// code alignment 1, data alignment -8, RA column 16, no augmentation.
type cieSpec struct {
	version           uint8
	aug               string
	addrSize, segSize uint8 // version 4
	caf               uint64
	daf               int64
	ra                uint64
	fdeEnc            PtrEnc // augmentation R
	lsdaEnc           PtrEnc // augmentation L
	persEnc           PtrEnc // augmentation P
	pers              uint64
	augData           []byte // when set, the augmentation data as is
	initial           []byte
}

// fdeSpec describes an FDE to build.
type fdeSpec struct {
	start, length uint64
	lsda          uint64
	augData       []byte // when set, the augmentation data as is
	instr         []byte
}

func newBuilder(kind Kind, order binary.ByteOrder, dwarf64 bool) *builder {
	return &builder{kind: kind, order: order, dwarf64: dwarf64, ptrSize: 8, addr: 0x10000, cies: map[int64]cieSpec{}}
}

// section returns the bytes built so far as a Section.
func (b *builder) section() Section {
	return Section{Kind: b.kind, Addr: b.addr, Order: b.order, PtrSize: b.ptrSize, Data: slices.Clone(b.buf)}
}

func (b *builder) off() int64 { return int64(len(b.buf)) }

func (b *builder) fixed(n int, v uint64) []byte {
	p := make([]byte, 8)
	switch n {
	case 1:
		return []byte{byte(v)}
	case 2:
		b.order.PutUint16(p, uint16(v))
	case 4:
		b.order.PutUint32(p, uint32(v))
	default:
		b.order.PutUint64(p, v)
	}
	return p[:n]
}

func uleb(v uint64) []byte {
	var p []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		p = append(p, c)
		if v == 0 {
			return p
		}
	}
}

func sleb(v int64) []byte {
	var p []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(p, c)
		}
		p = append(p, c|0x80)
	}
}

// encode encodes v with enc for a field at address at.
func (b *builder) encode(enc PtrEnc, v, at uint64, addrSize int) []byte {
	if enc&peApplication == DW_EH_PE_pcrel {
		v -= at
	}
	switch enc & peFormat {
	case DW_EH_PE_uleb128:
		return uleb(v)
	case DW_EH_PE_sleb128:
		return sleb(int64(v))
	}
	n, _ := enc.size(addrSize)
	return b.fixed(n, v)
}

// record appends a record with the given id (CIE id or pointer, computed
// by idAt from the id's offset) and body.
func (b *builder) record(idAt func(int64) uint64, body []byte) int64 {
	off := b.off()
	idSize := 4
	if b.dwarf64 {
		idSize = 8
		b.buf = append(b.buf, b.fixed(4, 0xffffffff)...)
		b.buf = append(b.buf, b.fixed(8, uint64(idSize+len(body)))...)
	} else {
		b.buf = append(b.buf, b.fixed(4, uint64(idSize+len(body)))...)
	}
	b.buf = append(b.buf, b.fixed(idSize, idAt(b.off()))...)
	b.buf = append(b.buf, body...)
	return off
}

// cie appends a CIE and returns its offset.
func (b *builder) cie(s cieSpec) int64 {
	if s.version == 0 {
		s.version = 1
	}
	if s.caf == 0 {
		s.caf = 1
	}
	if s.daf == 0 {
		s.daf = -8
	}
	if s.ra == 0 {
		s.ra = 16
	}
	addrSize := b.ptrSize
	body := []byte{s.version}
	body = append(append(body, s.aug...), 0)
	if s.aug == "eh" {
		body = append(body, make([]byte, b.ptrSize)...)
	}
	if s.version >= 4 {
		body = append(body, s.addrSize, s.segSize)
		addrSize = int(s.addrSize)
	}
	body = append(body, uleb(s.caf)...)
	body = append(body, sleb(s.daf)...)
	if s.version == 1 {
		body = append(body, byte(s.ra))
	} else {
		body = append(body, uleb(s.ra)...)
	}
	if len(s.aug) > 0 && s.aug[0] == 'z' {
		data := s.augData
		if data == nil {
			data = []byte{}
			for _, ch := range s.aug[1:] {
				switch ch {
				case 'L':
					data = append(data, byte(s.lsdaEnc))
				case 'R':
					data = append(data, byte(s.fdeEnc))
				case 'P':
					data = append(data, byte(s.persEnc))
					// The personality pointer's address: after the header,
					// the body so far, the length byte(s) and data.
					at := b.addr + uint64(b.off()) + uint64(b.headSize()) + uint64(len(body)) + 1 + uint64(len(data))
					data = append(data, b.encode(s.persEnc&^DW_EH_PE_indirect, s.pers, at, addrSize)...)
				}
			}
		}
		body = append(body, uleb(uint64(len(data)))...)
		body = append(body, data...)
	}
	body = append(body, s.initial...)
	id := uint64(0)
	if b.kind == DebugFrame {
		id = 0xffffffff
		if b.dwarf64 {
			id = ^uint64(0)
		}
	}
	off := b.record(func(int64) uint64 { return id }, body)
	if s.version >= 4 {
		s.addrSize = uint8(addrSize)
	} else {
		s.addrSize = uint8(b.ptrSize)
	}
	b.cies[off] = s
	return off
}

// headSize is the size of a record's length and id.
func (b *builder) headSize() int {
	if b.dwarf64 {
		return 20
	}
	return 8
}

// fde appends an FDE of the CIE at cieOff and returns its offset.
func (b *builder) fde(cieOff int64, s fdeSpec) int64 {
	c := b.cies[cieOff]
	addrSize := int(c.addrSize)
	enc := c.fdeEnc
	if b.kind == DebugFrame && c.aug == "" {
		enc = DW_EH_PE_absptr
	}
	start := b.addr + uint64(b.off()) + uint64(b.headSize())
	body := b.encode(enc, s.start, start, addrSize)
	body = append(body, b.encode(enc&peFormat, s.length, 0, addrSize)...)
	if len(c.aug) > 0 && c.aug[0] == 'z' {
		data := s.augData
		if data == nil {
			data = []byte{}
			if c.lsdaEnc != DW_EH_PE_omit && containsByte(c.aug, 'L') {
				at := start + uint64(len(body)) + 1
				data = b.encode(c.lsdaEnc&^DW_EH_PE_indirect, s.lsda, at, addrSize)
			}
		}
		body = append(body, uleb(uint64(len(data)))...)
		body = append(body, data...)
	}
	body = append(body, s.instr...)
	return b.record(func(idOff int64) uint64 {
		if b.kind == EHFrame {
			return uint64(idOff - cieOff)
		}
		return uint64(cieOff)
	}, body)
}

func containsByte(s string, c byte) bool {
	for i := range len(s) {
		if s[i] == c {
			return true
		}
	}
	return false
}

// terminator appends a zero length word.
func (b *builder) terminator() { b.buf = append(b.buf, 0, 0, 0, 0) }

// prog concatenates call frame instructions.
func prog(ins ...[]byte) []byte { return slices.Concat(ins...) }

// in assembles one instruction: the opcode and its operands.
func in(op cfaOp, operands ...[]byte) []byte {
	return append([]byte{byte(op)}, slices.Concat(operands...)...)
}

// hdrEntry is one entry of a built .eh_frame_hdr table.
type hdrEntry struct{ loc, fde uint64 }

// buildHdr returns an .eh_frame_hdr at hdrAddr for the .eh_frame at
// ehAddr whose FDEs are fdes: version 1, eh_frame_ptr pcrel|sdata4, and a
// table with tableEnc (datarel|sdata4 or udata8) sorted by start address.
func buildHdr(order binary.ByteOrder, hdrAddr, ehAddr uint64, fdes []hdrEntry, tableEnc PtrEnc) []byte {
	b := &builder{order: order}
	entries := slices.Clone(fdes)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].loc < entries[j].loc })
	h := []byte{1, byte(DW_EH_PE_pcrel | DW_EH_PE_sdata4), byte(DW_EH_PE_udata4), byte(tableEnc)}
	h = append(h, b.fixed(4, ehAddr-(hdrAddr+4))...)
	h = append(h, b.fixed(4, uint64(len(entries)))...)
	n, _ := tableEnc.size(8)
	base := uint64(0)
	if tableEnc&peApplication == DW_EH_PE_datarel {
		base = hdrAddr
	}
	for _, e := range entries {
		h = append(h, b.fixed(n, e.loc-base)...)
		h = append(h, b.fixed(n, e.fde-base)...)
	}
	return h
}

// hdrFor returns the entries of an .eh_frame_hdr for every FDE of t, empty
// ones included, as ld writes it.
func hdrFor(t *Table, ehAddr uint64) []hdrEntry {
	var e []hdrEntry
	for i := range t.all {
		e = append(e, hdrEntry{loc: t.all[i].Start, fde: ehAddr + uint64(t.all[i].Off)})
	}
	return e
}

// bytesReader returns an io.ReaderAt over b.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
