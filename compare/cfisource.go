package compare

import (
	"path/filepath"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
)

// moduleCFI is a CFISource over a frames.Module's CFI.
type moduleCFI struct{ m *frames.Module }

func (c moduleCFI) FDERanges() ([]Range, error) {
	fdes, err := c.m.CFIFDEs()
	if err != nil {
		return nil, err
	}
	out := make([]Range, len(fdes))
	for i, f := range fdes {
		out[i] = Range{f.Start, f.End}
	}
	return out, nil
}

func (c moduleCFI) Rows(start, end uint64) ([]frames.Row, error) { return c.m.CFIRows(start, end) }

// fileModule returns a module for an ELF file on disk at link-time
// addresses (bias 0).
func fileModule(path string) *frames.Module {
	return &frames.Module{Name: filepath.Base(path), Path: path, OpenPath: path, Start: 0, End: ^uint64(0)}
}

// moduleSymbolizer names functions from a module's symbol tables.
func moduleSymbolizer(m *frames.Module) Symbolizer {
	return func(addr uint64) string {
		name, _, ok := m.FuncName(addr)
		if !ok {
			return ""
		}
		return name
	}
}

// boundaryCache remembers static checks of modules done to classify live
// disagreements, keyed by module.
var boundaryCache sync.Map // *frames.Module -> *FileReport

// boundaryAt runs (once per module) the static check of a live module and
// returns the FRE-boundary finding covering the link-time pc, if any.
func boundaryAt(mod *frames.Module, runtimePC uint64) (Finding, bool) {
	v, ok := boundaryCache.Load(mod)
	if !ok {
		path := mod.OpenPath
		if path == "" {
			return Finding{}, false
		}
		rep, err := CheckFile(path, CheckOptions{})
		if err != nil {
			rep = &FileReport{}
		}
		v, _ = boundaryCache.LoadOrStore(mod, rep)
	}
	pc := runtimePC - mod.Bias
	for _, f := range v.(*FileReport).Findings {
		if f.Kind == KindFREBoundary && pc >= f.PC && pc < f.PCEnd {
			return f, true
		}
	}
	return Finding{}, false
}
