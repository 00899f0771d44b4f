package arch

import "testing"

func TestARMSignalTrampolinesAreKnownByTheirCode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      []byte
		rt, tramp bool
	}{
		{"glibc's Thumb __default_sa_restorer (mov.w r7, #119; svc 0)", []byte{0x4f, 0xf0, 0x77, 0x07, 0x00, 0xdf, 0x00, 0xbf}, false, true},
		{"glibc's Thumb __default_rt_sa_restorer (mov.w r7, #173; svc 0)", []byte{0x4f, 0xf0, 0xad, 0x07, 0x00, 0xdf, 0x00, 0xbf}, true, true},
		{"the kernel's ARM sigreturn (mov r7, #119; svc 0)", []byte{0x77, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef}, false, true},
		{"the kernel's ARM rt_sigreturn (mov r7, #173; svc 0)", []byte{0xad, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef}, true, true},
		{"the kernel's Thumb rt_sigreturn (movs r7, #173; svc 0)", []byte{0xad, 0x27, 0x00, 0xdf, 0, 0, 0, 0}, true, true},
		{"another system call (mov r7, #1: exit) is no trampoline", []byte{0x01, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef}, false, false},
		{"push {r7, lr} is no trampoline", []byte{0x80, 0xb5, 0, 0, 0, 0, 0, 0}, false, false},
		{"too few bytes", []byte{0xad, 0x27}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, ok := ARMArch.Signal.Tramp(tc.code)
			if ok != tc.tramp || rt != tc.rt {
				t.Errorf("rt %v, trampoline %v; want %v, %v", rt, ok, tc.rt, tc.tramp)
			}
		})
	}
	// sigcontext's arm_sp is r13's word: 13 words after arm_r0.
	if got := ARMArch.Signal.Slot(13); got != 128+32+4*13 {
		t.Errorf("rt frame's saved SP at SP+%d, want %d", got, 128+32+4*13)
	}
}
