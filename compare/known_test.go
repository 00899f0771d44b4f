package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
)

const knownFixtures = "../testdata/known"

// knownCases are the fixtures of each known fault (testdata/known, built
// by scripts/build-known-fault-fixtures.sh, and GNU ld's .plt.got stub
// in every -v2/-v3 link): a finding of kind in function, in file, must
// name the fault, and how its producer was identified.
var knownCases = []struct {
	id, file, function string
	kind               Kind
	how                string
}{
	{"gnu-ld-plt-got-cfa", fixtures + "/deep-v3-O2", "__cxa_finalize@plt", KindPLT, "GNU ld version inferred from SFrame v3"},
	{"gnu-ld-plt-got-cfa", fixtures + "/deep-cet-v3-O2", "__cxa_finalize@plt", KindPLT, "inferred from SFrame v3"},
	{"gnu-ld-plt-got-cfa", fixtures + "/sqlite-v2", "__cxa_finalize@plt", KindPLT, "inferred from SFrame v2"},
	{"gnu-ld-plt-got-cfa", knownFixtures + "/known-ld-v2", "__cxa_finalize@plt", KindPLT, "identified by .comment: GNU ld (GNU Binutils for Debian) 2.44"},
	{"gnu-ld-plt-got-cfa", knownFixtures + "/known-ld-v3", "__cxa_finalize@plt", KindPLT, "identified by .comment: GNU ld (GNU Binutils for Debian) 2.47.50"},
	{"gnu-as-cfa-other-register", knownFixtures + "/known-as-v1.o", "cfa_r12", KindCFA, "GNU as version inferred from SFrame v1"},
	{"gnu-as-cfa-other-register", knownFixtures + "/known-as-v1.o", "setcontext_like", KindRA, "inferred from SFrame v1"},
	{"gnu-as-flex-offset-1-byte", knownFixtures + "/known-as-v3.o", "setcontext_like", KindRA, "inferred from SFrame v3"},
	{"gnu-as-flex-offset-1-byte", knownFixtures + "/known-ld-v3", "setcontext_like", KindRA, "inferred from SFrame v3"},
	{"gnu-as-outermost-unmarked", fixtures + "/features-v1", "_start", KindOutermost, "GNU as version inferred from SFrame v1"},
	{"gnu-as-outermost-unmarked", fixtures + "/features-v2", "_start", KindOutermost, "inferred from SFrame v2"},
	{"gnu-as-outermost-unmarked", fixtures + "/aarch64-v2", "_start", KindOutermost, "inferred from SFrame v2"},
	{"gnu-as-def-cfa-register-offset", knownFixtures + "/known-as-v1.o", "defreg_after_off", KindCFA, "inferred from SFrame v1"},
	{"gnu-as-def-cfa-register-offset", knownFixtures + "/known-as-v2.o", "defreg_after_off", KindCFA, "inferred from SFrame v2"},
	{"gnu-as-def-cfa-register-offset", knownFixtures + "/known-ld-v3", "defreg_after_off", KindCFA, "inferred from SFrame v3"},
}

