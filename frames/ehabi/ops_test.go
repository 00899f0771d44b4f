package ehabi

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// decodeWords decodes the compact entry words (personality 1, opcodes
// from the third byte) of machine m as a table at 0x1000 in byte order o.
func decodeWords(t *testing.T, m Machine, o binary.ByteOrder, words ...uint32) (*Unwind, error) {
	t.Helper()
	data := make([]byte, 4*len(words))
	for i, w := range words {
		o.PutUint32(data[4*i:], w)
	}
	sec := &Section{Name: ".extab", Addr: 0x1000, Data: data, Order: o}
	d := &Decoder{Machine: m}
	return d.decodeUnwind(sec, 0, words[0], false)
}

func TestOpcodesDecodeToTheirRules(t *testing.T) {
	type want struct {
		kind         OpKind
		arg          uint64
		first, count int
		bytes        []byte
	}
	tests := []struct {
		name  string
		m     Machine
		words []uint32
		ops   []want
	}{
		{"ARM vsp += 0x3f<<2+4, vsp -= 4, then finish", ARM, []uint32{0x81003f40},
			[]want{{kind: OpVSPAdd, arg: 256, bytes: []byte{0x3f}}, {kind: OpVSPSub, arg: 4, bytes: []byte{0x40}}}},
		{"ARM pop {r4, r14} by mask across words", ARM, []uint32{0x8101b084, 0x01b0b0b0},
			[]want{{kind: OpFinish, bytes: []byte{0xb0}}, {kind: OpPopMask, arg: 0x401, bytes: []byte{0x84, 0x01}},
				{kind: OpFinish, bytes: []byte{0xb0}}, {kind: OpFinish, bytes: []byte{0xb0}}, {kind: OpFinish, bytes: []byte{0xb0}}}},
		{"ARM vsp += 0x204 + (ULEB128 129 << 2)", ARM, []uint32{0x8100b281, 0},
			nil}, // truncated: the ULEB128 continues past the entry's words
		{"ARM VFP pop D16-D19 (0xc8)", ARM, []uint32{0x8100c803},
			[]want{{kind: OpPopVFP, first: 16, count: 3, bytes: []byte{0xc8, 0x03}}}},
		{"C6000 SP += 0x408 + (ULEB128 1 << 3)", C6000, []uint32{0x8100d201},
			[]want{{kind: OpVSPAdd, arg: 0x410, bytes: []byte{0xd2, 0x01}}}},
		{"C6000 RET B3 and MV A15 to B3", C6000, []uint32{0x8100e7e0},
			[]want{{kind: OpReturn, bytes: []byte{0xe7}}, {kind: OpMvB3, arg: 0, bytes: []byte{0xe0}}}},
	}
	for _, tt := range tests {
		for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			t.Run(tt.name+" in "+o.String(), func(t *testing.T) {
				u, err := decodeWords(t, tt.m, o, tt.words...)
				if tt.ops == nil {
					if err == nil {
						t.Fatalf("no error for a truncated operand: %+v", u.Ops)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []want
				for _, op := range u.Ops {
					got = append(got, want{op.Kind, op.Arg, op.First, op.Count, op.Bytes})
				}
				if !reflect.DeepEqual(got, tt.ops) {
					t.Errorf("ops %+v, want %+v", got, tt.ops)
				}
			})
		}
	}
}

// TestOpOffsetsFollowTheByteOrder: an opcode's offset is that of its byte
// in the section: the most significant byte of a little-endian word is
// its last.
func TestOpOffsetsFollowTheByteOrder(t *testing.T) {
	for _, tt := range []struct {
		o    binary.ByteOrder
		offs []int64
	}{{binary.LittleEndian, []int64{1, 0, 7}}, {binary.BigEndian, []int64{2, 3, 4}}} {
		u, err := decodeWords(t, ARM, tt.o, 0x8101b0b0, 0xb0000000)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tt.offs {
			if u.Ops[i].Off != want {
				t.Errorf("%v: op %d at byte %d, want %d", tt.o, i, u.Ops[i].Off, want)
			}
		}
	}
}

// TestDeclaredWordsAreClippedToTheSection: 255 more words declared, 1
// present: the entry decodes its 6 bytes and says how many it was denied.
func TestDeclaredWordsAreClippedToTheSection(t *testing.T) {
	u, err := decodeWords(t, ARM, binary.LittleEndian, 0x81ffb0b0, 0xb0b0b0b0)
	if err == nil {
		t.Fatal("no error for 255 declared words")
	}
	if len(u.Ops) != 6 {
		t.Errorf("%d ops, want 6", len(u.Ops))
	}
	if de, ok := err.(*DecodeError); !ok || de.Section != ".extab" || de.Off != 0 {
		t.Errorf("error %v does not name .extab at byte 0", err)
	}
}
