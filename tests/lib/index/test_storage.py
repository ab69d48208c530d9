"""SimhashIndex.load on hostile files: every bad file is a ValueError that names the file and the
problem, fast, without blocking and without allocating what the file merely declares.

The files are built here from the documented format (simhash_lab/index/storage.py): a 52-byte
header (magic, version as uint32, SHA-256 of the version bytes and the payload) and an .npz payload
with meta (UTF-8 JSON), fps (uint64) and alive (bool). Re-sealing (a new checksum) is what anyone
can do, so the checksum proves nothing about what the payload declares.
"""

import hashlib
import io
import json
import os
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

from simhash_lab import SimhashIndex

pytestmark = pytest.mark.timeout(120)  # a load that blocks (a FIFO) fails instead of hanging

MAGIC = b"SIMHASHLAB-INDEX"


def seal(payload: bytes, version: int = 1) -> bytes:
    v = struct.pack("<I", version)
    return MAGIC + v + hashlib.sha256(v + payload).digest() + payload


def npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def npy_header(descr: str, n: int) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": (n,)})
    return buf.getvalue()


DROP = object()  # meta(field=DROP) leaves the field out


def meta(**change) -> dict:
    """The metadata save() writes for three ids, with ``change``."""
    m = {"format": "simhash-lab index", "version": 1, "k": 3, "bits": 64, "layout": "auto", "max_tables": 20}
    m["n"] = 3
    m.update(change)
    return {k: v for k, v in m.items() if v is not DROP}


def payload(m: dict | bytes | None = None, fps=None, alive=None, members=None) -> bytes:
    """An .npz payload; ``members`` (name -> raw bytes) replaces or adds members as they are."""
    m = meta() if m is None else m
    raw_meta = m if isinstance(m, bytes) else json.dumps(m).encode()
    parts = {
        "meta.npy": npy(np.frombuffer(raw_meta, np.uint8)),
        "fps.npy": npy(np.array([1, 2, 3], np.uint64) if fps is None else fps),
        "alive.npy": npy(np.ones(3, np.bool_) if alive is None else alive),
    }
    parts.update(members or {})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in parts.items():
            if data is not None:
                z.writestr(name, data)
    return buf.getvalue()


def write(tmp_path, data: bytes, name: str = "bad.idx") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_the_builder_here_writes_what_load_reads(tmp_path):
    """The files below differ from a good one only where each test says."""
    index = SimhashIndex.load(write(tmp_path, seal(payload())))
    assert len(index) == 3 and index.query(1) == [(0, 0), (2, 1), (1, 2)]
    saved = tmp_path / "saved.idx"
    index.save(saved)
    assert SimhashIndex.load(saved).query(3) == index.query(3)


# -- not a regular file --------------------------------------------------------------------------


def test_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "fifo.idx"
    os.mkfifo(path)  # before: load blocked forever in open()
    with pytest.raises(ValueError, match=r"fifo\.idx: not a regular file: a FIFO \(named pipe\)"):
        SimhashIndex.load(path)


def test_dev_zero_link_is_refused_without_reading(tmp_path, memory_cap):
    path = tmp_path / "zero.idx"
    path.symlink_to("/dev/zero")  # before: read until MemoryError
    tracemalloc.start()
    try:
        with pytest.raises(
            ValueError, match=r"zero\.idx: not a regular file: a symbolic link to a character"
        ):
            SimhashIndex.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_folder_is_a_value_error_and_missing_file_an_os_error(tmp_path):
    with pytest.raises(ValueError, match="not a regular file: a directory"):
        SimhashIndex.load(tmp_path)
    with pytest.raises(FileNotFoundError):
        SimhashIndex.load(tmp_path / "missing.idx")


def test_sparse_file_is_refused_after_its_header(tmp_path, memory_cap):
    path = tmp_path / "sparse.idx"
    with open(path, "wb") as f:
        f.truncate(1 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="bad magic bytes"):
            SimhashIndex.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_name_in_the_message_is_escaped(tmp_path):
    path = write(tmp_path, b"junk", "two\nlines.idx")
    with pytest.raises(ValueError) as e:
        SimhashIndex.load(path)
    assert "two\\nlines.idx: truncated" in str(e.value) and "\n" not in str(e.value)


# -- sizes declared by the payload, checked before allocating ------------------------------------


