package debugger

import (
	"fmt"

	"github.com/sfdbg/sfdbg/frames"
)

// funcName returns the name of the function holding pc, pc's offset into
// it and its module; "" if no symbol covers pc.
func funcName(sp *frames.Space, pc uint64) (string, uint64, *frames.Module) {
	m := sp.Modules.Find(pc)
	if m == nil {
		return "", 0, nil
	}
	name, off, _ := gdbFuncName(m, pc)
	return name, off, m
}

// symAddr formats an address with its symbol: "0x55d0c3a3b452
// <spin_here+2>".
func symAddr(sp *frames.Space, a uint64) string {
	name, off, _ := funcName(sp, a)
	if name == "" {
		return fmt.Sprintf("%#x", a)
	}
	if off == 0 {
		return fmt.Sprintf("%#x <%s>", a, name)
	}
	return fmt.Sprintf("%#x <%s+%d>", a, name, off)
}

// returnAddr formats a return address with the symbol of the call, as its
// frame is named (frames.Frame.LookupPC): the function holding ra-1, and
// ra's offset into it, "0x55d0c3a3b46e <nr_inner+30>" where the call is the
// last instruction of nr_inner.
func returnAddr(sp *frames.Space, ra uint64) string {
	lookup := frames.LookupPC(ra, false)
	m := sp.Modules.Find(lookup)
	if m == nil {
		return fmt.Sprintf("%#x", ra)
	}
	name, off, ok := gdbFuncName(m, lookup)
	if !ok {
		return fmt.Sprintf("%#x", ra)
	}
	return fmt.Sprintf("%#x <%s+%d>", ra, name, off+(ra-lookup))
}

// rowText formats the rules of a row: "CFA=rsp+16 RA=c-8 FP=u".
func rowText(r *frames.Row) string {
	if !r.Found() {
		return "none"
	}
	a := r.Src.Arch
	s := fmt.Sprintf("CFA=%s RA=%s FP=%s", frames.RuleStringFor(a, r.CFA), frames.RuleStringFor(a, r.RA), frames.RuleStringFor(a, r.FP))
	if r.Signal {
		s += " signal"
	}
	return s
}

// hex16 pads a hex address for tables.
func hex16(v uint64) string { return fmt.Sprintf("0x%016x", v) }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// loadModules reads the modules of process pid from /proc/PID/maps. Their
// unwind data and symbols load lazily, on the first PC in them.
func loadModules(pid int, mem frames.Memory) (*frames.Modules, error) {
	return frames.ModulesFromMaps(pid, mem)
}

// regLine formats one line of "info registers" as gdb does
// (gdb/infcmd.c default_print_one_register_info): the name, the raw value
// from column 15, the natural value from column 35, each column after at
// least one space (pad_to_column). An empty natural ends the line after
// the raw value (a vector register).
func regLine(name, raw, natural string) string {
	b := []byte(name)
	pad := func(col int) {
		b = append(b, ' ')
		for len(b) < col {
			b = append(b, ' ')
		}
	}
	pad(15)
	b = append(b, raw...)
	if natural != "" {
		pad(35)
		b = append(b, natural...)
	}
	return string(b)
}

// gdbFuncName is m.FuncName, with a GCC clone named by its DWARF
// subprogram as gdb prints an address: <weigh+4> for weigh.isra.0+4
// (gdb/printcmd.c build_address_symbolic takes the function symbol when
// it starts where the minimal symbol does). Other names stay the ELF
// symbol's.
func gdbFuncName(m *frames.Module, pc uint64) (string, uint64, bool) {
	name, off, ok := m.FuncName(pc)
	if base, clone := frames.CloneBase(name); ok && clone {
		if dn, found := m.FunctionName(pc); found && dn == base {
			name = dn
		}
	}
	return name, off, ok
}
