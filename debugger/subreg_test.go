package debugger

import "testing"

func TestSubRegisterNamesAreGdbs(t *testing.T) {
	for _, tc := range []struct {
		name        string
		full        string
		shift, bits uint
	}{
		{"eax", "rax", 0, 32}, {"ax", "rax", 0, 16}, {"al", "rax", 0, 8}, {"ah", "rax", 8, 8},
		{"edi", "rdi", 0, 32}, {"di", "rdi", 0, 16}, {"dil", "rdi", 0, 8}, {"esp", "rsp", 0, 32},
		{"r8d", "r8", 0, 32}, {"r15w", "r15", 0, 16}, {"r12l", "r12", 0, 8}, {"w29", "x29", 0, 32},
	} {
		full, shift, bits, ok := subRegister(tc.name)
		if !ok || full != tc.full || shift != tc.shift || bits != tc.bits {
			t.Errorf("subRegister(%q) = %q, %d, %d, %v; want %q, %d, %d", tc.name, full, shift, bits, ok, tc.full, tc.shift, tc.bits)
		}
	}
	for _, bad := range []string{"r7d", "r16d", "r8x", "w31", "w01", "ex", "rip", "eip"} {
		if full, _, _, ok := subRegister(bad); ok {
			t.Errorf("subRegister(%q) = %q, want none", bad, full)
		}
	}
}
