package frames

// Test helpers that build synthetic modules: SFrame v3 sections (through
// sframetest's encoder) and a minimal ELF64 writer, so that unwinder tests
// need no compiler and no fixture files.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// tFRE is one FRE to encode: start offset, CFA base register (DEFAULT FDEs)
// and data words (CFA offset, FP offset; or FLEX control/offset pairs).
type tFRE struct {
	start uint32
	base  sframe.BaseReg
	words []int32
}

// tFDE is one function to encode.
type tFDE struct {
	start  uint64 // link-time start address
	size   uint32
	mask   bool  // PC type MASK
	rep    uint8 // repetition block size for MASK
	flex   bool
	signal bool
	fres   []tFRE
}

// sp and fp are DEFAULT-FDE FRE base registers, spelled short for tables.
const (
	bSP = sframe.BaseRegSP
	bFP = sframe.BaseRegFP
)

// flexCtl builds a FLEX control word (spec v3 §3.2).
func flexCtl(reg rule.Reg, regP, deref bool) int32 {
	return int32(sframetest.FlexControl(reg, regP, deref))
}

// encodeSFrameV3 encodes an AMD64 SFrame v3 section located at addr, with
// FDE start addresses relative to their field (SFRAME_F_FDE_FUNC_START_PCREL).
// fdes must be sorted by start.
func encodeSFrameV3(addr uint64, fdes []tFDE) []byte {
	b := &sframetest.Builder{
		Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian,
		Flags:            sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
		CFAFixedRAOffset: -8, Addr: addr,
	}
	for _, f := range fdes {
		fs := sframetest.FDESpec{Start: f.start, Size: f.size, RepSize: f.rep, Signal: f.signal}
		if f.mask {
			fs.PCType = sframe.PCTypeMask
		}
		if f.flex {
			fs.Type = sframe.FDETypeFlex
		}
		for _, r := range f.fres {
			fs.FREs = append(fs.FREs, sframetest.FRESpec{StartOff: r.start, BaseReg: r.base, Words: r.words})
		}
		b.FDEs = append(b.FDEs, fs)
	}
	data, err := b.Encode()
	if err != nil {
		panic(err) // the tables of the tests are wrong
	}
	return data
}

// tSym is a function symbol of a synthetic ELF file.
type tSym struct {
	name       string
	addr, size uint64
	notype     bool
}

// tELF describes a synthetic AMD64 ELF file: one executable PT_LOAD segment
// covering [base, base+textEnd) at file offset 0 with a NOBITS .text
// section at textAddr, an optional .sframe section and a symbol table.
type tELF struct {
	base     uint64 // link-time address of file offset 0
	textAddr uint64
	textSize uint64
	sframe   []byte // placed at sframeAddr
	sfAddr   uint64
	syms     []tSym
}

