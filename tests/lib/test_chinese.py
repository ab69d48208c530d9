"""The Chinese tokenizer and Simhasher (simhash_lab.chinese): jieba words, TF-IDF weights that tell a
rewording from another text, keywords, and the extra named when jieba is missing."""

import importlib
import sys

import pytest

from simhash_lab import Simhasher, hamming

LSH = (
    "LSH的基本思想是将空间中原始数据相邻的2个数据点通过映射或者投影变换后,这两个数据点在新的空间中的相邻概率很大,"
    "不相邻的点映射到同一个桶的概率小。"
)


LSH_REWORDED = (
    "LSH的基本思想是把空间中原始数据相邻的两个数据点通过映射或投影变换后,这两个数据点在新空间中的相邻概率很大,"
    "不相邻的点映射到同一个桶的概率很小。"
)


OTHER = (
    "SimHash 算法的输入是一个向量,输出是一个f位的签名值。设输入的是一个文档的特征集合,每个特征有一定的权重。"
)


def test_jieba_words_tokenizer(capfd):
    chinese = pytest.importorskip("simhash_lab.chinese")
    pytest.importorskip("jieba")
    tok = chinese.jieba_words()
    words = tok("Simhash是Google用来处理海量文本去重的算法。")
    assert words[:4] == ["simhash", "是", "google", "用来"] and "。" not in words
    assert tok("") == [] and tok("，。！") == []
    assert chinese.jieba_words(lowercase=False)("Google")[0] == "Google"
    with pytest.raises(TypeError, match="text"):
        tok(None)
    h = Simhasher(tokenizer=tok)
    assert h.fingerprint(LSH) == h.fingerprints([LSH])[0]
    assert "Building prefix dict" not in capfd.readouterr().err
    import pickle

    assert pickle.loads(pickle.dumps(tok)) == tok


def test_jieba_tfidf_simhasher_separates_rewording_from_other_text():
    chinese = pytest.importorskip("simhash_lab.chinese")
    pytest.importorskip("jieba")
    h = chinese.jieba_simhasher()
    a, b, c = h.fingerprints([LSH, LSH_REWORDED, OTHER])
    assert hamming(a, b) <= 8 < 20 <= hamming(a, c)
    # TF x IDF: every occurrence votes the word's IDF
    table, median = chinese.idf_table()
    feats = chinese.jieba_words()(LSH)
    tf = {}
    for w in feats:
        tf[w] = tf.get(w, 0) + table.get(w, median)
    assert h.fingerprint(LSH) == Simhasher(hash=h.hash).fingerprint(tf)
    # words (\w runs) cannot tell the rewording from the other passage
    w = Simhasher().fingerprints([LSH, LSH_REWORDED, OTHER])
    assert hamming(w[0], w[1]) > 15


def test_keywords_feed_fingerprint():
    chinese = pytest.importorskip("simhash_lab.chinese")
    pytest.importorskip("jieba")
    kw = chinese.keywords(LSH, 5)
    assert len(kw) == 5 and kw[0][0] == "相邻" and all(isinstance(x, float) for _, x in kw)
    assert kw == sorted(kw, key=lambda t: -t[1])
    assert isinstance(Simhasher().fingerprint(kw), int)
    with pytest.raises(ValueError, match="top_k"):
        chinese.keywords(LSH, 0)


def test_chinese_without_jieba_names_the_extra(monkeypatch):
    chinese = importlib.import_module("simhash_lab.chinese")
    monkeypatch.setitem(sys.modules, "jieba", None)
    monkeypatch.setitem(sys.modules, "jieba.analyse", None)
    chinese._idf.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"simhash-lab\[chinese\]"):
            chinese.jieba_words()
        with pytest.raises(ImportError, match=r"simhash-lab\[chinese\]"):
            chinese.jieba_simhasher()
    finally:
        chinese._idf.cache_clear()


def test_importing_chinese_does_not_import_jieba(course):
    import subprocess

    course("compare")  # the course's modules are imported too: skipped without its extra

    code = (
        "import sys, simhash_lab.chinese, simhash_lab.course.corpus, simhash_lab.course.compare; "
        "print('jieba' in sys.modules, 'datasketch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"
