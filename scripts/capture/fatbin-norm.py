#!/usr/bin/env python3
"""Device code of a CUDA executable as normalised text, without cuobjdump
(the build machine's CUDA has none): reads the .nv_fatbin section
(objcopy), splits it into its PTX and ELF (cubin) entries (zstd for the
compressed ones), and prints, per cubin, every non-debug section (name,
type, flags, info with the register count, size; .text.* and .nv.* in
full hex), relocations by symbol name and the symbol table by name, and
per PTX the text without .loc/.file lines, comments and debug sections,
functions sorted by name. Two builds whose outputs are equal have the
same machine code, registers, shared and constant data and the same PTX;
line info (-lineinfo) is left out, so moving source lines does not count.
    python3 scripts/capture/fatbin-norm.py build/linux/bin/cuda_portfolio > new.txt
    cmp old.txt new.txt
Used for fffc0fc7 ("no kernel change", docs/PERFORMANCE.md, "Versions
tried (row ops)"): a rebuild with rowfused.cu's lines moved compared
equal, one with a changed kernel macro did not."""
import sys, os, struct, hashlib, subprocess, re, tempfile

def fatbin_of(path):
    # objcopy's output is a file of our own, never /dev/stdout: on an object
    # it cannot read (one still being written, say) objcopy removes its
    # output path, and run as root that removed the /dev/stdout link itself
    # (the next run then wrote a regular file there).
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'fatbin.bin')
        r = subprocess.run(['objcopy', '-O', 'binary',
                            '--only-section=.nv_fatbin', path, out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit('fatbin-norm: %s: objcopy could not read it: %s'
                     % (path, r.stderr.strip()))
        with open(out, 'rb') as f:
            return f.read()

def entries(fb):
    off = 0
    res = []
    while off + 16 <= len(fb):
        magic, ver, hsz, fsz = struct.unpack_from('<IHHQ', fb, off)
        if magic != 0xba55ed50:
            # padding between containers
            off += 8
            continue
        p = off + hsz
        end = p + fsz
        while p < end:
            kind, _v, ehsz, psz = struct.unpack_from('<HHIQ', fb, p)
            csz, _u2, minor, major, arch = struct.unpack_from('<IIHHI', fb, p + 16)
            flags, = struct.unpack_from('<Q', fb, p + 40)
            dsz, = struct.unpack_from('<Q', fb, p + 56) if ehsz >= 64 else (0,)
            payload = fb[p + ehsz:p + ehsz + psz]
            if flags & 0x8000:
                payload = subprocess.run(['zstd', '-d', '-c'], input=payload[:csz],
                                         capture_output=True, check=True).stdout
                assert len(payload) == dsz, (len(payload), dsz)
            res.append(dict(kind=kind, arch=arch, flags=flags, payload=payload, csz=csz, dsz=dsz))
            p += ehsz + psz
        off = end
    return res

def is_debug(name):
    return (name.startswith('.debug') or name.startswith('.nv_debug') or
            name.startswith('.rel.debug') or name.startswith('.rela.debug') or
            name.startswith('.rel.nv_debug') or name.startswith('.rela.nv_debug'))

def elf_norm(b):
    e_shoff, = struct.unpack_from('<Q', b, 0x28)
    e_flags, = struct.unpack_from('<I', b, 0x30)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    secs = []
    for i in range(e_shnum):
        s = struct.unpack_from('<IIQQQQIIQQ', b, e_shoff + i * e_shentsize)
        secs.append(s)
    def cstr(tab, o):
        e = b.index(b'\0', tab + o)
        return b[tab + o:e].decode()
    shstr = secs[e_shstrndx][4]
    names = [cstr(shstr, s[0]) for s in secs]
    lines = ['e_flags %x osabi %d abiv %d' % (e_flags, b[7], b[8])]
    # index -> name mapping so links/infos that are section indices print by name
    def sname(i):
        return names[i] if 0 <= i < len(names) else '#%d' % i
    per = []
    symtab = None
    for i, (nm, s) in enumerate(zip(names, secs)):
        if i == 0 or is_debug(nm):
            continue
        typ, flags, addr, off, size, link, info, align, entsz = s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]
        data = b'' if typ == 8 else b[off:off + size]
        if typ == 2:
            symtab = (data, entsz, sname(link), secs[link][4])
            continue
        if typ == 3:  # string tables: compare as sets of strings
            strs = sorted(set(x.decode() for x in data.split(b'\0') if x))
            per.append((nm, 'strtab %s' % hashlib.sha1('\n'.join(strs).encode()).hexdigest()))
            continue
        # info: register count lives in the top byte for .text; for REL the target section
        if typ in (9, 4):
            infos = 'target=%s' % sname(info)
        else:
            infos = 'info=%x' % info
        # for relocation sections: resolve symbol indices later via symtab names
        per.append((nm, 'type=%d flags=%x %s link=%s align=%d entsz=%d size=%d' % (
            typ, flags, infos, sname(link) if link else '-', align, entsz, size), data, typ))
    # symbols by index
    syms = []
    if symtab:
        data, entsz, _, stroff = symtab
        for k in range(len(data) // 24):
            st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from('<IBBHQQ', data, k * 24)
            syms.append((cstr(stroff, st_name) if st_name else '', st_info, st_other,
                         sname(st_shndx) if st_shndx < 0xff00 else '#%x' % st_shndx, st_value, st_size))
    out = lines[:]
    for item in sorted(per, key=lambda x: x[0]):
        nm = item[0]
        if len(item) == 2:
            out.append('%s %s' % item)
            continue
        _, hdr, data, typ = item
        out.append('SECTION %s %s' % (nm, hdr))
        if typ in (9, 4):  # REL / RELA: print with symbol names
            step = 16 if typ == 9 else 24
            for k in range(len(data) // step):
                r_off, r_info = struct.unpack_from('<QQ', data, k * step)
                add = struct.unpack_from('<q', data, k * step + 16)[0] if typ == 4 else 0
                si = r_info >> 32
                sn = syms[si][0] or ('sec:' + syms[si][3]) if si < len(syms) else '#%d' % si
                out.append('  rel %x type %d sym %s add %d' % (r_off, r_info & 0xffffffff, sn, add))
        elif nm.startswith('.text') or nm.startswith('.nv.info') or nm.startswith('.nv.constant') or nm.startswith('.nv.') :
            h = data.hex()
            for k in range(0, len(h), 64):
                out.append('  ' + h[k:k + 64])
        else:
            out.append('  sha1 ' + hashlib.sha1(data).hexdigest())
    for s in sorted(syms):
        out.append('SYM %s info=%x other=%x sec=%s value=%x size=%x' % s)
    return out

def ptx_norm(t):
    t = t.decode('utf-8', 'replace') if isinstance(t, bytes) else t
    out = []
    skip = 0
    lines = t.split('\n')
    i = 0
    while i < len(lines):
        l = lines[i]
        s = l.strip()
        if s.startswith('.section') and '.debug' in s:
            # skip to the matching closing brace
            depth = l.count('{') - l.count('}')
            i += 1
            while i < len(lines) and (depth > 0 or lines[i].strip() == '{'):
                depth += lines[i].count('{') - lines[i].count('}')
                i += 1
            continue
        if s.startswith('.loc') or s.startswith('.file') or s.startswith('//'):
            i += 1
            continue
        out.append(l.rstrip())
        i += 1
    # split per function (.entry / .func) and sort
    text = '\n'.join(out)
    parts = re.split(r'\n(?=(?:\.visible |\.weak |\.extern )?(?:\.entry|\.func) )', text)
    head, funcs = parts[0], parts[1:]
    def key(p):
        m = re.match(r'(?:\.visible |\.weak |\.extern )?(?:\.entry|\.func)\s*(?:\([^)]*\)\s*)?(\S+?)\(', p)
        return (m.group(1) if m else p[:80], p)
    funcs.sort(key=key)
    return [head] + funcs

def dump(path):
    fb = fatbin_of(path)
    es = entries(fb)
    if not es:
        # two objects without device code would otherwise compare equal
        sys.exit('fatbin-norm: %s: no device code (no .nv_fatbin entries)' % path)
    out = []
    for n, e in enumerate(es):
        kind = {1: 'PTX', 2: 'ELF'}.get(e['kind'], str(e['kind']))
        out.append('=== entry %d kind %s arch %d flags %x' % (n, kind, e['arch'], e['flags']))
        if e['kind'] == 2:
            out.extend(elf_norm(e['payload']))
        else:
            p = e['payload'].rstrip(b'\0')
            out.extend(ptx_norm(p))
    return out

if __name__ == '__main__':
    sys.stdout.write('\n'.join(dump(sys.argv[1])) + '\n')
