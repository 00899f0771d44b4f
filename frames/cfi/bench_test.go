package cfi

import (
	"debug/elf"
	"os"
	"testing"
)

const libcPath = "/lib/x86_64-linux-gnu/libc.so.6"

// libcPC returns the address of clock_nanosleep+0x10 in libc, where a
// sleeping thread sits.
func libcPC(b *testing.B, f *elf.File) uint64 {
	syms, err := f.DynamicSymbols()
	if err != nil {
		b.Skip(err)
	}
	for _, s := range syms {
		if s.Name == "clock_nanosleep" || s.Name == "__clock_nanosleep" {
			return s.Value + 0x10
		}
	}
	b.Skip("no clock_nanosleep in libc")
	return 0
}

func openLibc(b *testing.B) *elf.File {
	if _, err := os.Stat(libcPath); err != nil {
		b.Skip(err)
	}
	f, err := elf.Open(libcPath)
	if err != nil {
		b.Skip(err)
	}
	return f
}

// BenchmarkParse measures parsing every CIE and FDE of libc's .eh_frame
// ("records", what the offline checker pays up front) and, in addition,
// building the rows of every FDE ("records and rows").
func BenchmarkParse(b *testing.B) {
	f := openLibc(b)
	defer f.Close()
	sec := cfiSections(b, f)[0]
	b.Run("records", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(sec.Data)))
		for b.Loop() {
			if _, err := Parse(sec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("records and rows", func(b *testing.B) {
		b.ReportAllocs()
		var dst []Row
		for b.Loop() {
			tab, err := Parse(sec)
			if err != nil {
				b.Fatal(err)
			}
			for _, fde := range tab.FDEs() {
				if dst, err = fde.AppendRows(dst[:0]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkFirstRow measures the first CFI row at one PC of a cold libc
// through .eh_frame_hdr: reading the header, checking its table, finding
// and reading the FDE and its CIE, and building its rows. "open" adds
// opening the ELF file (elf.Open), as a one-shot backtrace pays it.
func BenchmarkFirstRow(b *testing.B) {
	f := openLibc(b)
	pc := libcPC(b, f)
	f.Close()
	first := func(b *testing.B, f *elf.File) {
		eh, hdr, hdrAddr := openHdr(b, f)
		x, err := NewIndex(hdr, hdrAddr, eh)
		if err != nil {
			b.Fatal(err)
		}
		fde, err := x.FDEForPC(pc)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fde.RowAt(pc); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("index", func(b *testing.B) {
		f := openLibc(b)
		defer f.Close()
		b.ReportAllocs()
		for b.Loop() {
			first(b, f)
		}
	})
	b.Run("open and index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f := openLibc(b)
			first(b, f)
			f.Close()
		}
	})
}

// BenchmarkRowAt measures a row lookup once the FDE's rows are cached:
// FDE.RowAt alone, and the lookup of an unwind step, finding the FDE
// (through the .eh_frame_hdr index, or the full table) then the row.
func BenchmarkRowAt(b *testing.B) {
	f := openLibc(b)
	defer f.Close()
	pc := libcPC(b, f)
	eh, hdr, hdrAddr := openHdr(b, f)
	x, err := NewIndex(hdr, hdrAddr, eh)
	if err != nil {
		b.Fatal(err)
	}
	fde, err := x.FDEForPC(pc)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := fde.RowAt(pc); err != nil {
		b.Fatal(err)
	}
	tab, err := Parse(cfiSections(b, f)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cached FDE", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fde.RowAt(pc); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		find func(uint64) (*FDE, error)
	}{{"index and cached FDE", x.FDEForPC}, {"table and cached FDE", tab.FDEForPC}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fde, err := c.find(pc)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := fde.RowAt(pc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
