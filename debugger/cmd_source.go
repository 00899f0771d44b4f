package debugger

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// cmdInfoSource implements "info source": the compilation unit of the
// selected frame's line, in gdb's words (gdb/source.c info_source_command):
// the file, the compilation directory, where the file was found and its
// number of lines (when found), the language, the producer, the DWARF
// version and whether the unit has macro information.
func cmdInfoSource(s *Session, args string) error {
	if strings.TrimSpace(args) != "" {
		return fmt.Errorf("info source takes no argument")
	}
	sym, ok := s.selectedLine()
	m := s.selectedModule()
	if !ok || m == nil {
		s.printf("No current source file.\n")
		return nil
	}
	n, tr, err := s.selected()
	if err != nil {
		return err
	}
	cu, ok := m.CompUnitAt(tr.Frames[n].LookupPC())
	if !ok {
		s.printf("No current source file.\n")
		return nil
	}
	s.printf("Current source file is %s\n", sym.File)
	if cu.CompDir != "" {
		s.printf("Compilation directory is %s\n", cu.CompDir)
	}
	if path, err := s.findSource(sym.File, m); err == nil {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		// Found through /proc/PID/root: the path in sfdbg's own root
		// when it is the same file, as gdb (in the program's root) says.
		if _, rest, ok := strings.Cut(strings.TrimPrefix(path, "/proc/"), "/root/"); ok && strings.HasPrefix(path, "/proc/") {
			if a, err := os.Stat(path); err == nil {
				if b, err := os.Stat("/" + rest); err == nil && os.SameFile(a, b) {
					path = "/" + rest
				}
			}
		}
		s.printf("Located in %s\n", path)
		if lines, err := s.sourceLines(path); err == nil && len(lines) > 0 {
			plural := "s"
			if len(lines) == 1 {
				plural = ""
			}
			s.printf("Contains %d line%s.\n", len(lines), plural)
		}
	}
	s.printf("Source language is %s.\n", dwarfLanguage(cu.Language))
	producer := cu.Producer
	if producer == "" {
		producer = "unknown"
	}
	s.printf("Producer is %s.\n", producer)
	if cu.Version != 0 {
		s.printf("Compiled with DWARF %d debugging format.\n", cu.Version)
	} else {
		s.printf("Compiled with DWARF debugging format (version unread).\n")
	}
	if cu.Macros {
		s.printf("Includes preprocessor macro info.\n")
	} else {
		s.printf("Does not include preprocessor macro info.\n")
	}
	return nil
}

// dwarfLanguage names a DW_AT_language value as gdb's language_str does
// for the language gdb's DWARF reader gives it (gdb/dwarf2/cu.c
// set_cu_language): "minimal" for one gdb has no support for.
func dwarfLanguage(lang int64) string {
	switch lang {
	case 0x1, 0x2, 0xc, 0x1d, 0x2c: // C89, C, C99, C11, C17
		return "c"
	case 0x4, 0x19, 0x1a, 0x21, 0x2a, 0x2b: // C++, C++03, C++11, C++14, C++17, C++20
		return "c++"
	case 0x7, 0x8, 0xe, 0x22, 0x23: // Fortran 77, 90, 95, 2003, 2008
		return "fortran"
	case 0x3, 0xd: // Ada 83, Ada 95
		return "ada"
	case 0x9:
		return "pascal"
	case 0xa:
		return "modula-2"
	case 0x10:
		return "objective-c"
	case 0x13:
		return "d"
	case 0x15:
		return "opencl"
	case 0x16:
		return "go"
	case 0x1c:
		return "rust"
	case 0x8001: // DW_LANG_Mips_Assembler, which GNU as writes
		return "asm"
	}
	return "minimal"
}
