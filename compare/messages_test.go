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

// TestFrameLinesWrapAsGdbsPager wraps gdb's unlimited frame lines of the
// qsortcb crash at 70 columns and compares them with what gdb 13 printed
// in a 70-column terminal (tmux, the same stop): breaks before an
// argument (indented 4, the ", " left at the line's end) and before
// " at " (in column 4), at the last hint before the character that
// reaches the width.
func TestFrameLinesWrapAsGdbsPager(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"0x00005555555551b0 in cmp (a=a@entry=0x7fffffffe540, b=b@entry=0x7fffffffe548) at testdata/src/qsortcb.c:16",
			"0x00005555555551b0 in cmp (a=a@entry=0x7fffffffe540, \n    b=b@entry=0x7fffffffe548) at testdata/src/qsortcb.c:16"},
		{"#1  0x00007ffff7e10bf4 in msort_with_tmp (p=p@entry=0x7fffffffe4d0, b=b@entry=0x7fffffffe540, n=n@entry=4) at ./stdlib/msort.c:64",
			"#1  0x00007ffff7e10bf4 in msort_with_tmp (p=p@entry=0x7fffffffe4d0, \n    b=b@entry=0x7fffffffe540, n=n@entry=4) at ./stdlib/msort.c:64"},
		{"#3  __GI___qsort_r (b=b@entry=0x7fffffffe540, n=n@entry=4, s=s@entry=4, cmp=cmp@entry=0x5555555551a0 <cmp>, arg=arg@entry=0x0) at ./stdlib/msort.c:296",
			"#3  __GI___qsort_r (b=b@entry=0x7fffffffe540, n=n@entry=4, \n    s=s@entry=4, cmp=cmp@entry=0x5555555551a0 <cmp>, \n    arg=arg@entry=0x0) at ./stdlib/msort.c:296"},
		{"#4  0x00007ffff7e10fd8 in __GI_qsort (b=b@entry=0x7fffffffe540, n=n@entry=4, s=s@entry=4, cmp=cmp@entry=0x5555555551a0 <cmp>) at ./stdlib/msort.c:307",
			"#4  0x00007ffff7e10fd8 in __GI_qsort (b=b@entry=0x7fffffffe540, \n    n=n@entry=4, s=s@entry=4, cmp=cmp@entry=0x5555555551a0 <cmp>)\n    at ./stdlib/msort.c:307"},
		{"#5  0x0000555555555089 in main () at testdata/src/qsortcb.c:22", "#5  0x0000555555555089 in main () at testdata/src/qsortcb.c:22"},
	} {
		if got := WrapFrameLine(c.line, 70); got != c.want {
			t.Errorf("wrapped at 70:\n%s\nwant (gdb):\n%s", got, c.want)
		}
		if got := WrapFrameLine(c.line, 0); got != c.line {
			t.Errorf("unlimited width changed the line:\n%s", got)
		}
	}
}
