package frames

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func addr8(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// testLocs returns location sections with little-endian 8-byte addresses.
func testLocs() *locSections {
	return &locSections{order: binary.LittleEndian, addrSize: 8}
}

// A DWARF 5 list as GCC 12 writes it (view pairs first, a base address,
// offset pairs), plus the other entry kinds, each looked up.
func TestLocationListsV5FindTheEntryCoveringThePC(t *testing.T) {
	ls := testLocs()
	ls.addr = cat(addr8(0), addr8(0x5000), addr8(0x5010)) // .debug_addr: base 8 = index 0 at 0x5000
	ls.loclists = cat(
		[]byte{0xee},                 // one byte before the list: offsets are honoured
		[]byte{lleGNUViewPair, 0, 0}, // GCC's location views
		[]byte{lleGNUViewPair, 1, 2}, //
		[]byte{lleBaseAddress}, addr8(0x1000),
		[]byte{lleOffsetPair}, uleb(0x10), uleb(0x20), uleb(1), []byte{0x55}, // [0x1010, 0x1020): rdi
		[]byte{lleStartLength}, addr8(0x2000), uleb(0x10), uleb(1), []byte{0x53}, // [0x2000, 0x2010): rbx
		[]byte{lleStartEnd}, addr8(0x3000), addr8(0x3008), uleb(2), []byte{0x91, 0x70}, // fbreg -16
		[]byte{lleStartxLength}, uleb(0), uleb(8), uleb(1), []byte{0x50}, // [0x5000, 0x5008): rax
		[]byte{lleStartxEndx}, uleb(0), uleb(1), uleb(1), []byte{0x51}, // shadowed by the entry before at 0x5000
		[]byte{lleBaseAddressx}, uleb(1),
		[]byte{lleOffsetPair}, uleb(0), uleb(4), uleb(1), []byte{0x52}, // [0x5010, 0x5014): rcx
		[]byte{lleDefaultLocation}, uleb(1), []byte{0x5f}, // elsewhere: r15
		[]byte{lleEndOfList},
	)
	for _, tc := range []struct {
		pc   uint64
		want byte
	}{{0x1010, 0x55}, {0x101f, 0x55}, {0x2008, 0x53}, {0x3004, 0x91}, {0x5004, 0x50}, {0x5008, 0x51}, {0x5012, 0x52}, {0x1020, 0x5f}, {0x9999, 0x5f}} {
		expr, found, err := ls.findV5(1, 0, 8, tc.pc)
		if err != nil || !found || expr[0] != tc.want {
			t.Errorf("pc %#x: %x, %v, %v; want an expression starting %#x", tc.pc, expr, found, err, tc.want)
		}
	}
	// Without a default, a PC no entry covers is optimized out.
	ls.loclists = cat([]byte{lleOffsetPair}, uleb(0), uleb(4), uleb(1), []byte{0x55}, []byte{lleEndOfList})
	if _, found, err := ls.findV5(0, 0x100, 0, 0x200); found || err != nil {
		t.Errorf("a PC outside the list: found %v, %v", found, err)
	}
}

func TestLocationListsV4FindTheEntryCoveringThePC(t *testing.T) {
	ls := testLocs()
	ls.loc = cat(
		addr8(0x10), addr8(0x20), []byte{1, 0}, []byte{0x55}, // base-relative [0x1010, 0x1020)
		addr8(^uint64(0)), addr8(0x4000), // base address selection
		addr8(0x0), addr8(0x8), []byte{2, 0}, []byte{0x91, 0x70},
		addr8(0), addr8(0),
	)
	for _, tc := range []struct {
		pc    uint64
		want  byte
		found bool
	}{{0x1010, 0x55, true}, {0x4004, 0x91, true}, {0x1020, 0, false}} {
		expr, found, err := ls.findV4(0, 0x1000, tc.pc)
		if err != nil || found != tc.found || found && expr[0] != tc.want {
			t.Errorf("pc %#x: %x, %v, %v", tc.pc, expr, found, err)
		}
	}
}

// Every length and offset is checked: truncated lists, lengths past the
// end, offsets outside the section, indices outside .debug_addr and
// endless lists are errors naming the section and byte, never a panic.
func TestHostileLocationListsAreErrors(t *testing.T) {
	good := cat([]byte{lleBaseAddress}, addr8(0x1000), []byte{lleOffsetPair}, uleb(0), uleb(0x10), uleb(1), []byte{0x55}, []byte{lleEndOfList})
	ls := testLocs()
	for n := 0; n < len(good)-1; n++ {
		ls.loclists = good[:n]
		if _, _, err := ls.findV5(0, 0, 0, 0x2000); err == nil {
			t.Errorf("a list cut to %d bytes: no error", n)
		}
	}
	for _, tc := range []struct {
		name, want string
		list       []byte
		off        int64
	}{
		{"an expression longer than the section", ".debug_loclists", cat([]byte{lleOffsetPair}, uleb(0), uleb(0x10), uleb(1<<40), []byte{0x55}), 0},
		{"an unknown entry kind", "unknown location list entry kind 0x42", []byte{0x42, 0}, 0},
		{"an offset past the section", "outside .debug_loclists", good, int64(len(good)) + 5},
		{"a negative offset", "outside .debug_loclists", good, -1},
		{"an index outside .debug_addr", ".debug_addr: index 7", cat([]byte{lleStartxLength}, uleb(7), uleb(8), uleb(1), []byte{0x50}, []byte{lleEndOfList}), 0},
		{"an endless list", "more than 65536 entries", bytes.Repeat([]byte{lleGNUViewPair, 0, 0}, maxLocListEntries+1), 0},
	} {
		ls.loclists = tc.list
		_, _, err := ls.findV5(tc.off, 0, 0, 0x5)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	ls.loc = cat(addr8(0), addr8(0x10), []byte{0xff, 0xff})
	if _, _, err := ls.findV4(0, 0, 5); err == nil || !strings.Contains(err.Error(), ".debug_loc") {
		t.Errorf("a .debug_loc expression past the end: %v", err)
	}
}

func TestExpressionOperationLengths(t *testing.T) {
	expr := cat(
		[]byte{0x03}, addr8(0x4010), // DW_OP_addr
		[]byte{0x91}, []byte{0xb0, 0x7f}, // DW_OP_fbreg -80
		[]byte{0xa3, 1, 0x55},       // DW_OP_entry_value(DW_OP_reg5)
		[]byte{0x9f},                // DW_OP_stack_value
		[]byte{0x93, 4},             // DW_OP_piece 4
		[]byte{0xfa, 0x48, 6, 0, 0}, // DW_OP_GNU_parameter_ref
		[]byte{0x92, 7, 0x08},       // DW_OP_bregx 7, 8
	)
	var lens []int
	for pc := 0; pc < len(expr); {
		n, err := opLen(expr, pc)
		if err != nil {
			t.Fatal(err)
		}
		lens = append(lens, n)
		pc += n
	}
	if got, want := lens, []int{9, 3, 3, 1, 2, 5, 3}; !equalInts(got, want) {
		t.Errorf("lengths %v, want %v", got, want)
	}
	for _, bad := range [][]byte{{0x03, 1, 2}, {0xa3, 5, 0x55}, {0x91}, {0xe1}} {
		if _, err := opLen(bad, 0); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
	// A piece with nothing before it is a part optimized out.
	if got := emptyPieces(cat([]byte{0x93, 4}, []byte{0x55, 0x93, 4}, []byte{0x93, 8})); !equalBools(got, []bool{true, false, true}) {
		t.Errorf("empty pieces %v", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzLocationLists reads arbitrary bytes as .debug_loclists, .debug_loc
// and DWARF expressions: errors, never a panic or a hang.
func FuzzLocationLists(f *testing.F) {
	f.Add(cat([]byte{lleBaseAddress}, addr8(0x1000), []byte{lleOffsetPair}, uleb(0), uleb(0x10), uleb(1), []byte{0x55}, []byte{lleEndOfList}), uint64(0x1004), int64(0))
	f.Add(cat([]byte{lleStartxLength}, uleb(0), uleb(8), uleb(1), []byte{0xa3, 1, 0x55}), uint64(0x5000), int64(0))
	f.Add(cat(addr8(0x10), addr8(0x20), []byte{1, 0}, []byte{0x55}, addr8(0), addr8(0)), uint64(0x1010), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, pc uint64, off int64) {
		ls := testLocs()
		ls.loclists, ls.loc, ls.addr = data, data, data
		ls.findV5(off, 0x1000, 8, pc)
		ls.findV4(off, 0x1000, pc)
		for p := 0; p < len(data); {
			n, err := opLen(data, p)
			if err != nil {
				break
			}
			p += n
		}
		emptyPieces(data)
		singleReg(data)
	})
}
