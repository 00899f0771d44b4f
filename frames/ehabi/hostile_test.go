package ehabi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// TestTableInHugeNOBITSSectionAllocatesNothing: an index entry that points
// into a SHT_NOBITS section declaring 2 GiB (no bytes in the file) gets an
// error, and the section's declared size is never allocated.
func TestTableInHugeNOBITSSectionAllocatesNothing(t *testing.T) {
	arm, armx := armFixture()
	data := genELF(ARM, binary.LittleEndian, arm, armx)
	// Section 3 (.ARM.extab) becomes SHT_NOBITS of 2 GiB.
	shoff := binary.LittleEndian.Uint32(data[32:])
	sh := data[shoff+3*40:]
	binary.LittleEndian.PutUint32(sh[4:], uint32(elf.SHT_NOBITS))
	binary.LittleEndian.PutUint32(sh[20:], 0x7fff0000)
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var ef *File
	sframetest.AllocBudget(1024).CheckAllocs(t, len(data), func() { ef, err = ReadELF(f) })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ef.Tables[0].Entries {
		if e.Kind == EntryTable && e.Err == nil && e.Unwind != nil {
			t.Errorf("entry at %#x decoded from a section without bytes", e.Off)
		}
	}
}
