package demotarget

import (
	"bytes"
	"os"
	"testing"
)

func TestBinaryMatchesFixture(t *testing.T) {
	for name, bin := range map[string][]byte{Name: Binary, FaultName: FaultBinary} {
		t.Run(name+" is the fixture's copy", func(t *testing.T) {
			fix, err := os.ReadFile("../../../testdata/bin/" + name)
			if err != nil {
				t.Skipf("fixture not built: %v", err)
			}
			if !bytes.Equal(fix, bin) {
				t.Fatalf("the embedded %s differs from testdata/bin/%s; run: go generate ./cmd/sfdbg/demotarget", name, name)
			}
			if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
				t.Fatal("embedded binary is not ELF")
			}
		})
	}
}
