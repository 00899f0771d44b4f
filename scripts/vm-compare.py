#!/usr/bin/env python3
"""Helpers of scripts/vm-test.sh (no third-party modules).

  vm-compare.py cpio DIR OUT.cpio
      write DIR as a newc cpio archive (the initramfs), owned by root.
  vm-compare.py split CONSOLE.log OUTDIR
      cut the VM's console log into OUTDIR/NAME.out (the text between
      "=== BEGIN NAME" and "=== END NAME rc=N") and OUTDIR/NAME.rc; a block
      "=== B64 NAME" ... "=== B64END" becomes the file OUTDIR/NAME.
  vm-compare.py frames SFDBG.out GDB.out
      compare the frames of sfdbg's text backtraces (bt, catch, core) with
      gdb's "thread apply all bt", thread by thread (matched by LWP): each
      of gdb's frames, up to its last, must have the PC of sfdbg's frame of
      the same number (where gdb prints none, at a statement's start or for
      "<signal handler called>", the same function name). PCs, not names:
      the two pick different aliases (clock_nanosleep, __clock_nanosleep).
      Prints one line per thread and a total line
      "frames: N compared, M equal"; exits 1 on a difference.
"""
import base64
import os
import re
import stat
import sys


def cpio(src, out):
    entries = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            entries.append(os.path.join(root, name))
    with open(out, "wb") as f:
        ino = 1

        def put(name, mode, data, nlink=1):
            nonlocal ino
            hdr = "070701" + "".join("%08x" % v for v in (
                ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0))
            ino += 1
            f.write(hdr.encode() + name.encode() + b"\0")
            f.write(b"\0" * (-(110 + len(name) + 1) % 4))
            f.write(data)
            f.write(b"\0" * (-len(data) % 4))

        for path in entries:
            rel = os.path.relpath(path, src)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                put(rel, stat.S_IFLNK | 0o777, os.readlink(path).encode())
            elif stat.S_ISDIR(st.st_mode):
                put(rel, stat.S_IFDIR | 0o755, b"", 2)
            else:
                with open(path, "rb") as g:
                    put(rel, stat.S_IFREG | (st.st_mode & 0o777), g.read())
        put("TRAILER!!!", 0, b"")


def split(log, outdir):
    os.makedirs(outdir, exist_ok=True)
    name, buf, b64 = None, [], None
    with open(log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = re.match(r"=== BEGIN (\S+)$", line)
            if m:
                name, buf = m.group(1), []
                continue
            m = re.match(r"=== END (\S+) rc=(\d+)$", line)
            if m and name == m.group(1):
                open(os.path.join(outdir, name + ".out"), "w").write("\n".join(buf) + "\n")
                open(os.path.join(outdir, name + ".rc"), "w").write(m.group(2) + "\n")
                name = None
                continue
            m = re.match(r"=== B64 (\S+)$", line)
            if m:
                b64 = (m.group(1), [])
                continue
            if line == "=== B64END" and b64:
                open(os.path.join(outdir, b64[0]), "wb").write(base64.b64decode("".join(b64[1])))
                b64 = None
                continue
            if b64:
                b64[1].append(line.strip())
            elif name:
                buf.append(line)


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def sfdbg_threads(text):
    """Thread LWP -> [(PC, function name)], from sfdbg's text backtraces."""
    out, cur = {}, None
    for line in ANSI.sub("", text).splitlines():
        m = re.match(r"Thread \d+ \((?:Thread|LWP) (\d+)", line)
        if m:
            cur = out.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"#(\d+)\s+(0x[0-9a-f]+)\s+\S+\s+.*?\s{2,}(?:(<signal handler called>)|([^\s(]+) \()", line)
        if cur is not None and m and int(m.group(1)) == len(cur):
            cur.append((int(m.group(2), 16), m.group(3) or m.group(4)))
    return out


def gdb_threads(text):
    """Thread LWP -> [(PC or None, function name)], from gdb's "thread apply
    all bt" ("#2  0x400e74 [PAC] in alpha_1 (...)", "#0  spin_here () at")."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"Thread \d+ \(.*LWP (\d+)\)", line)
        if m:
            cur = out.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"#(\d+)\s+(?:(0x[0-9a-f]+) (?:\[PAC\] )?in )?(<signal handler called>|[^\s(]+)", line)
        if cur is not None and m and int(m.group(1)) == len(cur):
            cur.append((int(m.group(2), 16) if m.group(2) else None, m.group(3)))
    return out


def frames(sfdbg_out, gdb_out):
    s = sfdbg_threads(open(sfdbg_out).read())
    g = gdb_threads(open(gdb_out).read())
    compared = equal = 0
    bad = False
    for lwp in sorted(g):
        want = g[lwp]
        got = s.get(lwp)
        if got is None:
            print("thread %d: gdb shows %d frames, sfdbg none" % (lwp, len(want)))
            bad = True
            continue
        def same(i):
            if i >= len(got):
                return False
            pc, fn = want[i]
            return got[i][0] == pc if pc is not None else got[i][1] == fn
        diffs = [i for i in range(len(want)) if not same(i)]
        compared += len(want)
        equal += len(want) - len(diffs)
        if diffs:
            bad = True
            i = diffs[0]
            show = lambda f: "%s %s" % ("%#x" % f[0] if f[0] is not None else "(no PC)", f[1])
            print("thread %d: frame #%d is %s in gdb, %s in sfdbg" % (
                lwp, i, show(want[i]), show(got[i]) if i < len(got) else "missing"))
        else:
            print("thread %d: gdb's %d frames equal (sfdbg: %d)" % (lwp, len(want), len(got)))
    if not g:
        print("gdb printed no thread")
        bad = True
    print("frames: %d compared, %d equal" % (compared, equal))
    return 1 if bad else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "cpio" and len(sys.argv) == 4:
        cpio(sys.argv[2], sys.argv[3])
    elif cmd == "split" and len(sys.argv) == 4:
        split(sys.argv[2], sys.argv[3])
    elif cmd == "frames" and len(sys.argv) == 4:
        sys.exit(frames(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
