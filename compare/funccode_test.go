package compare

import (
	"bytes"
	"testing"
)

// funcCode reads a section whole when the file holds it, and a span at a
// time when the section declares more bytes than the file has (then it
// allocates for the bytes read, not for the declared size).
func TestFuncCodeWholeOrSpans(t *testing.T) {
	data := []byte{0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3, 0x90, 0x90}
	t.Run("a section the file holds is read once, whole", func(t *testing.T) {
		c := &checker{text: []textRange{{addr: 0x1000, size: uint64(len(data)), r: bytes.NewReader(data)}}}
		b, ok := c.funcCode(0x1001, 0x1004)
		if !ok || !bytes.Equal(b, data[1:4]) {
			t.Fatalf("funcCode = % x, %v", b, ok)
		}
		if c.text[0].data == nil {
			t.Error("section not kept whole")
		}
	})
	t.Run("a section declared past the file's end is read a span at a time", func(t *testing.T) {
		c := &checker{text: []textRange{{addr: 0x1000, size: 3 << 20, r: bytes.NewReader(data)}}}
		b, ok := c.funcCode(0x1004, 0x1006)
		if !ok || !bytes.Equal(b, data[4:6]) {
			t.Fatalf("funcCode = % x, %v", b, ok)
		}
		if c.text[0].data != nil || !c.text[0].partial {
			t.Error("section kept whole")
		}
		if _, ok := c.funcCode(0x1006, 0x1010); ok {
			t.Error("funcCode read past the file's end")
		}
	})
}
