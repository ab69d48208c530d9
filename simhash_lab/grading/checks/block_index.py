"""Checkers of exercise 05, the pigeonhole block index: blocks, the pigeonhole on paper, and a
4-table index whose query reads only its candidates.

``build_tables`` must return the tables the exercise describes (4 dicts, block value -> ids), and
``query`` gets them back rebuilt from that plain data, so nothing else can travel from one to the
other (a copy of all the fingerprints, say). ``query`` gets the fingerprints as a list that counts
the items read: reading more than the candidates the 4 tables give is a linear scan. Both
functions, and ``blocks`` that they call, pass an allow-list and run in a sandbox of their own.
"""

from __future__ import annotations

import random

from .. import data
from .._code_checks import AllowList
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
        hint = "Block j is (fp >> (16 * j)) & 0xFFFF for j = 0, 1, 2, 3: block 0 holds the lowest bits."
        if got == exp[::-1]:
            hint = "Right blocks, wrong order: block 0 is the lowest 16 bits (no shift)."
        raise Wrong(hint, expected=Raw(str([hex(b) for b in exp])), got=Raw(str([hex(b) for b in got])))


blocks = Functions(
    "blocks",
    "blocks",
    "Four 16-bit blocks, block j = (fp >> 16j) & 0xFFFF, like the seed's extract_chunk.",
    ["blocks"],
    _blocks_cases,
    _blocks_judge,
)


def _pigeonhole_judge(values: dict, variant: object) -> None:
    expect_int(
        values["min_equal_blocks"],
        1,
        "min_equal_blocks",
        "Each flipped bit lands in one block. With 3 flipped bits, how many of the 4 blocks can they "
        "touch at most, and how many does that leave untouched?",
        show=False,
    )
    expect_bool(
        values["k4_can_miss"],
        True,
        "k4_can_miss",
        "Try to place 4 flipped bits so that every one of the 4 blocks contains at least one of them.",
    )


