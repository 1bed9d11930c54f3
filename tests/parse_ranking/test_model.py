"""Saved parse ranking models (JSON + NPZ, no pickle): save → load → rank gives the scores
of the in-memory model for the graph kernel, every other kernel and corankrls; version-1
files still load; corrupt files are typed errors. Synthetic linkages, fake parser."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from learners.kernels import gram_matrix
from kernelrank.errors import CorpusFormatError, DataNotFoundError
from parse_ranking.__main__ import main
from parse_ranking.coreg import fit_corankrls
from parse_ranking.evaluation import extra_parses, flatten
from parse_ranking.model import load_model, rank_sentence, score_parses, train_model
from parse_ranking.ranking import fit_ranker
from parse_ranking.representations import ParseRepresentation
from tests.parse_ranking.test_coreg import synthetic_records  # noqa: E402

ALPHAS = (0.25, 4.0)


@pytest.fixture
def data(rng):
    records = synthetic_records(rng, n_articles=4, per_article=4, n_parses=8)
    new = synthetic_records(np.random.default_rng(99), n_articles=1, per_article=2,
                            n_parses=6)
    new[0]["parses"][0]["links"].append([0, 1, "NEWLABEL"])     # unseen in training
    items = [(p, r["text"]) for r in new for p in r["parses"]]
    return records, items, new


@pytest.mark.parametrize("kernel", ["graph", "locality", "links_words", "bag_of_links"])
@pytest.mark.parametrize("ranker", ["rankrls", "rls"])
@pytest.mark.slow
def test_round_trip_scores_equal_the_in_memory_model(data, tmp_path, kernel, ranker):
    records, items, _ = data
    meta = train_model(records, tmp_path / "m", kernel=kernel, ranker=ranker, alphas=ALPHAS,
                       max_parses=6)
    # the in-memory model, fitted independently of the saving code
    tr, y, qids, _, _ = flatten(records, 6)
    rep = ParseRepresentation(kernel)
    X = rep.fit_transform(tr)
    model, info = fit_ranker(ranker, gram_matrix(X), y, qids, ALPHAS)
    expected = model.predict(gram_matrix(rep.transform(items), X))
    # JSON must be plain (no pickle), and the loaded model must give the same scores
    on_disk = json.loads((tmp_path / "m.json").read_text())
    assert on_disk["views"][0]["kernel"] == kernel and meta["fit_info"]["alpha"] == info["alpha"]
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        coded = kernel in ("graph", "locality")   # sorted pair codes live in the npz
        assert sorted(z.files) == (["codes0", "w0"] if coded else ["w0"])
        if coded:
            assert z["codes0"].dtype == np.int64 and np.all(np.diff(z["codes0"]) > 0)
    assert "pair_codes" not in on_disk["views"][0]["representation"]
    _, views, weights = load_model(tmp_path / "m")
    got = score_parses(views, weights, items)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
    assert np.ptp(expected) > 0


def test_corankrls_round_trip_and_rank_with_fake_parser(data, tmp_path):
    records, items, new = data
    co = {"views": ("graph", "locality"), "alphas": (0.5, 2.0), "mus": (0.0, 1.0),
          "n_basis": 30, "n_inner": 2}
    train_model(records, tmp_path / "co", ranker="corankrls", max_parses=5, coreg=dict(co),
                seed=3)
    tr, y, qids, arts, _ = flatten(records, 5)
    x_items, x_qids, _ = extra_parses(records, 5, qids)
    reps = [ParseRepresentation(k) for k in co["views"]]
    X = [r.fit_transform(tr) for r in reps]
    U = [r.transform(x_items) for r in reps]
    model, _ = fit_corankrls(X, y, qids, arts, U, x_qids, alphas=co["alphas"], mus=co["mus"],
                             n_basis=30, n_inner=2, seed=3)
    expected = model.predict([r.transform(items) for r in reps])
    meta, views, weights = load_model(tmp_path / "co")
    assert [v["kernel"] for v in meta["views"]] == ["graph", "locality"]
    np.testing.assert_allclose(score_parses(views, weights, items), expected, rtol=1e-9,
                               atol=1e-12 * np.abs(expected).max())
    # rank_sentence on the linkages of one new sentence (a parser stub returns them)
    rec = new[1]
    linkages = [SimpleNamespace(words=p["words"], links=p["links"], cost=[0, 0, r])
                for r, p in enumerate(rec["parses"])]
    parser = SimpleNamespace(parse=lambda text: SimpleNamespace(linkages=linkages))
    ranked = rank_sentence(tmp_path / "co", rec["text"], parser=parser)
    sent_scores = expected[len(new[0]["parses"]):]
    assert [r["lg_rank"] for r in ranked] == list(np.lexsort((np.arange(len(sent_scores)),
                                                              -sent_scores)))
    np.testing.assert_allclose([r["score"] for r in ranked], np.sort(sent_scores)[::-1],
                               rtol=1e-9)


def test_version_1_files_still_load(data, tmp_path):
    records, items, _ = data
    train_model(records, tmp_path / "m", kernel="locality", alphas=ALPHAS, max_parses=6)
    meta, views, weights = load_model(tmp_path / "m")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:   # v1 kept codes in JSON
        codes = [int(c) for c in z["codes0"]]
    v1 = {"format": "kernelrank.parse_ranking.model/1", "ranker": meta["ranker"],
          "kernel": "locality", "fit_info": meta["fit_info"],
          "representation": dict(meta["views"][0]["representation"], pair_codes=codes)}
    (tmp_path / "old.json").write_text(json.dumps(v1))
    np.savez(tmp_path / "old.npz", w=weights[0])
    _, views1, weights1 = load_model(tmp_path / "old")
    np.testing.assert_allclose(score_parses(views1, weights1, items),
                               score_parses(views, weights, items))


@pytest.mark.parametrize("kernel", ["graph", "locality"])
def test_version_2_files_with_json_pair_codes_still_load(data, tmp_path, kernel):
    records, items, _ = data
    train_model(records, tmp_path / "m", kernel=kernel, alphas=ALPHAS, max_parses=6)
    meta, views, weights = load_model(tmp_path / "m")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        codes = z["codes0"]
    v2 = json.loads((tmp_path / "m.json").read_text())
    v2["format"] = "kernelrank.parse_ranking.model/2"
    v2["views"][0]["representation"]["pair_codes"] = [int(c) for c in codes]
    (tmp_path / "old.json").write_text(json.dumps(v2))
    np.savez(tmp_path / "old.npz", w0=weights[0])
    _, views2, weights2 = load_model(tmp_path / "old")
    np.testing.assert_array_equal(score_parses(views2, weights2, items),
                                  score_parses(views, weights, items))


def test_bad_model_files_are_typed_errors(data, tmp_path):
    records, _, _ = data
    with pytest.raises(DataNotFoundError, match="train"):
        load_model(tmp_path / "missing")
    train_model(records, tmp_path / "m", kernel="graph", alphas=ALPHAS, max_parses=6)
    text = (tmp_path / "m.json").read_text()
    (tmp_path / "m.json").write_text(text.replace("model/4", "model/9"))
    with pytest.raises(CorpusFormatError, match="unsupported model format"):
        load_model(tmp_path / "m")
    (tmp_path / "m.json").write_text("{not json")
    with pytest.raises(CorpusFormatError, match="not JSON"):
        load_model(tmp_path / "m")


def test_cli_train_graph(data, tmp_path, capsys):
    records, _, _ = data
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["train", "--data", str(path), "--output-model", str(tmp_path / "g"),
                 "--kernel", "graph", "--alphas", "0.5,2"]) == 0
    assert "rankrls[graph]" in capsys.readouterr().out
    meta, views, _ = load_model(tmp_path / "g")
    assert views[0].kind == "graph" and len(meta["views"][0]["representation"]["labels"]) > 0


# --------------------------------------------------------- the two files as a checked pair
def _reseal(path):
    """Recompute the seals of ``path``.json (a writer with a bug), so that the checks behind
    them are reached."""
    from kernelrank.checksum import file_sha256
    try:
        from parse_ranking.model import meta_sha256
    except ImportError:             # a model module without seals: nothing to recompute
        return
    meta = json.loads(path.with_suffix(".json").read_text())
    meta["weights_sha256"] = file_sha256(path.with_suffix(".npz"))
    meta["meta_sha256"] = meta_sha256(meta)
    path.with_suffix(".json").write_text(json.dumps(meta))


def test_saved_pair_records_checksums(data, tmp_path):
    from parse_ranking.model import FORMAT
    records, items, _ = data
    train_model(records, tmp_path / "m", kernel="locality", alphas=ALPHAS, max_parses=6)
    meta = json.loads((tmp_path / "m.json").read_text())
    assert meta["format"] == FORMAT == "kernelrank.parse_ranking.model/4"
    assert len(meta["weights_sha256"]) == len(meta["meta_sha256"]) == 64
    before = score_parses(*load_model(tmp_path / "m")[1:], items)
    # re-indented, keys reordered: the same model
    (tmp_path / "m.json").write_text(json.dumps(dict(reversed(list(meta.items()))), indent=3))
    np.testing.assert_array_equal(score_parses(*load_model(tmp_path / "m")[1:], items), before)


def test_npz_of_another_model_is_refused(data, tmp_path):
    """Also the state a crash between the two writes leaves: the new npz (written first)
    beside the old JSON."""
    records, _, _ = data
    train_model(records, tmp_path / "a", kernel="graph", alphas=ALPHAS, max_parses=6)
    train_model(records[:-2], tmp_path / "b", kernel="graph", alphas=ALPHAS, max_parses=6)
    (tmp_path / "a.npz").write_bytes((tmp_path / "b.npz").read_bytes())
    with pytest.raises(CorpusFormatError, match="different models") as err:
        load_model(tmp_path / "a")
    assert "a.npz" in str(err.value)


def test_hand_edited_json_is_refused(data, tmp_path):
    records, _, _ = data
    train_model(records, tmp_path / "m", kernel="locality", alphas=ALPHAS, max_parses=6)
    meta = json.loads((tmp_path / "m.json").read_text())
    meta["views"][0]["representation"]["params"]["theta"] = 2.0
    (tmp_path / "m.json").write_text(json.dumps(meta))
    with pytest.raises(CorpusFormatError, match="meta_sha256"):
        load_model(tmp_path / "m")


@pytest.mark.parametrize("kernel, change, message", [
    ("graph", lambda m, a: {**a, "w0": a["w0"][:-1]}, "w0"),
    ("graph", lambda m, a: {**a, "w0": a["w0"].astype(np.float32)}, "w0"),
    ("graph", lambda m, a: {**a, "w0": np.r_[np.nan, a["w0"][1:]]}, "non-finite"),
    ("graph", lambda m, a: {**a, "codes0": a["codes0"][::-1].copy()}, "increasing"),
    ("graph", lambda m, a: {**a, "codes0": a["codes0"] + (np.int64(1) << 40)}, "beyond"),
    ("graph", lambda m, a: {k: v for k, v in a.items() if k != "codes0"}, "codes0"),
    ("graph", lambda m, a: {**a, "w0": np.array(list(a["w0"]), dtype=object)}, "npz"),
    ("locality", lambda m, a: m["views"][0]["representation"].update(R=[[1.0]]), "factor R"),
    ("locality", lambda m, a: m["views"][0]["representation"]["params"].update(window="2"),
     "window"),
    ("links_words", lambda m, a: m["views"][0]["representation"].update(
        vocabulary={k: 0 for k in m["views"][0]["representation"]["vocabulary"]}),
     "vocabulary"),
    ("links_words", lambda m, a: m.update(views={"0": m["views"][0]}), "views"),
    ("links_words", lambda m, a: m["views"][0]["representation"]["params"].pop("normalize"),
     "normalize"),
])
@pytest.mark.slow
def test_bad_fields_and_arrays_behind_the_checksums(data, tmp_path, kernel, change, message):
    """Every field and array is checked, also when a buggy writer recorded the checksums."""
    records, _, _ = data
    train_model(records, tmp_path / "m", kernel=kernel, alphas=ALPHAS, max_parses=6)
    meta = json.loads((tmp_path / "m.json").read_text())
    with np.load(tmp_path / "m.npz") as z:
        arrays = {k: z[k] for k in z.files}
    new = change(meta, arrays)
    if isinstance(new, dict) and "w0" in new or new == {}:
        np.savez(tmp_path / "m.npz", **new)
    (tmp_path / "m.json").write_text(json.dumps(meta))
    _reseal(tmp_path / "m")
    with pytest.raises(CorpusFormatError, match=message):
        load_model(tmp_path / "m")


def test_version_3_files_still_load(data, tmp_path):
    records, items, _ = data
    train_model(records, tmp_path / "m", kernel="graph", alphas=ALPHAS, max_parses=6)
    before = score_parses(*load_model(tmp_path / "m")[1:], items)
    meta = json.loads((tmp_path / "m.json").read_text())
    meta = {k: v for k, v in meta.items() if k not in ("weights_sha256", "meta_sha256")}
    meta["format"] = "kernelrank.parse_ranking.model/3"
    (tmp_path / "m.json").write_text(json.dumps(meta))
    np.testing.assert_array_equal(score_parses(*load_model(tmp_path / "m")[1:], items), before)
