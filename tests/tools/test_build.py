"""The notebook build, ``tools/build.py``: committed files match their sources, ``--check`` sees a
stale file, the exercise roles, navigation, and the kernel the build runs in."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(build, *argv) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = build.main(list(argv))
    return rc, out.getvalue()


def test_committed_notebooks_and_exercises_match_their_sources(build):
    rc, out = _run(build, "--check")
    assert rc == 0, f"stale files; rebuild with `make notebooks`:\n{out}"
    assert re.search(r"^(\d+) files checked, 0 stale, 0 untranslated$", out, re.M)


def _copy_repo(tmp: Path) -> Path:
    """What the build reads and writes, copied (the committed files are rebuilt below)."""
    for rel in ("course", "notebooks", "exercises", "simhash_lab/grading/pristine"):
        shutil.copytree(ROOT / rel, tmp / rel)
    return tmp


def _stale_files(out: str) -> set[str]:
    return {line.split()[1].rstrip(":") for line in out.splitlines() if line.startswith("STALE ")}


def test_check_lists_each_stale_file(build, tmp_path):
    root = _copy_repo(tmp_path)
    rc, out = _run(build, "--no-execute", "--root", str(root))
    assert rc == 0, out
    n_files = len(build.LANGS) * (
        len(list((root / "course" / "notebooks").glob("*.py")))
        + 3 * len(list((root / "course" / "exercises").glob("*.py")))
    )
    assert _run(build, "--check", "--root", str(root)) == (
        0,
        f"{n_files} files checked, 0 stale, 0 untranslated\n",
    )

    # a source edited after its notebook was built: its notebook is stale, and so are its
    # neighbours, whose navigation shows its title
    src = root / "course" / "notebooks" / "04_charikar_hyperplanes.py"
    src.write_text(src.read_text(encoding="utf-8").replace("hyperplane", "hyper-plane", 1), encoding="utf-8")
    # an edited exercise source: all three of its files are stale
    src = root / "course" / "exercises" / "05_block_index.py"
    src.write_text(src.read_text(encoding="utf-8") + "\n# %%\nx = 1\n", encoding="utf-8")

    def edit(rel, change):
        path = root / rel
        nb = nbformat.read(path, as_version=4)
        change(nb)
        nbformat.write(nb, path)

    def drop_tag(nb):  # a tag lost in a committed file
        cell = next(c for c in nb.cells if "check" in c.metadata.get("tags", []))
        cell.metadata["tags"].remove("check")

    def swap_navigation(nb):  # navigation typed by hand
        nb.cells[0].source = "[back](somewhere.ipynb)"

    def unlock(nb):  # a locked cell made editable
        next(c for c in nb.cells if c.metadata.get("editable") is False).metadata.pop("editable")

    def to_raw(nb):  # a cell type changed
        nb.cells[1].cell_type = "raw"
        nb.cells[1].pop("outputs", None)
        nb.cells[1].pop("execution_count", None)

    edit("exercises/solutions/02_solution_simhash_voting.ipynb", drop_tag)
    edit("notebooks/06_near_duplicates.ipynb", swap_navigation)
    edit("simhash_lab/grading/pristine/03_hamming_popcount.ipynb", unlock)
    edit("notebooks/00_start_here.ipynb", to_raw)
    (root / "exercises" / "01_exercise_lsh_vs_crypto.ipynb").unlink()
    shutil.copy(root / "notebooks" / "07_review.ipynb", root / "notebooks" / "09_gone.ipynb")

    rc, out = _run(build, "--check", "--root", str(root))
    assert rc == 1
    # the Spanish of an edited source is stale too: 04's title has no translation any more (its
    # neighbours show it, in English), 05 has one more cell
    spanish = {
        "notebooks/es/04_charikar_hyperplanes.ipynb",
        "notebooks/es/03_hamming_popcount.ipynb",
        "notebooks/es/05_block_index.ipynb",
        "exercises/es/05_exercise_block_index.ipynb",
        "exercises/es/solutions/05_solution_block_index.ipynb",
        "simhash_lab/grading/pristine/es/05_block_index.ipynb",
    }
    assert _stale_files(out) == spanish | {
        "notebooks/04_charikar_hyperplanes.ipynb",
        "notebooks/03_hamming_popcount.ipynb",
        "notebooks/05_block_index.ipynb",
        "exercises/05_exercise_block_index.ipynb",
        "exercises/solutions/05_solution_block_index.ipynb",
        "simhash_lab/grading/pristine/05_block_index.ipynb",
        "exercises/solutions/02_solution_simhash_voting.ipynb",
        "notebooks/06_near_duplicates.ipynb",
        "simhash_lab/grading/pristine/03_hamming_popcount.ipynb",
        "notebooks/00_start_here.ipynb",
        "exercises/01_exercise_lsh_vs_crypto.ipynb",
        "notebooks/09_gone.ipynb",
    }, out
    assert "exercises/01_exercise_lsh_vs_crypto.ipynb: missing" in out
    assert "notebooks/09_gone.ipynb: no source in course/" in out
    assert "hyper-plane" in out and "cell type differs" in out and "metadata differs" in out
    assert "UNTRANSLATED es: course/notebooks/04_charikar_hyperplanes.py cell 0 (markdown:" in out, out
    # a subset checks only its own files
    rc, out = _run(build, "--check", "--root", str(root), "07")
    assert (rc, _stale_files(out)) == (0, set())

    # rebuilding (structure only) makes everything fresh again, but the orphan and the Spanish 04,
    # which the build does not write while its title is untranslated
    (root / "notebooks" / "09_gone.ipynb").unlink()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert _run(build, "--no-execute", "--root", str(root))[0] == 1
    assert "NOT WRITTEN (untranslated; see course/i18n/README.md): notebooks/es/04_charikar_hyperplanes" in (
        err.getvalue()
    )
    # the translator's round: update marks the old title's translation fuzzy; revised, it builds
    i18n = build.i18n
    src = root / "course" / "notebooks" / "04_charikar_hyperplanes.py"
    i18n.update(src, "es", root)
    rc, out = _run(build, "--check", "--root", str(root), "04")
    assert rc == 1 and "04_charikar_hyperplanes.py cell 0 (markdown: " in out and "fuzzy" in out, out
    path = i18n.catalogue_path(src, "es", root)
    po = i18n.read_catalogue(path)
    (entry,) = [e for e in po if "fuzzy" in e.flags]
    entry.flags.remove("fuzzy")
    i18n.write_catalogue(po, path)
    assert _run(build, "--no-execute", "--root", str(root))[0] == 0
    assert _run(build, "--check", "--root", str(root))[0] == 0


def test_every_source_round_trips_through_jupytext_and_ipynb():
    """jupytext reads every source, and writes it back the same from the ``.ipynb`` it gives (so
    an editor that pairs the two, or ``jupytext --to ipynb`` and back, changes nothing)."""
    sources = sorted((ROOT / "course").glob("*/[0-9][0-9]_*.py"))
    assert len(sources) >= 15
    for src in sources:
        text = src.read_text(encoding="utf-8")
        ipynb = jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="ipynb")
        assert jupytext.writes(jupytext.reads(ipynb, fmt="ipynb"), fmt="py:percent") == text, src


_DEMO = """# %% [markdown]
# # Exercises 99 · A demo
#
# Text.

