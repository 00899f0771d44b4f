package cfi

import (
	"encoding/binary"
	"testing"
)

// GNU as writes .cfi_signal_frame into .debug_frame as the augmentation
// "S" alone (no "z", no augmentation data): glibc's armhf sigreturn
// trampolines have it in libc.so.6's .debug_frame.
func TestDebugFrameSignalAugmentationWithoutZ(t *testing.T) {
	b := newBuilder(DebugFrame, binary.LittleEndian, false)
	b.ptrSize = 4
	cie := b.cie(cieSpec{aug: "S", daf: -4, ra: 14})
	b.fde(cie, fdeSpec{start: 0x1000, length: 0x20})
	tab, err := Parse(b.section())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	fdes := tab.FDEs()
	if len(fdes) != 1 || !fdes[0].CIE.Signal || fdes[0].Start != 0x1000 {
		t.Fatalf("got %d FDEs, want one at 0x1000 whose CIE is a signal frame's", len(fdes))
	}
}
