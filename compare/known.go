package compare

// Known producer faults: findings that match the signature of a fault of
// an assembler or linker sfdbg has found before (known_faults.json) say
// so, naming the fault, so that check can gate a build on the rest
// (check --ignore-known).

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// knownFault is one entry of known_faults.json: a producer's fault and
// the signature of the findings it causes.
type knownFault struct {
	// ID names the fault in suppressions and JSON ("gnu-ld-plt-got-cfa").
	ID string `json:"id"`
	// Producer is "GNU ld" or "GNU as".
	Producer string `json:"producer"`
	// Versions is the version range [min, max] known to have the fault,
	// inclusive; a version matches when it starts with max's components.
	Versions [2]string `json:"versions"`
	// SFrameVersions are the SFrame versions that range writes: when the
	// file does not name the producer's version (GNU as never does; GNU
	// ld only with --enable-linker-version), the section's version is
	// the evidence.
	SFrameVersions []int `json:"sframe_versions"`
	// Kinds are the finding kinds the fault causes (Kind names).
	Kinds []Kind `json:"kinds"`
	// Section, when set, is the section the function must lie in.
	Section string `json:"section,omitempty"`
	// Pattern names the row pattern (knownPatterns) the compared rows
	// must show.
	Pattern string `json:"pattern"`
	// Summary says what the producer does wrong.
	Summary string `json:"summary"`
	// Report is the upstream report, empty when none is on record.
	Report string `json:"report"`
}

// Text names the fault in one line: "GNU ld 2.44-2.47.50: ... [id]".
func (k *knownFault) Text() string {
	v := k.Versions[0]
	if k.Versions[1] != k.Versions[0] {
		v += "-" + k.Versions[1]
	}
	rep := "no upstream report on record"
	if k.Report != "" {
		rep = k.Report
	}
	return fmt.Sprintf("%s %s: %s (%s) [%s]", k.Producer, v, k.Summary, rep, k.ID)
}

//go:embed known_faults.json
var knownFaultsJSON []byte

// knownFaults returns known_faults.json, decoded on first use (not at
// start-up: most commands never judge a finding); a malformed file is a
// build defect, caught by the tests (TestKnownFaultsData).
var knownFaults = sync.OnceValue(func() []knownFault { return mustKnownFaults(knownFaultsJSON) })

func mustKnownFaults(b []byte) []knownFault {
	k, err := parseKnownFaults(b)
	if err != nil {
		panic(err)
	}
	return k
}

// parseKnownFaults decodes and checks a known-faults table: every entry
// has an ID, a producer, a pattern this file implements and kinds.
func parseKnownFaults(b []byte) ([]knownFault, error) {
	var k []knownFault
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("known_faults.json: %w", err)
	}
	for i, e := range k {
		switch {
		case e.ID == "" || e.Summary == "" || len(e.Kinds) == 0 || len(e.SFrameVersions) == 0:
			return nil, fmt.Errorf("known_faults.json: entry %d: id, summary, kinds and sframe_versions are required", i)
		case e.Producer != "GNU ld" && e.Producer != "GNU as":
			return nil, fmt.Errorf("known_faults.json: %s: unknown producer %q", e.ID, e.Producer)
		case knownPatterns[e.Pattern] == nil:
			return nil, fmt.Errorf("known_faults.json: %s: unknown pattern %q", e.ID, e.Pattern)
		}
	}
	return k, nil
}

// allKnownFaults returns the table of known producer faults.
func allKnownFaults() []knownFault { return slices.Clone(knownFaults()) }

// evidence is what a static finding was judged on: the SFrame and CFI rows
// compared at its first PC and the CFI row before, kept for matching known
// faults (not part of the JSON).
type evidence struct {
	sf, cfi frames.Row
	sfOK    bool        // sf was found (not "no FRE")
	cfiPrev *frames.Row // the CFI row ending where cfi starts, if any
}