# %% tags=["setup"]
from simhash_lab.grading import checks

# %%
bits = 64

# %% simhash_lab={"answer": "ideal"} tags=["answer"]
# Set `ideal_flips`.
### BEGIN SOLUTION
ideal_flips = bits // 2
### END SOLUTION

# %% tags=["check", "nbval-ignore-output"]
checks.ideal_flips(ideal_flips)


# %% simhash_lab={"answer": "near"} tags=["answer"]
def near(a, b):
    ### BEGIN SOLUTION
    return a == b
    ### END SOLUTION
"""


def _demo(build, tmp_path, text=_DEMO, name="99_demo"):
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return build.exercise_notebooks(build.read_source(path, "exercise"))


def test_exercise_roles_become_the_metadata_the_grader_reads(build, tmp_path):
    from simhash_lab.grading.checks import pass_line

    student, solution = _demo(build, tmp_path)
    assert student.metadata["simhash_lab"] == {"exercise": "99_demo"}
    cells = {c.id: c for c in student.cells}
    assert list(cells) == [
        "md-01",
        "setup-01",
        "given-02",
        "answer-ideal",
        "check-01-ideal-flips",
        "answer-near",
        "grade-note",
    ]
    assert cells["setup-01"].metadata == {
        "deletable": False,
        "editable": False,
        "simhash_lab": {"role": "setup"},
        "tags": ["setup"],
    }
    assert cells["given-02"].metadata == {
        "deletable": False,
        "editable": False,
        "simhash_lab": {"role": "given"},
    }
    assert cells["answer-ideal"].metadata == {
        "deletable": False,
        "simhash_lab": {"role": "answer", "answer": "ideal"},
        "tags": ["answer", "nbval-ignore-output"],
    }
    assert cells["check-01-ideal-flips"].metadata == {
        "deletable": False,
        "editable": False,
        "simhash_lab": {"role": "check", "check": "ideal_flips", "expect": pass_line("ideal_flips")},
        "tags": ["check", "nbval-ignore-output"],
    }
    assert cells["md-01"].metadata == {} and cells["md-01"].source.startswith("# Exercises 99")
    # the student's version: a region in a function raises when called; a top-level region sets its
    # names to `...` (a stub that runs, so Run All goes on); the solution loses the markers
    assert cells["answer-ideal"].source == (
        "# Set `ideal_flips`.\n# YOUR CODE HERE: replace each ... with your answer\nideal_flips = ..."
    )
    assert (
        cells["answer-near"].source
        == "def near(a, b):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    )
    sol = {c.id: c for c in solution.cells}
    assert sol["answer-ideal"].source == "# Set `ideal_flips`.\nideal_flips = bits // 2"
    assert sol["answer-near"].source == "def near(a, b):\n    return a == b"
    assert [c.metadata for c in solution.cells] == [c.metadata for c in student.cells]
    # and the grader assembles a notebook from it
    from simhash_lab.grading._grader import assemble

    nb, roles, found = assemble(student, solution)
    assert [r["role"] for r in roles] == ["setup", "given", "answer", "check", "answer"]
    assert found == {"ideal": "key", "near": "key"}
    assert nb.cells[3].source == sol["answer-ideal"].source


@pytest.mark.parametrize(
    "change, message",
    [
        (("### END SOLUTION\n\n# %% tags", "\n# %% tags"), "BEGIN SOLUTION without END"),
        (
            ("ideal_flips = bits // 2\n", "ideal_flips = bits // 2\n### END SOLUTION\n"),
            "END SOLUTION without BEGIN",
        ),
        (
            ('simhash_lab={"answer": "near"}', 'simhash_lab={"answer": "ideal"}'),
            "'answer-ideal' is used twice",
        ),
        (('simhash_lab={"answer": "near"} ', ""), r"must have the keys \['answer'\]"),
        (("# %%\nbits", '# %% simhash_lab={"answer": "x"}\nbits'), r"must have the keys \[\]"),
        (('tags=["setup"]', 'tags=["setup", "check"]'), "a cell has one role"),
        (("bits = 64\n", "### BEGIN SOLUTION\nbits = 64\n### END SOLUTION\n"), "holds a solution region"),
        (("checks.ideal_flips(", "checks.no_such_checker("), "a known NAME"),
        (("ideal_flips = bits // 2\n", "print(bits)\n"), "must be assignments"),
        (("ideal_flips = bits // 2\n", "ideal_flips = bits // 2\nraise ValueError\n"), "must be assignments"),
        (("checks.ideal_flips(ideal_flips)", "assert checks.ideal_flips(ideal_flips)"), "a known NAME"),
        (("# %% [markdown]\n", '# %% [markdown] tags=["answer"]\n'), "only code cells have roles"),
    ],
)
def test_bad_exercise_sources_say_what_is_wrong(build, tmp_path, change, message):
    old, new = change
    assert old in _DEMO
    with pytest.raises(ValueError, match=message) as e:
        _demo(build, tmp_path, _DEMO.replace(old, new, 1))
    assert "99_demo.py cell " in str(e.value)


def test_every_exercise_ends_with_the_check_command_and_make_runs_it(build):
    """The command an exercise names for checking works from the repository in a plain shell: make
    runs the learner-side `simhash-lab check` from .venv (no activated environment needed)."""
    import subprocess

    for t in build.plan(build.Layout()):
        if t.source.kind != "exercise":
            continue
        note = next(c.source for c in t.nb.cells if c.get("id") == "grade-note")
        nb = build.Layout(ROOT, t.source.lang).exercises / build.file_name(t.source.name, "exercise")
        nb = nb.relative_to(ROOT).as_posix()  # exercises/NN_exercise_name.ipynb, exercises/es/...
        assert f"make check NB={nb}" in note and f".venv/bin/simhash-lab check {nb}" in note, note
        assert t.source.lang != "en" or "not a grade" in note
    nb = "exercises/01_exercise_lsh_vs_crypto.ipynb"
    dry = subprocess.run(
        ["make", "-n", "check", f"NB={nb}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert f'.venv/bin/simhash-lab check "{nb}"' in dry, dry
    usage = subprocess.run(["make", "-s", "check"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode != 0 and "usage: make check NB=" in usage.stderr


def test_a_bad_source_stops_the_build_before_it_writes(build, tmp_path):
    root = _copy_repo(tmp_path)
    src = root / "course" / "exercises" / "03_hamming_popcount.py"
    src.write_text(src.read_text(encoding="utf-8").replace("### END SOLUTION", "", 1), encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*.ipynb")}
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert _run(build, "--no-execute", "--root", str(root))[0] == 2
    assert "03_hamming_popcount.py cell " in err.getvalue() and "without END" in err.getvalue()
    assert {p: p.read_bytes() for p in root.rglob("*.ipynb")} == before


def test_an_exercise_without_answers_is_refused(build, tmp_path):
    with pytest.raises(ValueError, match="at least one answer cell"):
        _demo(build, tmp_path, "# %% [markdown]\n# # Nothing to do\n\n# %%\nx = 1\n")


def test_navigation_links_every_file_to_files_that_exist(build):
    layout = build.Layout()
    targets = build.plan(layout)
    planned = {t.path.resolve() for t in targets}
    for t in targets:
        nav = [c for c in t.nb.cells if build.NAV_TAG in c.metadata.get("tags", [])]
        assert [c.id for c in nav] == ["nav-top", "nav-bottom"] and nav[0].source == nav[1].source
        assert t.nb.cells[0] is nav[0] and t.nb.cells[-1] is nav[1]
        links = re.findall(r"\]\(([^)]+)\)", nav[0].source)
        assert links, nav[0].source
        # a pristine copy is the student's file, which sits in exercises/ (exercises/es/, ...)
        here = layout(t.source.lang)
        base = here.exercises if t.path.parent == here.pristine else t.path.parent
        for link in links:
            assert (base / link).resolve() in planned, f"{t.path.name}: broken link {link}"
    by_name = {t.path.relative_to(ROOT).as_posix(): t.nb.cells[0].source for t in targets}
    assert (
        "(../exercises/03_exercise_hamming_popcount.ipynb)" in by_name["notebooks/03_hamming_popcount.ipynb"]
    )
    assert (
        "(../notebooks/03_hamming_popcount.ipynb)" in by_name["exercises/03_exercise_hamming_popcount.ipynb"]
    )
    assert (
        "(../../notebooks/03_hamming_popcount.ipynb)"
        in by_name["exercises/solutions/03_solution_hamming_popcount.ipynb"]
    )
    assert "Start here" not in by_name["notebooks/00_start_here.ipynb"]


def test_kernel_is_this_python_whatever_is_installed_as_python3(build, tmp_path, monkeypatch):
    # a kernelspec named python3 that cannot start: the build must not use it
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": ["/nonexistent/python", "-f", "{connection_file}"],
                "display_name": "x",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    code = (
        "import os, sys\n"
        "print(sys.executable, os.environ['PYTHONHASHSEED'], os.getcwd(),"
        f" sys.path.index({str(tmp_path)!r}) < 3)"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    build.execute(nb, tmp_path, tmp_path, cell_timeout=120)
    assert nb.cells[0].outputs[0]["text"].split() == [sys.executable, build.HASH_SEED, str(tmp_path), "True"]


def test_a_build_of_some_files_refreshes_the_cells_the_build_writes_in_the_others(build, tmp_path):
    """A revised translation of the exercises' closing note (build.po) or a new navigation line
    reaches every file not rebuilt, outputs kept: the build's own cells only."""
    import nbformat

    root = _copy_repo(tmp_path)
    target = root / "exercises" / "es" / "solutions" / "01_solution_lsh_vs_crypto.ipynb"
    nb = nbformat.read(target, as_version=4)
    outputs = [c.get("outputs") for c in nb.cells]
    (note,) = [c for c in nb.cells if c.id == build.NOTE_ID]
    fresh = note.source
    note.source = "an older closing note"
    nb.cells[0].source = "an older navigation line"
    nbformat.write(nb, target)
    assert _stale_files(_run(build, "--check", "--root", str(root))[1]) == {
        target.relative_to(root).as_posix()
    }
    rc, out = _run(build, "--notebooks", "00", "--lang", "en", "--no-execute", "--root", str(root))
    assert (
        rc == 0
        and "exercises/es/solutions/01_solution_lsh_vs_crypto.ipynb: the cells no run changes updated" in out
    ), out
    again = nbformat.read(target, as_version=4)
    (note,) = [c for c in again.cells if c.id == build.NOTE_ID]
    assert note.source == fresh and again.cells[0].source != "an older navigation line"
    assert [c.get("outputs") for c in again.cells] == outputs


