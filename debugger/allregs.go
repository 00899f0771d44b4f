package debugger

import (
	"fmt"
	"strings"
)

// cmdInfoAllRegisters implements "info all-registers": the general
// registers as "info registers" prints them, then the host's
// floating-point and vector registers (hostFPRegLines; fpRegsName).
func cmdInfoAllRegisters(s *Session, args string) error {
	if strings.TrimSpace(args) != "" {
		return fmt.Errorf("info all-registers takes no argument (\"info registers REG...\" prints some)")
	}
	if err := cmdInfoRegisters(s, ""); err != nil {
		return err
	}
	lines, err := s.hostFPRegLines()
	if err != nil {
		return err
	}
	if lines == nil {
		s.printf("%s\n", fpRegsUnavailable)
		return nil
	}
	for _, l := range lines {
		s.printf("%s\n", l)
	}
	if n, _, err := s.selected(); err == nil && n > 0 {
		s.printf("(%s: thread %d's, as in frame 0; no unwind rule saves them)\n", fpRegsName, s.thread)
	}
	return nil
}

// vectorRegLine returns the "info all-registers" line of the
// floating-point, vector or control register named name (st0, mxcsr,
// zmm20, pkru on amd64; v3, fpsr on arm64; f2, fpc on s390x) in the
// selected thread, as "info registers NAME" prints it. Errors: gdb's
// "Invalid register" for a name this processor does not have, or the
// registers that could not be read.
func (s *Session) vectorRegLine(name string) (string, error) {
	lines, err := s.hostFPRegLines()
	if err != nil {
		return "", err
	}
	for _, l := range lines {
		if n, _, _ := strings.Cut(l, " "); n == name {
			return l, nil
		}
	}
	return "", fmt.Errorf("Invalid register `%s'", name)
}
