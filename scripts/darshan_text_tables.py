#!/usr/bin/env python3
"""Writes importers/darshan/darshan_module_tables.cpp: for each Darshan module, the counter names in the
order darshan-parser prints them (current record versions) and the description block it prints
before the records (per record version), read from darshan-parser's own output in
../shared/data/darshan (the reference .darshan.txt files). Run it again when the corpus grows.

Record versions that no corpus log holds (POSIX 2, H5F 1-2, PNETCDF_FILE 1-2, BG/Q 1) get their
description composed as darshan-util 3.5 prints it: the module's common text, then the version
warnings of VERSION_WARNINGS below (each module's print_description(ver) in
darshan-util/darshan-<module>-logutils.c). The composition is checked against every version the
corpus does hold, and the script stops if one differs."""
import glob
import os
import re
import sys

corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data', 'darshan')
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', 'importers', 'darshan', 'darshan_module_tables.cpp')
pre, names, current = {}, {}, {}
for f in sorted(glob.glob(os.path.join(corpus, '*', '*.darshan.txt'))):
    t = open(f, errors='surrogateescape').read()
    vers = dict(re.findall(r'# (\S+) module: \d+ bytes \(compressed\), ver=(\d+)', t))
    for m in re.finditer(r'\n# \*+\n# (\S+) module data\n# \*+\n(.*?)\n(#<module>[^\n]*)\n(.*?)(?=\n\n# \*|\Z)', t, re.S):
        mod, body, recs = m.group(1), m.group(2), m.group(4)
        ver = int(vers.get(mod, 0))
        body = re.sub(r'\n# \*WARNING\*: The \S+ module contains incomplete data!.*?instrumenting unnecessary files\.', '', body, flags=re.S)
        pre.setdefault((mod, ver), body)
        seq, first = [], None
        skip = mod == 'APMPI'  # its first record is the header record; the names are the perf record's
        for line in recs.split('\n'):
            p = line.split('\t')
            if len(p) < 5:
                continue
            if first is None:
                first = (p[1], p[2])
            if (p[1], p[2]) != first:
                if skip:
                    skip, first, seq = False, (p[1], p[2]), []
                else:
                    break
            seq.append(p[3])
        if ver >= current.get(mod, 0) and len(seq) >= len(names.get(mod, [])):
            current[mod] = ver
            names[mod] = seq


# The warnings each module's print_description(ver) prints after its common text, in order: (the
# record versions a warning is printed for, its text), as darshan-util 3.5's sources have them:
# darshan-posix-logutils.c, darshan-mpiio-logutils.c, darshan-stdio-logutils.c,
# darshan-hdf5-logutils.c (H5F and H5D), darshan-pnetcdf-logutils.c (PNETCDF_FILE; PNETCDF_VAR has
# one version) and darshan-bgq-logutils.c (no warnings: version 1 prints version 2's text).
# LUSTRE's text does not depend on the version; HEATMAP, DFS, DAOS and APMPI have one version.
CURRENT_VERSION = {'POSIX': 4, 'MPI-IO': 3, 'STDIO': 2, 'H5F': 3, 'H5D': 2, 'PNETCDF_FILE': 3, 'BG/Q': 2}
VERSION_WARNINGS = {
    'POSIX': [
        ({1}, '\n# WARNING: POSIX module log format version 1 has the following limitations:\n'
              '# - Darshan version 3.1.0 and earlier had only partial instrumentation of stdio stream I/O functions.\n'
              '#   File records with stdio counters present will be omitted from output.\n'
              '#   Use darshan-logutils < 3.1.0 to retrieve those records.\n'),
        ({1, 2}, '\n# WARNING: POSIX module log format version <=2 has the following limitations:\n'
                 '# - No support for the following timers:\n'
                 '# \t- POSIX_F_CLOSE_START_TIMESTAMP\n'
                 '# \t- POSIX_F_OPEN_END_TIMESTAMP\n'),
        ({1, 2, 3}, '\n# WARNING: POSIX module log format version <=3 has the following limitations:\n'
                    '# - No support for the following counters to properly instrument dup, fileno, and rename operations:\n'
                    '# \t- POSIX_FILENOS\n'
                    '# \t- POSIX_DUPS\n'
                    '# \t- POSIX_RENAME_SOURCES\n'
                    '# \t- POSIX_RENAME_TARGETS\n'
                    '# \t- POSIX_RENAMED_FROM\n'),
        ({4}, '\n# WARNING: POSIX_OPENS counter includes both POSIX_FILENOS and POSIX_DUPS counts\n'
              '\n# WARNING: POSIX counters related to file offsets may be incorrect if a file is simultaneously '
              'accessed by both POSIX and STDIO (e.g., using fileno())\n'
              '# \t- Affected counters include: MAX_BYTE_{READ|WRITTEN}, CONSEC_{READS|WRITES}, SEQ_{READS|WRITES}, '
              '{MEM|FILE}_NOT_ALIGNED, STRIDE*_STRIDE\n'),
    ],
    'MPI-IO': [
        ({1}, '\n# WARNING: MPIIO module log format version 1 has the following limitations:\n'
              '# - MPIIO_F_WRITE_START_TIMESTAMP may not be accurate.\n'),
        ({1, 2}, '\n# WARNING: MPIIO module log format version <=2 does not support the following counters:\n'
                 '# - MPIIO_F_CLOSE_START_TIMESTAMP\n'
                 '# - MPIIO_F_OPEN_END_TIMESTAMP\n'),
    ],
    'STDIO': [
        ({1}, '\n# WARNING: STDIO module log format version 1 has the following limitations:\n'
              '# - No support for properly instrumenting fdopen operations (STDIO_FDOPENS)\n'),
        ({2}, '\n# WARNING: STDIO_OPENS counter includes STDIO_FDOPENS count\n'
              '\n# WARNING: STDIO counters related to file offsets may be incorrect if a file is simultaneously '
              'accessed by both STDIO and POSIX (e.g., using fdopen())\n'
              '# \t- Affected counters include: MAX_BYTE_{READ|WRITTEN}\n'),
    ],
    'H5F': [
        ({1}, '\n# WARNING: H5F module log format version 1 does not support the following counters:\n'
              '# - H5F_F_CLOSE_START_TIMESTAMP\n'
              '# - H5F_F_OPEN_END_TIMESTAMP\n'),
        ({1, 2}, '\n# WARNING: H5F module log format version <=2 does not support the following counters:\n'
                 '# \t- H5F_FLUSHES\n'
                 '# \t- H5F_USE_MPIIO\n'
                 '# \t- H5F_F_META_TIME\n'),
    ],
    'H5D': [
        ({1}, '\n# WARNING: H5D module log format version 1 does not support the following counters:\n'
              '# - H5D_FILE_REC_ID\n'),
    ],
    'PNETCDF_FILE': [
        ({1}, '\n# WARNING: PnetCDF file module log format version 1 does not support the following counters:\n'
              '# - PNETCDF_FILE_F_CLOSE_START_TIMESTAMP\n'
              '# - PNETCDF_FILE_F_OPEN_END_TIMESTAMP\n'),
        ({1, 2}, '\n# WARNING: PnetCDF file module log format version <=2 does not support the following counters:\n'
                 + ''.join('# - PNETCDF_FILE_%s\n' % c for c in (
                     'CREATES', 'REDEFS', 'INDEP_WAITS', 'COLL_WAITS', 'SYNCS', 'BYTES_READ', 'BYTES_WRITTEN',
                     'WAIT_FAILURES', 'F_WAIT_START_TIMESTAMP', 'F_WAIT_END_TIMESTAMP', 'F_META_TIME',
                     'F_WAIT_TIME'))),
    ],
    'BG/Q': [],
}