// build writes the ELF image.
func (e *tELF) build(t testing.TB) []byte {
	t.Helper()
	le := binary.LittleEndian
	var body bytes.Buffer
	const ehsize, phsize, shsize = 64, 56, 64
	body.Write(make([]byte, ehsize+phsize))
	align := func(n int) {
		for body.Len()%n != 0 {
			body.WriteByte(0)
		}
	}
	align(8)
	sfOff := body.Len()
	body.Write(e.sframe)
	align(8)
	// String table and symbols.
	strtab := []byte{0}
	addStr := func(s string) uint32 {
		off := uint32(len(strtab))
		strtab = append(append(strtab, s...), 0)
		return off
	}
	symtab := make([]byte, 24) // null symbol
	for _, s := range e.syms {
		var b [24]byte
		le.PutUint32(b[0:], addStr(s.name))
		typ := elf.STT_FUNC
		if s.notype {
			typ = elf.STT_NOTYPE
		}
		b[4] = elf.ST_INFO(elf.STB_GLOBAL, typ)
		le.PutUint16(b[6:], 1) // .text
		le.PutUint64(b[8:], s.addr)
		le.PutUint64(b[16:], s.size)
		symtab = append(symtab, b[:]...)
	}
	symOff := body.Len()
	body.Write(symtab)
	strOff := body.Len()
	body.Write(strtab)
	shstr := []byte{0}
	name := func(s string) uint32 {
		off := uint32(len(shstr))
		shstr = append(append(shstr, s...), 0)
		return off
	}
	type sh struct {
		name              uint32
		typ               elf.SectionType
		flags             elf.SectionFlag
		addr, off, size   uint64
		link, info        uint32
		addralign, entsiz uint64
	}
	shs := []sh{{}}
	shs = append(shs, sh{name: name(".text"), typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR,
		addr: e.textAddr, off: uint64(ehsize + phsize), size: e.textSize, addralign: 16})
	if e.sframe != nil {
		shs = append(shs, sh{name: name(".sframe"), typ: sframe.SHT_GNU_SFRAME, flags: elf.SHF_ALLOC,
			addr: e.sfAddr, off: uint64(sfOff), size: uint64(len(e.sframe)), addralign: 8})
	}
	strIdx := uint32(len(shs) + 1)
	shs = append(shs, sh{name: name(".symtab"), typ: elf.SHT_SYMTAB, off: uint64(symOff), size: uint64(len(symtab)),
		link: strIdx, info: 1, addralign: 8, entsiz: 24})
	shs = append(shs, sh{name: name(".strtab"), typ: elf.SHT_STRTAB, off: uint64(strOff), size: uint64(len(strtab)), addralign: 1})
	shstrIdx := len(shs)
	shs = append(shs, sh{name: name(".shstrtab"), typ: elf.SHT_STRTAB, addralign: 1})
	shs[shstrIdx].off = uint64(body.Len())
	shs[shstrIdx].size = uint64(len(shstr))
	body.Write(shstr)
	align(8)
	shOff := body.Len()
	for _, s := range shs {
		var b [shsize]byte
		le.PutUint32(b[0:], s.name)
		le.PutUint32(b[4:], uint32(s.typ))
		le.PutUint64(b[8:], uint64(s.flags))
		le.PutUint64(b[16:], s.addr)
		le.PutUint64(b[24:], s.off)
		le.PutUint64(b[32:], s.size)
		le.PutUint32(b[40:], s.link)
		le.PutUint32(b[44:], s.info)
		le.PutUint64(b[48:], s.addralign)
		le.PutUint64(b[56:], s.entsiz)
		body.Write(b[:])
	}
	img := body.Bytes()
	// ELF header.
	copy(img, elf.ELFMAG)
	img[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	img[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	img[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	le.PutUint16(img[16:], uint16(elf.ET_DYN))
	le.PutUint16(img[18:], uint16(elf.EM_X86_64))
	le.PutUint32(img[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(img[24:], e.textAddr) // entry
	le.PutUint64(img[32:], ehsize)     // phoff
	le.PutUint64(img[40:], uint64(shOff))
	le.PutUint16(img[52:], ehsize)
	le.PutUint16(img[54:], phsize)
	le.PutUint16(img[56:], 1)
	le.PutUint16(img[58:], shsize)
	le.PutUint16(img[60:], uint16(len(shs)))
	le.PutUint16(img[62:], uint16(shstrIdx))
	// PT_LOAD: the whole file, mapped r-x at base, extended in memory to
	// cover the text.
	ph := img[ehsize:]
	le.PutUint32(ph[0:], uint32(elf.PT_LOAD))
	le.PutUint32(ph[4:], uint32(elf.PF_R|elf.PF_X))
	le.PutUint64(ph[8:], 0)
	le.PutUint64(ph[16:], e.base)
	le.PutUint64(ph[24:], e.base)
	le.PutUint64(ph[32:], uint64(len(img)))
	le.PutUint64(ph[40:], max(uint64(len(img)), e.textAddr+e.textSize-e.base))
	le.PutUint64(ph[48:], 0x1000)
	if _, err := elf.NewFile(bytes.NewReader(img)); err != nil {
		t.Fatalf("synthetic ELF does not parse: %v", err)
	}
	return img
}

// stackImage is a synthetic stack: 8-byte words from base upwards.
type stackImage struct {
	base  uint64
	words []uint64
}

func newStack(base uint64, n int) *stackImage {
	return &stackImage{base: base, words: make([]uint64, n)}
}

// put stores v at address a.
func (s *stackImage) put(a, v uint64) {
	i := (a - s.base) / 8
	s.words[i] = v
}

// addr returns the address of word i.
func (s *stackImage) addr(i int) uint64 { return s.base + 8*uint64(i) }

func (s *stackImage) mem() *SliceMemory {
	b := make([]byte, 8*len(s.words))
	for i, w := range s.words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return &SliceMemory{Base: s.base, Data: b}
}
