"""SVMlight/LETOR reader and writer: against scikit-learn's reader, round trips, loud errors."""

import gzip

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from corpora.svmlight import _parse_tokens, _quick_tokens, dump_svmlight, load_svmlight
from kernelrank.errors import CorpusFormatError


def _random_data(rng, m=40, n=12):
    X = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.3)
    y = rng.integers(0, 3, size=m).astype(float)
    qids = np.sort(rng.integers(1, 6, size=m))
    return X, y, qids


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_matches_sklearn_reader(tmp_path, rng, suffix):
    X, y, qids = _random_data(rng)
    plain = tmp_path / "data.txt"
    dump_svmlight_file(X, y, str(plain), query_id=qids, zero_based=False)
    path = tmp_path / f"data{suffix}"
    if suffix.endswith(".gz"):
        path.write_bytes(gzip.compress(plain.read_bytes()))
    Xs, ys, qs = load_svmlight_file(str(path), query_id=True, zero_based=False,
                                    n_features=X.shape[1])
    ours = load_svmlight(path, n_features=X.shape[1])
    assert sp.issparse(ours.X)
    np.testing.assert_array_equal(ours.X.toarray(), Xs.toarray())
    np.testing.assert_array_equal(ours.y, ys)
    np.testing.assert_array_equal(ours.qids, qs)


def test_round_trip_exact_with_comments(tmp_path, rng):
    X, y, qids = _random_data(rng)
    comments = [f"docid = {i}" for i in range(len(y))]
    path = tmp_path / "out.txt.gz"
    dump_svmlight(path, sp.csr_matrix(X), y, qids=qids, comments=comments)
    back = load_svmlight(path, n_features=X.shape[1], dense=True)
    np.testing.assert_array_equal(back.X, X)  # repr() keeps full precision
    np.testing.assert_array_equal(back.y, y)
    np.testing.assert_array_equal(back.qids, qids)
    assert back.comments == comments
    with gzip.open(path, "rt") as handle:
        first = handle.readline()
    assert first.startswith(f"{int(y[0])} qid:{qids[0]} ") and "# docid = 0" in first