pigeonhole = Values(
    "pigeonhole",
    "pigeonhole",
    "k ≤ 3 differing bits cannot touch all 4 blocks; 4 bits can.",
    ["min_equal_blocks", "k4_can_miss"],
    _pigeonhole_judge,
    kinds="an int or a bool",
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
    for _ in range(16):
        q = fps[rng.randrange(n // 4)]
        for b in rng.sample(range(64), rng.randint(0, 3)):
            q ^= 1 << b
        queries.append((q, rng.randint(0, 3)))
    queries += [(rng.getrandbits(64), 3) for _ in range(4)]
    return fps, queries


def _index_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        fps, qs = data.block_fingerprints(variant=None)
        queries = [(q, k) for k in range(4) for q in qs]
    else:
        fps, queries = _fingerprints(rng, rng.randint(800, 1500))
    calls = [call("build_tables", {"$var": "fps"}, save="tables")]
    calls += [
        call("query", ref("tables"), {"$spy": {"$var": "fps"}}, q, k, measure=["reads"]) for q, k in queries
    ]
    return [case(*calls, vars={"fps": fps}, fps=fps, queries=[list(q) for q in queries])]


def _reference_tables(fps: list[int]) -> list[dict[int, list[int]]]:
    tables: list[dict[int, list[int]]] = [{} for _ in range(4)]
    for i, fp in enumerate(fps):
        for j, b in enumerate(_blocks(fp)):
            tables[j].setdefault(b, []).append(i)
    return tables


def _tables_of(got: object) -> list[dict]:
    shape = "4 tables (a list of 4 dicts), table j mapping a block-j value to the list of ids"
    if type(got) not in (list, tuple) or len(got) != 4 or any(type(t) is not dict for t in got):
        raise Wrong(f"build_tables must return {shape}.", got=Raw(_kind(got)))
    out = []
    for t in got:
        table = {}
        for b, ids in t.items():
            if (
                type(b) is not int
                or type(ids) not in (list, tuple, set)
                or any(type(i) is not int for i in ids)
            ):
                raise Wrong(f"build_tables must return {shape}: a key or a list of ids is not made of ints.")
            table[b] = sorted(ids)
        out.append(table)
    return out


def _kind(x: object) -> str:
    if type(x) in (list, tuple):
        return f"a {type(x).__name__} of {len(x)}: " + ", ".join(type(i).__name__ for i in x[:5])
    return f"a {type(x).__name__}"


def _index_judge(c: dict, res: list[dict]) -> None:
    fps, queries = c["fps"], c["queries"]
    tables = _tables_of(returned(res[0], "build_tables(fps)"))
    if tables != _reference_tables(fps):
        _blame_blocks(tables, fps)
        j = next(j for j, (a, b) in enumerate(zip(tables, _reference_tables(fps))) if a != b)
        raise Wrong(
            f"Table {j} is not right: it must map each value of block {j} to the ids (indices into fps) "
            f"of the fingerprints whose block {j} has that value, and nothing else."
        )
    for (q, k), r in zip(queries, res[1:]):
        what = f"query(tables, fps, {q:#018x}, k={k})"
        got = returned(r, what)
        if type(got) not in (list, tuple, set) or any(type(i) is not int for i in got):
            raise Wrong("Return the ids (indices into fps) as a list of ints.", got=Raw(_kind(got)))
        got_l = sorted(got)
        exp = sorted(i for i, f in enumerate(fps) if _popcount(f ^ q) <= k)
        if got_l != exp:
            hint = (
                "Look up each of the query's 4 blocks in its table, collect the ids found, then keep "
                "those with hamming(fps[id], q) <= k."
            )
            if set(got_l) < set(exp):
                hint = (
                    "Some near fingerprints are missing: did you look up all 4 blocks, each in its own "
                    "table (table j keyed by block j)?"
                )
            elif set(got_l) - set(exp):
                hint = "Some ids are too far: check each candidate with hamming(fps[id], q) <= k."
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
            "build_tables files every id once in each table, but under keys that are not the "
            "fingerprint's blocks: your blocks() is wrong (see its check above); fix it first.",
            expected=Raw(f"blocks({fps[i]:#018x}) = {[hex(b) for b in _blocks(fps[i])]}"),
            got=Raw(f"keys {[hex(b) for b in keys[i]]}"),
        )


def _index_method_judge(cases: list[dict], results: list[list[dict]]) -> None:
    for c, res in zip(cases, results):
        tables = _reference_tables(c["fps"])
        for (q, _k), r in zip(c["queries"], res[1:]):
            candidates = {i for j, b in enumerate(_blocks(q)) for i in tables[j].get(b, [])}
            reads = r.get("reads") if isinstance(r, dict) else None
            if type(reads) is not int:
                raise Wrong("the fingerprints a query read could not be counted.")
            if reads > len(candidates):
                raise Wrong(
                    "Get the candidate ids from the 4 tables first; read fps[id] only for those ids "
                    "(no loop over all of fps).",
                    expected=Raw(f"at most the {len(candidates)} candidates read"),
                    got=Raw(f"it read {reads} of the {len(c['fps'])} fingerprints for one query"),
                )


_INDEX_ALLOW = AllowList(
    why=(
        "Build it from dicts, lists and sets with loops and the functions of this exercise (blocks, "
        "hamming); the grader runs it on its own and counts the fingerprints a query reads."
    ),
    builtins={"enumerate", "list", "set", "dict", "sorted", "sum", "tuple", "zip", "any", "all", "reversed"},
    names={"hamming": None, "blocks": None, "build_tables": None, "query": None},
    attributes={
        "append",
        "add",
        "get",
        "setdefault",
        "update",
        "extend",
        "items",
        "keys",
        "values",
        "pop",
        "discard",
        "sort",
        "union",
        "intersection",
        "difference",
        "copy",
        "insert",
        "remove",
        "issubset",
    },
)

block_index = Functions(
    "block_index",
    "block_index",
    "Exact for every k ≤ 3, and it looks only at the candidates the tables give.",
    ["build_tables", "query"],
    _index_cases,
    _index_judge,
    method=Method(_INDEX_ALLOW, lambda rng: [], _index_method_judge, uses=("blocks",)),
)

EXERCISE = Exercise("05_block_index", (blocks, pigeonhole, block_index))
