package debugger

import (
	"fmt"
	"sync"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// XState implements xstateReader.
func (t *liveTarget) XState(tid int) (*xstate, error) {
	if err := t.live(); err != nil {
		return nil, err
	}
	return readXState(t.st, tid)
}

// XState implements xstateReader.
func (t *stoppedTarget) XState(tid int) (*xstate, error) { return readXState(t.st, tid) }

// readXState reads the XSAVE area of stopped thread tid (PTRACE_GETREGSET
// NT_X86_XSTATE, in the standard format; arch/x86/kernel/fpu/regset.c)
// and decodes it (decodeXSave). Errors: those of proc.Stop.RegSet, an area
// shorter than its legacy region.
func readXState(st *proc.Stop, tid int) (*xstate, error) {
	lay := hostXSave()
	b, err := st.RegSet(tid, elfNTX86XState, max(lay.size, 512+64))
	if err != nil {
		return nil, err
	}
	x, err := decodeXSave(b, lay.xsaveLayout)
	if err != nil {
		return nil, fmt.Errorf("thread %d: %w", tid, err)
	}
	return x, nil
}

// elfNTX86XState is NT_X86_XSTATE (include/uapi/linux/elf.h).
const elfNTX86XState = 0x202

// hostXSave is this processor's XSAVE layout, read once from CPUID leaf
// 0DH (Intel SDM vol. 1, 13.2): ECX of sub-leaf 0 is the size of the area
// for every component the processor supports, EBX of sub-leaf i the
// offset of component i in the standard format.
var hostXSave = sync.OnceValue(func() (l struct {
	xsaveLayout
	size int
}) {
	if maxLeaf, _, _, _ := cpuidex(0, 0); maxLeaf < 0xd {
		return l
	}
	_, _, size, _ := cpuidex(0xd, 0)
	_, zmm, _, _ := cpuidex(0xd, 6)
	_, pkru, _, _ := cpuidex(0xd, 9)
	l.size, l.zmmHi256, l.pkru = int(size), int(zmm), int(pkru)
	return l
})

// cpuidex executes CPUID with EAX=leaf and ECX=subleaf (cpuid_amd64.s).
func cpuidex(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
