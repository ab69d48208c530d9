"""The package's shape: the library works with only its declared dependencies, its public names load
lazily, and the grader does not load Numba."""

import subprocess
import sys
import textwrap

import pytest

import simhash_lab

# what only the course (matplotlib, widgets, JupyterLab) or the grader (nbformat, nbval, pytest) need
EXTRAS_ONLY = [
    "matplotlib",
    "ipywidgets",
    "jupyterlab",
    "IPython",
    "nbformat",
    "nbval",
    "nbclient",
    "pytest",
    "PIL",
    "jieba",
    "datasketch",
    "dask",
]


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


# the library's own dependencies (pyproject.toml [project] dependencies), and llvmlite, numba's own
DECLARED = ["numpy", "numba", "llvmlite", "scipy", "tqdm", "regex"]


def test_the_library_works_with_only_its_declared_dependencies(tmp_path):
    (tmp_path / "doc.txt").write_text("rust safe fast", encoding="utf-8")
    out = _run(f"""
        import sys
        allowed = set({DECLARED!r}) | set(sys.stdlib_module_names) | {{"simhash_lab"}}
        class Block:  # as if only the declared dependencies were installed
            def find_spec(self, name, path=None, target=None):
                top = name.split(".")[0]
                if top not in allowed and not top.startswith("_"):  # _cffi_backend & co: C helpers
                    raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
        sys.meta_path.insert(0, Block())
        from simhash_lab import (Simhasher, SimhashIndex, expected_hamming, hamming,
                                 hyperplane_signatures, presets)
        from simhash_lab import tokenize as T
        from simhash_lab.cli import main
        fp = presets.SEED_RUST.fingerprint("rust safe fast")
        for h in (presets.SEED_PYTHON, presets.LEONSIM):
            h.fingerprint("rust safe fast")
        for tok in (T.words(), T.whitespace(), T.rust_words(), T.char_ngrams(3), T.word_shingles(2)):
            Simhasher(tokenizer=tok).fingerprints(["Héllo wörld, 你好 🎉", "a b c"])
        index = SimhashIndex(k=3)
        index.add_many(Simhasher().fingerprints(["the cat sat on the mat"] * 2))
        assert main(["fingerprint", {str(tmp_path / "doc.txt")!r}]) == 0
        assert main(["dedup", "-q", {str(tmp_path)!r}]) == 0
        print(fp, len(index.groups()))
    """)
    assert out.splitlines()[-1] == "13163702389499390377 1"


def test_grade_without_the_grading_extra_says_what_to_install():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {"nbformat", "nbval"}:
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, Block())
        from simhash_lab.cli import main
        sys.exit(main(["grade", "x.ipynb"]))
    """),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert "simhash-lab[grading]" in out.stderr and "Traceback" not in out.stderr


def test_the_course_without_its_extra_says_what_to_install():
    out = _run("""
        import sys
        class Block:  # as if matplotlib were not installed
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "matplotlib":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, Block())
        try:
            from simhash_lab.course import plot
        except ImportError as e:
            print(e)
    """)
    assert "simhash-lab[course]" in out and "matplotlib" in out


def test_importing_the_grader_or_the_course_does_not_load_numba():
    for extra in ("matplotlib", "ipywidgets", "nbformat", "IPython"):  # make test-lib: not installed
        pytest.importorskip(extra)
    out = _run("""
        import sys
        import simhash_lab, simhash_lab.grading, simhash_lab.course
        print("numba" in sys.modules)
    """)
    assert out.strip() == "False"


def test_public_names_are_exported_and_lazy():
    out = _run("""
        import sys
        import simhash_lab
        before = "numba" in sys.modules
        from simhash_lab import Simhasher, SimhashIndex, hamming, presets
        import simhash_lab.hamming  # the submodule must not shadow the function
        from simhash_lab import hamming as h
        print(before, callable(h) and h(3, 5) == 2, Simhasher.__module__, SimhashIndex.__module__)
    """)
    assert out.split() == ["False", "True", "simhash_lab.simhasher", "simhash_lab.index.table"]
    assert set(simhash_lab.__all__) <= set(dir(simhash_lab))
    for name in simhash_lab.__all__:
        assert getattr(simhash_lab, name) is not None


def test_one_version():
    from importlib.metadata import version

    assert version("simhash-lab") == simhash_lab.__version__
