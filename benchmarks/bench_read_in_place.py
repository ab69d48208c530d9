"""The first read with texts left in the reader's buffer (``datasets.utf8.Utf8Texts``: no ``str``
per ASCII text, issue 48 item 3) beside the same run making a ``str`` per text (the path of
before), on the same 1M-row file as JSONL, CSV and Parquet, in one process, alternating.

    .venv/bin/python benchmarks/bench_read_in_place.py /tmp/simhash-lab-bench/docs-1000000.jsonl
    .venv/bin/python benchmarks/bench_read_in_place.py FILE --repeats 3 --formats jsonl,parquet

The CSV and Parquet copies of FILE are made once beside it (``--work``), by pyarrow. For each
format and each pass, in turn (the path first, then the other first, ...), process CPU (user +
system, every thread) of:

* ``read``: the read step alone, ``Read.chunks`` consumed as the dedup's read step consumes it
  (a chunk alive at a time);
* ``first read``: each chunk's read, then its first-read steps (``first_read``: normalise,
  digests, fingerprints, band keys) on this thread, as one thread of the local executor runs them;
* ``end to end``: ``dedup_table(FILE, output=..., duplicates=...)`` (2 threads where the machine
  has them); its kept rows' and duplicates table's bytes compared between the two paths (they
  must be equal).

``before`` is ``Read.in_place`` turned off: the reader's ``str`` path, the code of before (the
path main runs). Medians, each pair's ratio before / in place, the load average beside each figure,
the CPU's model and SIMD flags from ``/proc/cpuinfo``. CSV has no in-place reader (the standard
:mod:`csv` module reads it, a ``str`` per field); for scale, the last line times
``pyarrow.csv.read_csv`` of the same file (its text column's buffers: what a pyarrow CSV reader
would start from).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import tempfile
import warnings

from bench_dedup import cpu_info  # the CPU's model and SIMD flags, read from /proc/cpuinfo

from simhash_lab.datasets import open_dataset
from simhash_lab.dedup import dedup_table
from simhash_lab.dedup.run import Clock, Run
from simhash_lab.dedup.steps import Read, first_read
from simhash_lab.settings import DedupSettings
from simhash_lab.shingles import CHUNK_ROWS

IN_PLACE = Read.in_place


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def load() -> float:
    return os.getloadavg()[0]


def copies(path: str, work: str) -> dict:
    """The JSONL file and its CSV and Parquet copies (made once, by pyarrow)."""
    import pyarrow.csv as pcsv
    import pyarrow.json as pjson
    import pyarrow.parquet as pq

    stem = os.path.join(work, os.path.basename(path).rsplit(".", 1)[0])
    out = {"jsonl": path, "csv": stem + ".csv", "parquet": stem + ".parquet"}
    if not (os.path.exists(out["csv"]) and os.path.exists(out["parquet"])):
        table = pjson.read_json(path, read_options=pjson.ReadOptions(block_size=1 << 26))
        pq.write_table(table, out["parquet"], row_group_size=65536)
        pcsv.write_csv(table, out["csv"])
    return out


def one(path: str, what: str, in_place: bool, out_dir: str) -> float:
    """One pass of ``what`` over ``path``; its process CPU seconds."""
    Read.in_place = IN_PLACE if in_place else (lambda self, run: False)
    run = Run(DedupSettings())
    t0 = cpu()
    if what == "end to end":
        tag = "in-place" if in_place else "before"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kept = os.path.join(out_dir, f"kept-{tag}" + os.path.splitext(path)[1])
            dup = os.path.join(out_dir, f"dup-{tag}.csv")
            dedup_table(path, "text", id_column="id", output=kept, duplicates=dup)
        return cpu() - t0
    src = open_dataset(path, "text", "id", None)
    try:
        read = Read()
        utf8 = read.in_place(run)
        start = 0
        for texts, _, _, _ in read.chunks(run, src, CHUNK_ROWS, utf8):
            if what == "first read":
                first_read(run, texts, start, src.name, Clock())
            start += len(texts)
    finally:
        src.close()
    return cpu() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--formats", default="jsonl,csv,parquet")
    ap.add_argument("--steps", default="read,first read,end to end")
    ap.add_argument("--work", default=None, help="where the CSV and Parquet copies go (default: beside FILE)")
    args = ap.parse_args()
    work = args.work or os.path.dirname(os.path.abspath(args.path))
    files = copies(args.path, work)
    print(f"{cpu_info()}; load {load():.2f}")
    for fmt in args.formats.split(","):
        path = files[fmt]
        print(f"{fmt}: {path} ({os.path.getsize(path) / 1e6:.0f} MB)", flush=True)
        one(path, "read", True, work)  # the kernels loaded, the file in the page cache
        for what in args.steps.split(","):
            runs: dict = {True: [], False: []}
            loads = []
            with tempfile.TemporaryDirectory(dir=work) as out_dir:
                for rep in range(args.repeats):
                    for mode in (True, False) if rep % 2 == 0 else (False, True):
                        loads.append(load())
                        runs[mode].append(one(path, what, mode, out_dir))
                if what == "end to end":
                    ext = os.path.splitext(path)[1]
                    both = [
                        (f"kept-in-place{ext}", f"kept-before{ext}"),
                        ("dup-in-place.csv", "dup-before.csv"),
                    ]
                    same = all(
                        filecmp.cmp(os.path.join(out_dir, x), os.path.join(out_dir, y), shallow=False)
                        for x, y in both
                    )
                    print(f"    kept rows and duplicates table byte-identical: {same}")
            a, b = statistics.median(runs[True]), statistics.median(runs[False])
            pairs = ", ".join(f"{o / s:.2f}" for s, o in zip(runs[True], runs[False]))
            print(
                f"  {what:<10} CPU s, median of {args.repeats}: in place {a:6.2f}, before {b:6.2f}: "
                f"{b / a:.2f}x (pairs {pairs}); load {min(loads):.2f}-{max(loads):.2f}",
                flush=True,
            )
    if "csv" in args.formats.split(","):
        import pyarrow.csv as pcsv

        times = []
        for _ in range(args.repeats):
            t0 = cpu()
            table = pcsv.read_csv(files["csv"], read_options=pcsv.ReadOptions(block_size=1 << 24))
            times.append(cpu() - t0)
            del table
        print(
            f"csv: pyarrow.csv.read_csv of the same file (every column as Arrow), CPU s, median of "
            f"{args.repeats}: {statistics.median(times):.2f}; load {load():.2f}"
        )


if __name__ == "__main__":
    main()
