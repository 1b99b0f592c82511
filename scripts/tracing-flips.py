#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# tracing-flips.py DATA OUT.tsv [XORS]: flip single bytes of the
# TRACING_DATA of DATA (a file-mode perf.data's feature, or a pipe-mode
# one's HEADER_TRACING_DATA payload), run `perf script -i` on each variant
# (20 s timeout) and write one line per flip: blob offset, XOR mask,
# section, outcome (ok, error, signalN, heap-abort, double-free, timeout),
# perf's last line of stderr.  Sample: every byte of the framing (magic,
# version, sizes, counts, names), every 3rd byte of the texts, every 25th
# of the printk formats; XORS (default 0x01,0xff) each.  The results
# behind lib/tracing/tracing-data.c's comment and tests/lib/td-crash-flips.h
# (fuzz/README.md, "Tracing data: the flip experiment").
import os, struct, subprocess, sys, tempfile
def locate(d):
    if d[:8] != b'PERFILE2': raise SystemExit('not PERFILE2')
    hsz = struct.unpack_from('<Q', d, 8)[0]
    if hsz == 16:  # pipe
        off = 16
        while off + 8 <= len(d):
            typ, misc, size = struct.unpack_from('<IHH', d, off)
            if typ == 66:
                bsz = struct.unpack_from('<I', d, off + 8)[0]
                return off + size, bsz, ('pipe', off)
            extra = 0
            if typ == 71: extra = struct.unpack_from('<Q', d, off + 8)[0]
            off += size + extra
        raise SystemExit('no type 66')
    doff, dsz = struct.unpack_from('<QQ', d, 40)
    feat = int.from_bytes(d[72:104], 'little')
    if not feat & 2: raise SystemExit('no TRACING_DATA')
    # feature table at data end; bit 1 is the first (bit 0 unused)
    sec = doff + dsz
    o, s = struct.unpack_from('<QQ', d, sec)
    return o, s, ('file', sec)
def sections(b):
    """[(label, start, end)] of a tracing-data blob, python reference parser"""
    out = []; p = 0
    out.append(('magic', 0, 10)); p = 10
    e = b.index(b'\0', p); out.append(('version', p, e + 1)); ver = b[p:e].decode(); p = e + 1
    out.append(('endian+longsize', p, p + 2)); be = b[p]; p += 2
    E = '>' if be else '<'
    out.append(('page_size', p, p + 4)); p += 4
    out.append(('header_page name', p, p + 12)); p += 12
    s = struct.unpack_from(E + 'Q', b, p)[0]; out.append(('header_page size', p, p + 8)); p += 8
    out.append(('header_page text', p, p + s)); p += s
    out.append(('header_event name', p, p + 13)); p += 13
    s = struct.unpack_from(E + 'Q', b, p)[0]; out.append(('header_event size', p, p + 8)); p += 8
    out.append(('header_event text', p, p + s)); p += s
    n = struct.unpack_from(E + 'I', b, p)[0]; out.append(('ftrace count', p, p + 4)); p += 4
    for i in range(n):
        s = struct.unpack_from(E + 'Q', b, p)[0]; out.append(('ftrace size', p, p + 8)); p += 8
        out.append(('ftrace text', p, p + s)); p += s
    n = struct.unpack_from(E + 'I', b, p)[0]; out.append(('systems count', p, p + 4)); p += 4
    for i in range(n):
        e = b.index(b'\0', p); out.append(('system name', p, e + 1)); p = e + 1
        m = struct.unpack_from(E + 'I', b, p)[0]; out.append(('events count', p, p + 4)); p += 4
        for j in range(m):
            s = struct.unpack_from(E + 'Q', b, p)[0]; out.append(('event size', p, p + 8)); p += 8
            out.append(('event text', p, p + s)); p += s
    s = struct.unpack_from(E + 'I', b, p)[0]; out.append(('kallsyms size', p, p + 4)); p += 4
    out.append(('kallsyms', p, p + s)); p += s
    s = struct.unpack_from(E + 'I', b, p)[0]; out.append(('printk size', p, p + 4)); p += 4
    out.append(('printk', p, p + s)); p += s
    if float(ver) >= 0.6:
        s = struct.unpack_from(E + 'Q', b, p)[0]; out.append(('cmdlines size', p, p + 8)); p += 8
        out.append(('cmdlines', p, p + s)); p += s
    return out, p
def main():
    data = open(sys.argv[1], 'rb').read()
    o, s, kind = locate(data)
    blob = data[o:o + s]
    secs, end = sections(blob)
    plan = []
    for (label, a, b) in secs:
        text = label.endswith('text') or label in ('printk', 'kallsyms', 'cmdlines')
        step = 1 if not text else (25 if label == 'printk' else 3)
        for k in range(a, b, step):
            plan.append((k, label))
    xors = [0x01, 0xff] if len(sys.argv) < 4 else [int(x, 0) for x in sys.argv[3].split(',')]
    tmp = tempfile.mkdtemp(prefix='flip')
    path = os.path.join(tmp, 'x.data')
    out = open(sys.argv[2], 'w')
    for k, label in plan:
        for x in xors:
            d = bytearray(data)
            d[o + k] ^= x
            open(path, 'wb').write(d)
            try:
                p = subprocess.run(['perf', 'script', '-i', path], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
                rc = p.returncode
                err = p.stderr.decode('latin1')
                if rc < 0:
                    cls = 'signal%d' % -rc
                    if 'double free' in err: cls = 'double-free'
                    elif 'free()' in err or 'corrupted' in err or 'malloc' in err: cls = 'heap-abort'
                elif rc == 0:
                    cls = 'ok'
                else:
                    cls = 'error'
                det = ' '.join(err.strip().splitlines()[-1:])[:100] if err.strip() else ''
            except subprocess.TimeoutExpired:
                cls, det = 'timeout', ''
            out.write('%d\t0x%02x\t%s\t%s\t%s\n' % (k, x, label, cls, det))
            out.flush()

if __name__ == '__main__':
    main()