def deflated_bomb(n: int) -> bytes:
    """A payload whose fps and alive members deflate to 9 n bytes of zeros (n ids, all removed)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        raw_meta = npy(np.frombuffer(json.dumps(meta(n=n)).encode(), np.uint8))
        z.writestr("meta.npy", raw_meta, compress_type=zipfile.ZIP_STORED)
        for name, descr, nbytes in [("fps.npy", "<u8", 8 * n), ("alive.npy", "|b1", n)]:
            with z.open(name, "w", force_zip64=True) as w:
                w.write(npy_header(descr, n))
                zeros = bytes(1 << 20)
                for _ in range(nbytes >> 20):
                    w.write(zeros)
                w.write(bytes(nbytes & ((1 << 20) - 1)))
    return buf.getvalue()


def test_zip_bomb_is_refused_before_allocating(tmp_path, memory_cap):
    """A 2 MB file with a valid checksum whose members decompress to 450 MB (before: loaded, with
    about twice that in RSS; the issue's 2.3 MB -> 2.4 GB took 4.8 GB)."""
    n = 50_000_000
    path = write(tmp_path, seal(deflated_bomb(n)))
    assert os.path.getsize(path) < 4 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"bad\.idx: .*member fps\.npy is compressed"):
            SimhashIndex.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * os.path.getsize(path) + (1 << 20)  # the file and its members, not 9 n bytes


def big_header_member(descr: str, n: int) -> bytes:
    return npy_header(descr, n) + bytes(24)  # declares n items, holds 3 (of 8 bytes)


@pytest.mark.parametrize(
    "kind, build, match",
    [
        ("n too large for the file", lambda: payload(meta(n=10**12)), r"declares n = 1,000,000,000,000 ids"),
        (
            "fps header declares more than n",
            lambda: payload(members={"fps.npy": big_header_member("<u8", 10**12)}),
            r"member fps\.npy: shape \(1000000000000,\), expected \(3,\)",
        ),
        (
            "fps header and n agree, the data is short",
            lambda: payload(meta(n=4), alive=np.ones(4, np.bool_)),
            r"member fps\.npy: shape \(3,\), expected \(4,\)",
        ),
        (
            "data shorter than the header says",
            lambda: payload(members={"fps.npy": npy_header("<u8", 3) + bytes(16)}),
            r"member fps\.npy: shape \(3,\) needs 24 bytes, it holds 16",
        ),
        (
            "data longer than the header says",
            lambda: payload(members={"fps.npy": npy_header("<u8", 3) + bytes(32)}),
            r"needs 24 bytes, it holds 32",
        ),
        (
            "fps of another dtype",
            lambda: payload(fps=np.array([1, 2, 3], np.int64)),
            r"member fps\.npy: dtype <i8, expected <u8",
        ),
        ("fps big-endian", lambda: payload(fps=np.array([1, 2, 3], ">u8")), r"dtype >u8, expected <u8"),
        ("fps 2-D", lambda: payload(fps=np.ones((3, 1), np.uint64)), r"shape \(3, 1\), expected \(3,\)"),
        (
            "object array",
            lambda: payload(members={"fps.npy": npy_header("|O", 3) + bytes(24)}),
            r"dtype \|O, expected <u8",
        ),
        (
            "alive flag not 0 or 1",
            lambda: payload(alive=np.array([1, 2, 1], np.uint8).view(np.bool_)),
            "not 0 or 1",
        ),
        (
            "a member missing",
            lambda: payload(members={"alive.npy": None}),
            r"members \['meta\.npy', 'fps\.npy'\]",
        ),
        ("a member more", lambda: payload(members={"extra.npy": npy(np.zeros(1))}), "expected"),
        ("not a zip", lambda: b"PK not really", "not a readable .npz archive"),
        (
            "not an npy member",
            lambda: payload(members={"fps.npy": b"\x93NUMPY junk"}),
            "not a .npy array header",
        ),
        ("meta too large", lambda: payload(b" " * 70_000 + json.dumps(meta()).encode()), "bytes of metadata"),
        (
            "fingerprint wider than bits",
            lambda: payload(meta(bits=8), fps=np.array([1, 2, 300], np.uint64)),
            r"fps \(in the file\)\[2\]=300 does not fit in bits=8",
        ),
    ],
)
def test_declared_sizes_and_shapes_are_checked(tmp_path, kind, build, match):
    path = write(tmp_path, seal(build()))
    with pytest.raises(ValueError, match=r"bad\.idx: malformed simhash-lab index payload.*" + match):
        SimhashIndex.load(path)


