package frames

import (
	"os"
	"testing"
)

// TestMain keeps the decompressed DWARF that tests read (libc's, with
// libc6-dbg) out of the user's cache: DebugCacheDir is a temporary
// directory, removed at the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sfdbg-frames-cache-")
	if err == nil {
		DebugCacheDir = dir
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}
