"""Grading results and how they are shown: one notebook's detail, a class table, the ``--json`` file.

Everything a result holds that came from a student (file names, exception messages, hints that
quote a value) is shown escaped: file names with :func:`simhash_lab._files.show_name` in text and
:func:`~simhash_lab._files.json_name` in JSON; other text on one line, control characters and
terminal escapes written as ``\\xNN``. The ``--json`` file is written atomically (a temporary file
in the same folder, then renamed) and is valid UTF-8.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence

from .. import _files
from .._i18n import _, language
from .._write import atomic_output

__all__ = [
    "CheckResult",
    "GradeResult",
    "format_detail",
    "format_table",
    "log_section",
    "safe_log",
    "safe_text",
    "write_json",
]

STATUSES = ("passed", "failed", "not gradable")


@dataclasses.dataclass
class CheckResult:
    """One answer: its checker's name, whether it passed, and the hint when not."""

    name: str
    passed: bool
    hint: str = ""
    credit: float = 0.0  # the share of the answer's points earned (1 when passed; parts right otherwise)
    feedback: str = ""  # the hint for a student's feedback file: no hidden input or value in it

    def __post_init__(self) -> None:
        if self.passed:
            self.credit = 1.0


@dataclasses.dataclass
class GradeResult:
    """The grade of one notebook file.

    ``status`` is "passed" (every answer passed), "failed", or "not gradable" (``first_hint`` says
    why: not a regular file, too large, not JSON, not a notebook, an unknown exercise ...).
    """

    path: str
    exercise: str | None
    status: str
    checks: list[CheckResult] = dataclasses.field(default_factory=list)
    first_hint: str = ""
    seconds: float = 0.0
    log: str = ""  # the sandbox's stderr: the notebook's own output and tracebacks, for a teacher
    notes: list[str] = dataclasses.field(default_factory=list)
    flag: str = ""  # a classroom's warning: "variant mismatch" (not the notebook released to this student)
    lang: str = "en"  # the notebook's language (its metadata's simhash_lab.lang): of its hints and report

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def checks_passed(self) -> int:
        return sum(c.passed for c in self.checks)

    def to_dict(self) -> dict:
        """JSON-able, valid UTF-8 (the path as :func:`~simhash_lab._files.json_name` writes it)."""
        return {
            "path": _files.json_name(self.path),
            "exercise": self.exercise,
            "status": self.status,
            "passed": self.passed,
            "checks_passed": self.checks_passed,
            "checks": [
                {"name": c.name, "passed": c.passed, "credit": round(c.credit, 3), "hint": _utf8(c.hint)}
                for c in self.checks
            ],
            "flag": self.flag,
            "first_hint": _utf8(self.first_hint),
            "notes": [_utf8(n) for n in self.notes],
            "seconds": round(self.seconds, 3),
            "log": _utf8(self.log),
        }


def _utf8(text: str) -> str:
    """``text`` with anything UTF-8 cannot hold (lone surrogates) replaced."""
    return str(text).encode("utf-8", "replace").decode("utf-8")


def safe_text(text: str, limit: int = 400) -> str:
    """``text`` on one line for a terminal: whitespace runs become one space, other control
    characters (terminal escapes included) ``\\xNN``; at most ``limit`` characters."""
    out = []
    for ch in " ".join(str(text).split()):
        c = ord(ch)
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif c < 0x100:
            out.append(f"\\x{c:02x}")
        elif 0xD800 <= c <= 0xDFFF:
            out.append(f"\\u{c:04x}")
        else:
            out.append(f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}")
    s = "".join(out)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def safe_log(text: str) -> str:
    """A sandbox log for a terminal: its lines kept, every other control character (terminal
    escapes included) written ``\\xNN``."""
    return "\n".join(
        "".join(
            ch
            if ch.isprintable() or ch == "\t"
            else f"\\x{ord(ch):02x}"
            if ord(ch) < 0x100
            else f"\\u{ord(ch):04x}"
            for ch in line
        )
        for line in str(text).split("\n")
    )


#: Every line of a sandbox log in ``--verbose`` starts with this: only the grader's own section
#: headers start at the line's beginning, so a notebook that prints ``===== sandbox log: ...``
#: shows it inside its own section, never as a section of another file.
LOG_MARGIN = "  | "


