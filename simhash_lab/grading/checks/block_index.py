"""Checkers of exercise 05, the pigeonhole block index: blocks, the pigeonhole on paper, and a
4-table index whose query reads only its candidates.

``build_tables`` must return the tables the exercise describes (4 tables, block value -> ids: a
list or tuple of 4 dicts or a dict of 4, plain dicts or ``defaultdict``), and ``query`` gets them
back rebuilt from that plain data, so nothing else can travel from one to the other (a copy of all
the fingerprints, say). A query may read only its candidates: in table j the entry of block j of
``q``, and the fingerprints of the ids found there; anything more (a scan of ``fps``, or of the
tables to rebuild the fingerprints from their keys) is a linear scan, whatever it is written with.
Two things hold it, on what a query is handed: what it reads is counted (the fingerprints are a
list that counts the items read, each table a mapping that counts the entries looked up or
iterated), and everything but its candidates is bait (:func:`_baited`: each other fingerprint is
``q`` itself, and an id planted under q's keys rebuilds ``q`` from the tables), so a query that
reads beyond them, however (a copy, a format string's field, a counter reset), answers wrong. Both
functions are measured apart from the rest of the notebook (before any of its cells runs in the
sandbox), each call on its own (no state between calls), on two indexes of the same size built one
after the other, queried in turn.
"""

from __future__ import annotations

import random

import numpy as np

from ..._i18n import N_, _
from .. import data
from ._checker import (
    Exercise,
    Functions,
    Method,
    Raw,
    Values,
    Wrong,
    call,
    case,
    expect_bool,
    expect_int,
    int_list,
    ref,
    returned,
)

__all__ = ["EXERCISE", "blocks", "pigeonhole", "block_index"]


def _blocks(fp: int) -> list[int]:
    return [(fp >> (16 * j)) & 0xFFFF for j in range(4)]


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _blocks_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        r = random.Random(6)
        fps = [0, 2**64 - 1, 0x0123456789ABCDEF, 1 << 16, 0xFFFF] + [r.getrandbits(64) for _ in range(20)]
    else:
        fps = [rng.getrandbits(64) for _ in range(24)] + [1 << rng.randrange(64)]
    return [case(call("blocks", fp), fp=fp) for fp in fps]


def _blocks_judge(c: dict, res: list[dict]) -> None:
    fp = c["fp"]
    what = f"blocks({fp:#018x})"
    got = int_list(returned(res[0], what), what, 4)
    exp = _blocks(fp)
    if got != exp:
        hint = _("Block j is (fp >> (16 * j)) & 0xFFFF for j = 0, 1, 2, 3: block 0 holds the lowest bits.")
        if got == exp[::-1]:
            hint = _("Right blocks, wrong order: block 0 is the lowest 16 bits (no shift).")
        raise Wrong(hint, expected=Raw(str([hex(b) for b in exp])), got=Raw(str([hex(b) for b in got])))


blocks = Functions(
    "blocks",
    "blocks",
    N_("Four 16-bit blocks, block j = (fp >> 16j) & 0xFFFF, like the seed's extract_chunk."),
    ["blocks"],
    _blocks_cases,
    _blocks_judge,
)


def _pigeonhole_judge(values: dict, variant: object) -> None:
    expect_int(
        values["min_equal_blocks"],
        1,
        "min_equal_blocks",
        _(
            "Each flipped bit lands in one block. With 3 flipped bits, how many of the 4 blocks can they "
            "touch at most, and how many does that leave untouched?"
        ),
        show=False,
    )
    expect_bool(
        values["k4_can_miss"],
        True,
        "k4_can_miss",
        _("Try to place 4 flipped bits so that every one of the 4 blocks contains at least one of them."),
    )


pigeonhole = Values(
    "pigeonhole",
    "pigeonhole",
    N_("k ≤ 3 differing bits cannot touch all 4 blocks; 4 bits can."),
    ["min_equal_blocks", "k4_can_miss"],
    _pigeonhole_judge,
    kinds=N_("an int or a bool"),
)


# -- the index ---------------------------------------------------------------------------------------


