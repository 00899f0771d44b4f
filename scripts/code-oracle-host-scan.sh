#!/bin/bash
# code-oracle-host-scan.sh - the code oracle on the programs and libraries
# this machine has installed (issue 20's "no false finding on compiled
# code", on code nobody wrote for sfdbg): runs `sfdbg check --json` on
# N files of each directory given (default: the 60 largest ELF files of
# /usr/bin and 150 shared objects of /usr/lib/x86_64-linux-gnu, picked by
# a fixed shuffle), then prints one line per file with a code-cfa/ra/fp/
# state finding, the judged share of each directory, and the findings by
# kind and message shape. Every finding it lists must be triaged by hand:
# a fault of the file's CFI (README "The code as a witness") or a false
# finding of sfdbg (testdata/codeoracle/realworld/false-findings).
#
# Usage: code-oracle-host-scan.sh [OUTDIR]   (default /tmp/sfdbg-host-scan)
# Env:   SFDBG  the sfdbg binary (default: built from this tree)
#        BINS   how many of /usr/bin (default 60); LIBS of /usr/lib (150)
# Needs: go, python3, file.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-/tmp/sfdbg-host-scan}
BINS=${BINS:-60}
LIBS=${LIBS:-150}
mkdir -p "$OUT"
SFDBG=${SFDBG:-$OUT/sfdbg}
if [ "$SFDBG" = "$OUT/sfdbg" ]; then (cd "$REPO" && go build -o "$SFDBG" ./cmd/sfdbg); fi
rm -f "$OUT"/*.json

seeded() { yes sfdbg; }
n=0
for f in $(ls -S /usr/bin/* | head -400 | shuf -n "$BINS" --random-source=<(seeded)); do
  file -L "$f" | grep -q ELF || continue
  "$SFDBG" check --json "$f" >"$OUT/bin-$(basename "$f").json" 2>/dev/null || true
  n=$((n + 1))
done
for f in $(ls -L /usr/lib/x86_64-linux-gnu/*.so.* 2>/dev/null | shuf -n "$LIBS" --random-source=<(seeded)); do
  [ -f "$f" ] || continue
  timeout 300 "$SFDBG" check --json "$f" >"$OUT/lib-$(basename "$f").json" 2>/dev/null || true
  n=$((n + 1))
done
echo "checked $n files into $OUT ($(uname -m), $(nproc) cores)"

python3 - "$OUT" <<'EOF'
import collections, glob, json, re, sys
out = sys.argv[1]
shapes, files = collections.Counter(), collections.Counter()
example = {}
for pre, what in (("bin-", "/usr/bin"), ("lib-", "/usr/lib/x86_64-linux-gnu")):
    judged = total = n = 0
    for fn in sorted(glob.glob(f"{out}/{pre}*.json")):
        try:  # check --json: JSON Lines, each file's report then the totals
            reports = [d for d in (json.loads(l) for l in open(fn) if l.strip()) if "file" in d]
        except ValueError:
            continue
        for f in reports:
            c = (f.get("summary") or {}).get("code") or {}
            if c:
                n += 1
                judged += c.get("instructions_judged", 0)
                total += c.get("instructions_checked", 0)
            for x in f.get("findings") or []:
                k = x["kind"]
                if not k.startswith("code-") or k == "code-unknown":
                    continue
                name = fn[len(out) + 1:-5]
                files[name] += 1
                m = x["message"]
                m = re.sub(r"0x[0-9a-f]+", "X", m.split(": ", 1)[1] if ": " in m else m)
                m = re.sub(r"[0-9]+", "N", re.sub(r"\(CFA=.*", "", m))
                shapes[(k, m[:100])] += 1
                example.setdefault((k, m[:100]), f"{name}: {x['message'][:200]}")
    share = judged / total if total else 0
    print(f"{what}: {n} files, {judged} of {total} instructions judged ({100 * share:.1f}%)")
print(f"code-cfa/ra/fp/state findings: {sum(files.values())} in {len(files)} files")
for name, c in files.most_common():
    print(f"  {c:6d}  {name}")
for (k, m), c in shapes.most_common(20):
    print(f"{c:6d}  {k}  {m}\n        e.g. {example[(k, m)]}")
EOF