// knownPatterns are the row patterns of known faults, by name.
var knownPatterns = map[string]func(a *arch.Arch, k Kind, ev *evidence) bool{
	// GNU ld's .plt.got FDE: SFrame CFA = SP+16 where CFI says SP+8.
	"plt-got-cfa-sp16": func(a *arch.Arch, _ Kind, ev *evidence) bool {
		return ev.sfOK && isValOffset(ev.sf.CFA, a.SP, 16) && isValOffset(ev.cfi.CFA, a.SP, 8)
	},
	// GNU as 2.40: CFI's CFA is based on a register other than SP and
	// FP, SFrame's on SP or FP with the same offset.
	"cfa-base-not-sp-fp": func(a *arch.Arch, _ Kind, ev *evidence) bool {
		c, s := ev.cfi.CFA, ev.sf.CFA
		return ev.sfOK && c.Kind == rule.ValOffset && c.Reg != a.SP && c.Reg != a.FP &&
			s.Kind == rule.ValOffset && (s.Reg == a.SP || s.Reg == a.FP) && s.Offset == c.Offset
	},
	// A CFA-relative RA or FP offset outside a signed byte, read back
	// from SFrame as that byte.
	"offset-wrapped-1-byte": func(_ *arch.Arch, k Kind, ev *evidence) bool {
		c, s := ev.cfi.RA, ev.sf.RA
		if k == KindFP {
			c, s = ev.cfi.FP, ev.sf.FP
		}
		return ev.sfOK && c.Kind == rule.Offset && c.Reg == rule.CFA && s.Kind == rule.Offset &&
			s.Reg == rule.CFA && (c.Offset < -128 || c.Offset > 127) && s.Offset == int64(int8(c.Offset))
	},
	// CFI says the RA is undefined (the outermost frame), SFrame gives a
	// rule for it.
	"outermost-unmarked": func(_ *arch.Arch, _ Kind, ev *evidence) bool {
		return ev.sfOK && ev.cfi.RA.Kind == rule.Undefined && !ev.sf.Outermost && ev.sf.RA.Kind != rule.Undefined
	},
	// At one PC CFI changes both the CFA's register and its offset;
	// SFrame has the new register with the previous row's offset.
	"cfa-offset-lost-at-register-change": func(_ *arch.Arch, _ Kind, ev *evidence) bool {
		p, c, s := ev.cfiPrev, ev.cfi.CFA, ev.sf.CFA
		return ev.sfOK && p != nil && p.CFA.Kind == rule.ValOffset && c.Kind == rule.ValOffset &&
			p.CFA.Reg != c.Reg && p.CFA.Offset != c.Offset && s.Kind == rule.ValOffset &&
			s.Reg == c.Reg && s.Offset == p.CFA.Offset
	},
}

func isValOffset(r rule.Rule, reg rule.Reg, off int64) bool {
	return r.Kind == rule.ValOffset && r.Reg == reg && r.Offset == off
}

// producerSet is what a file says, or lets infer, about the tools that made
// its SFrame section: the .comment identification strings and the
// section's version.
type producerSet struct {
	// Comment holds the .comment strings ("GCC: (Debian 12.2.0-14) 12.2.0",
	// "Linker: GNU ld (GNU Binutils for Debian) 2.47.50.20261021").
	Comment []string
	// SFrameVersion is the section's version (1-3).
	SFrameVersion int
	// Object is set for a relocatable object: no linker ran.
	Object bool
}

// parseProducers splits a .comment section (NUL-separated strings).
func parseProducers(comment string, version int, object bool) producerSet {
	p := producerSet{SFrameVersion: version, Object: object}
	for _, s := range strings.Split(comment, "\x00") {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(p.Comment, s) {
			p.Comment = append(p.Comment, s)
		}
	}
	return p
}

// names returns the producers' names for suppression rules: the .comment
// strings, then "GNU ld" and "GNU as" unless the file rules them out.
func (p producerSet) names() []string {
	names := slices.Clone(p.Comment)
	switch l := p.linker(); {
	case l != "":
		if !slices.Contains(names, l) {
			names = append(names, l) // lld's, without "Linker: "
		}
	case !p.Object:
		names = append(names, "GNU ld")
	}
	if p.gnuAs() {
		names = append(names, "GNU as")
	}
	return names
}

