"""A saved PPI model is written as a unit and its two files are checked against each other.

With the disk filling up (or a kill) while ``ppi train`` overwrites a model, ``model.json``
of one model must not end up beside ``weights.npz`` of another for ``ppi predict`` to score
silently with the mixture, nor a hand-shortened ``labels`` list load. Every case here must be
a :class:`CorpusFormatError` naming the file — or, for the interrupted save, leave the old
model whole.
"""

import json
import os
import stat

import numpy as np
import pytest

from kernelrank.atomic import atomic_directory
from kernelrank.errors import CorpusFormatError


@pytest.fixture(scope="module")
def lll(data_dir):
    from corpora.ppi_xml import read_corpus
    from ppi.representation.features import PairFeaturizer
    corpus = read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")
    featurizer = PairFeaturizer()
    (data,) = featurizer.fit_transform([corpus])
    return corpus, featurizer, data


def _model(lll, seed):
    from ppi.models.classes import SingleViewModel
    _, featurizer, data = lll
    w = np.random.default_rng(seed).normal(size=data.X.shape[1])
    return SingleViewModel(featurizer, w, alpha=0.5, threshold=0.1, learner="rls",
                           training={"corpus": "LLL"})


def _scores(model, corpus):
    return model.decision_function(corpus)[1]


def _edit_json(directory, change, reseal=True):
    """Apply ``change`` to model.json; ``reseal``: recompute its meta_sha256 afterwards (as
    a writer with a bug would), so that the checks behind the seal are reached."""
    try:
        from ppi.models.classes import meta_sha256
    except ImportError:             # a model module without a seal: nothing to recompute
        meta_sha256 = None
    path = directory / "model.json"
    meta = json.loads(path.read_text())
    meta = change(meta)
    if reseal and meta_sha256 and isinstance(meta, dict) and "meta_sha256" in meta:
        meta["meta_sha256"] = meta_sha256(meta)
    path.write_text(json.dumps(meta))


def _assert_rewritten_arrays_refused(directory, arrays, message):
    """Rewrite ``weights.npz`` with ``arrays(old arrays)`` and record its checksum (a buggy
    writer): loading must fail with a format error ``message`` naming the archive."""
    from kernelrank.checksum import file_sha256
    from ppi.models.classes import PPIModel
    w = directory / "weights.npz"
    with np.load(w) as z:
        new = arrays({k: z[k] for k in z.files})
    with open(w, "wb") as handle:
        np.savez(handle, **new)
    _edit_json(directory, lambda m: {**m, "weights_sha256": file_sha256(w)})
    with pytest.raises(CorpusFormatError, match=message) as err:
        PPIModel.load(directory)
    assert "weights.npz" in str(err.value)


@pytest.mark.slow
def test_round_trip_records_checksum_and_label_count(lll, tmp_path):
    from ppi.models.classes import VERSION, PPIModel
    corpus = lll[0]
    m = _model(lll, 0)
    m.save(tmp_path / "M")
    meta = json.loads((tmp_path / "M" / "model.json").read_text())
    assert meta["version"] == VERSION == 3
    assert meta["n_labels"] == len(meta["labels"]) > 0 and len(meta["weights_sha256"]) == 64
    assert len(meta["meta_sha256"]) == 64
    np.testing.assert_allclose(_scores(PPIModel.load(tmp_path / "M"), corpus),
                               _scores(m, corpus), rtol=1e-12, atol=1e-12)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["M"]     # no stray temporaries


def test_weights_of_another_model_are_refused(lll, tmp_path):
    from ppi.models.classes import PPIModel
    _model(lll, 0).save(tmp_path / "A")
    _model(lll, 1).save(tmp_path / "B")
    (tmp_path / "A" / "weights.npz").write_bytes((tmp_path / "B" / "weights.npz").read_bytes())
    with pytest.raises(CorpusFormatError, match="sha256.*different models") as err:
        PPIModel.load(tmp_path / "A")
    assert "weights.npz" in str(err.value)


