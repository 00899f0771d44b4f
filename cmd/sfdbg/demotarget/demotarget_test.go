package demotarget

import (
	"bytes"
	"os"
	"testing"
)

func TestBinaryMatchesFixture(t *testing.T) {
	fix, err := os.ReadFile("../../../testdata/bin/deep-v3-O2")
	if err != nil {
		t.Skipf("fixture not built: %v", err)
	}
	if !bytes.Equal(fix, Binary) {
		t.Fatalf("the embedded demo binary differs from testdata/bin/deep-v3-O2; run: go generate ./cmd/sfdbg/demotarget")
	}
	if !bytes.HasPrefix(Binary, []byte("\x7fELF")) {
		t.Fatal("embedded binary is not ELF")
	}
}
