package frames

import (
	"debug/dwarf"
	"encoding/binary"
	"testing"
)

// TestTypeChainEndsRefusesATypedefCycle builds DWARF 4 with a typedef
// whose DW_AT_type names itself: debug/dwarf's Data.Type would recurse
// on it without end (a fatal stack overflow), so ReturnType must not ask
// it (the review of finish's return value found it).
func TestTypeChainEndsRefusesATypedefCycle(t *testing.T) {
	// Abbreviations: 1 compile unit (children), 2 typedef (DW_AT_name
	// string, DW_AT_type ref4), 3 base type (DW_AT_byte_size data1).
	abbrev := []byte{
		1, 0x11, 1, 0, 0,
		2, 0x16, 0, 0x03, 0x08, 0x49, 0x13, 0, 0,
		3, 0x24, 0, 0x0b, 0x0b, 0, 0,
		0,
	}
	// Unit header: length, version 4, abbrev offset 0, address size 8.
	body := []byte{4, 0, 0, 0, 0, 0, 8}
	body = append(body, 1) // the unit DIE at 11
	self := uint32(4 + len(body))
	body = append(body, 2, 'a', 0)
	body = binary.LittleEndian.AppendUint32(body, self-0) // CU-relative: the unit starts at 0
	good := uint32(4 + len(body))
	body = append(body, 2, 'b', 0)
	body = binary.LittleEndian.AppendUint32(body, good+7) // to the base type after it (code, "b\0", ref4)
	body = append(body, 3, 4)
	body = append(body, 0) // end of the unit's children
	info := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	info = append(info, body...)
	d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if typeChainEnds(d, dwarf.Offset(self)) {
		t.Errorf("a typedef naming itself at %#x: the chain ends", self)
	}
	if !typeChainEnds(d, dwarf.Offset(good)) {
		t.Errorf("a typedef of a base type at %#x: the chain does not end", good)
	}
}
