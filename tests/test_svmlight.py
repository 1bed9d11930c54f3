"""SVMlight/LETOR reader and writer: against scikit-learn's reader, round trips, loud errors."""

import gzip

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from corpora.svmlight import dump_svmlight, load_svmlight
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


@pytest.mark.parametrize("line,fragment", [
    ("x qid:1 1:2", "label"),
    ("1 qid:a 1:2", "qid"),
    ("1 qid:1 1-2", "index:value"),
    ("1 qid:1 z:2", "not an integer"),
    ("1 qid:1 1:abc", "not a number"),
    ("1 qid:1 1:nan", "not finite"),
    ("1 qid:1 0:1", "below 1"),
    ("1 qid:1 3:1 2:1", "does not increase"),
    ("1 qid:1 9:1", "exceeds n_features"),
])
def test_malformed_line_names_file_and_line(tmp_path, line, fragment):
    path = tmp_path / "bad.txt"
    path.write_text("1 qid:1 1:0.5\n" + line + "\n")
    with pytest.raises(CorpusFormatError) as info:
        load_svmlight(path, n_features=5)
    message = str(info.value)
    assert str(path) in message and "line 2" in message and fragment in message
    assert info.value.line == 2


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
