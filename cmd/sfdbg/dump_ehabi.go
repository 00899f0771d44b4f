package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/frames/ehabi"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// dumpEHABI prints the EHABI unwind tables of file as readelf -u does,
// when it is a 32-bit ELF file of a machine with EHABI tables (EM_ARM,
// EM_TI_C6000: machines with no SFrame ABI, so nothing of .sframe is
// lost). handled is false for any other file, which dump then reads for
// its .sframe section. Exit status 2 when the file cannot be read or its
// tables are malformed as a whole (the message names the section and
// offset); entries readelf would warn about are printed as readelf prints
// them and named on stderr.
func dumpEHABI(file *elfobj.File, w *bufio.Writer, stderr io.Writer) (status int, handled bool) {
	path := file.Path
	if file.Kind != elfobj.KindELF {
		return 0, false
	}
	f, err := sframe.NewELFFile(file.R, file.Size)
	if err != nil || !ehabi.IsEHABIMachine(f) {
		return 0, false
	}
	ef, err := ehabi.ReadELF(f)
	if err != nil && !errors.Is(err, ehabi.ErrNoTables) {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, err)
		return exitError, true
	}
	if werr := ef.WriteText(w); werr != nil {
		fmt.Fprintf(stderr, "sfdbg dump: %v\n", werr)
		return exitError, true
	}
	w.Flush()
	for _, t := range ef.Tables {
		for _, e := range t.Entries {
			if e.Err != nil {
				fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, e.Err)
			}
		}
	}
	return exitOK, true
}