def test_shortened_labels_are_refused(lll, tmp_path):
    from ppi.models.classes import PPIModel
    _model(lll, 0).save(tmp_path / "M")
    _edit_json(tmp_path / "M", lambda m: {**m, "labels": m["labels"][:-3]})
    with pytest.raises(CorpusFormatError, match="labels"):
        PPIModel.load(tmp_path / "M")
    # the count edited to match as well: the stored codes still name the missing labels
    _edit_json(tmp_path / "M", lambda m: {**m, "n_labels": len(m["labels"])})
    with pytest.raises(CorpusFormatError, match="names entry"):
        PPIModel.load(tmp_path / "M")


@pytest.mark.parametrize("change, message", [
    (lambda m: [m], "not an object"),
    (lambda m: {k: v for k, v in m.items() if k != "threshold"}, "no field 'threshold'"),
    (lambda m: {**m, "threshold": "0.1"}, "'threshold' is '0.1', not a"),
    (lambda m: {**m, "alpha": True}, "'alpha'"),
    (lambda m: {**m, "labels": [1, 2]}, "labels"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "graph": []}}, "featurizer.graph"),
    (lambda m: {**m, "featurizer": {k: v for k, v in m["featurizer"].items()
                                    if k != "parse"}}, "featurizer.parse"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "graph": {
        **m["featurizer"]["graph"], "no_such": 1}}}, "featurizer settings"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "graph": {"no_such": 1}}},
     "featurizer.graph.path_weight"),
])
@pytest.mark.slow
def test_malformed_model_json_is_a_format_error(lll, tmp_path, change, message):
    from ppi.models.classes import PPIModel
    _model(lll, 0).save(tmp_path / "M")
    _edit_json(tmp_path / "M", change)
    with pytest.raises(CorpusFormatError, match=message) as err:
        PPIModel.load(tmp_path / "M")
    assert "model.json" in str(err.value)


def test_truncated_weights_are_a_format_error(lll, tmp_path):
    from kernelrank.checksum import file_sha256
    from ppi.models.classes import PPIModel
    _model(lll, 0).save(tmp_path / "M")
    w = tmp_path / "M" / "weights.npz"
    w.write_bytes(w.read_bytes()[: w.stat().st_size // 2])
    with pytest.raises(CorpusFormatError, match="sha256"):
        PPIModel.load(tmp_path / "M")
    # even with a matching checksum, a truncated archive is a typed error, not BadZipFile
    _edit_json(tmp_path / "M", lambda m: {**m, "weights_sha256": file_sha256(w)})
    with pytest.raises(CorpusFormatError, match="npz"):
        PPIModel.load(tmp_path / "M")


@pytest.mark.slow
def test_interrupted_save_leaves_the_old_model_whole(lll, tmp_path, monkeypatch):
    from ppi.models.classes import PPIModel
    corpus = lll[0]
    old = _model(lll, 0)
    old.save(tmp_path / "M")
    expected = _scores(old, corpus)

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np.lib.format, "write_array", disk_full)   # writing the archive
    with pytest.raises(OSError, match="No space"):
        _model(lll, 1).save(tmp_path / "M")
    monkeypatch.undo()
    np.testing.assert_array_equal(_scores(PPIModel.load(tmp_path / "M"), corpus), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["M"]


@pytest.mark.parametrize("change", [
    lambda m: {**m, "threshold": m["threshold"] + 0.5},
    lambda m: {**m, "labels": m["labels"][::-1]},
    lambda m: {**m, "featurizer": {**m["featurizer"],
                                   "graph": {**m["featurizer"]["graph"], "path_weight": 0.5}}},
])
def test_hand_edited_model_json_is_refused(lll, tmp_path, change):
    """A valid-looking edit of model.json (threshold, label order, a graph weight) is refused
    by the content's seal, not scored silently differently."""
    from ppi.models.classes import PPIModel
    _model(lll, 0).save(tmp_path / "M")
    _edit_json(tmp_path / "M", change, reseal=False)
    with pytest.raises(CorpusFormatError, match="meta_sha256") as err:
        PPIModel.load(tmp_path / "M")
    assert "model.json" in str(err.value)


@pytest.mark.slow
def test_reformatted_model_json_still_loads(lll, tmp_path):
    from ppi.models.classes import PPIModel
    m = _model(lll, 0)
    m.save(tmp_path / "M")
    path = tmp_path / "M" / "model.json"
    meta = json.loads(path.read_text())
    path.write_text(json.dumps(dict(reversed(list(meta.items()))), indent=7))
    np.testing.assert_array_equal(_scores(PPIModel.load(tmp_path / "M"), lll[0]),
                                  _scores(m, lll[0]))


@pytest.mark.parametrize("change, message", [
    (lambda m: {**m, "threshold": float("nan")}, "finite"),
    (lambda m: {**m, "version": True}, "unsupported"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "normalize": 1}}, "normalize"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "n_features": -3}}, "n_features"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "graph": {
        **m["featurizer"]["graph"], "path_weight": "0.9"}}}, "path_weight"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "graph": {
        **m["featurizer"]["graph"], "remove_types": "punct"}}}, "remove_types"),
    (lambda m: {**m, "labels": m["labels"][:1] * len(m["labels"])}, "twice"),
    (lambda m: {**m, "training": {**m["training"], "spacy_model": 3}}, "spacy_model"),
    (lambda m: {**m, "training": {**m["training"], "spacy_model": ""}}, "spacy_model"),
    (lambda m: {**m, "training": {**m["training"], "spacy_conversion": 7}}, "spacy_conversion"),
    (lambda m: {**m, "training": {**m["training"], "spacy_conversion": True}},
     "spacy_conversion"),
    (lambda m: {**m, "training": {**m["training"], "spacy_conversion": "2"}},
     "spacy_conversion"),
])
@pytest.mark.slow
def test_mistyped_fields_behind_the_seal_are_refused(lll, tmp_path, change, message):
    from ppi.models.classes import PPIModel
    _model(lll, 0).save(tmp_path / "M")
    _edit_json(tmp_path / "M", change)
    with pytest.raises(CorpusFormatError, match=message):
        PPIModel.load(tmp_path / "M")


