"""The saved homology model (one .npz) is sealed and checked whole on load.

An empty or truncated file (not ``EOFError`` / ``BadZipFile``), an object array (not a bare
``ValueError``), a field of the wrong type (not a ``TypeError`` at prediction) and an edited
coefficient or intercept (not scored silently): every case here is a
:class:`CorpusFormatError` naming the file; versions 2 and 1 still load.
"""

import io
import json

import numpy as np
import pytest

from kernelrank.errors import CorpusFormatError, DataNotFoundError

POS = ["MKVLAAGIVALLLAAGCSSS", "MKVLAAGIVGLLLAAGCSTS", "MKTLAAGIVALLLSAGCSSA"]
NEG = ["MDEQRSTWYVHHKKDEQRST", "MDEQRSTWYVHHKRDEQKST", "MEEQRSTWFVHHKKDEARST"]
QUERIES = ["MKVLAAGIVALLLAAGCSSA", "MDEQRSTWYVHHKKDEQKSS"]


@pytest.fixture
def saved(tmp_path):
    from corpora.fasta import ProteinRecord
    from homology.model import save_model, train_model
    from homology.runs import kernel_options
    model = train_model([ProteinRecord(f"p{i}", "", s) for i, s in enumerate(POS)],
                        [ProteinRecord(f"n{i}", "", s) for i, s in enumerate(NEG)],
                        "spectrum+features", kernel_options("spectrum+features", k=2),
                        alphas=(1.0, 4.0))
    path = tmp_path / "h.npz"
    save_model(path, model)
    return path


def _scores(path):
    from homology.model import load_model, predict_scores
    return predict_scores(load_model(path), QUERIES)


def _rewrite(path, change, reseal=False):
    """Rewrite the archive with ``change(meta, arrays)`` applied; ``reseal``: recompute the
    seal (a writer with a bug), so that the checks behind it are reached."""
    try:
        from homology.model import content_sha256
    except ImportError:             # a model module without a seal: nothing to recompute
        content_sha256 = None
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta, arrays = change(meta, arrays)
    if reseal and content_sha256 and isinstance(meta, dict):
        meta["sha256"] = content_sha256(meta, arrays)
    arrays["meta"] = np.array(json.dumps(meta))
    out = io.BytesIO()
    np.savez(out, **arrays)
    path.write_bytes(out.getvalue())


def test_round_trip_is_sealed(saved):
    from homology.model import VERSION, load_model
    meta = load_model(saved)["meta"]
    assert meta["version"] == VERSION == 3 and len(meta["sha256"]) == 64
    before = _scores(saved)
    _rewrite(saved, lambda m, a: (m, a))          # rewritten unchanged: still loads
    np.testing.assert_array_equal(_scores(saved), before)


@pytest.mark.parametrize("cut", [0, 10, 0.5, -1])
def test_truncated_file_is_a_format_error(saved, cut):
    data = saved.read_bytes()
    n = int(len(data) * cut) if isinstance(cut, float) else (cut if cut >= 0 else len(data) - 1)
    saved.write_bytes(data[:n])
    with pytest.raises(CorpusFormatError, match="h.npz"):
        _scores(saved)


def test_missing_and_directory(tmp_path):
    from homology.model import load_model
    with pytest.raises(DataNotFoundError, match="homology train"):
        load_model(tmp_path / "nope.npz")
    with pytest.raises(CorpusFormatError, match="directory"):
        load_model(tmp_path)


@pytest.mark.parametrize("change", [
    lambda m, a: ({**m, "intercept": m["intercept"] + 1}, a),
    lambda m, a: (m, {**a, "dual_coef": a["dual_coef"] * 2}),
    lambda m, a: ({**m, "kernel_options": {**m["kernel_options"], "k": 3}}, a),
])
def test_edited_content_is_refused(saved, change):
    _rewrite(saved, change)
    with pytest.raises(CorpusFormatError, match="sha256"):
        _scores(saved)


@pytest.mark.parametrize("change, message", [
    (lambda m, a: ([m], a), "not an object"),
    (lambda m, a: ({k: v for k, v in m.items() if k != "intercept"}, a), "'intercept'"),
    (lambda m, a: ({**m, "intercept": "0.1"}, a), "'intercept'"),
    (lambda m, a: ({**m, "alpha": float("nan")}, a), "'alpha'"),
    (lambda m, a: ({**m, "kernel": "nope"}, a), "unknown kernel"),
    (lambda m, a: ({**m, "kernel_options": {"k": 2}}, a), "kernel options"),
    (lambda m, a: ({**m, "kernel_options": {**m["kernel_options"], "k": "2"}}, a), "'k'"),
    (lambda m, a: (m, {**a, "dual_coef": a["dual_coef"][:-1]}), "dual_coef"),
    (lambda m, a: (m, {**a, "dual_coef": a["dual_coef"].astype(np.float32)}), "dual_coef"),
    (lambda m, a: (m, {**a, "dual_coef": np.r_[a["dual_coef"][:-1], np.nan]}), "non-finite"),
    (lambda m, a: (m, {**a, "train_ids": np.array(["x"] * len(a["train_ids"]))}), "twice"),
    (lambda m, a: (m, {**a, "train_sequences": a["train_sequences"][:-1]}), "train_sequences"),
    (lambda m, a: (m, {k: v for k, v in a.items() if k != "feature_scale"}), "feature"),
    (lambda m, a: (m, {**a, "extra": np.zeros(2)}), "unknown arrays"),
    (lambda m, a: (m, {**a, "dual_coef": np.array(list(a["dual_coef"]), dtype=object)}),
     "not a readable"),
])
def test_bad_fields_and_arrays_behind_the_seal(saved, change, message):
    _rewrite(saved, change, reseal=True)
    with pytest.raises(CorpusFormatError, match=message) as err:
        _scores(saved)
    assert "h.npz" in str(err.value)


def test_versions_2_and_1_still_load(saved):
    before = _scores(saved)
    _rewrite(saved, lambda m, a: ({**{k: v for k, v in m.items() if k != "sha256"},
                                   "version": 2}, a))
    np.testing.assert_array_equal(_scores(saved), before)


def test_version_1_rls_without_intercept_loads(saved):
    from homology.model import load_model
    v1 = {"version": 1, "loo_roc": 0.9}
    drop = ("sha256", "learner", "selection", "loo_score", "intercept")
    _rewrite(saved, lambda m, a: ({**{k: v for k, v in m.items() if k not in drop}, **v1}, a))
    model = load_model(saved)
    assert model["meta"]["learner"] == "rls" and model["meta"]["intercept"] == 0.0
