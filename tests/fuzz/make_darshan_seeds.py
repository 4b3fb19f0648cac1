#!/usr/bin/env python3
"""Writes the seed inputs of tests/fuzz/darshan_log: small Darshan logs built from the format
description (../shared/docs/darshan-format.md), not copied from anywhere: a 3.41 log with ZLIB
regions, the same with BZIP2 and two modules, and a big-endian 3.00 log (360-byte header, 3.00 name
records)."""
import bz2
import os
import struct
import zlib


def log(version, names_raw, mods, comp=0, be=False):
    e = '>' if be else '<'
    job_struct = 1080 if version == "3.41" else 1064
    job = bytearray(job_struct)
    struct.pack_into(e + 'q', job, 0, 1000)  # uid
    if version == "3.41":
        struct.pack_into(e + 'qqqqqq', job, 8, 1700000000, 5, 1700000009, 7, 4, 77)
    else:
        struct.pack_into(e + 'qqqq', job, 8, 1700000000, 1700000009, 4, 77)
    job[job_struct - 1024:job_struct - 1024 + 12] = b"lib_ver=3.x\n"
    job += b"./app -x\next4\t/\nnfs\t/home\0"
    pack = {0: zlib.compress, 1: bz2.compress, 2: bytes}[comp]
    zjob, znames = pack(bytes(job)), pack(names_raw)
    hsize = 1328 if version == "3.41" else 360
    h = bytearray(hsize)
    h[0:len(version)] = version.encode()
    struct.pack_into(e + 'Q', h, 8, 6567223)
    h[16] = comp
    off = hsize + len(zjob)
    body = zjob + znames
    names_map = (off, len(znames))
    off += len(znames)
    maps = []
    for slot, raw in mods:
        z = pack(raw)
        maps.append((slot, off, len(z)))
        body += z
        off += len(z)
    if version == "3.41":
        struct.pack_into(e + 'QQ', h, 32, *names_map)
        for slot, o, n in maps:
            struct.pack_into(e + 'QQ', h, 48 + 16 * slot, o, n)
            struct.pack_into(e + 'I', h, 1072 + 4 * slot, 4)
    else:
        struct.pack_into(e + 'QQ', h, 24, *names_map)
        for slot, o, n in maps:
            struct.pack_into(e + 'QQ', h, 40 + 16 * slot, o, n)
            struct.pack_into(e + 'I', h, 296 + 4 * slot, 3)
    return bytes(h) + body


here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "darshan_log")
names341 = struct.pack('<Q', 11) + b"/home/a.dat\0" + struct.pack('<Q', 12) + b"<STDOUT>\0"
posix = struct.pack('<Qq', 11, 0) + bytes(64)
with open(os.path.join(here, "seed-341-zlib.darshan"), "wb") as f:
    f.write(log("3.41", names341, [(1, posix)]))
with open(os.path.join(here, "seed-341-bzip2.darshan"), "wb") as f:
    f.write(log("3.41", names341, [(1, posix), (9, posix)], comp=1))
names300 = struct.pack('>QI', 11, 11) + b"/home/a.dat"
with open(os.path.join(here, "seed-300-bigendian.darshan"), "wb") as f:
    f.write(log("3.00", names300, [(1, struct.pack('>Qq', 11, -1) + bytes(64))], be=True))