func TestEveryKnownFaultIsNamedOnItsFixture(t *testing.T) {
	tested := map[string]bool{}
	for _, c := range knownCases {
		tested[c.id] = true
		t.Run(c.id+" names the "+c.kind.String()+" finding of "+c.function+" in "+filepath.Base(c.file), func(t *testing.T) {
			rep, err := CheckFile(c.file, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var hit bool
			for _, f := range rep.Findings {
				if f.Function != c.function || f.Kind != c.kind {
					continue
				}
				hit = true
				if f.KnownID != c.id || !strings.Contains(f.Known, c.how) {
					t.Errorf("%s: known %q (%s), want %s, %q", f.Message, f.KnownID, f.Known, c.id, c.how)
				}
			}
			if !hit {
				t.Fatalf("no %v finding in %s: %+v", c.kind, c.function, rep.Findings)
			}
			for _, f := range rep.Findings {
				if f.Kind.Disagreement() && f.Known == "" {
					t.Errorf("a disagreement no known fault explains: %v %s", f.Kind, f.Message)
				}
			}
		})
	}
	for _, k := range allKnownFaults() {
		if !tested[k.ID] {
			t.Errorf("known fault %s has no fixture in knownCases", k.ID)
		}
	}
}

func TestKnownFaultsData(t *testing.T) {
	ks := allKnownFaults()
	if len(ks) < 5 {
		t.Fatalf("%d known faults, want the 5 sfdbg found", len(ks))
	}
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[k.ID] {
			t.Errorf("duplicate id %s", k.ID)
		}
		seen[k.ID] = true
		if !strings.Contains(k.Text(), k.Producer+" "+k.Versions[0]) || !strings.HasSuffix(k.Text(), "["+k.ID+"]") {
			t.Errorf("text %q does not name producer, versions and id", k.Text())
		}
	}
	for _, bad := range []string{
		`[{"id":"x","producer":"GNU ld","kinds":["plt"],"sframe_versions":[2],"pattern":"nope","summary":"s"}]`,
		`[{"id":"x","producer":"gold","kinds":["plt"],"sframe_versions":[2],"pattern":"plt-got-cfa-sp16","summary":"s"}]`,
		`[{"id":"x","producer":"GNU ld","kinds":["nokind"],"sframe_versions":[2],"pattern":"plt-got-cfa-sp16","summary":"s"}]`,
		`[{"producer":"GNU ld","kinds":["plt"],"sframe_versions":[2],"pattern":"plt-got-cfa-sp16","summary":"s"}]`,
	} {
		if _, err := parseKnownFaults([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestKnownFaultNeedsItsProducer(t *testing.T) {
	ld := knownByID(t, "gnu-ld-plt-got-cfa")
	as := knownByID(t, "gnu-as-flex-offset-1-byte")
	tests := []struct {
		name string
		k    *knownFault
		p    producerSet
		want bool
	}{
		{"GNU ld 2.44 named in .comment matches", ld, parseProducers("GCC: x\x00GNU ld (GNU Binutils for Debian) 2.44\x00", 2, false), true},
		{"GNU ld 2.47.50.20261021 is 2.47.50", ld, parseProducers("GNU ld (GNU Binutils for Debian) 2.47.50.20261021", 3, false), true},
		{"GNU ld 2.43 is before the range", ld, parseProducers("GNU ld (GNU Binutils) 2.43", 2, false), false},
		{"GNU ld 2.48 is after the range", ld, parseProducers("GNU ld (GNU Binutils) 2.48", 3, false), false},
		{"lld is not GNU ld", ld, parseProducers("Linker: LLD 22.1.0\x00clang version 22", 2, false), false},
		{"an object was not linked", ld, parseProducers("GCC: x", 3, true), false},
		{"no identification: SFrame v1 is before GNU ld's range", ld, parseProducers("GCC: x", 1, false), false},
		{"no identification: SFrame v3 is GNU ld 2.47", ld, parseProducers("", 3, false), true},
		{"clang's integrated assembler is not GNU as", as, parseProducers("clang version 22.1.0", 3, true), false},
		{"GNU as writing v2 is before the range", as, parseProducers("GCC: x", 2, true), false},
		{"GNU as writing v3 is in the range", as, parseProducers("GCC: x", 3, true), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if how, got := tc.p.match(tc.k); got != tc.want {
				t.Errorf("match = %v (%s), want %v", got, how, tc.want)
			}
		})
	}
}

func knownByID(t *testing.T, id string) *knownFault {
	for _, k := range allKnownFaults() {
		if k.ID == id {
			return &k
		}
	}
	t.Fatalf("no known fault %s", id)
	return nil
}

func TestInjectedFaultsAreNotKnown(t *testing.T) {
	// A CFA offset raised by 8 in one FRE matches no known signature.
	path := patched(t, "deep-v3-O0", func(sec *sframe.Section, data []byte) {
		fre := nthFRE(t, sec, fdeFor(t, "deep-v3-O0", "level1", sec), 1)
		data[fre.Off+2] += 8
	})
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, f := range rep.Findings {
		if f.Function == "level1" {
			n++
			if f.Known != "" {
				t.Errorf("injected %v finding called known: %s", f.Kind, f.Known)
			}
		}
	}
	if n == 0 {
		t.Fatal("no finding in level1")
	}
}
