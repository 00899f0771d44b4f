package compare

import (
	"debug/elf"
	"fmt"
	"path/filepath"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// FormatCTFFrame is FileReport.Format for a file whose section is the
// pre-release CTF Frame format (".ctf_frame"), checked as SFrame v1.
const FormatCTFFrame = "ctf_frame"

// addConsumerVerdicts adds to the report of the ELF file laid out by l
// the verdicts of the Linux kernel's user-space SFrame loader and of
// libsframe 2.47 on its SFrame section (sframe.Accept), with the
// executable PT_LOAD segments as the text range the kernel registers (the
// executable sections for a linked file without segments). A relocatable
// object gets no verdicts, and AcceptanceNotJudged says why: neither
// consumer reads one. With kernel set (check --profile kernel) the
// kernel's rejections become findings (AddAcceptance). A file whose only
// section is ".ctf_frame" gets Format FormatCTFFrame and no verdicts:
// neither consumer reads CTF Frame. CheckFile calls it on the module it
// checked (CheckOptions.Consumers), before closing it.
func (r *FileReport) addConsumerVerdicts(l *elfobj.Layout, kernel bool) {
	f := l.File()
	d, err := l.FindSFrame()
	if err != nil {
		return
	}
	if d.CTFFrame {
		r.Format = FormatCTFFrame
		return
	}
	if f.Type == elf.ET_REL {
		// The kernel and glibc read linked files: an object's FDEs are
		// unsorted until the linker merges them, so its "verdicts" would
		// be noise.
		r.AcceptanceNotJudged = "a relocatable object: the kernel and libsframe read what the linker makes of it"
		return
	}
	data, addr := d.Data, d.Addr
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
	r.AddAcceptance(sframe.Accept(data, addr, text), kernel)
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
