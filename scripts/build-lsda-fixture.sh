#!/usr/bin/env bash
# build-lsda-fixture.sh - rebuilds testdata/codeoracle/lsda/landingpads.so
# from landingpads.cc with the host's g++ (Debian 12: g++ 12.2): a C++
# function whose catch and cleanup blocks only the LSDA's call-site table
# reaches (compare's TestLandingPadsAreWalked).
set -euo pipefail
cd "$(dirname "$0")/../testdata/codeoracle/lsda"
g++ -O2 -fPIC -shared -o landingpads.so landingpads.cc
