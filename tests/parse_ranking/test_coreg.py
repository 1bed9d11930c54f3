"""corankrls parse ranker (parse_ranking.coreg + cross_validate): the wrapper equals
CoRankRLS fitted directly, μ = 0 with the exact basis reduces to per-view RankRLS, the
hyper-parameter search never reads test-fold or unlabelled scores, CLI output. Synthetic
linkages (no Link Grammar needed)."""

import json

import numpy as np
import pytest

from kernelrank.errors import InvalidParameterError
from learners.coreg import CoRankRLS
from learners.rankrls import QueryRankRLS
from parse_ranking.__main__ import main
from parse_ranking.coreg import fit_corankrls, inner_folds
from parse_ranking.evaluation import (article_folds, cross_validate, extra_parses, flatten,
                                      labelled_split)
from parse_ranking.representations import ParseRepresentation

LABELS = ("Ss", "Os", "Mp", "Jp", "A", "D", "MVp", "AN", "Xp", "Wd")
WORDS = ("cells", "mice", "gene", "protein", "were", "bind", "in", "the", "of", "high")


def synthetic_records(rng, n_articles=6, per_article=4, n_parses=9):
    """Sentences of 6–9 words; each parse links random word pairs with random labels; its F
    is a noisy function of the labels (so that there is something to learn)."""
    good = {lab: rng.normal() for lab in LABELS}
    records = []
    for a in range(n_articles):
        for s in range(per_article):
            n = int(rng.integers(6, 10))
            words = [str(rng.choice(WORDS)) for _ in range(n)]
            text = " ".join(words)
            offs, pos = [], 0
            for w in words:
                offs.append([f"{w}.n", pos, pos + len(w)])
                pos += len(w) + 1
            lg_words = [["LEFT-WALL", 0, 0]] + offs + [["RIGHT-WALL", pos, pos]]
            parses = []
            for r in range(n_parses):
                links = []
                for _ in range(n):
                    i, j = sorted(rng.choice(n + 2, 2, replace=False).tolist())
                    links.append([i, j, str(rng.choice(LABELS))])
                score = np.mean([good[lab] for _, _, lab in links]) + 0.3 * rng.normal()
                parses.append({"lg_rank": r, "words": lg_words, "links": links,
                               "f": float(np.round(1 / (1 + np.exp(-score)), 3))})
            records.append({"id": f"art{a}:{s}", "article": f"art{a}", "text": text,
                            "status": "ok", "parses": parses})
    return records


@pytest.fixture
def records(rng):
    return synthetic_records(rng)


def _views(records, max_parses, kinds=("links_words", "locality")):
    items, y, qids, arts, _ = flatten(records, max_parses)
    x_items, x_qids, _ = extra_parses(records, max_parses, qids)
    X, U = [], []
    for k in kinds:
        rep = ParseRepresentation(k)
        X.append(rep.fit_transform(items))
        U.append(rep.transform(x_items))
    return X, U, y, qids, arts, x_qids