@pytest.mark.parametrize("arrays, message", [
    (lambda a: {**a, "weights": a["weights"].astype(np.float32)}, "wrong shape or type"),
    (lambda a: {**a, "weights": a["weights"][:-1]}, "wrong shape or type"),
    (lambda a: {**a, "pair_codes": a["pair_codes"][::-1].copy()}, "increasing"),
    (lambda a: {**a, "weights": np.array([object()] * len(a["weights"]))}, "npz"),
    (lambda a: {k: v for k, v in a.items() if k != "pair_codes"}, "no array"),
])
@pytest.mark.slow
def test_bad_arrays_behind_the_checksum_are_refused(lll, tmp_path, arrays, message):
    """An npz rewritten with wrong arrays and its checksum recorded (a buggy writer): the
    array checks still refuse it; an object array is a format error, not a ValueError."""
    _model(lll, 0).save(tmp_path / "M")
    _assert_rewritten_arrays_refused(tmp_path / "M", arrays, message)


@pytest.mark.slow
def test_the_spacy_pipeline_a_model_was_trained_on_is_read_back(lll, tmp_path):
    """``training.spacy_model`` is what ``ppi extract`` parses with; a model without it (one
    that reads the files' parses, or saved before it was recorded) gets the default."""
    from ppi.models.classes import PPIModel
    from ppi.names import DEFAULT_SPACY_MODEL
    m = _model(lll, 0)
    m.save(tmp_path / "A")
    assert PPIModel.load(tmp_path / "A").spacy_model == DEFAULT_SPACY_MODEL
    m.training = {**m.training, "spacy_model": "/pipelines/bio-parser"}
    m.save(tmp_path / "B")
    assert PPIModel.load(tmp_path / "B").spacy_model == "/pipelines/bio-parser"


