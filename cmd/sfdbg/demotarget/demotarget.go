// Package demotarget embeds the programs that "sfdbg demo" runs and unwinds:
// a copy of testdata/bin/deep-v3-O2, built from testdata/src/deep.c by
// scripts/build-fixtures.sh with gcc -O2 -fomit-frame-pointer and GNU as
// --gsframe (SFrame version 3), and a copy of testdata/bin/pltgot-v3 (the
// fault the demo shows), built from testdata/src/pltgot.c by
// scripts/build-catch-fixtures.sh. The test checks that the copies match
// the fixtures; after rebuilding the fixtures, refresh them with go
// generate.
package demotarget

import _ "embed"

//go:generate cp ../../../testdata/bin/deep-v3-O2 deep-v3-O2
//go:generate cp ../../../testdata/bin/pltgot-v3 pltgot-v3

// Binary is the ELF executable (x86-64, dynamically linked against libc).
// Usage: deep spin|sleep|signal|threads|exit [MS]; it prints "ready" once
// it is in its deepest frame.
//
//go:embed deep-v3-O2
var Binary []byte

// Name is the file name the demo writes the binary under (in a temporary
// directory).
const Name = "deep-v3-O2"

// FaultBinary is the ELF executable (x86-64 PIE, dynamically linked against
// libc) whose .plt.got stub labs@plt GNU ld 2.47.50 describes wrongly in
// .sframe. Usage: pltgot [SECONDS]; it prints "ready", then calls labs
// through the stub in a loop for SECONDS (default 60).
//
//go:embed pltgot-v3
var FaultBinary []byte

// FaultName is the file name of FaultBinary in the demo's directory.
const FaultName = "pltgot-v3"
