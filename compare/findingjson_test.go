package compare

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
)

func TestFindingJSONHasEveryField(t *testing.T) {
	w := reflect.TypeOf(findingJSON{})
	f := reflect.TypeOf(Finding{})
	for i := range f.NumField() {
		fd := f.Field(i)
		if !fd.IsExported() || fd.Name == "Rules" {
			continue
		}
		wd, ok := w.FieldByName(fd.Name)
		if !ok || wd.Tag != fd.Tag || wd.Type != fd.Type {
			t.Errorf("Finding.%s (%s `%s`) is not in findingJSON as it is in Finding", fd.Name, fd.Type, fd.Tag)
		}
	}
}

func TestFindingJSONKeepsTheSchema2RuleKeysAndAddsRules(t *testing.T) {
	f := Finding{Kind: KindCodeCFA, Module: "m", PC: 0x10, Frame: -1, Message: "x"}
	f.Rules[frames.MethodSFrame] = "cfa=rsp+16 ra=c-8 fp=u"
	f.Rules[frames.MethodCFI] = "cfa=rsp+16 ra=c-8 fp=u"
	f.Rules[frames.MethodCode] = "cfa=rsp+24 ra=c-8 fp=u"
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"code-cfa","module":"m","func_start":0,"pc":16,"frame":-1,"sframe":"cfa=rsp+16 ra=c-8 fp=u","cfi":"cfa=rsp+16 ra=c-8 fp=u",` +
		`"rules":{"cfi":"cfa=rsp+16 ra=c-8 fp=u","code":"cfa=rsp+24 ra=c-8 fp=u","sframe":"cfa=rsp+16 ra=c-8 fp=u"},"message":"x","misleads_unwinder":true}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Finding
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, f) {
		t.Errorf("round trip: %+v (%v), want %+v", back, err, f)
	}
	// A report written before "rules" existed reads back its rules.
	var old Finding
	if err := json.Unmarshal([]byte(`{"kind":"cfa","module":"m","func_start":0,"pc":16,"frame":-1,"sframe":"a","cfi":"b","fp":"c","message":"x"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Rules[frames.MethodSFrame] != "a" || old.Rules[frames.MethodCFI] != "b" || old.Rules[frames.MethodFP] != "c" || old.Kind != KindCFA {
		t.Errorf("old report: %+v", old)
	}
	if err := json.Unmarshal([]byte(`{"kind":"no-such-kind"}`), &old); err == nil || !strings.Contains(err.Error(), "no-such-kind") {
		t.Errorf("unknown kind: %v", err)
	}
}
