package code

import "testing"

// TestUntilReturns stops a walk at its first path that returns, with the
// same Returns as the whole walk, and walks everything of a function
// that does not return.
func TestUntilReturns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		code    []byte
		returns bool
	}{
		// test %edi,%edi; je 1f; ret; 1: ret
		{"a function whose first path returns", []byte{0x85, 0xff, 0x74, 0x01, 0xc3, 0xc3}, true},
		// test %edi,%edi; je 1f; ud2; 1: ud2
		{"a function no path of which returns", []byte{0x85, 0xff, 0x74, 0x02, 0x0f, 0x0b, 0x0f, 0x0b}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole := Analyze(amd64, tc.code, 0x1000, nil)
			part := Analyze(amd64, tc.code, 0x1000, &Options{UntilReturns: true})
			if whole.Returns != tc.returns || part.Returns != tc.returns {
				t.Fatalf("Returns: whole walk %v, until returns %v; want %v", whole.Returns, part.Returns, tc.returns)
			}
			if tc.returns && part.Decoded >= whole.Decoded {
				t.Errorf("until returns decoded %d instructions, the whole walk %d", part.Decoded, whole.Decoded)
			}
			if !tc.returns && part.Decoded != whole.Decoded {
				t.Errorf("until returns decoded %d instructions, the whole walk %d", part.Decoded, whole.Decoded)
			}
		})
	}
}