@pytest.mark.slow
def test_the_conversion_a_model_was_trained_on_is_read_back(lll, tmp_path):
    """``training.spacy_conversion``: recorded, it is read back; a model that reads spaCy's
    analyses but was saved before it was recorded was trained on conversion 1; a model of
    the files' parses gets the current one (the closest to their Stanford parses)."""
    from ppi.models.classes import PPIModel
    from ppi.parsing.spacy_parse import CONVERSION_VERSION
    m = _model(lll, 0)
    m.save(tmp_path / "files")
    assert PPIModel.load(tmp_path / "files").spacy_conversion == CONVERSION_VERSION
    m.training = {**m.training, "spacy_model": "en_core_web_sm"}
    m.save(tmp_path / "old")
    assert PPIModel.load(tmp_path / "old").spacy_conversion == 1
    m.training = {**m.training, "spacy_conversion": 2}
    m.save(tmp_path / "new")
    assert PPIModel.load(tmp_path / "new").spacy_conversion == 2


@pytest.mark.slow
def test_version_2_models_still_load(lll, tmp_path):
    from ppi.models.classes import PPIModel
    m = _model(lll, 0)
    m.save(tmp_path / "M")
    _edit_json(tmp_path / "M", lambda d: {k: v for k, v in {**d, "version": 2}.items()
                                          if k != "meta_sha256"})
    np.testing.assert_array_equal(_scores(PPIModel.load(tmp_path / "M"), lll[0]),
                                  _scores(m, lll[0]))


@pytest.mark.slow
def test_version_1_models_still_load(lll, tmp_path):
    from ppi.models.classes import PPIModel
    m = _model(lll, 0)
    m.save(tmp_path / "M")
    _edit_json(tmp_path / "M", lambda d: {k: v for k, v in {**d, "version": 1}.items()
                                          if k not in ("n_labels", "weights_sha256",
                                                       "meta_sha256")})
    np.testing.assert_allclose(_scores(PPIModel.load(tmp_path / "M"), lll[0]),
                               _scores(m, lll[0]), rtol=1e-12, atol=1e-12)


