package compare

import (
	"strings"
	"testing"
)

// TestWrappedFrameLinesIndentFourColumns: a frame line too wide for 100
// columns moves its " at FILE:LINE" or " from PATH" to a line indented 4
// columns, as gdb does, in the table of all methods as in gdb's form (the
// table indented it 55 columns, under the function).
func TestWrappedFrameLinesIndentFourColumns(t *testing.T) {
	for _, line := range []string{
		"#7  0x0000000000401be4  cfi     not covered differs  __libc_start_call_main () from /tmp/sfdbg-cores/crash-v3",
		"#7  0x0000000000401be4 in __libc_start_call_main () from /tmp/sfdbg-cores/some/longer/directory/crash-v3",
		"#12 0x0000555555555139  cfi     agree       ok       level3_indirect () at testdata/src/deep.c:189",
	} {
		got := string(wrapFrameLine([]byte(line), lineWidth))
		if len(line) <= lineWidth {
			if got != line {
				t.Errorf("a line of %d columns was wrapped: %q", len(line), got)
			}
			continue
		}
		first, second, ok := strings.Cut(got, "\n")
		if !ok || !strings.HasPrefix(second, "    ") || second[4] == ' ' || !strings.HasSuffix(first, ")") {
			t.Errorf("%q wrapped as\n%s", line, got)
		}
	}
}

// TestCheckErrorNamesTheFileOnce: "notelf.txt: error: notelf.txt: not an
// ELF file" said the path twice.
func TestCheckErrorNamesTheFileOnce(t *testing.T) {
	var b strings.Builder
	(&FileReport{File: "notelf.txt", Err: "notelf.txt: file of 3 bytes is too short for an ELF header"}).WriteText(&b, Style{})
	if got, want := b.String(), "notelf.txt: error: file of 3 bytes is too short for an ELF header\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
