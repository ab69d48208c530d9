"""The language of the texts the library writes for the course and its checkers.

The course exists in English and Spanish (``notebooks/es/``, ``exercises/es/``). What the notebooks
write themselves is translated when they are built (``tools/i18n.py``); what the library writes
(plot titles, axis labels and legends it draws by default, widgets' readouts, the experiments'
printed lines, the checkers' ✅/❌ verdicts and hints) follows :func:`set_language`, which each Spanish
notebook calls in its first code cell, and which ``simhash-lab grade``/``check`` set from the
notebook's metadata ``simhash_lab.lang``.

The catalogue is gettext's: ``locale/es/LC_MESSAGES/simhash_lab.po`` is the source (keyed by the
English, edited like the course's catalogues in ``course/i18n/``), ``simhash_lab.mo`` beside it is
its compiled form, read at run time by the standard library's :mod:`gettext` (so the runtime needs
no ``polib``); ``tools/i18n_library.py update`` extracts the marked strings into the PO and compiles it.

A string is marked ``_("...")`` where it is written, so the language is the one set when it is
drawn or printed; ``N_("...")`` marks a string stored before use (a module-level table) and
translated by ``_`` where it is used. A template keeps its ``{...}`` fields: ``_("{n} bits").format(n=n)``.

>>> from simhash_lab._i18n import _, language
>>> with language("es"):
...     _("not run")
'no se ejecutó'
>>> _("not run")
'not run'
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "es")
DOMAIN = "simhash_lab"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
ENV = "SIMHASH_LAB_LANG"  # the language a fresh process starts in (the grader's sandbox reads it)

_current: str = "en"  # the process's language (set_language)
# the language of one block (``language``), in this thread or task only: the grader judges several
# notebooks at once on threads, each in its notebook's language
_scoped: contextvars.ContextVar[str | None] = contextvars.ContextVar("simhash_lab_language", default=None)


def _checked(lang: object, param: str = "lang") -> str:
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"{param} must be one of {list(LANGUAGES)}, got {lang!r}")
    return lang


def set_language(lang: str) -> None:
    """Write every label, readout, printed line and checker's verdict of the library in ``lang``
    (``"en"`` or ``"es"``) from now on, in this process."""
    global _current
    _current = _checked(lang)


def get_language() -> str:
    """The language the library writes in now: the one of the enclosing :func:`language` block,
    else the one set by :func:`set_language` (``"en"`` unless set, or unless the process started
    with ``SIMHASH_LAB_LANG``)."""
    return _scoped.get() or _current


@contextlib.contextmanager
def language(lang: str) -> Iterator[None]:
    """Within the block, the library writes in ``lang`` (in this thread only); the previous
    language comes back after."""
    token = _scoped.set(_checked(lang))
    try:
        yield
    finally:
        _scoped.reset(token)


@cache
def _translations(lang: str) -> gettext.NullTranslations:
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang])


def translate(message: str, lang: str | None = None) -> str:
    """``message`` (English) in ``lang``, default the current language; the English itself where
    the catalogue has no translation (a test fails on every marked string without one)."""
    return _translations(get_language() if lang is None else _checked(lang)).gettext(message)


def _(message: str) -> str:
    """Mark ``message`` for translation and return it in the current language."""
    return _translations(_scoped.get() or _current).gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it now (translate it with ``_`` where
    it is shown)."""
    return message


def counted(n: int, one: str, many: str, **fields: object) -> str:
    """``one`` when ``n`` is 1, else ``many``, with ``{n}`` and ``fields`` filled in: a count with
    its noun in the number it has. Both forms are marked where they are written (``counted(n, _("1 group"),
    _("{n} groups"))``), so each is translated whole; English and Spanish both keep the singular for
    1 alone (the catalogue's ``Plural-Forms``).

    >>> counted(1, "1 group", "{n} groups"), counted(3, "1 group", "{n} groups")
    ('1 group', '3 groups')
    """
    return (one if n == 1 else many).format(n=n, **fields)


def _from_environment() -> None:
    lang = os.environ.get(ENV)
    if lang:
        set_language(_checked(lang, ENV))


_from_environment()