def test_central_directory_declaring_huge_member_is_refused(tmp_path):
    data = bytearray(payload())
    # every central directory entry's sizes (compressed and uncompressed) patched to 2 GiB
    pos = data.find(b"PK\x01\x02")
    assert pos >= 0
    while pos >= 0:
        struct.pack_into("<II", data, pos + 20, 0x7FFFFFFF, 0x7FFFFFFF)
        pos = data.find(b"PK\x01\x02", pos + 4)
    path = write(tmp_path, seal(bytes(data)))
    with pytest.raises(ValueError, match=r"declares 2,147,483,647 bytes in a payload of"):
        SimhashIndex.load(path)


# -- every metadata field of its type ---------------------------------------------------------------


@pytest.mark.parametrize(
    "change, match",
    [
        ({"k": "3"}, r"field 'k' must be an int, got \"3\""),  # before: a bare TypeError
        ({"n": 3.0}, r"field 'n' must be an int, got 3\.0"),  # before: TypeError (slice indices)
        ({"n": True}, r"field 'n' must be an int, got true"),  # before: loaded (with one id)
        ({"bits": 64.0}, r"field 'bits' must be an int, got 64\.0"),
        ({"bits": False}, r"field 'bits' must be an int, got false"),
        ({"max_tables": "20"}, r"field 'max_tables' must be an int or null, got \"20\""),
        ({"version": "1"}, r"field 'version' must be an int"),
        ({"format": 1}, r"field 'format' must be a str, got 1"),
        ({"layout": 5}, r"field 'layout' must be a str or a list, got 5"),
        ({"layout": ["permuted", "4"]}, r"field 'layout' must be a name and ints"),
        ({"layout": ["permuted", True]}, r"field 'layout' must be a name and ints"),
        ({"layout": []}, r"field 'layout' must be a name and ints"),
        ({"format": "another index"}, r"field 'format' is \"another index\""),
        ({"version": 2}, r"field 'version' is 2, the header says 1"),
        ({"n": -1}, r"field 'n' must be >= 0, got -1"),
        ({"k": DROP}, r"missing fields \['k'\], unexpected fields \[\]"),
        ({"extra": 1}, r"missing fields \[\], unexpected fields \['extra'\]"),
        ({"k": 70}, r"k must be between 0 and bits-1 \(63\).*got 70"),  # the constructor's own check
        ({"layout": "nope"}, r"layout"),
        ({"max_tables": 0}, r"max_tables must be between"),
    ],
)
def test_every_metadata_field_is_checked(tmp_path, change, match):
    path = write(tmp_path, seal(payload(meta(**change))))
    with pytest.raises(ValueError, match=r"bad\.idx: malformed simhash-lab index payload.*" + match):
        SimhashIndex.load(path)


@pytest.mark.parametrize(
    "raw, match",
    [
        (b"[1, 2, 3]", "metadata must be a JSON object, got list"),
        (b"\xff\xfe{}", "metadata is not UTF-8 JSON"),
        (b"{not json", "metadata is not UTF-8 JSON"),
        (b'{"n": ' + b"9" * 5000 + b"}", "metadata is not UTF-8 JSON"),  # past int's digit limit
    ],
)
def test_metadata_that_is_not_a_json_object(tmp_path, raw, match):
    path = write(tmp_path, seal(payload(raw)))
    with pytest.raises(ValueError, match=r"bad\.idx: malformed simhash-lab index payload: " + match):
        SimhashIndex.load(path)


def test_a_good_layout_list_loads_as_a_tuple(tmp_path):
    index = SimhashIndex.load(write(tmp_path, seal(payload(meta(layout=["permuted", 4])))))
    assert index.layout == ("permuted", 4) and len(index) == 3


def test_table_limits_round_trip(tmp_path):
    # max_tables=None (limited by the memory budget only) and the budget itself are saved
    for kwargs in ({}, {"max_tables": 7}, {"memory_budget": 1 << 30}):
        index = SimhashIndex(k=3, **kwargs)
        index.add_many([1, 2, 3])
        index.save(tmp_path / "i.idx")
        back = SimhashIndex.load(tmp_path / "i.idx")
        assert (back._max_tables, back._memory_budget) == (index._max_tables, index._memory_budget)
        assert back.query(1) == index.query(1)


# -- version 2: the document keys and the hasher's settings -----------------------------------------


