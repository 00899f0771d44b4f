#!/usr/bin/env python3
"""peer-suites.py - runs the producers' own SFrame test suites against sfdbg.

Driven by scripts/peer-suites.sh, which fetches the inputs; see there for
usage. Three parts, each printing its results and a tally line:

  binutils  every SFrame .d test of gas (cfi-sframe), ld (ld-x86-64,
            ld-aarch64, ld-s390, ld-sframe) and binutils-all: built as
            DejaGnu's run_dump_test builds it (binutils-common.exp), with
            `sfdbg dump` where the test runs objdump/readelf --sframe, the
            output matched by a port of regexp_diff; `sfdbg check` on every
            file built.
  llvm      llvm-readobj's SFrame tests (yaml2obj documents): per section
            llvm-readobj names, sfdbg's verdict (error or not) and values
            against llvm-readobj's; llvm-mc's objects of the MC tests:
            sfdbg dump against objdump 2.47.50, sfdbg check.
  libsframe the decode test data files, decoded by libsframe (a small
            program of ours linked against Debian's libsframe) and by sfdbg.

Nothing of upstream's is copied here: the test files are read where the
shell script unpacked them.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# ---------------------------------------------------------------------------
# regexp_diff (binutils/testsuite/lib/binutils-common.exp), ported.

POSIX_CLASSES = {
    "[:space:]": r"\s", "[:digit:]": "0-9", "[:xdigit:]": "0-9a-fA-F",
    "[:alpha:]": "a-zA-Z", "[:alnum:]": "a-zA-Z0-9", "[:upper:]": "A-Z",
    "[:lower:]": "a-z", "[:blank:]": r" \t", "[:punct:]": r"!-/:-@\[-`{-~",
}


def tcl_re(rx):
    """A Tcl ARE as a Python pattern (the constructs the .d files use)."""
    for k, v in POSIX_CLASSES.items():
        rx = rx.replace(k, v)
    return rx


def tcl_match(rx, line):
    try:
        return re.fullmatch(tcl_re(rx), line) is not None
    except re.error:
        return rx == line


def regexp_diff(output_lines, expect_lines):
    """Returns (ok, first difference) as regexp_diff decides it: each
    expected line a regexp matched against the whole output line, blank
    lines ignored on both sides, lines starting with # are directives
    (#... skips output lines up to the next match, #? an optional line,
    #pass ends with success, #failif inverts the result), other # lines are
    comments."""
    a, b = iter(output_lines), iter(expect_lines)
    end1 = end2 = False
    differences = diff_pass = fail_if_match = False
    first = ""

    def gets(it):
        try:
            return next(it), False
        except StopIteration:
            return "", True

    while True:
        line_a = line_b = ""
        while len(line_a) == 0:
            line_a, eof = gets(a)
            if eof:
                end1 = True
                break
        while len(line_b) == 0 or line_b.startswith("#"):
            if line_b.startswith("#pass"):
                end2 = diff_pass = True
                break
            elif line_b.startswith("#failif"):
                fail_if_match = True
            elif line_b.startswith("#..."):
                line_b, eof = gets(b)
                if eof:
                    end2 = diff_pass = True
                    break
                neg = line_b.startswith("!")
                rx = line_b[1:] if neg else line_b
                while tcl_match(rx, line_a) == neg:
                    line_a, eof = gets(a)
                    if eof:
                        end1 = True
                        break
                break
            elif line_b.startswith("#?"):
                if not end1:
                    line_b = line_b[2:]
                    neg = line_b.startswith("!")
                    rx = line_b[1:] if neg else line_b
                    if tcl_match(rx, line_a) != neg:
                        break
            line_b, eof = gets(b)
            if eof:
                end2 = True
                break
        if diff_pass:
            break
        if end1 and end2:
            break
        if end1:
            differences, first = True, "extra regexps starting with ^%s$" % line_b
            break
        if end2:
            differences, first = True, "extra lines starting with %r" % line_a
            break
        neg = line_b.startswith("!")
        rx = line_b[1:] if neg else line_b
        if tcl_match(rx, line_a) == neg:
            differences = True
            if not first:
                first = "regexp ^%s$ vs line %r" % (rx, line_a)
    if fail_if_match:
        return differences, ("" if differences else "matched a #failif test")
    return not differences, first


# ---------------------------------------------------------------------------
# Running things.

def run(cmd, cwd=None, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


class Tools:
    """The binutils 2.47.50 programs of one architecture."""

    def __init__(self, tc, arch):
        if arch == "x86_64":
            self.prefix = os.path.join(tc, "v3", "bin") + "/"
        else:
            self.prefix = os.path.join(tc, "cross-v3", "bin", arch + "-linux-gnu-")
        self.arch = arch

    def __getattr__(self, name):
        return self.prefix + name

    def ok(self):
        return all(os.access(self.prefix + t, os.X_OK) for t in ("as", "ld", "objdump", "readelf", "objcopy"))


class Checks:
    """sfdbg check on every file built: exit 0/1 is a judgement, 2 a refusal."""

    def __init__(self, sfdbg):
        self.sfdbg = sfdbg
        self.files = 0
        self.exit = {0: 0, 1: 0, 2: 0}
        self.flagged = []   # (label, finding lines)
        self.refused = []   # (label, message)
        self.notes = {}     # kind -> count

    def check(self, label, path):
        if not os.path.exists(path):
            return
        rc, out, err = run([self.sfdbg, "check", "--json", path])
        self.files += 1
        if rc not in self.exit:
            rc = 2
        self.exit[rc] += 1
        if rc == 2:
            msg = (err.strip() or out.strip()).splitlines()
            # A file without SFrame (--discard-sframe, --gsframe=no) is not a refusal.
            if "no .sframe section" in (err + out) or "is empty" in (err + out):
                self.exit[2] -= 1
                self.exit.setdefault("no-sframe", 0)
                self.exit["no-sframe"] += 1
                return
            self.refused.append((label, msg[-1] if msg else "exit 2"))
            return
        try:
            # check --json is JSON Lines: each file's report, then the totals.
            lines = [json.loads(l) for l in out.splitlines() if l.strip()]
        except ValueError:
            return
        reps = [d for d in lines if "file" in d]
        for rep in reps:
            for f in rep.get("findings") or []:
                self.notes[f.get("kind")] = self.notes.get(f.get("kind"), 0) + 1
        if rc == 1:
            lines = []
            for rep in reps:
                for f in rep.get("findings") or []:
                    lines.append("%s %s" % (f.get("kind"), f.get("message")))
            self.flagged.append((label, lines))

    def report(self, out):
        print("\n== sfdbg check on every file built", file=out)
        for label, lines in self.flagged:
            print("  FLAGGED %s" % label, file=out)
            for l in lines[:6]:
                print("      %s" % l, file=out)
        for label, msg in self.refused:
            print("  REFUSED %s: %s" % (label, msg), file=out)
        print("  tally: %d files checked: %d exit 0, %d exit 1 (flagged), %d exit 2 (refused), %d without SFrame; notes %s" % (
            self.files, self.exit[0], self.exit[1], self.exit[2], self.exit.get("no-sframe", 0),
            ", ".join("%s %d" % kv for kv in sorted(self.notes.items()))), file=out)


# ---------------------------------------------------------------------------
# binutils .d tests.

# sfdbg dump against objdump --sframe's own output on each objdump test.
VS_BINUTILS = {}

OPT_RE = re.compile(r"^#\s*([A-Za-z0-9_]+)\s*:(.*)$")


def parse_d(path):
    opts, sources = {}, []
    with open(path, errors="replace") as fh:
        lines = fh.read().splitlines()
    for line in lines:
        s = line.strip()
        if not s.startswith("#"):
            break
        m = OPT_RE.match(s)
        if not m:
            continue
        k, v = m.group(1), m.group(2).strip()
        if k == "source":
            parts = v.split()
            sources.append((parts[0], parts[1:]))
        else:
            opts[k] = (opts.get(k, "") + " " + v).strip() if k in ("as", "ld") else v
    return opts, sources, lines


SFRAME_OPT = re.compile(r"^--sframe(?:=(\S+))?$")


def d_tests(src):
    """(suite, arch, asflags, path) of every SFrame .d test, in the order the
    .exp files run them (gas's common tests on each of the three targets)."""
    out = []
    gas = os.path.join(src, "gas/testsuite/gas/cfi-sframe")
    exp = open(os.path.join(gas, "cfi-sframe.exp")).read()
    for name in re.findall(r'run_dump_test "([^"]+)"', exp):
        d = os.path.join(gas, name + ".d")
        if "x86_64" in name:
            out.append(("gas", "x86_64", ["--64"], d))
        elif "aarch64" in name:
            out.append(("gas", "aarch64", [], d))
        elif "s390x" in name:
            out.append(("gas", "s390x", [], d))
        else:
            for arch in ("x86_64", "aarch64", "s390x"):
                out.append(("gas", arch, [], d))
    for sub, arch in (("ld-x86-64", "x86_64"), ("ld-aarch64", "aarch64"), ("ld-s390", "s390x"), ("ld-sframe", "x86_64")):
        dd = os.path.join(src, "ld/testsuite", sub)
        for f in sorted(os.listdir(dd)):
            if not f.endswith(".d"):
                continue
            if sub != "ld-sframe" and not f.startswith("sframe"):
                continue
            out.append(("ld", arch, [], os.path.join(dd, f)))
    bd = os.path.join(src, "binutils/testsuite/binutils-all/x86-64")
    for f in sorted(os.listdir(bd)):
        if f.endswith(".d") and "sframe" in f:
            out.append(("binutils", "x86_64", [], os.path.join(bd, f)))
    return out


def sfdbg_dump(sfdbg, section, path, body_only):
    args = [sfdbg, "dump"]
    if section:
        args += ["--section", section]
    rc, out, err = run(args + [path])
    if body_only:
        # readelf prints no "file format" lines.
        m = re.match(r"\n[^\n]*:     file format [^\n]*\n\n", out)
        if m:
            out = out[m.end():]
    return rc, out, err


def not_ours(tool, flags, target, lines):
    """A test whose dump is not an SFrame dump (objdump -hw, readelf -S,
    readelf -j .rela.sframe): n/a for sfdbg; binutils' own program runs it,
    so that the tally says whether the build itself is as upstream's."""
    out = run([tool] + flags + [target])[1]
    ok, why = regexp_diff(out.splitlines(), lines)
    what = "%s %s" % (os.path.basename(tool), " ".join(flags))
    return "n/a", "%s, not an SFrame dump (binutils itself %s)" % (what, "passes" if ok else "FAILS: " + why)


def run_d(test, tc, sfdbg, tmp, checks):
    """Runs one .d test; returns (status, detail). status: pass, FAIL,
    n/a (the dump is not an SFrame dump sfdbg replaces), error-test,
    BUILD-FAILED, skipped (a toolchain is missing)."""
    suite, arch, base_as, dfile = test
    t = Tools(tc, arch)
    if not t.ok():
        return "skipped", "no %s binutils 2.47.50 (scripts/cross-toolchains.sh)" % arch
    opts, sources, lines = parse_d(dfile)
    tgt = opts.get("target", "")
    if tgt and not any(re.fullmatch(p.replace("*", ".*"), arch + "-unknown-linux-gnu") for p in tgt.split()):
        return "not-target", tgt
    srcdir = os.path.dirname(dfile)
    if not sources:
        sources = [(os.path.basename(dfile)[:-2] + ".s", [])]
    label = "%s/%s [%s]" % (suite, os.path.basename(dfile), arch)
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    objs = []
    asflags = base_as + shlex.split(opts.get("as", ""))
    for i, (s, sflags) in enumerate(sources):
        obj = os.path.join(tmp, "dump.o" if suite == "gas" else "%d-%s.o" % (i, os.path.basename(s)[:-2]))
        rc, out, err = run([t.__getattr__("as")] + asflags + [x for x in sflags if x != "RUN_OBJCOPY"] + ["-o", obj, os.path.join(srcdir, s)], cwd=srcdir)
        if rc != 0:
            if "error" in opts:
                return "error-test", "as fails as the test expects"
            return "BUILD-FAILED", "as: " + (err.strip().splitlines() or ["?"])[-1]
        objs.append(obj)
    target = objs[0]
    if suite != "gas" and "ld" in opts:
        target = os.path.join(tmp, "dump")
        # --hash-style=both: ld's default unless configured otherwise, as
        # upstream's expectations assume; Debian configures gnu.
        cmd = [t.ld, "-z", "norelro", "--hash-style=both", "-L" + srcdir] + shlex.split(opts.get("ld", "")) + ["-o", target] + objs
        rc, out, err = run(cmd, cwd=srcdir)
        if rc != 0:
            if "error" in opts:
                return "error-test", "ld fails as the test expects"
            return "BUILD-FAILED", "ld: " + (err.strip().splitlines() or ["?"])[-1]
    elif "error" in opts:
        return "error-test", "expected an error that did not come"
    for o in objs + ([target] if target not in objs else []):
        checks.check("%s %s" % (label, os.path.basename(o)), o)
    if opts.get("PROG") == "objcopy":
        copy = os.path.join(tmp, "dump.copy.o")
        rc, out, err = run([t.objcopy] + shlex.split(opts.get("objcopy", "")) + [target, copy])
        if rc != 0:
            return "BUILD-FAILED", "objcopy: " + err.strip()
        target = copy
        checks.check("%s %s" % (label, "objcopy'd"), copy)
    # The dump: sfdbg where objdump/readelf print SFrame; ref is what the
    # binutils program itself prints.
    ref = None
    if "objdump" in opts:
        flags = opts["objdump"].split()
        sf = [f for f in flags if SFRAME_OPT.match(f)]
        other = [f for f in flags if not SFRAME_OPT.match(f)]
        if not sf:
            return not_ours(t.objdump, flags, target, lines)
        section = SFRAME_OPT.match(sf[0]).group(1)
        if other:
            # objdump --sframe -WF: objdump prints the other dumps, sfdbg the SFrame section.
            rc, out, err = run([t.objdump] + other + [target])
            rc2, body, err2 = sfdbg_dump(sfdbg, section, target, True)
            output = out + body
        else:
            rc, output, err = sfdbg_dump(sfdbg, section, target, False)
            if rc != 0:
                output += err
        ref = run([t.objdump] + flags + [target])[1]
        same = "same" if ref == output else "DIFFERS"
        VS_BINUTILS[same] = VS_BINUTILS.get(same, 0) + 1
    elif "readelf" in opts:
        flags = opts["readelf"].split()
        if len(flags) != 1 or not SFRAME_OPT.match(flags[0]):
            return not_ours(t.readelf, flags, target, lines)
        rc, output, err = sfdbg_dump(sfdbg, SFRAME_OPT.match(flags[0]).group(1), target, True)
        output = "\n" + output
        if rc != 0:
            output += err
        ref = run([t.readelf] + flags + [target])[1]
    else:
        return "n/a", "no dump program"
    ok, why = regexp_diff(output.splitlines(), lines)
    if ok:
        return "pass", ""
    if ref is not None and not regexp_diff(ref.splitlines(), lines)[0]:
        # binutils 2.47.50 as Debian builds it fails the test too.
        return "FAIL-binutils-too", why
    with open(os.path.join(os.path.dirname(tmp), "fail-%s-%s.out" % (arch, os.path.basename(dfile))), "w") as fh:
        fh.write(output)
    return "FAIL", why


def link_tests(src, tc):
    """The SFrame expectations run_ld_link_tests and run_cc_link_tests check
    with readelf --sframe (.rd/.sd files, not .d): (label, expectation,
    build steps). A step is a command list; TMP stands for the work
    directory; the file dumped is the last step's output (TMP/out)."""
    t = Tools(tc, "x86_64")
    x86 = os.path.join(src, "ld/testsuite/ld-x86-64")
    lds = os.path.join(src, "ld/testsuite/ld-sframe")
    return [
        # x86-64.exp: "X32 DSO from x86-64 sframe.o" (objcopy -O elf32-x86-64).
        ("ld/sframe-x32 [x86_64]", os.path.join(x86, "sframe.rd"), x86, [
            [t.__getattr__("as"), "--64", "--gsframe", "-o", "TMP/sframe.o", "sframe.s"],
            [t.objcopy, "-O", "elf32-x86-64", "TMP/sframe.o", "TMP/sframe-x32.o"],
            [t.__getattr__("as"), "--x32", "-mx86-used-note=yes", "-o", "TMP/dummy.o", "dummy.s"],
            [t.ld, "-z", "norelro", "--hash-style=both", "-shared", "--no-rosegment", "-z", "separate-code",
             "-melf32_x86_64", "-o", "TMP/out", "TMP/sframe-x32.o", "TMP/dummy.o"]]),
        # ld-sframe/sframe.exp: pr32769.
        ("ld/pr32769 [x86_64]", os.path.join(lds, "pr32769.rd"), lds, [
            [t.__getattr__("as"), "--gsframe-3", "-o", "TMP/pr32769.o", "pr32769.s"],
            [t.ld, "-z", "norelro", "--hash-style=both", "--gc-sections", "-e", "foo", "-o", "TMP/out", "TMP/pr32769.o"]]),
        # ld-sframe/sframe.exp: pr32789-1 (gcc -Wa,--gsframe, ld -r).
        ("ld/pr32789-1 [x86_64]", os.path.join(lds, "pr32789-1.sd"), lds, [
            ["gcc", "-B", os.path.dirname(t.ld) + "/", "-Wa,--gsframe", "-c", "-o", "TMP/a.o", "pr32789-1a.c"],
            ["gcc", "-B", os.path.dirname(t.ld) + "/", "-Wa,--gsframe", "-c", "-o", "TMP/b.o", "pr32789-1b.c"],
            [t.ld, "-r", "-nostdlib", "-o", "TMP/out", "TMP/a.o", "TMP/b.o"]]),
    ]


def run_link_test(test, sfdbg, tmp, checks):
    label, expect, cwd, steps = test
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    for st in steps:
        rc, out, err = run([a.replace("TMP", tmp) for a in st], cwd=cwd)
        if rc != 0:
            return "BUILD-FAILED", "%s: %s" % (os.path.basename(st[0]), (err.strip().splitlines() or ["?"])[-1])
    target = os.path.join(tmp, "out")
    for f in sorted(os.listdir(tmp)):
        checks.check("%s %s" % (label, f), os.path.join(tmp, f))
    rc, output, err = sfdbg_dump(sfdbg, None, target, True)
    ok, why = regexp_diff(output.splitlines(), open(expect).read().splitlines())
    return ("pass", "") if ok else ("FAIL", why)


def binutils_part(args, checks, out):
    print("== binutils 2.47.50: SFrame .d tests with sfdbg dump in objdump's place", file=out)
    tally = {}
    work = tempfile.mkdtemp(prefix="peer-d-", dir=args.work)
    tmp = os.path.join(work, "tmpdir")
    os.makedirs(tmp)
    for test in d_tests(args.binutils):
        status, why = run_d(test, args.toolchains, args.sfdbg, tmp, checks)
        if status == "not-target":
            continue
        tally[status] = tally.get(status, 0) + 1
        if status not in ("pass",) or args.verbose:
            print("  %-12s %s/%s [%s]%s" % (status, test[0], os.path.relpath(test[3], args.binutils).split("/")[-1], test[1],
                                            (": " + why) if why else ""), file=out)
    for test in link_tests(args.binutils, args.toolchains):
        status, why = run_link_test(test, args.sfdbg, tmp, checks)
        tally[status] = tally.get(status, 0) + 1
        if status != "pass" or args.verbose:
            print("  %-12s %s (readelf --sframe %s)%s" % (status, test[0], os.path.basename(test[1]), (": " + why) if why else ""), file=out)
    n = sum(tally.values())
    print("  tally: %d .d tests and 3 readelf --sframe expectations of link tests: %s" % (n, ", ".join("%s %d" % kv for kv in sorted(tally.items()))), file=out)
    print("  (outputs of failed tests: %s/fail-*.out)" % work, file=out)
    return tally


# ---------------------------------------------------------------------------
# LLVM.

def readobj_sections(text):
    """Splits llvm-readobj --sframe output into {section: (values, warnings)}."""
    secs, cur, order = {}, None, []
    for line in text.splitlines():
        m = re.match(r"^SFrame section '([^']*)' \{", line)
        if m:
            cur = m.group(1)
            secs[cur] = {"lines": [], "warnings": []}
            order.append(cur)
            continue
        w = re.search(r"warning: '[^']*': (.*)", line)
        if w:
            if cur is not None:
                secs[cur]["warnings"].append(w.group(1))
            else:
                secs.setdefault("", {"lines": [], "warnings": []})["warnings"].append(w.group(1))
            continue
        if cur is not None:
            secs[cur]["lines"].append(line.strip())
    return secs


def readobj_values(lines):
    """The header values and per-FDE (PC, size, FRE starts) llvm-readobj printed."""
    hdr, fdes, cur = {}, [], None
    in_pc = False
    for l in lines:
        # An object's FDE start: "PC {" with its relocation and "Start Address".
        if l == "PC {":
            in_pc = True
            continue
        if in_pc:
            in_pc = l != "}"
            continue
        m = re.match(r"^(Version|ABI|Num FDEs|Num FREs|CFA fixed RA offset|CFA fixed FP offset(?: \(unused\))?): (.*)$", l)
        if m and cur is None:
            k, v = m.group(1).replace(" (unused)", ""), m.group(2)
            hdr[k] = int(re.search(r"\(0x([0-9A-Fa-f]+)\)", v).group(1), 16) if "(0x" in v else int(v.split()[0], 0)
            continue
        if l.startswith("FuncDescEntry ["):
            cur = {"fres": []}
            fdes.append(cur)
        elif cur is not None and l.startswith("PC: "):
            cur["pc"] = int(l.split()[1], 16)
        elif cur is not None and l.startswith("Size: "):
            cur["size"] = int(l.split()[1], 16)
        elif cur is not None and l.startswith("Start Address: "):
            cur["fres"].append(int(l.split()[2], 16))
    return hdr, fdes


def sfdbg_values(doc):
    h = doc.get("header", {})
    hdr = {"Version": h.get("version"), "ABI": h.get("abi"), "Num FDEs": h.get("num_fdes"), "Num FREs": h.get("num_fres"),
           "CFA fixed RA offset": h.get("cfa_fixed_ra_offset"), "CFA fixed FP offset": h.get("cfa_fixed_fp_offset")}
    fdes = []
    for f in doc.get("fdes", []):
        fdes.append({"pc": f.get("start"), "size": f.get("size"), "fres": [r.get("start") for r in f.get("fres", [])]})
    return hdr, fdes


def llvm_part(args, checks, out):
    print("\n== LLVM 22: llvm-readobj's SFrame tests (yaml2obj documents), sfdbg against llvm-readobj", file=out)
    tally = {}
    work = tempfile.mkdtemp(prefix="peer-llvm-", dir=args.work)
    rdir = os.path.join(args.llvm_tests, "tools/llvm-readobj/ELF")
    for test in sorted(f for f in os.listdir(rdir) if f.startswith("sframe") and f.endswith(".test")):
        path = os.path.join(rdir, test)
        text = open(path).read().replace("\\\n# RUN:", " ")
        docs = set(int(d) for d in re.findall(r"yaml2obj --docnum=(\d+)", text)) or {0}
        runs = re.findall(r"RUN:\s*(?:not )?llvm-readobj ((?:--sframe\S*\s+)+)%t(?:\.(\d+))?", text)
        for doc in sorted(docs):
            obj = os.path.join(work, "%s.%d" % (test, doc))
            cmd = [args.yaml2obj, path, "-o", obj] + (["--docnum=%d" % doc] if doc else [])
            rc, _, err = run(cmd)
            if rc != 0:
                tally["yaml2obj-failed"] = tally.get("yaml2obj-failed", 0) + 1
                print("  yaml2obj-failed %s doc %d: %s" % (test, doc, err.strip()[:200]), file=out)
                continue
            names = []
            for flags, d in runs:
                if (int(d) if d else 0) != doc:
                    continue
                for fl in flags.split():
                    m = SFRAME_OPT.match(fl)
                    names.append(m.group(1) if m and m.group(1) else ".sframe")
            for name in dict.fromkeys(names):
                rc, rout, rerr = run([args.readobj, "--sframe=" + name, obj])
                secs = readobj_sections(rout + rerr)
                sec = secs.get(name, {"lines": [], "warnings": []})
                r_bad = bool(sec["warnings"]) or bool(secs.get("", {}).get("warnings")) or rc != 0
                rc2, sout, serr = run([args.sfdbg, "dump", "--json", "--section", name, obj])
                s_bad = rc2 != 0
                label = "%s doc %d %s" % (test, doc, name)
                status = "agree" if r_bad == s_bad else "VERDICT-DIFFERS"
                detail = ""
                if status == "agree" and not r_bad:
                    try:
                        sv = sfdbg_values(json.loads(sout))
                    except ValueError:
                        sv = None
                    rv = readobj_values(sec["lines"])
                    if sv is None:
                        status, detail = "VALUES-DIFFER", "sfdbg JSON unreadable"
                    else:
                        diffs = [k for k in rv[0] if k in ("Num FDEs", "Num FREs", "CFA fixed RA offset") and rv[0][k] != (sv[0].get(k) or 0)]
                        if len(rv[1]) != len(sv[1]):
                            diffs.append("FDE count %d vs %d" % (len(rv[1]), len(sv[1])))
                        else:
                            for i, (a, b) in enumerate(zip(rv[1], sv[1])):
                                if a.get("size") != b.get("size") or len(a["fres"]) != len(b["fres"]):
                                    diffs.append("FDE %d" % i)
                        if diffs:
                            status, detail = "VALUES-DIFFER", ", ".join(diffs)
                elif status != "agree":
                    detail = "llvm-readobj %s; sfdbg %s" % (
                        ("warns: " + "; ".join(sec["warnings"] + secs.get("", {}).get("warnings", []))[:300]) if r_bad else "decodes it",
                        ("refuses: " + serr.strip()[:300]) if s_bad else "decodes it")
                tally[status] = tally.get(status, 0) + 1
                if status != "agree" or args.verbose:
                    print("  %-15s %s%s" % (status, label, (": " + detail) if detail else ""), file=out)
    print("  tally: %d sections: %s" % (sum(tally.values()), ", ".join("%s %d" % kv for kv in sorted(tally.items()))), file=out)

    print("\n== LLVM 22: llvm-mc's objects of the MC tests (sfdbg dump against objdump 2.47.50, sfdbg check)", file=out)
    mt = {}
    mdir = os.path.join(args.llvm_tests, "MC/ELF")
    objdump = Tools(args.toolchains, "x86_64").objdump
    for test in sorted(f for f in os.listdir(mdir) if f.startswith("cfi-sframe") and f.endswith(".s")):
        path = os.path.join(mdir, test)
        text = open(path).read()
        m = re.search(r"RUN:\s*llvm-mc (.*?)-o %t", text)
        if not m:
            mt["no-object"] = mt.get("no-object", 0) + 1
            continue
        flags = [f for f in shlex.split(m.group(1)) if f != "%s"]
        obj = os.path.join(work, test + ".o")
        rc, _, err = run([args.llvm_mc] + flags + [path, "-o", obj])
        if rc != 0:
            mt["mc-error"] = mt.get("mc-error", 0) + 1
            print("  mc-error     %s: %s" % (test, err.strip().splitlines()[-1] if err.strip() else rc), file=out)
            continue
        rc1, want, _ = run([objdump, "--sframe", obj])
        rc2, got, serr = run([args.sfdbg, "dump", obj])
        status = "same" if (want == got and rc2 == 0) else "DUMP-DIFFERS"
        mt[status] = mt.get(status, 0) + 1
        if status != "same":
            with open(os.path.join(work, test + ".diff"), "w") as fh:
                fh.write("--- objdump\n" + want + "\n--- sfdbg\n" + got + serr)
            print("  %-12s %s (%s.diff)" % (status, test, os.path.join(work, test)), file=out)
        # And against llvm-readobj, as the test itself reads the object.
        _, rout, rerr = run([args.readobj, "--sframe", obj])
        sec = readobj_sections(rout + rerr).get(".sframe", {"lines": [], "warnings": []})
        rc3, sjson, _ = run([args.sfdbg, "dump", "--json", obj])
        if rc3 == 0 and not sec["warnings"]:
            rv, sv = readobj_values(sec["lines"]), sfdbg_values(json.loads(sjson))
            same = len(rv[1]) == len(sv[1]) and all(
                a.get("size") == b.get("size") and len(a["fres"]) == len(b["fres"]) for a, b in zip(rv[1], sv[1]))
            k = "readobj-values-equal" if same else "READOBJ-VALUES-DIFFER"
        else:
            k = "readobj-verdict-equal" if (rc3 != 0) == bool(sec["warnings"]) else "READOBJ-VERDICT-DIFFERS"
        mt[k] = mt.get(k, 0) + 1
        if k.isupper():
            print("  %-12s %s" % (k, test), file=out)
        checks.check("llvm-mc " + test, obj)
    n = sum(mt.get(k, 0) for k in ("same", "DUMP-DIFFERS", "mc-error", "no-object"))
    print("  tally: %d MC tests: %s" % (n, ", ".join("%s %d" % kv for kv in sorted(mt.items()))), file=out)
    return tally, mt


# ---------------------------------------------------------------------------
# libsframe.

def libsframe_part(args, out):
    print("\n== libsframe 2.47.50: its decode test data and sections its encoder built, libsframe against sfdbg", file=out)
    tally = {}
    ddir = os.path.join(args.binutils, "libsframe/testsuite/libsframe.decode")
    files = [os.path.join(ddir, f) for f in sorted(os.listdir(ddir)) if f.startswith("DATA")]
    if args.libsframe_encoded:
        files += [os.path.join(args.libsframe_encoded, f) for f in sorted(os.listdir(args.libsframe_encoded))]
    for path in files:
        name = os.path.basename(path)
        rc, lout, lerr = run([args.libsframe_dump, path])
        rc2, sout, serr = run([args.sfdbg, "dump", "--json", path])
        if rc != 0 or rc2 != 0:
            status = "agree" if (rc != 0) == (rc2 != 0) else "VERDICT-DIFFERS"
            detail = "libsframe %s; sfdbg %s" % (lerr.strip() or "decodes", serr.strip() or "decodes")
        else:
            want = lout.split()
            doc = json.loads(sout)
            got = []
            for i, f in enumerate(doc.get("fdes", [])):
                got += ["fde", str(i), str(f.get("start_field")), str(f.get("size")), str(len(f.get("fres", [])))]
                for r in f.get("fres", []):
                    got += ["fre", str(r.get("start_offset"))]
                    if f.get("fde_type") == "SFRAME_FDE_TYPE_DEFAULT":
                        # libsframe's sframe_fre_get_cfa_offset decodes (s390x: scaled and biased).
                        got += ["cfa", str((r.get("cfa") or {}).get("offset", 0))]
            got = ["fdes", str(len(doc.get("fdes", [])))] + got
            status = "agree" if want == got else "VALUES-DIFFER"
            detail = "" if status == "agree" else "libsframe %s... sfdbg %s..." % (" ".join(want[:12]), " ".join(got[:12]))
        tally[status] = tally.get(status, 0) + 1
        print("  %-15s %s%s" % (status, name, (": " + detail) if detail else ""), file=out)
    print("  tally: %d sections: %s" % (sum(tally.values()), ", ".join("%s %d" % kv for kv in sorted(tally.items()))), file=out)
    return tally


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sfdbg", required=True)
    ap.add_argument("--toolchains", required=True)
    ap.add_argument("--binutils", required=True, help="the unpacked binutils source tree")
    ap.add_argument("--llvm-tests", help="llvm/test of LLVM 22")
    ap.add_argument("--yaml2obj")
    ap.add_argument("--readobj")
    ap.add_argument("--llvm-mc")
    ap.add_argument("--libsframe-dump", help="the program that prints libsframe's decoding of a file")
    ap.add_argument("--libsframe-encoded", help="a directory of sections libsframe's encoder wrote")
    ap.add_argument("--work", required=True)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    out = sys.stdout
    checks = Checks(args.sfdbg)
    bt = binutils_part(args, checks, out)
    lt = mt = None
    if args.llvm_tests:
        lt, mt = llvm_part(args, checks, out)
    st = libsframe_part(args, out) if args.libsframe_dump else None
    checks.report(out)
    print("\n== tally", file=out)
    print("  binutils .d:  %s" % ", ".join("%s %d" % kv for kv in sorted(bt.items())), file=out)
    print("  sfdbg dump vs objdump --sframe on the objdump tests: %s" % ", ".join("%s %d" % kv for kv in sorted(VS_BINUTILS.items())), file=out)
    if lt is not None:
        print("  llvm-readobj: %s" % ", ".join("%s %d" % kv for kv in sorted(lt.items())), file=out)
        print("  llvm-mc:      %s" % ", ".join("%s %d" % kv for kv in sorted(mt.items())), file=out)
    if st is not None:
        print("  libsframe:    %s" % ", ".join("%s %d" % kv for kv in sorted(st.items())), file=out)
    print("  sfdbg check:  %d files: %d exit 0, %d exit 1, %d exit 2 (refused), %d without SFrame" % (
        checks.files, checks.exit[0], checks.exit[1], checks.exit[2], checks.exit.get("no-sframe", 0)), file=out)


if __name__ == "__main__":
    main()