def test_refresh_writes_prose_and_navigation_and_runs_nothing(build, tmp_path):
    """``--refresh``: a committed notebook whose markdown (a link to a renamed file, say) is older
    than its source gets it, its outputs as they were; one whose code differs is left stale."""
    import nbformat

    root = _copy_repo(tmp_path)
    prose = root / "notebooks" / "06_near_duplicates.ipynb"
    nb = nbformat.read(prose, as_version=4)
    outputs = [c.get("outputs") for c in nb.cells]
    i = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "](../exercises/" in c.source)
    fresh = nb.cells[i].source
    nb.cells[i].source = fresh.replace("06_exercise_near_duplicates", "06_near_duplicates")
    nbformat.write(nb, prose)
    code = root / "notebooks" / "03_hamming_popcount.ipynb"
    nb3 = nbformat.read(code, as_version=4)
    next(c for c in nb3.cells if c.cell_type == "code").source += "\n# an edit"
    nbformat.write(nb3, code)
    rc, out = _run(build, "--refresh", "--root", str(root))
    assert rc == 0 and "notebooks/06_near_duplicates.ipynb: the cells no run changes updated" in out, out
    again = nbformat.read(prose, as_version=4)
    assert again.cells[i].source == fresh and [c.get("outputs") for c in again.cells] == outputs
    assert _stale_files(_run(build, "--check", "--root", str(root))[1]) == {
        "notebooks/03_hamming_popcount.ipynb"
    }
