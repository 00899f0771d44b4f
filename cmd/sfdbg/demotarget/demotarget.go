// Package demotarget embeds the program that "sfdbg demo" runs and unwinds:
// a copy of testdata/bin/deep-v3-O2, built from testdata/src/deep.c by
// scripts/build-fixtures.sh with gcc -O2 -fomit-frame-pointer and GNU as
// --gsframe (SFrame version 3). The test checks that the copy matches the
// fixture; after rebuilding the fixtures, refresh it with go generate.
package demotarget

import _ "embed"

//go:generate cp ../../../testdata/bin/deep-v3-O2 deep-v3-O2

// Binary is the ELF executable (x86-64, dynamically linked against libc).
// Usage: deep spin|sleep|signal|threads|exit [MS]; it prints "ready" once
// it is in its deepest frame.
//
//go:embed deep-v3-O2
var Binary []byte

// Name is the file name the demo writes the binary under (in a temporary
// directory).
const Name = "deep-v3-O2"
