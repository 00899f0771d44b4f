#!/usr/bin/env bash
# distro-scan.sh - the code oracle on a distribution's binary packages, as a
# distribution engineer would run it (issue 30): fetches each package of
# PACKAGE-LIST for ARCH with apt-get download (after dpkg --add-architecture
# for a foreign ARCH), unpacks it, runs `sfdbg check --recursive --all
# --json` on its tree, and writes per-package and total figures: files,
# instructions, judged share, findings by kind, CPU time, peak memory.
#
# Usage: scripts/distro-scan.sh ARCH PACKAGE-LIST [OUTDIR]
#   ARCH          a Debian architecture: amd64, arm64, s390x
#   PACKAGE-LIST  one package a line; '#' starts a comment; a line
#                 '# lang: NAME' tags the packages after it with a
#                 language (default c) for the per-language shares
#                 (scripts/distro/*.txt are the lists of issue 30)
#   OUTDIR        default /tmp/sfdbg-distro-ARCH; debs and trees are kept
#                 there and reused by the next run
# Env:  SFDBG  the sfdbg binary (default: built from this tree)
#       JOBS   check's -j (default 2)
# Output: OUTDIR/json/PKG.jsonl (check's JSON Lines), OUTDIR/packages.tsv
#   (one line a package), OUTDIR/summary.txt (printed too), and
#   OUTDIR/findings.tsv (every code-cfa/ra/fp/state/scratch finding, for triage).
# Needs: apt-get, dpkg-deb, go, python3.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
ARCH=${1:?usage: distro-scan.sh ARCH PACKAGE-LIST [OUTDIR]}
LIST=$(realpath "${2:?usage: distro-scan.sh ARCH PACKAGE-LIST [OUTDIR]}")
OUT=${3:-/tmp/sfdbg-distro-$ARCH}
JOBS=${JOBS:-2}
mkdir -p "$OUT/debs" "$OUT/root" "$OUT/json"
SFDBG=${SFDBG:-$OUT/sfdbg}
if [ "$SFDBG" = "$OUT/sfdbg" ]; then (cd "$REPO" && go build -o "$SFDBG" ./cmd/sfdbg); fi

if [ "$ARCH" != "$(dpkg --print-architecture)" ] && ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
  dpkg --add-architecture "$ARCH"
  apt-get update -qq
fi

pkgs=$(sed -e 's/#.*//' "$LIST" | awk 'NF {print $1}')
cd "$OUT/debs"
debof() { { compgen -G "${1}_*_$ARCH.deb" || compgen -G "${1}_*_all.deb" || true; } | head -1; }
for p in $pkgs; do
  if [ -z "$(debof "$p")" ]; then
    apt-get download -qq "$p:$ARCH" 2>"$OUT/debs/$p.err" || echo "distro-scan: cannot download $p:$ARCH: $(tail -1 "$OUT/debs/$p.err")" >&2
  fi
  deb=$(debof "$p")
  if [ -n "$deb" ] && [ ! -d "$OUT/root/$p" ]; then
    mkdir -p "$OUT/root/$p.tmp" && dpkg-deb -x "$deb" "$OUT/root/$p.tmp" && mv "$OUT/root/$p.tmp" "$OUT/root/$p"
  fi
done

python3 - "$SFDBG" "$LIST" "$OUT" "$ARCH" "$JOBS" <<'PY'
import collections, json, os, re, subprocess, sys, time
sfdbg, listfile, out, arch, jobs = sys.argv[1:6]
lang, pkgs = "c", []
for line in open(listfile):
    m = re.match(r"\s*#\s*lang:\s*(\S+)", line)
    if m:
        lang = m.group(1)
        continue
    line = line.split("#")[0].split()
    if line:
        pkgs.append((line[0], lang))

CODE = ("code-cfa", "code-ra", "code-fp", "code-state", "code-scratch")
rows, total = [], collections.Counter()
bylang = collections.defaultdict(collections.Counter)
kinds_total = collections.Counter()
ff = open(os.path.join(out, "findings.tsv"), "w")
ff.write("package\tfile\tkind\tfunction\tpc\tmessage\n")
for pkg, lg in pkgs:
    tree = os.path.join(out, "root", pkg)
    if not os.path.isdir(tree):
        continue
    jl = os.path.join(out, "json", pkg + ".jsonl")
    t0 = time.time()
    with open(jl, "w") as o, open(jl + ".err", "w") as e:
        p = subprocess.Popen([sfdbg, "check", "--recursive", "--all", "--json", "-j", jobs, tree], stdout=o, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.time() - t0
    c = collections.Counter(cpu=ru.ru_utime + ru.ru_stime, wall=wall)
    kinds = collections.Counter()
    peak = ru.ru_maxrss / 1024
    for line in open(jl):
        d = json.loads(line)
        if "file" not in d:
            continue
        if d.get("error"):
            c["errors"] += 1
            continue
        c["files"] += 1
        code = (d.get("summary") or {}).get("code") or {}
        c["insns"] += code.get("instructions_checked", 0)
        c["judged"] += code.get("instructions_judged", 0)
        for f in d.get("findings") or []:
            kinds[f["kind"]] += 1
            if f["kind"] in CODE:
                ff.write("\t".join([pkg, os.path.relpath(d["file"], tree), f["kind"], f.get("function", ""),
                                    hex(f.get("pc", 0)), f.get("message", "").replace("\t", " ").replace("\n", " ")]) + "\n")
    c["exit%d" % os.waitstatus_to_exitcode(status)] += 1
    rows.append((pkg, lg, c, kinds, peak))
    total.update(c)
    bylang[lg].update(c)
    kinds_total.update(kinds)
    total["peak"] = max(total["peak"], peak)
ff.close()

def share(c):
    return "%.1f%%" % (100.0 * c["judged"] / c["insns"]) if c["insns"] else "-"

with open(os.path.join(out, "packages.tsv"), "w") as t:
    t.write("package\tlang\tfiles\terrors\tinstructions\tjudged\tcpu_s\tpeak_mb\t" + "\t".join(CODE) + "\n")
    for pkg, lg, c, kinds, peak in rows:
        t.write("%s\t%s\t%d\t%d\t%d\t%s\t%.2f\t%.0f\t%s\n" % (pkg, lg, c["files"], c["errors"], c["insns"], share(c),
                c["cpu"], peak, "\t".join(str(kinds[k]) for k in CODE)))
lines = []
lines.append("distro-scan %s: %d packages, %d files checked, %d file errors" % (arch, len(rows), total["files"], total["errors"]))
lines.append("instructions %d, judged %s; %.1f CPU-s (%.2f M instructions per CPU-second); peak RSS %.0f MB (check -j %s, one package at a time)" % (
    total["insns"], share(total), total["cpu"], total["insns"] / max(total["cpu"], 1e-9) / 1e6, total["peak"], jobs))
lines.append("by language: " + ", ".join("%s %s of %d" % (lg, share(c), c["insns"]) for lg, c in sorted(bylang.items())))
lines.append("findings by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds_total.items())))
lines.append("code findings that mislead an unwinder or contradict a table (code-cfa/ra/fp/state): %d; notes that mislead no unwinder (code-scratch): %d" % (
    sum(kinds_total[k] for k in CODE[:4]), kinds_total["code-scratch"]))
top = sorted(rows, key=lambda r: -sum(r[3][k] for k in CODE[:4]))[:15]
lines.append("packages with most code findings: " + ", ".join("%s %d" % (r[0], sum(r[3][k] for k in CODE[:4])) for r in top if sum(r[3][k] for k in CODE[:4])))
open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
