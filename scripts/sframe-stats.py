#!/usr/bin/env python3
"""sframe-stats.py - independent little SFrame v1/v2/v3 reader, used to confirm
which encodings a fixture really contains (objdump does not print FRE start
address sizes or data word sizes).  Not part of sfdbg; no dependencies
beyond Python 3.

Usage: scripts/sframe-stats.py [-v] ELF...
Prints, per file: header fields, then counts of
  fre_addrN   FDEs whose FREs use N-byte start addresses (ADDR1/2/4)
  dataN       FREs whose data words are N bytes (1/2/4)
  pcmask      FDEs of type PCMASK (PLT stubs)
  pauth_b     FDEs with the AArch64 B-key bit
  mangled_ra  FREs with the AArch64 mangled-RA bit
  signal      FDEs with the v3 signal-frame bit
  flex        v3 FDEs of the flexible type (info2 FDE type 1)
  ra_undef    v3 FREs with no data words (RA undefined: outermost frame)
and checks that the FREs it walked add up to the header's count and length.
-v also lists every FDE and FRE.  v1 FDEs are 17 bytes, v2 20, v3 16 + a
5-byte attribute block in front of each function's FREs.
"""
import struct
import sys


def sframe_section(path):
    data = open(path, 'rb').read()
    if data[:4] != b'\x7fELF' or data[4] != 2:
        raise ValueError('not an ELF64 file')
    e = '<' if data[5] == 1 else '>'
    shoff, = struct.unpack_from(e + 'Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(e + 'HHH', data, 0x3a)
    shdrs = [struct.unpack_from(e + 'IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    stroff = shdrs[shstrndx][4]
    for sh in shdrs:
        name = data[stroff + sh[0]:].split(b'\0', 1)[0]
        if name == b'.sframe':
            return e, data[sh[4]:sh[4] + sh[5]]
    raise ValueError('no .sframe section')


def walk(path, verbose):
    e, d = sframe_section(path)
    bo = 'little' if e == '<' else 'big'
    magic, ver, flags, abi, ffp, fra, auxl, nfde, nfre, frelen, fdeoff, freoff = \
        struct.unpack_from(e + 'HBBBbbBIIIII', d, 0)
    print(f'{path}: version={ver} flags={flags:#x} abi={abi} fixed_fp={ffp} fixed_ra={fra} '
          f'fdes={nfde} fres={nfre} fre_len={frelen} section={len(d)}')
    if magic != 0xdee2:
        print('  bad magic'); return False
    if ver not in (1, 2, 3):
        print('  (unknown version, not walked)'); return False
    hdr = 28 + auxl
    frebase = hdr + freoff
    stats = {}

    def bump(k):
        stats[k] = stats.get(k, 0) + 1
    total, maxend = 0, 0
    for i in range(nfde):
        if ver == 1:
            start, size, fo, nf, info = struct.unpack_from(e + 'iIIIB', d, hdr + fdeoff + i * 17)
            info2, rep, p = 0, 0, frebase + fo
        elif ver == 2:
            start, size, fo, nf, info, rep, _ = struct.unpack_from(e + 'iIIIBBH', d, hdr + fdeoff + i * 20)
            info2, p = 0, frebase + fo
        else:
            start, size, fo = struct.unpack_from(e + 'qII', d, hdr + fdeoff + i * 16)
            p = frebase + fo
            nf, info, info2, rep = struct.unpack_from(e + 'HBBB', d, p)
            p += 5
        asz = (1, 2, 4)[info & 0xf]
        bump(f'fre_addr{asz}')
        if (info >> 4) & 1: bump('pcmask')
        if (info >> 5) & 1: bump('pauth_b')
        if ver == 3 and (info >> 7) & 1: bump('signal')
        if ver == 3 and (info2 & 0xf) == 1: bump('flex')
        if verbose:
            print(f'  fde[{i}] start_off={start:#x} size={size} fres={nf} ADDR{asz} info={info:#04x} '
                  f'info2={info2:#04x} rep={rep}')
        for _ in range(nf):
            sa = int.from_bytes(d[p:p + asz], bo); p += asz
            fi = d[p]; p += 1
            n, osz = (fi >> 1) & 0xf, (1, 2, 4, 0)[(fi >> 5) & 3]
            words = [int.from_bytes(d[p + k * osz:p + (k + 1) * osz], bo, signed=True) for k in range(n)]
            p += n * osz
            total += 1
            bump(f'data{osz}') if n else bump('ra_undef')
            if fi >> 7: bump('mangled_ra')
            if verbose:
                print(f'    fre start={sa:#x} base={"sp" if fi & 1 else "fp"} words={words} '
                      f'{"mangled" if fi >> 7 else ""}')
        maxend = max(maxend, p)
    ok = total == nfre and maxend == frebase + frelen
    print('  ' + ' '.join(f'{k}={v}' for k, v in sorted(stats.items())))
    print('  walk ' + ('consistent with header' if ok else f'INCONSISTENT: fres={total} end={maxend}'))
    return ok


def main():
    args = sys.argv[1:]
    verbose = '-v' in args
    files = [a for a in args if a != '-v']
    if not files:
        print(__doc__.strip()); return 2
    ok = True
    for f in files:
        try:
            ok = walk(f, verbose) and ok
        except (OSError, ValueError, struct.error) as exc:
            print(f'{f}: {exc}'); ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
