package compare

import (
	"encoding/json"

	"github.com/sfdbg/sfdbg/frames"
)

// MethodRules holds one rule text per unwinding method, indexed by
// frames.Method.
type MethodRules [frames.NumMethods]string

// findingJSON is Finding as JSON (schema 2): Finding's fields in order,
// with the rules both as "sframe", "cfi" and "fp" (the keys schema 2 had
// first) and as "rules", every method's by name (added within schema 2
// for the code and later methods). TestFindingJSONHasEveryField keeps the
// two types in step.
type findingJSON struct {
	Kind         Kind                     `json:"kind"`
	Module       string                   `json:"module"`
	Function     string                   `json:"function,omitempty"`
	FuncStart    uint64                   `json:"func_start"`
	PC           uint64                   `json:"pc"`
	PCEnd        uint64                   `json:"pc_end,omitempty"`
	Instructions int                      `json:"instructions,omitempty"`
	Shift        int64                    `json:"shift,omitempty"`
	Frame        int                      `json:"frame"`
	SFrame       string                   `json:"sframe,omitempty"`
	CFI          string                   `json:"cfi,omitempty"`
	FP           string                   `json:"fp,omitempty"`
	Rules        map[frames.Method]string `json:"rules,omitempty"`
	Message      string                   `json:"message"`
	Section      string                   `json:"section,omitempty"`
	SectionOff   uint64                   `json:"section_offset,omitempty"`
	Known        string                   `json:"known,omitempty"`
	KnownID      string                   `json:"known_id,omitempty"`
	Class        string                   `json:"class,omitempty"`
	Suppressed   string                   `json:"suppressed,omitempty"`
	Baselined    bool                     `json:"baselined,omitempty"`
	// Misleads is Kind.Misleads for the code oracle's findings (derived;
	// absent for other kinds).
	Misleads *bool `json:"misleads_unwinder,omitempty"`
}

// MarshalJSON writes the finding as findingJSON.
func (f Finding) MarshalJSON() ([]byte, error) {
	w := findingJSON{Kind: f.Kind, Module: f.Module, Function: f.Function, FuncStart: f.FuncStart, PC: f.PC,
		PCEnd: f.PCEnd, Instructions: f.Instructions, Shift: f.Shift, Frame: f.Frame,
		SFrame: f.Rules[frames.MethodSFrame], CFI: f.Rules[frames.MethodCFI], FP: f.Rules[frames.MethodFP],
		Message: f.Message, Section: f.Section, SectionOff: f.SectionOff, Known: f.Known, KnownID: f.KnownID, Class: f.Class,
		Suppressed: f.Suppressed, Baselined: f.Baselined}
	switch f.Kind {
	case KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState, KindCodeScratch:
		m := f.Kind.Misleads()
		w.Misleads = &m
	}
	for m, r := range f.Rules {
		if r != "" {
			if w.Rules == nil {
				w.Rules = map[frames.Method]string{}
			}
			w.Rules[frames.Method(m)] = r
		}
	}
	return json.Marshal(&w)
}

// UnmarshalJSON reads a finding written by MarshalJSON, or by a schema 2
// writer before "rules" (the rules then come from "sframe", "cfi", "fp").
func (f *Finding) UnmarshalJSON(b []byte) error {
	var w findingJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*f = Finding{Kind: w.Kind, Module: w.Module, Function: w.Function, FuncStart: w.FuncStart, PC: w.PC,
		PCEnd: w.PCEnd, Instructions: w.Instructions, Shift: w.Shift, Frame: w.Frame,
		Message: w.Message, Section: w.Section, SectionOff: w.SectionOff, Known: w.Known, KnownID: w.KnownID, Class: w.Class,
		Suppressed: w.Suppressed, Baselined: w.Baselined}
	f.Rules[frames.MethodSFrame], f.Rules[frames.MethodCFI], f.Rules[frames.MethodFP] = w.SFrame, w.CFI, w.FP
	for m, r := range w.Rules {
		if m < frames.NumMethods {
			f.Rules[m] = r
		}
	}
	return nil
}