def test_atomic_directory_replaces_as_a_unit_with_the_umask(tmp_path):
    target = tmp_path / "out"
    with atomic_directory(target) as d:
        (d / "a").write_text("1")
        (d / "b").write_text("1")
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as d:
            (d / "a").write_text("2")
            raise RuntimeError("killed between the two files")
    assert (target / "a").read_text() == (target / "b").read_text() == "1"
    with atomic_directory(target) as d:
        (d / "a").write_text("3")
    assert sorted(p.name for p in target.iterdir()) == ["a"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o777 & ~mask


# ---------------------------------------------------------------- version 4: multi-view models
@pytest.fixture(scope="module")
def multiview(data_dir):
    """The multiview system's featurizer fitted on LLL, a kernel ridge fit on it (λ = 1),
    and HPRD50 to score."""
    from corpora.ppi_xml import read_corpus
    from ppi.systems import Settings
    lll_corpus = read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")
    hprd50 = read_corpus(data_dir / "ppi" / "HPRD50-learning-format.xml.gz")
    featurizer = Settings.for_system("multiview", progress=False).featurizer()
    (data,) = featurizer.fit_transform([lll_corpus])
    K = (data.X @ data.X.T).toarray()
    coef = np.linalg.solve(K + np.eye(len(K)), data.y)
    return featurizer, data, coef, hprd50


def _mv_model(multiview, weights=None):
    from ppi.models.classes import MultiViewModel
    featurizer, data, coef, _ = multiview
    m = MultiViewModel.from_fit(featurizer, data.X, coef, alpha=1.0, threshold=-0.2,
                                learner="rls", training={"corpus": "LLL"})
    if weights is not None:
        m.weights = weights(m.weights.copy(), featurizer)
    return m


def _mv_save(multiview, path, weights=None):
    _mv_model(multiview, weights).save(path)
    return path


@pytest.mark.slow
def test_multiview_model_round_trip_scores_like_the_in_memory_model(multiview, tmp_path):
    from ppi.models.classes import MULTIVIEW_VERSION, PPIModel
    from ppi.systems import SYSTEMS
    featurizer, _, _, hprd50 = multiview
    m = _mv_model(multiview)
    expected = m.decision_function(hprd50)[1]
    m.save(tmp_path / "M")
    meta = json.loads((tmp_path / "M" / "model.json").read_text())
    assert meta["version"] == MULTIVIEW_VERSION == 4
    assert [v["name"] for v in meta["featurizer"]["views"]] == \
        list(SYSTEMS["multiview"].defaults["views"])
    assert meta["parses"] == ["split_parse", "Charniak-Lease"]
    loaded = PPIModel.load(tmp_path / "M")
    assert loaded.parses == m.parses == ("split_parse", "Charniak-Lease")
    np.testing.assert_allclose(loaded.decision_function(hprd50)[1], expected, rtol=1e-12,
                               atol=1e-12)
    with np.load(tmp_path / "M" / "weights.npz", allow_pickle=False) as z:
        assert z["v2_features"].dtype.kind == "U" and z["v0_labels"].dtype.kind == "U"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["M"]


@pytest.mark.slow
def test_multiview_model_prunes_zero_weights_and_empty_views(multiview, tmp_path):
    """Zero weights are not stored; a view without any non-zero weight keeps an empty
    vocabulary and the scores stay those of the in-memory model."""
    from ppi.models.classes import PPIModel
    _, _, _, hprd50 = multiview

    def zero_some(w, f):
        w[f.view_slices_["bow"]] = 0.0
        w[f.view_slices_["apg:split_parse"]][::2] = 0.0
        return w

    m = _mv_model(multiview, zero_some)
    m.save(tmp_path / "M")
    meta = json.loads((tmp_path / "M" / "model.json").read_text())
    views = {v["name"]: v for v in meta["featurizer"]["views"]}
    assert views["bow"]["n_weights"] == views["bow"]["n_vocabulary"] == 0
    n_apg = m.featurizer.view_slices_["apg:split_parse"]
    assert views["apg:split_parse"]["n_weights"] == np.count_nonzero(m.weights[n_apg])
    np.testing.assert_allclose(PPIModel.load(tmp_path / "M").decision_function(hprd50)[1],
                               m.decision_function(hprd50)[1], rtol=1e-12, atol=1e-12)


def test_multiview_edited_view_weight_is_refused(multiview, tmp_path):
    from ppi.models.classes import PPIModel

    def heavier_bow(m):
        m["featurizer"]["views"][2]["weight"] = 0.5
        return m

    _mv_save(multiview, tmp_path / "M")
    _edit_json(tmp_path / "M", heavier_bow, reseal=False)
    with pytest.raises(CorpusFormatError, match="meta_sha256") as err:
        PPIModel.load(tmp_path / "M")
    assert "model.json" in str(err.value)


@pytest.mark.slow
def test_multiview_vocabulary_of_another_model_is_refused(multiview, tmp_path):
    """The bag-of-words vocabulary array of another model put into the archive: the
    archive's sha256 is no longer the one model.json records."""
    from ppi.models.classes import PPIModel

    def other(w, f):
        return np.where(np.arange(len(w)) % 3 == 0, 0.0, w)     # a smaller vocabulary

    _mv_save(multiview, tmp_path / "A")
    _mv_save(multiview, tmp_path / "B", other)
    a, b = tmp_path / "A" / "weights.npz", tmp_path / "B" / "weights.npz"
    with np.load(a) as za, np.load(b) as zb:
        new = {k: za[k] for k in za.files}
        assert not np.array_equal(new["v2_features"], zb["v2_features"])
        new["v2_features"] = zb["v2_features"]
        new["v2_weights"] = zb["v2_weights"]
    with open(a, "wb") as handle:
        np.savez_compressed(handle, **new)
    with pytest.raises(CorpusFormatError, match="sha256.*different models") as err:
        PPIModel.load(tmp_path / "A")
    assert "weights.npz" in str(err.value)


def _views(m, k, **change):
    m["featurizer"]["views"][k].update(change)
    return m


@pytest.mark.parametrize("change, message", [
    (lambda m: _views(m, 0, name="apg:no_such_parse"), r"featurizer.views\[0\].name"),
    (lambda m: _views(m, 1, name="graph"), r"featurizer.views\[1\].name.*unknown kind"),
    (lambda m: _views(m, 2, weight="0.2"), r"featurizer.views\[2\].weight"),
    (lambda m: _views(m, 2, weight=-0.1), "negative"),
    (lambda m: _views(m, 3, n_weights=True), r"featurizer.views\[3\].n_weights"),
    (lambda m: _views(m, 4, name="bow"), "repeats a view"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "views": []}}, "empty"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "views": {}}}, "featurizer.views"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "kind": "single"}}, "multiview"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "bow_parse": "no_such_parse"}}, "bow_parse"),
    (lambda m: {**m, "featurizer": {**m["featurizer"], "variant": "min"}}, "variant"),
    (lambda m: {**m, "parses": ["split_parse"]}, "'parses'"),
    (lambda m: {k: v for k, v in m.items() if k != "parses"}, "no field 'parses'"),
    (lambda m: _views(m, 0, n_vocabulary=3), "model.json records"),
])
@pytest.mark.slow
def test_multiview_mistyped_fields_behind_the_seal_are_refused(multiview, tmp_path, change,
                                                                message):
    from ppi.models.classes import PPIModel
    _mv_save(multiview, tmp_path / "M")
    _edit_json(tmp_path / "M", change)
    with pytest.raises(CorpusFormatError, match=message):
        PPIModel.load(tmp_path / "M")


