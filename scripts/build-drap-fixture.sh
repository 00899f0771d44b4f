#!/usr/bin/env bash
# build-drap-fixture.sh - rebuilds testdata/codeoracle/drap/*.o from their
# .s with the host's as (Debian 12: GNU as 2.40): compare's
# TestCFAOnARegisterTheCodeNeverSet.
set -euo pipefail
cd "$(dirname "$0")/../testdata/codeoracle/drap"
for s in *.s; do as --64 -o "${s%.s}.o" "$s"; done
