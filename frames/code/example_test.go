package code

import "fmt"

// The walk over push %rbp; mov %rsp,%rbp; push %rbx; pop %rbx; pop %rbp;
// ret, with the x86-64 decoder: the state before each instruction.
func ExampleAnalyze() {
	text := []byte{0x55, 0x48, 0x89, 0xe5, 0x53, 0x5b, 0x5d, 0xc3}
	f := Analyze(amd64, text, 0x401000, nil)
	for _, in := range f.Insts {
		pc := f.Start + uint64(in.Off)
		st, _, _ := f.StateAt(pc)
		fmt.Printf("%#x %-16s %s\n", pc, amd64.Decoder.Text(text[in.Off:], pc), st.Format(amd64))
	}
	fmt.Println(len(f.Findings), "findings,", f.Judged, "of", f.Decoded, "judged")
	// Output:
	// 0x401000 push   %rbp      CFA=rsp+8 RA=c-8 FP=u
	// 0x401001 mov    %rsp,%rbp CFA=rsp+16 RA=c-8 FP=c-16
	// 0x401004 push   %rbx      CFA=rbp+16 RA=c-8 FP=c-16
	// 0x401005 pop    %rbx      CFA=rbp+16 RA=c-8 FP=c-16 rbx=c-24
	// 0x401006 pop    %rbp      CFA=rbp+16 RA=c-8 FP=c-16
	// 0x401007 ret              CFA=rsp+8 RA=c-8 FP=u
	// 0 findings, 6 of 6 judged
}
