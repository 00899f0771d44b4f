package code

import "testing"

// TestNoReturnNamesGlibcAliases checks that a call named by a symbol
// version, a PLT entry or glibc's internal alias is known not to return:
// ____longjmp_chk calls __GI___fortify_fail (triage of the real-world
// corpus: a fall-through past it into a join was a false code-state).
func TestNoReturnNamesGlibcAliases(t *testing.T) {
	for name, want := range map[string]bool{
		"abort": true, "abort@plt": true, "exit@GLIBC_2.2.5": true, "__GI___fortify_fail": true,
		"__GI_abort": true, "__GI___printf": false, "printf": false, "__GI_": false,
	} {
		if got := NoReturn(name); got != want {
			t.Errorf("NoReturn(%q) = %v, want %v", name, got, want)
		}
	}
}
