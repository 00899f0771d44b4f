package frames

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// Method is a way of unwinding: one witness of where a frame's caller is.
// The unwinding methods form a set, [0, NumMethods), each a value with a
// name, a title and, when one exists, an unwinder (NewUnwinder;
// LiveMethods lists those that have one): a new witness is a new value
// here, on the same live and static paths as the others.
type Method uint8

// Unwinding methods, in the order of the set, then MethodRegs.
const (
	MethodSFrame Method = iota // the .sframe section (spec v3 Appendix A)
	MethodCFI                  // DWARF CFI: .eh_frame / .debug_frame
	MethodFP                   // the frame-pointer chain (RBP, x29, the s390x back chain)
	MethodCode                 // the machine code's stack effect (package frames/code, after objtool)
	MethodEHABI                // ARM EHABI compact unwind tables: .ARM.exidx / .ARM.extab (frames/ehabi)
	// NumMethods is the number of unwinding methods: per-method tables
	// are indexed by Method and sized by it.
	NumMethods

	// MethodRegs marks frame 0, found from the thread's registers: not an
	// unwinding method, and not in the set.
	MethodRegs = NumMethods
)

// methodInfo describes one unwinding method.
type methodInfo struct {
	name  string // the stable short name: JSON keys, --method
	title string // how messages name its data: "SFrame", "CFI"
	// unwinder builds the method's Unwinder over a space; nil when the
	// method has none, and then the method does not run.
	unwinder func(*Space) Unwinder
	// applies says whether the method's data can exist on a machine (nil:
	// on every machine).
	applies func(*arch.Arch) bool
}

// methods is the set, indexed by Method.
var methods = [NumMethods]methodInfo{
	MethodSFrame: {"sframe", "SFrame", func(s *Space) Unwinder { return &SFrameUnwinder{Space: s} }, nil},
	MethodCFI:    {"cfi", "CFI", func(s *Space) Unwinder { return &CFIUnwinder{Space: s} }, nil},
	MethodFP:     {"fp", "the FP chain", func(s *Space) Unwinder { return &FPUnwinder{Space: s} }, nil},
	MethodCode:   {"code", "the code", func(s *Space) Unwinder { return &CodeUnwinder{Space: s} }, nil},
	MethodEHABI: {"ehabi", "EHABI", func(s *Space) Unwinder { return &EHABIUnwinder{Space: s} },
		func(a *arch.Arch) bool { return a.EHABI }},
}

// ParseMethod returns the method named s ("sframe", "cfi", "fp", "code",
// "ehabi").
func ParseMethod(s string) (Method, bool) {
	for i := range methods {
		if methods[i].name == s {
			return Method(i), true
		}
	}
	return 0, false
}

func (m Method) String() string {
	switch {
	case m < NumMethods:
		return methods[m].name
	case m == MethodRegs:
		return "regs"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// Title is how messages name the method's data: "SFrame", "CFI", "the FP
// chain", "the code".
func (m Method) Title() string {
	if m < NumMethods {
		return methods[m].title
	}
	return m.String()
}

// MarshalText writes the method's name (JSON keys and values).
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a method's name.
func (m *Method) UnmarshalText(b []byte) error {
	if x, ok := ParseMethod(string(b)); ok {
		*m = x
		return nil
	}
	if string(b) == "regs" {
		*m = MethodRegs
		return nil
	}
	return fmt.Errorf("unknown unwinding method %q", b)
}

// hasUnwinder reports whether the method can unwind a live stack or a
// core: whether NewUnwinder gives one.
func (m Method) hasUnwinder() bool { return m < NumMethods && methods[m].unwinder != nil }

// NewUnwinder returns the method's Unwinder over space, or nil when the
// method has none (LiveMethods lists those that have one).
func (m Method) NewUnwinder(space *Space) Unwinder {
	if !m.hasUnwinder() {
		return nil
	}
	return methods[m].unwinder(space)
}

// LiveMethods returns the methods that have an unwinder, in
// the set's order: those a live trace or a core can run.
func LiveMethods() []Method {
	var out []Method
	for m := range NumMethods {
		if m.hasUnwinder() {
			out = append(out, m)
		}
	}
	return out
}

// Table reports whether the method reads unwind tables (SFrame, DWARF CFI,
// EHABI) rather than reconstructing a frame without them (the FP chain,
// the code).
func (m Method) Table() bool {
	return m == MethodSFrame || m == MethodCFI || m == MethodEHABI
}

// AppliesTo reports whether the method's unwind data can exist on machine
// a (nil: AMD64): EHABI's on 32-bit ARM only (arch.Arch.EHABI); every
// other method's on every machine.
func (m Method) AppliesTo(a *arch.Arch) bool {
	return m < NumMethods && (methods[m].applies == nil || methods[m].applies(archOr(a)))
}