def test_keys_and_hasher_are_saved_so_new_text_queries_correctly(tmp_path):
    from simhash_lab import Simhasher
    from simhash_lab.dedup import recommended_hasher
    from simhash_lab.tokenize import char_ngrams

    texts = ["the cat sat on the mat today", "a dog ran in the park", "the cat sat on a mat today"]
    for h in (recommended_hasher(3), Simhasher(bits=32, tokenizer=char_ngrams(3), hash="md5"), Simhasher()):
        index = SimhashIndex(k=min(h.bits - 1, 20), bits=h.bits)
        index.add_many(h.fingerprints(texts))
        index.hasher, index.keys = h, ["cat", 7, "cat-2"]
        index.save(tmp_path / "docs.idx")
        again = SimhashIndex.load(tmp_path / "docs.idx")
        assert again.keys == ["cat", 7, "cat-2"]
        assert repr(again.hasher) == repr(h) and again.hasher.bits == h.bits
        new = "the cat sat on the mat today!"
        assert again.hasher.fingerprint(new) == h.fingerprint(new)
        assert [again.keys[i] for i, _ in again.query(again.hasher.fingerprint(new))][0] == "cat"


def test_an_index_without_keys_or_hasher_saves_them_as_absent(tmp_path):
    index = SimhashIndex(k=3)
    index.add_many([1, 2, 3])
    index.save(tmp_path / "a.idx")
    again = SimhashIndex.load(tmp_path / "a.idx")
    assert again.keys is None and again.hasher is None and len(again) == 3


def test_version_1_files_still_load(tmp_path):
    index = SimhashIndex.load(write(tmp_path, seal(payload(), version=1)))
    assert index.keys is None and index.hasher is None and len(index) == 3


def test_unsaveable_keys_and_hashers_are_refused_at_save(tmp_path):
    from simhash_lab import Simhasher

    index = SimhashIndex(k=3)
    index.add_many([1, 2])
    index.keys = ["a"]
    with pytest.raises(ValueError, match="one key per id: 1 keys for 2 ids"):
        index.save(tmp_path / "x.idx")
    index.keys = ["a", 2.5]
    with pytest.raises(TypeError, match=r"index.keys\[1\] must be a str or an int"):
        index.save(tmp_path / "x.idx")
    index.keys = None
    index.hasher = Simhasher(tokenizer=str.split)
    with pytest.raises(ValueError, match="only built-in tokenizers"):
        index.save(tmp_path / "x.idx")
    index.hasher = Simhasher(bits=16)
    with pytest.raises(ValueError, match="16-bit fingerprints"):
        index.save(tmp_path / "x.idx")
    assert not (tmp_path / "x.idx").exists()


def meta2(**change) -> dict:
    m = meta(version=2, hasher=None, keys=False, memory_budget=None)
    m.update(change)
    return {k: v for k, v in m.items() if v is not DROP}


GOOD_HASHER = {
    "bits": 64,
    "tokenizer": {
        "name": "words",
        "kind": 0,
        "features": 0,
        "n": 1,
        "joiner": " ",
        "lowercase": True,
        "empty_feature": False,
    },  # fmt: skip
    "hash": "xxh3",
    "weights": "tf",
    "default_weight": 1.0,
    "name": None,
}


def test_the_v2_builder_loads(tmp_path):
    index = SimhashIndex.load(write(tmp_path, seal(payload(meta2(hasher=GOOD_HASHER)), version=2)))
    assert index.hasher.fingerprint("a b") == __import__("simhash_lab").Simhasher().fingerprint("a b")
    keys = {"keys.npy": npy(np.frombuffer(json.dumps(["a", "b", 3]).encode(), np.uint8))}
    index = SimhashIndex.load(write(tmp_path, seal(payload(meta2(keys=True), members=keys), version=2)))
    assert index.keys == ["a", "b", 3]


def _hasher(**change):
    h = json.loads(json.dumps(GOOD_HASHER))
    for key, v in change.items():
        if key.startswith("tok_"):
            h["tokenizer"][key[4:]] = v
        else:
            h[key] = v
    return h


