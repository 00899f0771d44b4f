package debugger

import (
	"strings"
	"testing"
)

// TestNoCommandDropsWordsItDoesNotUnderstand: a command line with a word
// the command does not take fails and names it; none runs as if the word
// were not there ("bt full" printed a plain bt).
func TestNoCommandDropsWordsItDoesNotUnderstand(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"bt full junk", `"junk" is neither a frame count`},
		{"bt 3 full junk", `"junk" is neither a frame count`},
		{"bt 3 junk", `"junk" is neither a frame count`},
		{"frame 1 junk", `Invalid number "1 junk"`},
		{"up 1 junk", `Invalid number "1 junk"`},
		{"info frame 1 junk", `Invalid number "1 junk"`},
		{"info sframe spin_here junk", "near `junk'"},
		{"info threads junk", `"info threads" takes no arguments ("junk" was given).`},
		{"info sharedlibrary junk", `"info sharedlibrary" takes no arguments ("junk" was given).`},
		{"info breakpoints 1", `"info breakpoints" takes no arguments ("1" was given).`},
		{"info signals SIGSEGV junk", `Unknown signal "SIGSEGV junk"`},
		{"info line spin_here junk", `"spin_here junk" not defined`},
		{"info symbol $pc junk", "near `junk'"},
		{"info registers rip junk", "Invalid register `junk'"},
		{"thread 1 junk", `Invalid number "1 junk"`},
		{"print 1 junk", "near `junk'"},
		{"x/4xg $sp junk", "near `junk'"},
		{"disassemble spin_here junk", "near `junk'"},
		{"list spin_here junk", `"spin_here junk" not defined`},
		{"break spin_here junk", `"spin_here junk" not defined`},
		{"until spin_here junk", `"spin_here junk" not defined`},
		{"stepi 1 junk", `Invalid number "1 junk"`},
		{"continue 3", `"continue" takes no arguments ("3" was given).`},
		{"finish junk", `"finish" takes no arguments ("junk" was given).`},
		{"detach junk", `"detach" takes no arguments ("junk" was given).`},
		{"kill junk", `"kill" takes no arguments ("junk" was given).`},
		{"quit 3", `"quit" takes no arguments ("3" was given).`},
		{"handle SIGUSR1 nostop junk", `Unrecognized action "junk"`},
		{"set backtrace limit 5 junk", `"5 junk" is not a frame count`},
		{"show backtrace limit junk", "Usage: show backtrace limit"},
		{"set pagination off junk", `set pagination: want one value (on|off), got "off junk".`},
		{"show pagination junk", `"show pagination" takes no arguments ("junk" was given).`},
		{"help bt junk", `"backtrace" has no subcommand "junk".`},
	} {
		t.Run(tc.line+" fails", func(t *testing.T) {
			got, ok := transcript(t, "deep-spin", []string{tc.line, "frame"})
			if ok {
				t.Errorf("%q succeeded:\n%s", tc.line, got)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("%q: want %q in\n%s", tc.line, tc.want, got)
			}
			if !strings.Contains(got, "\n#0  spin_here") {
				t.Errorf("%q ended the session or changed the frame:\n%s", tc.line, got)
			}
		})
	}
}

// TestGDBScriptSettingsAreAccepted: the settings every gdb script
// carries succeed (a -batch run keeps exit status 0) and show their value.
func TestGDBScriptSettingsAreAccepted(t *testing.T) {
	got, ok := transcript(t, "deep-spin", []string{"set pagination off", "set confirm off", "set width 0", "set height 0",
		"set print pretty on", "show pagination", "show confirm", "show width", "show height", "show print pretty", "set height 40", "show height"})
	if !ok {
		t.Fatalf("a setting failed:\n%s", got)
	}
	for _, want := range []string{"State of pagination is off.", "Whether to confirm potentially dangerous operations is off.",
		"Number of characters a line holds is unlimited.", "Number of lines a page holds is unlimited.",
		"Pretty formatting of structures is on.", "Number of lines a page holds is 40."} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in\n%s", want, got)
		}
	}
	for _, tc := range []struct{ line, want string }{
		{"set pagination maybe", `set pagination: "maybe" is not on or off.`},
		{"set width -1", `set width: "-1" is not a number of columns`},
		{"set print ugly on", "Usage: set print pretty on|off."},
		{"set var x = 1", `No symbol "x" in current context.`},
	} {
		got, ok := transcript(t, "deep-spin", []string{tc.line})
		if ok || !strings.Contains(got, tc.want) {
			t.Errorf("%q: ok %v, want %q in\n%s", tc.line, ok, tc.want, got)
		}
	}
}
