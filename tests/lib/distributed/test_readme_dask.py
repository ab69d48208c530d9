"""The README's Dask script runs as printed (issue 46, item 6): taken from README.md, written to a
file, run by Python from a folder holding ``data/parts/`` (a few Parquet parts), on the local
cluster the script starts (worker processes: its ``__main__`` guard is what lets them start)."""

from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("distributed")

ROOT = pathlib.Path(__file__).resolve().parents[3]


def readme_script() -> str:
    """The first Python block of the README's Dask section, as printed."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## On a Dask cluster") :]
    section = section[: section.index("\n## ", 3)]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.timeout(300)
def test_the_readme_dask_script_runs_as_printed(tmp_path):
    script = readme_script()
    assert 'if __name__ == "__main__":' in script and '"endpoint_url"' in script and "scratch=" in script
    parts = tmp_path / "data" / "parts"
    parts.mkdir(parents=True)
    base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door"
    for p in range(3):
        rows = [
            {"id": f"p{p}-{i}", "text": f"part {p} row {i}: words of its own, {i * 7} of them"}
            for i in range(5)
        ]
        rows.append({"id": f"p{p}-copy", "text": base})
        pq.write_table(pa.Table.from_pylist(rows), parts / f"part-{p}.parquet")
    (tmp_path / "run.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "run.py"], cwd=tmp_path, capture_output=True, text=True, timeout=280, env=env
    )
    assert r.returncode == 0, r.stderr[-3000:]
    summary = ast.literal_eval(r.stdout.strip().splitlines()[-1])
    assert {"rows", "kept", "dropped", "exact", "groups", "verified", "k", "calibration", "by_chars"} <= set(
        summary
    )
    assert summary["rows"] == 18 and summary["dropped"] == 2 and summary["kept"] == 16
    assert summary["duplicate_ids"] == 0
    out = tmp_path / "data" / "dedup"
    assert sorted(p.name for p in out.iterdir()) == [
        "duplicates.parquet", "part-00000.parquet", "part-00001.parquet", "part-00002.parquet",
    ]  # fmt: skip
    dups = pq.read_table(out / "duplicates.parquet").to_pylist()
    assert [(d["dropped_id"], d["kept_id"]) for d in dups] == [("p1-copy", "p0-copy"), ("p2-copy", "p0-copy")]
    assert pq.read_table(out / "part-00001.parquet").num_rows == 5