func (p producerSet) has(sub string) bool {
	for _, s := range p.Comment {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// linker returns the linker's identification: GNU ld's LINKER_VERSION
// ("GNU ld (GNU Binutils for Debian) 2.44", with --enable-linker-version)
// or lld's "Linker: LLD 22.1.0" without its prefix; "" when .comment has
// neither.
func (p producerSet) linker() string {
	for _, s := range p.Comment {
		if l, ok := strings.CutPrefix(s, "Linker: "); ok {
			return l
		}
		if strings.HasPrefix(s, "GNU ld ") {
			return s
		}
	}
	return ""
}

// gnuAs reports whether GNU as may have made part of the section: not
// when .comment names clang (its integrated assembler) and no GCC.
func (p producerSet) gnuAs() bool {
	return !p.has("clang version") || p.has("GCC: ")
}

// match says whether the file's producers can be k's, and how that is
// known: the linker's identification in .comment, or the SFrame version
// the fault's version range writes.
func (p producerSet) match(k *knownFault) (how string, ok bool) {
	inferred := func() (string, bool) {
		if !slices.Contains(k.SFrameVersions, p.SFrameVersion) {
			return "", false
		}
		return fmt.Sprintf("%s version inferred from SFrame v%d", k.Producer, p.SFrameVersion), true
	}
	switch k.Producer {
	case "GNU ld":
		if p.Object || p.has("Linker: LLD") {
			return "", false
		}
		l := p.linker()
		if l == "" {
			return inferred()
		}
		if !strings.HasPrefix(l, "GNU ld") {
			return "", false
		}
		f := strings.Fields(l)
		v := f[len(f)-1]
		if !versionIn(v, k.Versions) {
			return "", false
		}
		return "identified by .comment: " + l, true
	case "GNU as":
		if !p.gnuAs() {
			return "", false
		}
		return inferred()
	}
	return "", false
}

// versionIn reports whether the dotted version v lies in [r[0], r[1]],
// comparing as many components as the bound has ("2.47.50.20261021" is
// 2.47.50).
func versionIn(v string, r [2]string) bool {
	return compareVersion(v, r[0]) >= 0 && compareVersion(v, r[1]) <= 0
}

// compareVersion compares v with bound over bound's components: -1, 0, 1.
func compareVersion(v, bound string) int {
	vs, bs := strings.Split(v, "."), strings.Split(bound, ".")
	for i, b := range bs {
		bn, _ := strconv.Atoi(b)
		vn := 0
		if i < len(vs) {
			vn, _ = strconv.Atoi(vs[i])
		}
		if vn != bn {
			if vn < bn {
				return -1
			}
			return 1
		}
	}
	return 0
}

// matchKnown returns the known fault whose signature f matches in a file
// of the given producers and machine, with how the producer was identified.
func matchKnown(f *Finding, p producerSet, a *arch.Arch) (*knownFault, string) {
	if f.ev == nil {
		return nil, ""
	}
	known := knownFaults()
	for i := range known {
		k := &known[i]
		if !slices.Contains(k.Kinds, f.Kind) || (k.Section != "" && f.place != k.Section) {
			continue
		}
		if !knownPatterns[k.Pattern](a, f.Kind, f.ev) {
			continue
		}
		if how, ok := p.match(k); ok {
			return k, how
		}
	}
	return nil, ""
}

// markKnown sets Known and KnownID on the findings of r that match a known
// fault (matchKnown).
func markKnown(r *FileReport, p producerSet, a *arch.Arch) {
	for i := range r.Findings {
		f := &r.Findings[i]
		if k, how := matchKnown(f, p, a); k != nil {
			f.Known, f.KnownID = k.Text()+"; "+how, k.ID
		}
	}
}