@pytest.mark.slow
def test_fit_corankrls_equals_corankrls_fitted_directly_and_selects_the_inner_argmin(records):
    X, U, y, qids, arts, uq = _views(records, 5)
    model, info = fit_corankrls(X, y, qids, arts, U, uq, alphas=(0.1, 1.0, 10.0),
                                mus=(0.0, 0.5, 5.0), n_basis=40, n_inner=3, seed=2)
    direct = CoRankRLS(alpha=info["alpha"], mu=info["mu"], n_basis=40, random_state=2).fit(
        X, y, qids, U, qids_unlabelled=uq)
    np.testing.assert_allclose(model.predict(X), direct.predict(X), rtol=1e-10, atol=1e-12)
    assert info["n_labelled"] == y.size and info["n_unlabelled"] == U[0].shape[0] > 0
    # brute force: retrain every grid point on every inner fold, count misordered pairs
    folds = inner_folds(qids, arts, 3, 2)
    for a in np.unique(arts):          # article-level inner folds
        assert len(set(folds[arts == a])) == 1
    errs = np.zeros((3, 3))
    for i, alpha in enumerate((0.1, 1.0, 10.0)):
        for j, mu in enumerate((0.0, 0.5, 5.0)):
            pred = np.empty(y.size)
            for f in range(3):
                tr, te = folds != f, folds == f
                m = CoRankRLS(alpha=alpha, mu=mu, n_basis=40, random_state=2).fit(
                    [x[tr] for x in X], y[tr], qids[tr], U, qids_unlabelled=uq)
                pred[te] = m.predict([x[te] for x in X])
            per_q = []
            for q in np.unique(qids):
                s = qids == q
                yy, pp = y[s], pred[s]
                pairs = [(k, l) for k in range(s.sum()) for l in range(s.sum()) if yy[k] > yy[l]]
                if pairs:
                    per_q.append(np.mean([pp[k] <= pp[l] for k, l in pairs]))
            errs[i, j] = np.mean(per_q)
    np.testing.assert_allclose(info["inner_disagreement"], errs, rtol=1e-12)
    best = np.unravel_index(np.argmin(errs), errs.shape)
    assert (info["alpha"], info["mu"]) == ((0.1, 1.0, 10.0)[best[0]], (0.0, 0.5, 5.0)[best[1]])