@pytest.mark.parametrize("arrays, message", [
    (lambda a: {**a, "v2_features": a["v2_features"][::-1].copy()}, "increasing"),
    (lambda a: {**a, "v0_pair_codes": a["v0_pair_codes"][::-1].copy()}, "increasing"),
    (lambda a: {**a, "v0_labels": a["v0_labels"][:5]}, "names entry|model.json records"),
    (lambda a: {**a, "v0_labels": np.array([a["v0_labels"][0]] * len(a["v0_labels"]))},
     "twice"),
    (lambda a: {**a, "v3_weights": np.full(len(a["v3_weights"]), np.inf)}, "non-finite"),
    (lambda a: {**a, "v3_features": np.arange(len(a["v3_features"]))}, "wrong shape or type"),
    (lambda a: {**a, "v1_labels": np.array([object()] * len(a["v1_labels"]))}, "npz"),
    (lambda a: {k: v for k, v in a.items() if k != "v4_features"}, "no array 'v4_features'"),
    (lambda a: {**a, "extra": np.zeros(2)}, "unexpected arrays"),
])
@pytest.mark.slow
def test_multiview_bad_arrays_behind_the_checksum_are_refused(multiview, tmp_path, arrays,
                                                              message):
    _mv_save(multiview, tmp_path / "M")
    _assert_rewritten_arrays_refused(tmp_path / "M", arrays, message)


def test_single_view_models_stay_version_3(lll, tmp_path):
    from ppi.models.classes import PPIModel
    m = _model(lll, 0)
    assert m.parses == ("split_parse",)
    m.save(tmp_path / "M")
    assert json.loads((tmp_path / "M" / "model.json").read_text())["version"] == 3
    assert PPIModel.load(tmp_path / "M").parses == ("split_parse",)


