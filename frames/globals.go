package frames

// Names at the top level of a module's compilation units: global and
// file-static variables, and the structure, union, enum and typedef names
// ptype takes ("struct rec", "color", "int"), indexed on first use by one
// pass over the units' top-level entries (their children are skipped).

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"sync"

	"github.com/sirupsen/logrus"
)

// maxGlobalNames bounds the names one module's index keeps.
const maxGlobalNames = 1 << 20

// globalRef is where a top-level name is defined.
type globalRef struct {
	off  dwarf.Offset
	unit *lineUnit
}

// globalIndex maps top-level names to their entries.
type globalIndex struct {
	vars  map[string]globalRef // variables with a location or constant value
	types map[string]globalRef // "struct rec", "union word", "enum color", "myint", "int"
}

// globalState is the part of a lineTable the global index uses.
type globalState struct {
	globOnce sync.Once
	glob     globalIndex
}

// globals returns the module's index, building it on first use.
func (lt *lineTable) globals() *globalIndex {
	lt.globOnce.Do(func() {
		lt.glob = globalIndex{vars: map[string]globalRef{}, types: map[string]globalRef{}}
		if err := lt.indexGlobals(); err != nil {
			logrus.Debugf("frames: global names: %v", err)
		}
	})
	return &lt.glob
}

// indexGlobals fills lt.glob from every unit's top-level entries.
func (lt *lineTable) indexGlobals() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("DWARF: %v", r)
		}
	}()
	full := lt
	if lt.sparse != nil {
		// Units read one at a time: the walk takes the whole file's.
		if full = lt.sparse.fullTable(); full == nil {
			return errors.New("the DWARF cannot be read whole")
		}
	}
	units := full.noRange
	seen := map[*lineUnit]bool{}
	for _, u := range units {
		seen[u] = true
	}
	for _, c := range full.ranges {
		if !seen[c.unit] {
			seen[c.unit] = true
			units = append(units, c.unit)
		}
	}
	r := full.whole.Reader()
	n := 0
	for _, u := range units {
		if !u.cu.Children {
			continue
		}
		r.Seek(u.cu.Offset)
		if _, err := r.Next(); err != nil {
			return err
		}
		for {
			e, err := r.Next()
			if err != nil {
				return err
			}
			if e == nil || e.Tag == 0 {
				break
			}
			if n++; n > maxGlobalNames {
				return fmt.Errorf("more than %d top-level entries", maxGlobalNames)
			}
			name, _ := e.Val(dwarf.AttrName).(string)
			key := ""
			switch e.Tag {
			case dwarf.TagVariable:
				if e.AttrField(dwarf.AttrLocation) == nil && e.AttrField(dwarf.AttrConstValue) == nil {
					break
				}
				if name == "" { // a definition of a declaration (DW_AT_specification)
					if off, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
						r2 := full.whole.Reader()
						r2.Seek(off)
						if d, err := r2.Next(); err == nil && d != nil {
							name, _ = d.Val(dwarf.AttrName).(string)
						}
					}
				}
				if _, dup := lt.glob.vars[name]; name != "" && !dup {
					lt.glob.vars[name] = globalRef{e.Offset, u}
				}
			case dwarf.TagStructType:
				key = "struct " + name
			case dwarf.TagUnionType:
				key = "union " + name
			case dwarf.TagEnumerationType:
				key = "enum " + name
			case dwarf.TagTypedef, dwarf.TagBaseType:
				key = name
			}
			if _, decl := e.Val(dwarf.AttrDeclaration).(bool); key != "" && name != "" && !decl {
				if _, dup := lt.glob.types[key]; !dup {
					lt.glob.types[key] = globalRef{e.Offset, u}
				}
			}
			if e.Children {
				r.SkipChildren()
			}
		}
	}
	return nil
}

// LookupGlobal returns the global or file-static variable name of the
// module's DWARF, as a Var of a Scope it is read with (Scope.Read: its
// location is an address, DW_OP_addr). ok is false when the module's
// DWARF has no such variable.
func (m *Module) LookupGlobal(name string) (sc *Scope, v *Var, ok bool) {
	lt := m.lines()
	if lt == nil {
		return nil, nil, false
	}
	ref, ok := lt.globals().vars[name]
	if !ok {
		return nil, nil, false
	}
	defer func() {
		if r := recover(); r != nil {
			sc, v, ok = nil, nil, false
		}
	}()
	wd := lt.wholeData()
	if wd == nil {
		return nil, nil, false
	}
	w := scopeWalk{lt: lt, d: wd, r: wd.Reader()}
	w.r.Seek(ref.off)
	e, err := w.r.Next()
	if err != nil || e == nil {
		return nil, nil, false
	}
	vr := w.variable(e)
	if vr.Name == "" {
		vr.Name = name
	}
	if spec, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok && vr.Type == nil {
		vr.TypeErr = nil
		w.r.Seek(spec)
		if d, err := w.r.Next(); err == nil && d != nil {
			if off, ok := d.Val(dwarf.AttrType).(dwarf.Offset); ok {
				vr.Type, vr.TypeErr = readType(w.d, off)
			}
		}
		if vr.Type == nil && vr.TypeErr == nil {
			vr.TypeErr = fmt.Errorf("global %s has no type", name)
		}
	}
	if vr.loc.err == errLocListPending {
		vr.loc = varLoc{kind: locError, err: fmt.Errorf("global %s has a location list", name)}
	}
	return &Scope{m: m, lt: lt, unit: ref.unit}, &vr, true
}

// LookupType returns the type named name in the module's DWARF: "struct
// rec", "union word", "enum color", a typedef's or a base type's name.
func (m *Module) LookupType(name string) (dwarf.Type, bool) {
	lt := m.lines()
	if lt == nil {
		return nil, false
	}
	ref, ok := lt.globals().types[name]
	if !ok {
		return nil, false
	}
	wd := lt.wholeData()
	if wd == nil {
		return nil, false
	}
	t, err := readType(wd, ref.off)
	return t, err == nil
}