def warnings_of(mod, ver):
    return ''.join(text for versions, text in VERSION_WARNINGS[mod] if ver in versions)


for mod, cur in CURRENT_VERSION.items():
    held = {v: pre[(mod, v)] for v in range(1, cur + 1) if (mod, v) in pre}
    if not held:
        sys.exit('%s: no description of any version in %s' % (mod, corpus))
    some = max(held)
    tail = warnings_of(mod, some)
    if not held[some].endswith(tail):
        sys.exit('%s version %d: the corpus description does not end in the warnings of the sources' % (mod, some))
    common = held[some][:len(held[some]) - len(tail)]
    for v in range(1, cur + 1):
        text = common + warnings_of(mod, v)
        if v in held and held[v] != text:
            sys.exit('%s version %d: the corpus description differs from the one composed from the sources' % (mod, v))
        pre[(mod, v)] = text


def c_string(s):
    return '"' + s.encode('utf-8', 'surrogateescape').decode('latin-1').replace('\\', '\\\\').replace('"', '\\"').replace('\t', '\\t').replace('\n', '\\n"\n    "') + '"'


fixed = ['POSIX', 'MPI-IO', 'STDIO', 'H5F', 'H5D', 'PNETCDF_FILE', 'PNETCDF_VAR', 'BG/Q', 'DFS', 'DAOS', 'APMPI']
with open(out, 'w') as o:
    o.write('// Generated by scripts/darshan_text_tables.py from darshan-parser output (and, for record versions\n'
            '// the corpus lacks, the version warnings of darshan-util); do not edit.\n')
    o.write('#include "importers/darshan/darshan_module_tables.h"\n\nnamespace xtfq {\n\n')
    o.write('// clang-format off\n')
    o.write('const std::vector<DarshanModuleTables::Counters>& DarshanModuleTables::CounterNames() {\n')
    o.write('  static const std::vector<Counters> kNames = {\n')
    for mod in fixed:
        if mod in names:
            o.write('      {"%s", %d, {%s}},\n' % (mod, current[mod], ', '.join('"%s"' % n for n in names[mod])))
    o.write('  };\n  return kNames;\n}\n\n')
    o.write('const std::vector<DarshanModuleTables::Description>& DarshanModuleTables::Descriptions() {\n')
    o.write('  static const std::vector<Description> kText = {\n')
    for (mod, ver), body in sorted(pre.items()):
        o.write('      {"%s", %d,\n    %s},\n' % (mod, ver, c_string(body)))
    o.write('  };\n  return kText;\n}\n// clang-format on\n\n}  // namespace xtfq\n')