@pytest.mark.parametrize(
    "m, members, match",
    [
        (meta2(keys="yes"), None, r"field 'keys' must be true or false, got \"yes\""),
        (meta2(hasher=[1]), None, r"field 'hasher' must be an object or null, got \[1\]"),
        (meta2(max_tables="20"), None, r"field 'max_tables' must be an int or null"),
        (meta2(memory_budget=1.5), None, r"field 'memory_budget' must be an int or null"),
        (meta2(keys=True), None, r"field 'keys' is true but the keys member is missing"),
        (meta2(), {"keys.npy": npy(np.frombuffer(b'["a","b","c"]', np.uint8))}, "keys member is there"),
        (
            meta2(keys=True),
            {"keys.npy": npy(np.frombuffer(b'["a","b"]', np.uint8))},
            "keys must be a list of 3",
        ),
        (
            meta2(keys=True),
            {"keys.npy": npy(np.frombuffer(b'["a",true,"c"]', np.uint8))},
            r"keys\[1\] must be",
        ),
        (meta2(keys=True), {"keys.npy": npy(np.frombuffer(b"\xff", np.uint8))}, "keys are not UTF-8 JSON"),
        (meta2(hasher=_hasher(bits=32)), None, "bits 32 differs from the index's 64"),
        (meta2(hasher=_hasher(hash="sha1")), None, 'hash "sha1" is not one of'),
        (meta2(hasher=_hasher(weights={"a": 1})), None, "field 'weights' must be a str"),
        (meta2(hasher=_hasher(weights="idf")), None, "weights \"idf\" is not 'tf' or 'binary'"),
        (meta2(hasher=_hasher(tok_kind=9)), None, "tokenizer kind 9 is unknown"),
        (meta2(hasher=_hasher(tok_n=0)), None, "tokenizer n 0 is not between 1 and 64"),
        (meta2(hasher=_hasher(tok_lowercase=1)), None, "tokenizer field 'lowercase' must be true or false"),
        (meta2(hasher=_hasher(default_weight="1")), None, "field 'default_weight' must be a number"),
        (meta2(hasher=_hasher(extra=1)), None, r"unexpected fields \['extra'\]"),
        (meta2(hasher=_hasher(default_weight=float("nan"))), None, "default_weight must be finite"),
    ],
)
def test_every_v2_field_is_checked(tmp_path, m, members, match):
    path = write(tmp_path, seal(payload(m, members=members), version=2))
    with pytest.raises(ValueError, match=r"bad\.idx: malformed simhash-lab index payload.*" + match):
        SimhashIndex.load(path)


def test_a_future_version_is_refused_clearly(tmp_path):
    with pytest.raises(
        ValueError, match=r"unsupported index format version 3 \(this simhash-lab reads versions 1, 2\)"
    ):
        SimhashIndex.load(write(tmp_path, seal(payload(meta(version=3)), version=3)))


def test_save_load_small_bits(tmp_path):
    index = SimhashIndex(k=1, bits=6)
    index.add_many([0b110001, 0b110000, 0b001110])
    index.save(tmp_path / "six")
    again = SimhashIndex.load(tmp_path / "six")  # no extension appended or needed
    assert again.bits == 6 and again.pairs().tolist() == [[0, 1, 1]]


@pytest.fixture
def saved_bytes(tmp_path) -> bytes:
    index = SimhashIndex(k=2, bits=64)
    index.add_many([1, 3, 2**63 + 5, 2**40])
    path = tmp_path / "small.shidx"
    index.save(path)
    return path.read_bytes()


def test_every_flipped_byte_is_a_clear_value_error(tmp_path, saved_bytes):
    path = tmp_path / "bad.shidx"
    for pos in range(len(saved_bytes)):
        bad = bytearray(saved_bytes)
        bad[pos] ^= 0x01
        path.write_bytes(bytes(bad))
        with pytest.raises(ValueError, match="index file|malformed"):
            SimhashIndex.load(path)


def test_every_truncation_is_a_clear_value_error(tmp_path, saved_bytes):
    path = tmp_path / "short.shidx"
    for length in range(len(saved_bytes)):
        path.write_bytes(saved_bytes[:length])
        with pytest.raises(ValueError, match="truncated|corrupt"):
            SimhashIndex.load(path)


def test_other_files_are_refused(tmp_path):
    plain = tmp_path / "plain.npz"
    np.savez(plain, fps=np.arange(3, dtype=np.uint64))
    with pytest.raises(ValueError, match="not a simhash-lab index file"):
        SimhashIndex.load(plain)


def test_unsupported_version_is_refused(tmp_path, saved_bytes):
    import hashlib
    import struct

    bad = bytearray(saved_bytes)
    bad[16:20] = struct.pack("<I", 99)
    bad[20:52] = hashlib.sha256(bytes(bad[16:20]) + bytes(bad[52:])).digest()
    (tmp_path / "v99").write_bytes(bytes(bad))
    with pytest.raises(ValueError, match="unsupported index format version 99"):
        SimhashIndex.load(tmp_path / "v99")
