#!/usr/bin/env python3
"""asm-corpus-check.py - runs `sfdbg check` and `sfdbg dump` over the corpus
that build-asm-corpus.sh made, one file at a time, and prints one table row
per package.

Usage: asm-corpus-check.py [--sfdbg BIN] [--objdump BIN] [--timeout S] OUTDIR [PACKAGE...]

Without --sfdbg it builds ./cmd/sfdbg of this checkout (go build) into
OUTDIR/check/sfdbg first.

For every PACKAGE/obj/*.o and PACKAGE/*.so under OUTDIR:
  - `sfdbg check --json FILE` under a timeout; its exit status must be 0, 1
    or 2 (2 only for "no .sframe section" or another error that names the
    file) and its stdout JSON Lines.  A timeout, a panic (a Go traceback on
    stderr), another exit status or output that is not JSON is a fault.
  - where FILE has .sframe: `objdump --sframe FILE` (binutils 2.47.50) and
    `sfdbg dump FILE` must print the same bytes.
Per package it sums the per-file summaries (every numeric field, so fields
that newer sfdbg versions add, such as the code oracle's counts, show up
too) and the findings by kind.

Output: the table (Markdown) on stdout; OUTDIR/check/PACKAGE.jsonl holds
every file's result (exit status, time, summary, by_kind, faults) and
OUTDIR/check/report.md the table and the list of faults.
Exit status: 0 when no file had a fault, 1 otherwise.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

PACKAGES = ["openssl", "glibc", "gmp", "libgcrypt", "luajit", "libffi", "musl"]


def json_lines(text):
    """All JSON documents in text (JSON Lines or one document)."""
    dec = json.JSONDecoder()
    docs, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def run(cmd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", time.monotonic() - t0


def check_file(args, path):
    res = {"file": path, "faults": []}
    rc, out, err, dt = run([args.sfdbg, "check", "--json", path], args.timeout)
    res["rc"], res["seconds"] = rc, round(dt, 3)
    errs = err.decode(errors="replace")
    if rc is None:
        res["faults"].append("check: timeout after %d s" % args.timeout)
        return res
    if re.search(r"^(panic:|fatal error:|goroutine \d+ \[)", errs, re.M):
        res["faults"].append("check: crash: " + errs.strip().splitlines()[0])
    if rc not in (0, 1, 2):
        res["faults"].append("check: exit status %d: %s" % (rc, errs.strip()[:300]))
    try:
        docs = json_lines(out.decode(errors="replace"))
    except ValueError as e:
        res["faults"].append("check: stdout is not JSON Lines: %s" % e)
        return res
    # One file: one document with "files"; several: JSON Lines, one report
    # per line, then the totals.
    reports = [d for d in docs if "file" in d] + [f for d in docs for f in d.get("files") or []]
    if not reports:
        res["faults"].append("check: no report for the file (rc %s): %s" % (rc, errs.strip()[:300]))
        return res
    r = reports[0]
    res["summary"] = r.get("summary") or {}
    kinds = collections.Counter()
    for f in r.get("findings") or []:
        kinds[f.get("kind", "?")] += 1
    bk = res["summary"].get("by_kind")
    res["by_kind"] = dict(bk) if bk else dict(kinds)
    if r.get("error"):
        res["error"] = r["error"]
        if rc != 2:
            res["faults"].append("check: an error with exit status %s" % rc)
    elif rc == 2:
        res["faults"].append("check: exit status 2 without an error in the report: %s" % errs.strip()[:300])
    res["no_sframe"] = bool(r.get("no_sframe"))
    if not res["no_sframe"] and not r.get("error"):
        res["dump"] = dump_same(args, path, res)
    return res


def dump_same(args, path, res):
    rc1, o1, e1, _ = run([args.objdump, "--sframe", path], args.timeout)
    rc2, o2, e2, _ = run([args.sfdbg, "dump", path], args.timeout)
    if rc2 is None:
        res["faults"].append("dump: timeout after %d s" % args.timeout)
        return "timeout"
    if re.search(rb"^(panic:|goroutine \d+ \[)", e2, re.M):
        res["faults"].append("dump: crash: " + e2.decode(errors="replace").strip().splitlines()[0])
        return "crash"
    if o1 == o2:
        return "same"
    a, b = o1.decode(errors="replace").splitlines(), o2.decode(errors="replace").splitlines()
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    res["faults"].append("dump: differs from objdump at line %d: objdump %r, sfdbg %r"
                         % (n + 1, a[n] if n < len(a) else "<end>", b[n] if n < len(b) else "<end>"))
    return "differs"


def files_of(outdir, pkg):
    d = os.path.join(outdir, pkg)
    objs = sorted(os.path.join(d, "obj", f) for f in os.listdir(os.path.join(d, "obj")) if f.endswith(".o"))
    libs = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".so"))
    return objs, libs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sfdbg", help="the sfdbg binary (default: build this checkout's)")
    ap.add_argument("--objdump", default=os.path.join(os.environ.get("SFDBG_TOOLCHAINS", "/tmp/sfdbg-toolchains"), "v3/bin/objdump"))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("outdir")
    ap.add_argument("packages", nargs="*")
    args = ap.parse_args()
    pkgs = args.packages or [p for p in PACKAGES if os.path.isdir(os.path.join(args.outdir, p, "obj"))]
    os.makedirs(os.path.join(args.outdir, "check"), exist_ok=True)
    if not args.sfdbg:
        args.sfdbg = os.path.abspath(os.path.join(args.outdir, "check", "sfdbg"))
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        subprocess.run(["go", "build", "-o", args.sfdbg, "./cmd/sfdbg"], cwd=repo, check=True)
    rows, faults, extra = [], [], set()
    base = ["functions_sframe", "functions_cfi", "functions_compared", "instructions_compared", "disagreements"]
    for pkg in pkgs:
        objs, libs = files_of(args.outdir, pkg)
        tot = collections.Counter()
        kinds = collections.Counter()
        st = collections.Counter()
        secs = 0.0
        with open(os.path.join(args.outdir, "check", pkg + ".jsonl"), "w") as log:
            for path in objs + libs:
                r = check_file(args, path)
                log.write(json.dumps(r) + "\n")
                secs += r["seconds"]
                for k, v in (r.get("summary") or {}).items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        tot[k] += v
                        if k not in base and not k.startswith("bytes_"):
                            extra.add(k)
                kinds.update(r.get("by_kind") or {})
                st["no .sframe" if r.get("no_sframe") else ("error" if r.get("error") else "checked")] += 1
                st["dump " + r.get("dump", "n/a")] += 1
                for f in r["faults"]:
                    faults.append("%s: %s" % (os.path.relpath(path, args.outdir), f))
        rows.append((pkg, len(objs), len(libs), tot, kinds, st, secs))
    extra = sorted(extra)
    hdr = ["package", ".o", ".so", "checked", "no .sframe", "other errors", "fns SFrame", "fns CFI",
           "fns compared", "insns compared"] + extra + ["findings by kind", "dump = objdump", "check s"]
    lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for pkg, no, nl, tot, kinds, st, secs in rows:
        kd = ", ".join("%s %d" % kv for kv in sorted(kinds.items())) or "none"
        dump = "%d/%d" % (st["dump same"], st["dump same"] + st["dump differs"] + st["dump crash"] + st["dump timeout"])
        cells = [pkg, no, nl, st["checked"], st["no .sframe"], st["error"], tot["functions_sframe"],
                 tot["functions_cfi"], tot["functions_compared"], tot["instructions_compared"]]
        cells += [tot[k] for k in extra] + [kd, dump, "%.1f" % secs]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines.append("")
    lines.append("faults: %d" % len(faults))
    lines += ["- " + f for f in faults]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.outdir, "check", "report.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
