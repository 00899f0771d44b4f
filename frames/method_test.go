package frames

import "testing"

func TestMethodsAreASetOfNamedValues(t *testing.T) {
	if MethodCode >= NumMethods {
		t.Fatalf("the code (%d) is not in the set of %d methods", MethodCode, NumMethods)
	}
	for m := range NumMethods {
		back, ok := ParseMethod(m.String())
		var fromText Method
		err := fromText.UnmarshalText([]byte(m.String()))
		if !ok || back != m || err != nil || fromText != m || m.Title() == "" {
			t.Errorf("method %d: name %q parses to %v (%v), text to %v (%v)", m, m, back, ok, fromText, err)
		}
	}
	if MethodRegs.String() != "regs" || MethodRegs < NumMethods {
		t.Errorf("MethodRegs is %q (%d), not outside the set", MethodRegs, MethodRegs)
	}
	if _, ok := ParseMethod("regs"); ok {
		t.Error("regs parses as an unwinding method")
	}
}

func TestOnlyMethodsWithAnUnwinderAreLive(t *testing.T) {
	live := LiveMethods()
	want := []Method{MethodSFrame, MethodCFI, MethodFP, MethodCode, MethodEHABI}
	if len(live) != len(want) {
		t.Fatalf("LiveMethods() = %v, want %v", live, want)
	}
	space := &Space{}
	for i, m := range want {
		if live[i] != m || !m.hasUnwinder() {
			t.Errorf("LiveMethods()[%d] = %v, want %v", i, live[i], m)
		}
		if u := m.NewUnwinder(space); u == nil || u.Method() != m {
			t.Errorf("%v: unwinder %v", m, u)
		}
	}
	// The registers of frame 0 are not a method: nothing unwinds with them.
	if MethodRegs.hasUnwinder() || MethodRegs.NewUnwinder(space) != nil {
		t.Error("MethodRegs gives an unwinder")
	}
}
