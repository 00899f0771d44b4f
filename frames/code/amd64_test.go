package code

import "github.com/sfdbg/sfdbg/sframe/arch"

// The machines of the tests: the registered values, with the decoder set
// where the machine's value does not carry one yet.
var (
	amd64 = withDecoder(arch.AMD64Arch, arch.X86{})
	arm64 = withDecoder(arch.ARM64Arch, arch.ARM64{})
	s390x = withDecoder(arch.S390XArch, arch.S390X{})
)

func withDecoder(a *arch.Arch, d arch.Decoder) *arch.Arch {
	if a.Decoder != nil {
		return a
	}
	c := *a
	c.Decoder = d
	return &c
}
