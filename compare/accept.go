package compare

import (
	"debug/elf"
	"fmt"
	"path/filepath"

	"github.com/sfdbg/sfdbg/sframe"
)

// Acceptance returns whether the Linux kernel's user-space SFrame loader
// and libsframe 2.47 would accept the SFrame section of the ELF file at
// path (sframe.Accept), with the executable PT_LOAD segments as the text
// range the kernel registers (the executable sections for a file without
// segments). A file without an SFrame section has no verdicts (nil, nil).
func Acceptance(path string) ([]sframe.Acceptance, error) {
	r, size, err := sframe.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := sframe.NewELFFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, addr, err := sframe.ELFSection(f)
	if err != nil {
		return nil, nil
	}
	var text []sframe.TextRange
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = append(text, sframe.TextRange{Start: p.Vaddr, End: p.Vaddr + p.Memsz})
		}
	}
	if len(f.Progs) == 0 {
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_EXECINSTR != 0 {
				text = append(text, sframe.TextRange{Start: s.Addr, End: s.Addr + s.Size})
			}
		}
	}
	return sframe.Accept(data, addr, text), nil
}

// AddAcceptance records the verdicts acc in the report and, when
// asDisagreements is set (check --profile kernel), turns every rule the
// kernel's loader fails into a KindKernelReject finding, which counts as a
// disagreement.
func (r *FileReport) AddAcceptance(acc []sframe.Acceptance, asDisagreements bool) {
	r.Acceptance = acc
	if !asDisagreements {
		return
	}
	for _, a := range acc {
		if a.Consumer != sframe.ConsumerLinux {
			continue
		}
		for _, x := range a.Rejections {
			r.Findings = append(r.Findings, Finding{Kind: KindKernelReject, Module: filepath.Base(r.File), Frame: -1,
				Message: fmt.Sprintf("the kernel drops the section: %s: %s at byte %#x [%s]", x.Name, x.Msg, x.Off, x.Source)})
			if r.Summary.ByKind == nil {
				r.Summary.ByKind = map[Kind]int{}
			}
			r.Summary.ByKind[KindKernelReject]++
			r.Summary.Disagreements++
		}
	}
}
