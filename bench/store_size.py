#!/usr/bin/env python3
"""Issue 17's table (docs/benchmarks.md, "Store size and import"): for each input, its size, the
store's size and their ratio, the store's bytes per unit (segment, record, entry), the import's rate
and its peak RSS, from one run of `xtfq import` under /usr/bin/time -v. Run it before and after a
change to the store's layout, on an otherwise idle machine.

Usage: bench/store_size.py XTFQ SHARED_DIR WORK_DIR [SHARED_BENCH_GEN]
  XTFQ: the built CLI; SHARED_DIR: ../shared; WORK_DIR: scratch (a few GB);
  SHARED_BENCH_GEN: the shared benchmark's generator (default: build/shared_bench_gen beside XTFQ).
"""
import glob
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    xtfq, shared, work = (os.path.abspath(a) for a in sys.argv[1:4])
    gen = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else os.path.join(os.path.dirname(xtfq), "shared_bench_gen")
    os.makedirs(work, exist_ok=True)
    os.chdir(work)

    def run(*args):
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def rate(r):
        return f"{r / 1e6:.2f} M" if r >= 1e5 else f"{r:,.0f}"

    def row(label, store, inputs, per=None):
        if os.path.exists(store):
            os.remove(store)
        # Earlier runs' files still being written back take the CPU (2 cores) from this one: each
        # import starts with nothing dirty, and pays for its own writes (its commits sync).
        os.sync()
        p = subprocess.run(["/usr/bin/time", "-v", xtfq, "import", "-o", store, *inputs],
                           capture_output=True, text=True, check=True)
        err = p.stderr
        # The whole command's wall clock (records, grid summaries, job_stats summaries).
        clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([0-9:.]+)", err).group(1)
        secs = 0.0
        for part in clock.split(":"):
            secs = secs * 60 + float(part)
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
        if m := re.search(r"and (\d+) DXT segments", err):
            n, unit = int(m.group(1)), "segments"
        elif m := re.search(r"(\d+) entries", err):
            n, unit = int(m.group(1)), "entries"
        else:
            n, unit = int(re.search(r"import: (\d+) records", err).group(1)), "records"
        # (a generator's directory also holds its ground truth, *.csv, which the import leaves out)
        files = [f for i in inputs for f in (glob.glob(os.path.join(i, "*")) if os.path.isdir(i) else [i])
                 if not f.endswith(".csv")]
        if per is not None:
            n, unit = per
        # The records phase, as the import's last line says ("... in S s"): before the grid summaries.
        m = re.search(r"into .* in ([0-9.]+) s", err)
        records_secs = float(m.group(1)) if m else secs
        size_in = sum(os.path.getsize(f) for f in files)
        size_out = os.path.getsize(store)
        print(f"| {label} | {size_in / 1e6:.1f} MB | {size_out / 1e6:.1f} MB | {size_out / size_in:.1f}x | "
              f"{n:,} {unit}, {size_out / max(n, 1):.1f} B each | {rate(n / secs)} {unit}/s ({secs:.2f} s) | "
              f"{rate(n / records_secs)} {unit}/s ({records_secs:.2f} s) | {rss:.0f} MiB |", flush=True)

    print("| input | input | store | store / input | per unit | import (wall clock, all commits) | "
          "records phase (the import's own line) | peak RSS |")
    print("|---|---|---|---|---|---|---|---|")
    run(xtfq, "gen", "darshan", "1e6", "--ranks", "1024", "-o", "dxt1e6.darshan")
    row("generated DXT log, 10^6 segments, 1024 ranks", "dxt1e6.xtfq", ["dxt1e6.darshan"])
    row("large/iopat_large_dxt.darshan", "iopat.xtfq", [f"{shared}/data/darshan/large/iopat_large_dxt.darshan"])
    real = sorted(glob.glob(f"{shared}/data/darshan/real/*.darshan"))
    row(f"the {len(real)} logs of darshan/real in one store", "real.xtfq", real, per=(len(real), "logs"))
    run(gen, "1e7", "events.bin", "q.txt", "-")
    row("shared benchmark events, 10^7 x 32 B, with the P index", "events.xtfq", ["events.bin"])
    run(xtfq, "gen", "jobstats", "--targets", "100", "--jobs", "2000", "--samples", "60", "-o", "js")
    row("job_stats, gen jobstats --targets 100 --jobs 2000 --samples 60", "js.xtfq", ["js"])


if __name__ == "__main__":
    main()
