#!/usr/bin/env bash
# build-lsda-fixture.sh - rebuilds testdata/codeoracle/lsda: landingpads.so
# from landingpads.cc with the host's g++ (Debian 12: g++ 12.2), C++
# functions whose catch and cleanup blocks only the LSDA's call-site table
# reaches; argssize.so from argssize.s with the host's as and ld (2.40), a
# landing pad entered from a call with pushed arguments
# (DW_CFA_GNU_args_size). compare's TestLandingPadsAreWalked checks both.
set -euo pipefail
cd "$(dirname "$0")/../testdata/codeoracle/lsda"
g++ -O2 -fPIC -shared -o landingpads.so landingpads.cc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
as --64 -o "$tmp/argssize.o" argssize.s
ld -shared -o argssize.so "$tmp/argssize.o"