@pytest.mark.parametrize("alpha", [2.0 ** -6, 1.0, 2.0 ** 6])
@pytest.mark.slow
def test_mu_zero_exact_basis_is_per_view_rankrls(records, alpha):
    X, U, y, qids, arts, uq = _views(records, 5)
    model, info = fit_corankrls(X, y, qids, arts, U, uq, alphas=(alpha,), mus=(0.0,),
                                n_basis=None)
    assert info["n_basis"] == y.size + U[0].shape[0]
    Xt = [x[::3] for x in U]                 # any rows
    views = model.predict_views(Xt)
    for v in range(2):
        ref = QueryRankRLS(alpha=alpha, kernel="linear").fit(X[v], y, qids=qids).predict(Xt[v])
        # the ranking loss fixes predictions up to nothing here (no constant feature), so
        # values are compared directly
        np.testing.assert_allclose(views[:, v], ref, rtol=1e-7, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_allclose(model.predict(Xt), views.mean(1))


@pytest.mark.slow
def test_cv_never_reads_test_fold_or_unlabelled_scores(records):
    kw = dict(kernels=("locality",), rankers=("lg", "rankrls", "corankrls"), n_folds=3,
              max_parses=5, alphas=(0.5, 5.0), progress=False, seed=1,
              coreg={"alphas": (0.1, 1.0), "mus": (0.0, 1.0), "n_basis": 30})
    base = cross_validate(records, **kw)
    name = "corankrls[links_words+locality]"
    res = base["rankers"][name]
    assert {"kendall_tau_b", "disagreement", "top1_f", "oracle_f"} <= set(res)
    assert all(i["n_unlabelled"] > 0 for i in res["fold_info"])
    assert {c["b"] for c in base["comparisons"] if c["a"] == name} <= {"rankrls[locality]",
                                                                        "lg"}
    # 1) scores of parses beyond max_parses (the unlabelled extras) change nothing
    changed = json.loads(json.dumps(records))
    rng = np.random.default_rng(5)
    for rec in changed:
        for p in rec["parses"][5:]:
            p["f"] = float(rng.random())
    other = cross_validate(changed, **kw)
    assert other["rankers"][name] == res
    # 2) test-fold scores do not change that fold's chosen (α, μ) or inner errors
    _, y, qids, arts, _ = flatten(records, 5)
    folds = article_folds(arts, 3, 1)
    test_ids = set(qids[folds == 0].tolist())
    changed = json.loads(json.dumps(records))
    for rec in changed:
        if rec["id"] in test_ids:
            for p in rec["parses"]:
                p["f"] = float(np.round(rng.random(), 3))
    other = cross_validate(changed, **kw)["rankers"][name]
    assert other["fold_info"][0] == res["fold_info"][0]


def test_labelled_fraction_hides_whole_sentences(records):
    _, _, qids, _, _ = flatten(records, 5)
    rows = np.arange(qids.size)
    lab, unl = labelled_split(qids, rows, 0.25, np.random.default_rng(0))
    assert np.intersect1d(lab, unl).size == 0 and lab.size + unl.size == rows.size
    assert not set(qids[lab]) & set(qids[unl])
    assert len(set(qids[lab])) == round(0.25 * len(set(qids)))
    res = cross_validate(records, kernels=("locality",), rankers=("rankrls", "corankrls"),
                         n_folds=2, max_parses=5, alphas=(1.0,), progress=False,
                         labelled_fraction=0.5, coreg={"alphas": (1.0,), "mus": (1.0,),
                                                       "n_basis": 20, "n_inner": 2})
    info = res["rankers"]["corankrls[links_words+locality]"]["fold_info"]
    n_extra = sum(len(r["parses"][5:]) for r in records)
    # unlabelled = hidden training sentences (≤ 5 parses each) + their extras
    assert all(i["n_unlabelled"] > 0 for i in info)
    assert sum(i["n_labelled"] for i in info) < sum(min(len(r["parses"]), 5)
                                                    for r in records)
    assert all(i["n_unlabelled"] <= n_extra + 5 * len(records) for i in info)


def test_cli_cv_corankrls(records, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "cv"
    assert main(["cv", "--data", str(data), "--output-dir", str(out), "--kernel", "locality",
                 "--rankers", "lg,rankrls,corankrls", "--folds", "2", "--alphas", "1",
                 "--coreg-alphas", "0.5,2", "--coreg-mus", "0,1", "--coreg-basis", "25",
                 "--coreg-views", "bag_of_links,locality", "--quiet"]) == 0
    results = json.loads((out / "results.json").read_text())
    entry = results["rankers"]["corankrls[bag_of_links+locality]"]
    assert {"kendall_tau_b", "disagreement", "top1_f", "oracle_f"} <= set(entry)
    assert entry["fold_info"][0]["mu"] in (0.0, 1.0)
    report = (out / "results.md").read_text()
    assert "corankrls[bag_of_links+locality]" in report and "μ ∈ {0, 1}" in report
    assert main(["cv", "--data", str(data), "--output-dir", str(out), "--rankers",
                 "corankrls", "--coreg-views", "locality", "--quiet"]) == 2


def test_run_cv_as_a_library_call(records, tmp_path):
    from parse_ranking.runs import coreg_options, run_cv

    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert coreg_options(n_basis=0) == {"extra_parses": True, "n_basis": None}
    with pytest.raises(InvalidParameterError, match="inner-folds"):
        coreg_options(n_inner=1)
    results, written = run_cv(data, tmp_path / "cv", max_sentences=len(records) - 1,
                              rankers=("lg", "rankrls"), n_folds=2, alphas=None,
                              progress=False)
    assert results["data"]["sentences"] < len(records) and results["data"]["command"] is None
    assert [p.name for p in written] == ["results.json", "results.md", "results.png"]
    assert "](results.png)" in written[1].read_text()


@pytest.mark.slow
def test_cli_benchmark_reports_corankrls(records, tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "bench"
    assert main(["benchmark", "--data", str(data), "--gram-parses", "50", "--rankers",
                 "lg,rankrls,corankrls", "--folds", "2", "--threads", "1",
                 "--coreg-alphas", "1", "--coreg-mus", "0,1", "--coreg-basis", "20",
                 "--output-dir", str(out)]) == 0
    bench = json.loads((out / "results.json").read_text())
    entry = bench["cv"]["rankers"]["corankrls[links_words+locality]"]
    assert {"kendall_tau_b", "disagreement", "top1_f", "oracle_f"} <= set(entry)
    assert bench["cv"]["cpu_seconds"] > 0 and "gram[locality]" in bench
    results = json.loads((out / "cv" / "results.json").read_text())
    assert results["rankers"]["corankrls[links_words+locality]"]["kendall_tau_b"] == \
        entry["kendall_tau_b"]