def test_parses_letor_line_comments_and_blank_lines(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("# header comment\n\n2 qid:7 1:0.5 3:1 #docid = 42\n0 qid:7 2:0 #docid = 43\n")
    data = load_svmlight(path, n_features=4, dense=True)
    np.testing.assert_array_equal(data.X, [[0.5, 0, 1, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(data.y, [2, 0])
    np.testing.assert_array_equal(data.qids, [7, 7])
    assert data.comments == ["docid = 42", "docid = 43"]
    assert load_svmlight(path).X.shape == (2, 3)  # width = largest index seen


# Malformed lines; what scikit-learn's load_svmlight_file does with each is in the
# corpora.svmlight docstring (a ValueError without a line, or silent acceptance).
MALFORMED = [
    ("x qid:1 1:2", "label 'x' is not a number"),
    ("qid:1 1:2", "label 'qid:1' is not a number"),
    ("nan qid:1 1:2", "label 'nan' is not finite"),
    ("1 qid:a 1:2", "qid 'a' is not an integer"),
    ("1 qid:1.5 1:2", "qid '1.5' is not an integer"),
    ("1 qid: 1:2", "qid '' is not an integer"),
    ("1 qid:1_0 1:2", "qid '1_0' is not an integer"),
    ("1 1:2 qid:1", "feature index 'qid' is not an integer"),
    ("1 qid:1 1-2", "index:value"),
    ("1 qid:1 1 : 2", "index:value"),
    ("1 qid:1 z:2", "feature index 'z' is not an integer"),
    ("1 qid:1 1.5:2", "feature index '1.5' is not an integer"),
    ("1 qid:1 1e0:2", "feature index '1e0' is not an integer"),
    ("1 qid:1 \uff11:2", "is not an integer"),            # a full-width digit 1
    ("1 qid:1 1:abc", "value of feature 1 'abc' is not a number"),
    ("1 qid:1 1:", "value of feature 1 '' is not a number"),
    ("1 qid:1 1:1_0", "value of feature 1 '1_0' is not a number"),
    ("1 qid:1 1:2:3 4", "value of feature 1 '2:3' is not a number"),
    ("1 qid:1 1:0.5\x00", "is not a number"),
    ("1 qid:1 1:nan", "not finite"),
    ("1 qid:1 1:-inf", "not finite"),
    ("1 qid:1 1:1e999", "not finite"),
    ("1 qid:1 0:1", "below 1"),
    ("1 qid:1 -1:1", "below 1"),
    ("1 qid:1 3:1 2:1", "does not increase"),
    ("1 qid:1 2:1 2:1", "does not increase"),
    ("1 qid:1 9:1", "exceeds n_features"),
    ("1 2:1", "qid: is given on some lines but not on others"),
]


@pytest.mark.parametrize("line,fragment", MALFORMED)
def test_malformed_line_names_file_and_line(tmp_path, line, fragment):
    path = tmp_path / "bad.txt"
    path.write_text("1 qid:1 1:0.5\n" + line + "\n2 qid:1 1:1\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError) as info:
        load_svmlight(path, n_features=5)
    message = str(info.value)
    assert str(path) in message and "line 2" in message and fragment in message
    assert info.value.line == 2 and info.value.path == path


@pytest.mark.parametrize("line", ["", "   \t ", "# only a comment", "\r"])
def test_blank_and_comment_only_lines_are_skipped(tmp_path, line):
    path = tmp_path / "f.txt"
    path.write_bytes(b"1 qid:1 1:0.5\r\n" + line.encode() + b"\n2 qid:1\n")
    data = load_svmlight(path, n_features=2, dense=True)
    np.testing.assert_array_equal(data.X, [[0.5, 0], [0, 0]])
    np.testing.assert_array_equal(data.y, [1, 2])


GOOD_LINE = b"1 qid:1 1:0.5 2:0.25 #docid = 1\n"


@pytest.mark.parametrize("bad,fragment", [
    (b"1 qid:1 1:0.\xff\n", "byte 0xff at column 13"),
    (b"1 qid:1 1:1 # caf\xe9\n", "byte 0xe9"),
])
def test_non_utf8_bytes_are_located_beyond_the_decoder_block(tmp_path, bad, fragment):
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(gzip.compress(GOOD_LINE * 4000 + bad + GOOD_LINE * 10))
    with pytest.raises(CorpusFormatError, match="not UTF-8") as info:
        load_svmlight(path)
    assert info.value.line == 4001 and fragment in str(info.value)


@pytest.mark.parametrize("kind", ["truncated", "damaged"])
@pytest.mark.slow
def test_broken_gzip_names_the_first_unreadable_line(broken_gzip, kind):
    path = broken_gzip(b"".join(b"%d qid:%d 1:%d.%d 2:0.5\n" % (i % 3, i // 7, i, i * 7919)
                                for i in range(20000)), kind)
    with pytest.raises(CorpusFormatError, match=kind) as info:
        load_svmlight(path)
    assert info.value.path == path and 1 < info.value.line < 20000


def test_gzip_is_recognised_by_content_not_name(tmp_path):
    path = tmp_path / "named-plain.txt"
    path.write_bytes(gzip.compress(b"1 qid:3 2:1\n"))
    data = load_svmlight(path, dense=True)
    np.testing.assert_array_equal(data.X, [[0, 1]])
    np.testing.assert_array_equal(data.qids, [3])


def test_fast_path_agrees_with_strict_parser_on_random_lines(rng):
    """Every line the fast path accepts is parsed the same way by the strict parser;
    every line it declines is either accepted by the strict parser or reported by it."""
    pieces = ["1", "2", "3", "10", "0", "-1", "0.5", "1e3", "+2", "nan", "inf", "x", "1_0",
              ":", "::", " ", "qid:", "qid:4", "\uff11", "1.0", "", "-0"]
    offset, memo, accepted, declined = 1, [None, None], 0, 0
    for _ in range(5000):
        line = "".join(rng.choice(pieces, size=rng.integers(1, 12)))
        tokens = line.split()
        if not tokens:
            continue
        quick = _quick_tokens(tokens, line, offset, memo)
        try:
            strict = _parse_tokens(tokens, "<fuzz>", 1, offset)
        except CorpusFormatError:
            assert quick is None, line
            declined += 1
            continue
        accepted += 1
        if quick is not None:
            assert quick == strict, line
    assert accepted > 100 and declined > 100


def test_mixed_qid_presence_is_an_error(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text("1 qid:1 1:1\n0 2:1\n")
    with pytest.raises(CorpusFormatError, match="line 2"):
        load_svmlight(path)


def test_real_letor_fold_equals_sklearn(data_dir):
    path = data_dir / "letor" / "OHSUMED" / "Fold1.test.txt.gz"
    if not path.exists():
        pytest.skip(f"{path} absent")
    ours = load_svmlight(path, n_features=45)
    Xs, ys, qs = load_svmlight_file(str(path), query_id=True, n_features=45)
    assert ours.X.shape == Xs.shape
    assert abs(ours.X - Xs).max() == 0
    np.testing.assert_array_equal(ours.y, ys)
    np.testing.assert_array_equal(ours.qids, qs)
    assert all(c.startswith("docid = ") for c in ours.comments)