@pytest.mark.slow
def test_multiview_model_with_hashed_all_paths_view_round_trips(data_dir, multiview,
                                                                 tmp_path):
    """``--hash-features``: the all-paths block is stored as hashed columns, the bag view's
    strings as usual; a model of two views reads one parse."""
    from corpora.ppi_xml import read_corpus
    from ppi.models.classes import MultiViewModel, PPIModel
    from ppi.systems import Settings
    hprd50 = multiview[3]
    featurizer = Settings.for_system("multiview", hash_features=2 ** 16, progress=False,
                                     views=("apg:split_parse", "bow")).featurizer()
    (data,) = featurizer.fit_transform(
        [read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")])
    w = np.random.default_rng(3).normal(size=data.X.shape[1])
    m = MultiViewModel(featurizer, w, alpha=0.5, threshold=0.0, learner="rls")
    m.save(tmp_path / "M")
    with np.load(tmp_path / "M" / "weights.npz") as z:
        assert "v0_columns" in z.files and len(z["v0_labels"]) == 0
    loaded = PPIModel.load(tmp_path / "M")
    assert loaded.parses == ("split_parse",)
    np.testing.assert_allclose(loaded.decision_function(hprd50)[1],
                               m.decision_function(hprd50)[1], rtol=1e-12, atol=1e-12)


# ------------------------------------------------------- version 5: Gaussian multi-view models
@pytest.fixture(scope="module")
def gaussian(data_dir, multiview):
    """A Gaussian kernel ridge fit (γ = 1, λ = 1) on LLL's multiview rows, and the scores
    of HPRD50 by an independent route: both corpora featurized with one joint vocabulary
    (every HPRD50 feature then has a column) and the engine's Gaussian kernel."""
    from corpora.ppi_xml import read_corpus
    from learners.kernels.vector import kernel_matrix
    from ppi.systems import Settings
    featurizer, data, _, hprd50 = multiview
    Kg = kernel_matrix(data.X, data.X, "gaussian", gamma=1.0)
    coef = np.linalg.solve(Kg + np.eye(len(Kg)), data.y)
    joint = Settings.for_system("multiview", progress=False).featurizer()
    lll_j, hprd_j = joint.fit_transform(
        [read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz"), hprd50])
    expected = kernel_matrix(hprd_j.X, lll_j.X, "gaussian", gamma=1.0) @ coef
    return featurizer, data, coef, hprd50, expected


def _g_model(gaussian):
    from ppi.models.classes import GaussianModel
    featurizer, data, coef, _, _ = gaussian
    return GaussianModel.from_fit(featurizer, data.X, coef, alpha=1.0, threshold=0.1,
                                  learner="rls", training={"corpus": "LLL"}, gamma=1.0)


@pytest.mark.slow
def test_every_multiview_row_has_unit_norm_in_the_full_space(gaussian):
    """What the Gaussian model's ‖x‖² = Σ_v w_v rests on: no view is empty for any pair."""
    from learners.kernels import squared_row_norms
    _, data, _, _, _ = gaussian
    np.testing.assert_allclose(squared_row_norms(data.X), 1.0, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_gaussian_model_scores_new_text_as_the_joint_vocabulary_does(gaussian, tmp_path):
    """In memory and saved / loaded (version 5): the scores of HPRD50 — whose features
    are partly unseen in LLL — are those of the Gaussian kernel in the joint space."""
    from ppi.models.classes import GAUSSIAN_VERSION, PPIModel
    _, data, coef, hprd50, expected = gaussian
    m = _g_model(gaussian)
    assert m.weights is None
    np.testing.assert_allclose(m.decision_function(hprd50)[1], expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.scores(hprd50), expected, rtol=1e-9, atol=1e-12)
    m.save(tmp_path / "M")
    meta = json.loads((tmp_path / "M" / "model.json").read_text())
    assert meta["version"] == GAUSSIAN_VERSION == 5
    assert meta["kernel"] == {"name": "gaussian", "gamma": 1.0, "n_basis": len(data)}
    loaded = PPIModel.load(tmp_path / "M")
    assert loaded.gamma == 1.0 and loaded.parses == m.parses
    np.testing.assert_allclose(loaded.decision_function(hprd50)[1], expected, rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_array_equal(loaded.dual_coef, coef)
    # a reduced basis (every other row): fewer stored columns, still the same scores
    from ppi.models.classes import GaussianModel as M
    half = M.from_fit(m.featurizer, data.X[::2], coef[::2], 1.0, 0.1, "reduced_set", {},
                      gamma=1.0)
    half.save(tmp_path / "H")
    np.testing.assert_allclose(M.load(tmp_path / "H").decision_function(hprd50)[1],
                               half.decision_function(hprd50)[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("change, message", [
    (lambda m: {**m, "kernel": {**m["kernel"], "gamma": -1.0}}, "gamma > 0"),
    (lambda m: {**m, "kernel": {**m["kernel"], "name": "linear"}}, "gaussian"),
    (lambda m: {k: v for k, v in m.items() if k != "kernel"}, "no field 'kernel'"),
    (lambda m: {**m, "kernel": {**m["kernel"], "n_basis": "3"}}, "not a integer|integer"),
])
@pytest.mark.slow
def test_gaussian_mistyped_kernel_fields_are_refused(gaussian, tmp_path, change, message):
    from ppi.models.classes import PPIModel
    _g_model(gaussian).save(tmp_path / "M")
    _edit_json(tmp_path / "M", change)
    with pytest.raises(CorpusFormatError, match=message):
        PPIModel.load(tmp_path / "M")


@pytest.mark.parametrize("arrays, message", [
    (lambda a: {k: v for k, v in a.items() if k != "dual_coef"}, "no array 'dual_coef'"),
    (lambda a: {**a, "dual_coef": a["dual_coef"][:-1]}, "wrong shape"),
    (lambda a: {**a, "basis_indptr": a["basis_indptr"][::-1].copy()}, "row pointer"),
    (lambda a: {**a, "basis_data": np.full_like(a["basis_data"], np.nan)}, "non-finite"),
    (lambda a: {**a, "basis_indices": a["basis_indices"] + 10 ** 9}, "no view's vocabulary"),
    (lambda a: {**a, "v2_weights": np.full_like(a["v2_weights"], 0.5)}, "non-integer"),
    (lambda a: {**a, "v3_weights": a["v2_weights"][:len(a["v3_weights"])]}, "twice|no view"),
])
@pytest.mark.slow
def test_gaussian_bad_basis_arrays_are_refused(gaussian, tmp_path, arrays, message):
    _g_model(gaussian).save(tmp_path / "M")
    _assert_rewritten_arrays_refused(tmp_path / "M", arrays, message)


def test_what_a_saved_model_learned_from_is_read_without_its_weights(lll, tmp_path):
    """``read_training`` reads ``model.json`` alone (the weights may be absent) and
    ``learned_from`` names the training corpus and the transfer sources; the parser-shift
    benchmark (``check_not_learned_from``) refuses to score a model on one of them, naming
    it."""
    from kernelrank.errors import DataNotFoundError, InvalidParameterError
    from ppi.models.classes import SingleViewModel
    from ppi.models.training_record import check_not_learned_from, learned_from, read_training

    _, featurizer, data = lll
    m = SingleViewModel(featurizer, np.zeros(data.X.shape[1]), alpha=0.5, threshold=0.1,
                        training={"corpus": "AIMed",
                                  "transfer": {"sources": ["BioInfer", "LLL"]}})
    m.save(tmp_path / "M")
    (tmp_path / "M" / "weights.npz").unlink()
    training = read_training(tmp_path / "M")
    assert learned_from(training) == {"AIMed", "BioInfer", "LLL"}
    assert learned_from({"system": {"system": "documents", "transfer": False,
                                    "sources": ["AIMed"]}}) == set()
    assert learned_from({"system": {"system": "documents", "transfer": True,
                                    "sources": ["AIMed", "IEPA"]}}) == {"AIMed", "IEPA"}
    check_not_learned_from([tmp_path / "M"], ["HPRD50", "IEPA"])       # not learned from
    with pytest.raises(InvalidParameterError, match="learned from BioInfer, LLL"):
        check_not_learned_from([tmp_path / "M"], ["LLL", "HPRD50", "BioInfer"])
    with pytest.raises(DataNotFoundError, match="not a saved PPI model"):
        read_training(tmp_path / "nothing")
    _edit_json(tmp_path / "M", lambda meta: {**meta, "threshold": 0.2}, reseal=False)
    with pytest.raises(CorpusFormatError, match="model.json"):
        read_training(tmp_path / "M")
