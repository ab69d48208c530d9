"""A list of str held in memory, as a dataset: :class:`TextsSource` (what
:func:`simhash_lab.dedup.dedup_texts` reads)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from .source import Source

__all__ = ["TextsSource"]


class TextsSource(Source):
    """A sequence of str held in memory (ids: positions, or the ``ids`` given).

    Parameters
    ----------
    texts : sequence of str
        The rows' texts.
    ids : sequence, optional
        One id per text; by default the positions 0, 1, 2, ...
    param : str
        The name error messages give ``texts``.

    Raises
    ------
    TypeError
        ``texts`` is a str, bytes or None, or holds something other than a str.
    ValueError
        ``ids`` does not have one id per text.
    """

    def __init__(self, texts: Sequence[str], ids: Sequence | None = None, param: str = "texts") -> None:
        if texts is None or isinstance(texts, (str, bytes)):
            raise TypeError(f"{param} must be a sequence of str, got {type(texts).__name__}")
        self.texts = list(texts)
        for i, t in enumerate(self.texts):
            if not isinstance(t, str):
                raise TypeError(f"{param}[{i}] must be a str, got {type(t).__name__}")
        if ids is not None:
            ids = list(ids)
            if len(ids) != len(self.texts):
                raise ValueError(f"ids must have one id per text: {len(ids)} ids for {len(self.texts)} texts")
        self.ids = ids
        self.total = len(self.texts)

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, None]]:
        """See :meth:`Source.chunks` (priorities: always None)."""
        for s in range(0, len(self.texts), rows):
            end = min(s + rows, len(self.texts))
            ids = self.ids[s:end] if self.ids is not None else list(range(s, end))
            yield self.texts[s:end], ids, None

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`."""
        for s in range(0, rows.size, chunk):
            r = rows[s : s + chunk]
            yield r, [self.texts[i] for i in r.tolist()]