def _fingerprints(rng: random.Random, n: int) -> tuple[list[int], list[tuple[int, int]]]:
    """``n`` random fingerprints with planted near copies, and queries ``(q, k)`` near some of them
    and random."""
    fps = [rng.getrandbits(64) for _ in range(n)]
    for i in range(0, n // 4, 2):
        f = fps[i]
        for b in rng.sample(range(64), rng.randint(1, 5)):
            f ^= 1 << b
        fps[i + 1] = f
    queries = []
    for _i in range(16):
        q = fps[rng.randrange(n // 4)]
        for b in rng.sample(range(64), rng.randint(0, 3)):
            q ^= 1 << b
        queries.append((q, rng.randint(0, 3)))
    queries += [(rng.getrandbits(64), 3) for _ in range(4)]
    # and pairs at most 3 bits apart, queried at one of them with k = 3: two ids to return, in order
    close = [i for i in range(0, n // 4, 2) if bin(fps[i] ^ fps[i + 1]).count("1") <= 3]
    queries += [(fps[i], 3) for i in rng.sample(close, min(4, len(close)))]
    return fps, queries


def _index_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        fps, qs = data.block_fingerprints(variant=None)
        queries = [(q, i % 4) for i, q in enumerate(qs)]
        other, other_q = _fingerprints(random.Random(5), len(fps))
    else:
        fps, queries = _fingerprints(rng, rng.randint(800, 1500))
        other, other_q = _fingerprints(rng, len(fps))
    # two indexes of one size, built one after the other and queried in turn: a query that finds
    # its answer anywhere but in its own arguments cannot tell which one it is asked about
    calls = [
        call("build_tables", {"$var": "fps"}, save="tables"),
        call("build_tables", {"$var": "other"}, save="other_tables"),
    ]
    built = {"fps": (fps, _reference_tables(fps)), "other": (other, _reference_tables(other))}
    asked = []
    for i, (q, k) in enumerate(queries):
        if i % 2 == 1 and i // 2 < len(other_q):
            (q, k), name, tables = other_q[i // 2], "other", "other_tables"
        else:
            name, tables = "fps", "tables"
        seen, planted = _baited(*built[name], q)
        spied = [{"$spytables": {"of": ref(tables), "plant": planted}}, {"$spy": seen}]
        calls.append(call("query", *spied, q, k, measure=["reads"]))
        asked.append([q, k, name])
    return [case(*calls, vars={"fps": fps, "other": other}, fps=fps, other=other, queries=asked)]


#: The far fingerprint planted for a query ``q``: every bit differs.
_ALL = 2**64 - 1


def _baited(fps: list[int], tables: list[dict], q: int) -> tuple[list[int], list]:
    """What a query on ``q`` is handed beside its tables, so that reading anything but its candidates
    gives a wrong answer, however it reads (a loop, a copy, a format string's field): the
    fingerprints with every one that is no candidate replaced by ``q`` itself (distance 0), and one
    more id, ``len(fps)``, planted under q's 4 blocks in the tables (a candidate, so an honest query
    reads its fingerprint, every bit away from q) whose keys rebuild ``q`` (a table scan finds it at
    distance 0). An honest query reads the candidates only, and answers as on the real ones."""
    keys = _blocks(q)
    candidates = {i for j, b in enumerate(keys) for i in tables[j].get(b, [])}
    seen = [f if i in candidates else q for i, f in enumerate(fps)] + [q ^ _ALL]
    return seen, [len(fps), keys]


def _reference_tables(fps: list[int]) -> list[dict[int, list[int]]]:
    tables: list[dict[int, list[int]]] = [{} for _ in range(4)]
    for i, fp in enumerate(fps):
        for j, b in enumerate(_blocks(fp)):
            tables[j].setdefault(b, []).append(i)
    return tables


def _tables_of(got: object) -> list[dict]:
    """The 4 tables ``build_tables`` returned, as 4 dicts (block value -> sorted ids), or
    :class:`Wrong`: a list or tuple of 4 dicts, or a dict of 4 keyed 0-3 (plain or ``defaultdict``)."""
    shape = _(
        "4 tables (a list of 4 dicts, or a dict of 4 keyed 0 to 3), table j mapping a block-j value "
        "to the list of ids"
    )
    if isinstance(got, dict) and set(got) == {0, 1, 2, 3}:
        got = [got[j] for j in range(4)]
    if type(got) not in (list, tuple) or len(got) != 4 or any(not isinstance(t, dict) for t in got):
        raise Wrong(_("build_tables must return {shape}.").format(shape=shape), got=Raw(_kind(got)))
    out = []
    for t in got:
        table = {}
        for b, ids in t.items():
            if (
                type(b) is not int
                or type(ids) not in (list, tuple, set)
                or any(type(i) is not int for i in ids)
            ):
                raise Wrong(
                    _("build_tables must return {shape}: a key or a list of ids is not made of ints.").format(
                        shape=shape
                    )
                )
            table[b] = sorted(ids)
        out.append(table)
    return out


def _kind(x: object) -> str:
    if type(x) in (list, tuple):
        return f"a {type(x).__name__} of {len(x)}: " + ", ".join(type(i).__name__ for i in x[:5])
    return f"a {type(x).__name__}"


def _index_judge(c: dict, res: list[dict]) -> None:
    built = {"fps": c["fps"], "other": c.get("other", [])}
    for name, r in zip(("fps", "other") if "other" in c else ("fps",), res):
        fps = built[name]
        tables = _tables_of(returned(r, f"build_tables({name})"))
        if tables != _reference_tables(fps):
            _blame_blocks(tables, fps)
            j = next(j for j, (a, b) in enumerate(zip(tables, _reference_tables(fps))) if a != b)
            raise Wrong(
                _(
                    "Table {j} is not right: it must map each value of block {j} to the ids (indices "
                    "into fps) of the fingerprints whose block {j} has that value, and nothing else."
                ).format(j=j)
            )
    n_builds = 2 if "other" in c else 1
    arrays = {name: np.array(fps, dtype=np.uint64) for name, fps in built.items()}
    refs: dict[str, list[dict]] = {}
    # a query that finds nothing anywhere (it looks for the ids somewhere else than its arguments)
    found_nothing = all(isinstance(r, dict) and r.get("ok") == [] for r in res[n_builds:])
    for (q, k, name), r in zip(c["queries"], res[n_builds:]):
        fps = built[name]
        what = f"query(tables, fps, {q:#018x}, k={k})"
        got = returned(r, what)
        if type(got) not in (list, tuple, set) or any(type(i) is not int for i in got):
            raise Wrong(_("Return the ids (indices into fps) as a sorted list of ints."), got=Raw(_kind(got)))
        exp = np.flatnonzero(np.bitwise_count(arrays[name] ^ np.uint64(q)) <= k).tolist()
        if sorted(got) == exp and (type(got) is set or list(got) != exp):
            raise Wrong(
                _("The right ids, but as a set: return them as a sorted list, sorted(...).")
                if type(got) is set
                else _(
                    "The right ids, but not as the sorted list the exercise asks for: return sorted(...)."
                ),
                expected=Raw(f"{exp} for {what}"),
                got=Raw(str(list(got))),
            )
        if sorted(set(got)) == exp and len(set(got)) != len(got):
            raise Wrong(
                _("Each id once: an id found in two tables is one candidate (a set, then sorted(...))."),
                expected=Raw(f"{exp} for {what}"),
                got=Raw(str(list(got))),
            )
        got_l = sorted(got)
        tables_ref = _reference_tables(fps) if name not in refs else refs[name]
        refs[name] = tables_ref
        candidates = {i for j, b in enumerate(_blocks(q)) for i in tables_ref[j].get(b, [])}
        beyond = [i for i in got_l if i not in candidates]
        if beyond:
            raise Wrong(
                _(
                    "Your query returns ids that are no candidate of q (in none of q's 4 table "
                    "entries): it read more than the candidates (a loop over fps, or over the tables' "
                    "entries), and what it found there was not the fingerprints."
                ),
                expected=Raw(f"{exp} for {what}"),
                got=Raw(_("{n} ids that are no candidate, e.g. {v0}").format(n=len(beyond), v0=beyond[:3])),
            )
        if got_l != exp:
            missing, extra = set(exp) - set(got_l), set(got_l) - set(exp)
            hint = _(
                "Look up each of the query's 4 blocks in its table, collect the ids found, then "
                "keep those with hamming(fps[id], q) <= k."
            )
            if found_nothing:
                hint = _(
                    "query returned no id for any query (here {n} are near): it must find them from its "
                    "own arguments, block j of q looked up in table j for all 4 blocks (each call is "
                    "made on its own: nothing build_tables left anywhere else is there)."
                ).format(n=len(exp))
            elif missing and not extra and all(_popcount(fps[i] ^ q) == k for i in missing):
                hint = _(
                    "The ids missing are exactly k bits from q: near means distance <= k (at most k "
                    "bits), not < k."
                )
            elif missing and not extra:
                hint = _(
                    "Some near fingerprints are missing: did you look up all 4 blocks, each in its "
                    "own table (table j keyed by block j)?"
                )
            elif extra:
                hint = _("Some ids are too far: check each candidate with hamming(fps[id], q) <= k.")
            raise Wrong(hint, expected=Raw(f"{exp} for {what}"), got=got_l)


def _blame_blocks(tables: list[dict], fps: list[int]) -> None:
    """Wrong tables that a right ``build_tables`` gives with a wrong ``blocks``: every id once in
    every table, under keys that are not the fingerprint's blocks. Say so (the fault is ``blocks``)."""
    keys: list[list[int | None]] = [[None] * 4 for _ in fps]
    for j, table in enumerate(tables):
        for b, ids in table.items():
            for i in ids:
                if not 0 <= i < len(fps) or keys[i][j] is not None:
                    return  # an id out of range or twice in one table: build_tables itself is wrong
                keys[i][j] = b
    if any(None in k for k in keys):
        return
    i = next((i for i, fp in enumerate(fps) if keys[i] != _blocks(fp)), None)
    if i is not None:
        raise Wrong(
            _(
                "build_tables files every id once in each table, but under keys that are not the "
                "fingerprint's blocks: your blocks() is wrong (see its check above); fix it first."
            ),
            expected=Raw(f"blocks({fps[i]:#018x}) = {[hex(b) for b in _blocks(fps[i])]}"),
            got=Raw(f"keys {[hex(b) for b in keys[i]]}"),
        )


def _index_method_judge(cases: list[dict], results: list[list[dict]]) -> None:
    for c, res in zip(cases, results):
        if "queries" not in c:
            continue
        built = {"fps": c["fps"], "other": c.get("other", [])}
        tables = {name: _reference_tables(fps) for name, fps in built.items()}
        n_builds = 2 if "other" in c else 1
        for (q, _k, name), r in zip(c["queries"], res[n_builds:]):
            keys = _blocks(q)
            # the candidates, and the id planted under q's keys (a candidate too, see _baited)
            candidates = {i for j, b in enumerate(keys) for i in tables[name][j].get(b, [])}
            candidates.add(len(built[name]))
            reads = r.get("reads") if isinstance(r, dict) else None
            if (
                not isinstance(reads, dict)
                or any(type(reads.get(f)) is not int for f in ("n_ids", "n_entries"))
                or any(type(reads.get(f)) is not list for f in ("ids", "entries"))
            ):
                raise Wrong(_("what a query read could not be counted."))
            other_ids = [i for i in reads["ids"] if i not in candidates]
            if reads["n_ids"] > len(candidates) or other_ids:
                raise Wrong(
                    _(
                        "Get the candidate ids from the 4 tables first; read fps[id] only for those ids "
                        "(no loop over all of fps)."
                    ),
                    expected=Raw(_("at most the {len} candidates read").format(len=len(candidates) - 1)),
                    got=Raw(
                        _("it read {reads} of the {len} fingerprints for one query").format(
                            reads=reads["n_ids"], len=len(built[name])
                        )
                    ),
                )
            allowed = {(j, keys[j]) for j in range(4)}
            others = [
                e for e in reads["entries"] if type(e) is not list or len(e) != 2 or tuple(e) not in allowed
            ]
            if reads["n_entries"] > 4 or others:
                raise Wrong(
                    _(
                        "Look up one entry per table: block j of q in table j. Yours reads other "
                        "entries of the tables (looping over a table, or rebuilding the fingerprints "
                        "from their keys, is a linear scan too)."
                    ),
                    expected=Raw(_("the 4 entries of q's blocks")),
                    got=Raw(_("{n} entries of the tables read for one query").format(n=reads["n_entries"])),
                )


block_index = Functions(
    "block_index",
    "block_index",
    N_("Exact for every k ≤ 3, and it looks only at the candidates the tables give."),
    ["build_tables", "query"],
    _index_cases,
    _index_judge,
    method=Method(lambda rng: [], _index_method_judge),
)

EXERCISE = Exercise("05_block_index", (blocks, pigeonhole, block_index))
