package compare

import (
	"encoding/binary"
	"testing"

	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// TestRAMayBeInItsRegisterToo: where x30 was loaded from a stack slot the
// walk does not follow (glibc's AArch64 _dl_runtime_profile: ldr x30,
// [x29, #472], a copy of PLT0's saved RA), the code's row says the RA is
// in its saved slot, and x30 is the other rule check must accept: the
// CFI's RA=u there was 4 false code-ra findings on Debian arm64's ld.so.
func TestRAMayBeInItsRegisterToo(t *testing.T) {
	a := arch.ARM64Arch
	var text []byte
	for _, w := range []uint32{
		0xd107c3ff, // 0x00 sub sp, sp, #0x1f0
		0xa9007bfd, // 0x04 stp x29, x30, [sp]
		0x910003fd, // 0x08 mov x29, sp
		0xf940ffa1, // 0x0c ldr x1, [x29, #504]
		0xf900efa1, // 0x10 str x1, [x29, #472]
		0xf940efbe, // 0x14 ldr x30, [x29, #472]
		0x910003bf, // 0x18 mov sp, x29
		0xd61f03c0, // 0x1c br x30
	} {
		text = binary.LittleEndian.AppendUint32(text, w)
	}
	f := code.Analyze(a, text, 0x1000, nil)
	for _, c := range []struct {
		pc      uint64
		wantAlt bool
	}{
		{0x1014, false}, // before the load: x30 holds the RA too (InRegister)
		{0x1018, true},
		{0x101c, true},
	} {
		st, _, ok := f.StateAt(c.pc)
		if !ok {
			t.Fatalf("%#x not walked", c.pc)
		}
		row := st.Row(a)
		got := alt(a, st, a.RA, row.RA)
		if c.wantAlt && got != a.Entry.RA {
			t.Errorf("%#x: RA %s, other rule %s, want %s", c.pc, a.Format(row.RA), a.Format(got), a.Format(a.Entry.RA))
		}
	}
	// Loaded back from its own slot, x30 holds the RA: both rules, as before.
	st, _, _ := f.StateAt(0x1014)
	if got := alt(a, st, a.RA, st.Row(a).RA); got == (rule.Rule{}) {
		t.Errorf("0x1014: no other rule for the RA saved and still in x30")
	}
}
