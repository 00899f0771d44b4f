package debugger

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

var capture = flag.Bool("capture", false, "recapture the snapshots in testdata/snap from live fixtures (then run with -update)")

// TestCaptureSnapshots rewrites testdata/snap/deep-MODE.json from the
// deep-v3-O2 fixture when run with -capture. The goldens of the transcript
// tests depend on these files, not on a live process.
func TestCaptureSnapshots(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to recapture the snapshots")
	}
	for _, mode := range []string{"spin", "threads", "signal"} {
		cmd := startFixture(t, "deep-v3-O2", mode)
		st, err := Seize(cmd.Process.Pid)
		skipIfNoPtrace(t, err)
		if err != nil {
			t.Fatal(err)
		}
		err = WriteSnapshot(filepath.Join("testdata", "snap", "deep-"+mode+".json"), st, 12<<10,
			func(p string) bool { return strings.HasSuffix(p, "/deep-v3-O2") })
		st.Detach()
		if err != nil {
			t.Fatal(err)
		}
	}
}
