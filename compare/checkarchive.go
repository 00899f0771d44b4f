package compare

import (
	"fmt"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// CheckArchive checks every ELF member of the ar archive at path as
// CheckFile checks a file, and returns one report per member, named
// "path(member)" as binutils name archive members, in archive order.
// Members that are not ELF (an LTO member's LLVM bitcode, a text file) are
// not checked; a member without SFrame gets a report with NoSFrame set.
// When no member has SFrame the one report is for the archive, with Err
// and NoSFrame set. The error is the archive's own: unreadable, or not a
// well-formed archive (*elfobj.ArchiveError, naming the byte offset).
func CheckArchive(path string, opts CheckOptions) ([]*FileReport, error) {
	f, err := elfobj.Open(path)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
		return []*FileReport{{File: path, Findings: []Finding{}, Err: err.Error()}}, err
	}
	defer f.Close()
	return checkArchive(f, opts)
}

// checkArchive checks the ar archive f (CheckArchive), open and
// classified once: its members are read through f.
func checkArchive(f *elfobj.File, opts CheckOptions) ([]*FileReport, error) {
	path := f.Path
	fail := func(err error) ([]*FileReport, error) {
		err = fmt.Errorf("%s: %w", path, err)
		return []*FileReport{{File: path, Findings: []Finding{}, Err: err.Error()}}, err
	}
	members, err := elfobj.ReadArchive(f.R, f.Size)
	if err != nil {
		return fail(err)
	}
	var elfMembers []elfobj.Member
	for _, m := range members {
		var magic [4]byte
		if n, _ := f.R.ReadAt(magic[:], m.Off); n == 4 && m.Size >= 4 && string(magic[:]) == "\x7fELF" {
			elfMembers = append(elfMembers, m)
		}
	}
	var out []*FileReport
	withSFrame := 0
	for _, m := range elfMembers {
		name := fmt.Sprintf("%s(%s)", path, m.Name)
		mod := &frames.Module{Name: m.Name, Path: path, OpenPath: path, Opened: f, Off: m.Off, Size: m.Size, Start: 0, End: ^uint64(0)}
		rep, _ := checkModule(name, mod, opts)
		mod.Close()
		if !rep.NoSFrame {
			withSFrame++
		}
		out = append(out, rep)
	}
	if opts.AllMembers && opts.Code != nil && len(out) > 0 {
		return out, nil
	}
	if withSFrame == 0 {
		err := fmt.Errorf("%s: none of its %d ELF members has SFrame: %w", path, len(elfMembers), sframe.ErrNoSection)
		return []*FileReport{{File: path, Findings: []Finding{}, Err: err.Error(), NoSFrame: true, NoUnwindTables: len(elfMembers) == 0}}, nil
	}
	return out, nil
}
