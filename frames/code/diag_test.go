package code

import (
	"testing"
)

func TestDiag(t *testing.T) {
	p := fdeProgram(t, hostLibc)
	for _, fn := range p.funcs {
		if fn.addr == 0x759a0 {
			f := Analyze(amd64, fn.code, fn.addr, &Options{NoReturn: p.noReturn, JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
			for _, in := range f.Insts[:4] {
				st, _, _ := f.StateAt(fn.addr + uint64(in.Off))
				t.Logf("%#x %s | %s", fn.addr+uint64(in.Off), amd64.Decoder.Text(fn.code[in.Off:], fn.addr+uint64(in.Off)), st.Format(amd64))
			}
		}
	}
}