def log_section(path: str, log: str) -> str:
    """One file's sandbox log for ``--verbose``: a header naming the file, then each line of the
    log behind :data:`LOG_MARGIN`, control characters escaped (:func:`safe_log`).

    >>> print(log_section("bob/03.ipynb", "hi\\n===== sandbox log: alice/03.ipynb =====\\n"), end="")
    <BLANKLINE>
    ===== sandbox log: bob/03.ipynb =====
      | hi
      | ===== sandbox log: alice/03.ipynb =====
    """
    lines = safe_log(log).rstrip("\n").split("\n") if log.strip() else []
    body = "".join(f"{LOG_MARGIN}{line}\n" for line in lines) or f"{LOG_MARGIN}(empty)\n"
    return f"\n===== sandbox log: {_files.show_name(path)} =====\n{body}"


def _result_word(r: GradeResult) -> str:
    return {"passed": _("passed"), "failed": _("FAILED")}.get(r.status, _("NOT GRADABLE"))


def report_language(results: Sequence[GradeResult]) -> str:
    """The language of a report on ``results``: theirs when they share one, else English."""
    langs = {r.lang for r in results}
    return langs.pop() if len(langs) == 1 else "en"


def format_table(results: Sequence[GradeResult]) -> str:
    """A class table: file, exercise, result, checks passed, first hint; then a count (in the
    notebooks' language when they share one, :func:`report_language`)."""
    with language(report_language(results)):
        return _format_table(results)


def _format_table(results: Sequence[GradeResult]) -> str:
    rows = [(_("file"), _("exercise"), _("result"), _("checks"), _("first hint"))]
    for r in results:
        rows.append(
            (
                _files.show_name(r.path),
                r.exercise or "?",
                _result_word(r),
                f"{r.checks_passed}/{len(r.checks)}" if r.checks else "-",
                safe_text("; ".join(r.notes) if r.passed else r.first_hint, 200),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for j, row in enumerate(rows):
        lines.append("  ".join(row[i].ljust(widths[i]) for i in range(4)) + "  " + row[4])
        if j == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 10)
    n = {s: sum(r.status == s for r in results) for s in STATUSES}
    summary = "\n" + _("{passed} of {n} notebooks passed").format(passed=n["passed"], n=len(results))
    if n["not gradable"]:
        summary += _(", {n} not gradable").format(n=n["not gradable"])
    lines.append(summary)
    return "\n".join(line.rstrip() for line in lines)


def format_detail(r: GradeResult) -> str:
    """One notebook: each answer with ✅/❌ and its hint, then the verdict (in its language)."""
    with language(r.lang):
        return _format_detail(r)


def _format_detail(r: GradeResult) -> str:
    lines = [f"{_files.show_name(r.path)} ({r.exercise or _('unknown exercise')})"]
    for c in r.checks:
        lines.append(
            f"  {'✅' if c.passed else '❌'} {c.name}" + ("" if c.passed else f": {safe_text(c.hint)}")
        )
    for note in r.notes:
        lines.append(_("  note: {note}").format(note=safe_text(note)))
    if r.status == "not gradable":
        lines.append(_("NOT GRADABLE: {why}").format(why=safe_text(r.first_hint)))
    else:
        verdict = _("PASSED") if r.passed else _("FAILED")
        lines.append(
            _("{verdict}: {passed}/{n} answers passed ({seconds:.1f} s)").format(
                verdict=verdict, passed=r.checks_passed, n=len(r.checks), seconds=r.seconds
            )
        )
    return "\n".join(lines)


def write_json(results: Sequence[GradeResult], path: str | os.PathLike) -> None:
    """Write the results to ``path`` as UTF-8 JSON with :func:`simhash_lab._write.atomic_output`:
    a regular file stays whole until the new one is complete; a device, FIFO or link
    (``/dev/stdout``) is written in place, never replaced. Raises
    :class:`~simhash_lab._write.OutputError` naming the file when it cannot be written."""
    text = json.dumps([r.to_dict() for r in results], indent=1, ensure_ascii=False) + "\n"
    with atomic_output(path, "wb") as f:
        f.write(text.encode("utf-8"))
