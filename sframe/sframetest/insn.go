package sframetest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// InsnBlock is one line of a .insn golden file (scripts/fixtures-lib.sh
// insn_golden): the instruction lengths objdump -d found decoding section
// Sec from address Start.
type InsnBlock struct {
	Sec   string
	Start uint64
	Lens  []int
}

// ReadInsnGolden reads the .insn golden file at path: lines "SECTION
// START LENGTHS", START in hex, LENGTHS one hex digit per instruction;
// lines starting with # are comments. The error names the file and line.
func ReadInsnGolden(path string) ([]InsnBlock, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []InsnBlock
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: bad line %q", path, n, sc.Text())
		}
		start, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		b := InsnBlock{Sec: f[0], Start: start, Lens: make([]int, len(f[2]))}
		for i, c := range f[2] {
			l, err := strconv.ParseUint(string(c), 16, 8)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			b.Lens[i] = int(l)
		}
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}
