"""Article-level cross-validation of parse rankers and the parse ranking measures.

Protocol (Paper I §5.2; Paper III §4 — parses of one sentence never straddle folds; here
whole *articles* are kept together because articles differ by ~0.03 F, see
../shared/notes/link-grammar.md): the articles are shuffled with ``seed`` and split into
``n_folds`` groups; for each outer fold the representation's vocabulary and the kernel are
fitted on the training sentences, each ranker chooses λ by inner leave-query-out
(:func:`parse_ranking.ranking.fit_ranker`) and scores the test parses.

Measures on the pooled out-of-fold scores, each computed per sentence and averaged over
sentences (:mod:`learners.measures`; never re-implemented):

* ``kendall_tau_b`` — τ_b between gold F and predicted scores (sentences where it is
  undefined are skipped and counted);
* ``disagreement`` — fraction of misordered parse pairs with different F (Paper I eq. 1;
  a tie in predictions counts as an error);
* ``top1_f`` — gold F of the parse the ranker puts first (ties in predicted scores broken
  by LG's order); ``oracle_f`` — F of the best parse; ``lg_first_f`` — F of LG's first.

Co-regularized RankRLS (``"corankrls"``, :mod:`parse_ranking.coreg`) is a multi-view,
semi-supervised ranker: it is fitted once per fold on the views ``coreg["views"]`` (not per
kernel; result key ``corankrls[<view>+<view>]``), with unlabelled parses from the training
part only — the training sentences' linkages beyond ``max_parses`` and, with
``labelled_fraction < 1``, every parse of the training sentences whose scores are hidden.
``labelled_fraction`` (seeded, per sentence, per fold) applies to *all* learned rankers:
the supervised ones are trained on the labelled training sentences only.

Optional label noise (paper 002 §6.1): Gaussian noise with standard deviation σ is added to
the *training* scores only (test scores stay clean), one draw per (σ, fold) from ``seed``.
"""

import time
from contextlib import nullcontext

import numpy as np

from learners.kernels import gram_matrix
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.measures import disagreement_error, kendall_tau_b
from learners.splits import group_folds
from parse_ranking.names import CV_RANKERS, SPARSE_ABOVE, SPARSE_CV_RANKERS, SPARSE_RANKERS
from parse_ranking.ranking import (DEFAULT_ALPHAS, DEFAULT_N_BASIS, RANKERS, fit_ranker,
                                   fit_sparse_ranker)
from parse_ranking.representations import (REPRESENTATIONS, FoldFeatures,
                                           ParseRepresentation)

__all__ = ["flatten", "extra_parses", "article_folds", "ranking_measures", "cross_validate",
           "labelled_split"]


def flatten(records, max_parses=None):
    """Records → (items, y, qids, articles, lg_rank) with one row per parse.

    ``max_parses`` keeps LG's first k distinct parses of each sentence; sentences left with
    fewer than two distinct F values are dropped.
    """
    items, y, qids, arts, ranks = [], [], [], [], []
    for rec in records:
        parses = rec["parses"][:max_parses] if max_parses else rec["parses"]
        if len({p["f"] for p in parses}) < 2:
            continue
        for p in parses:
            items.append((p, rec["text"]))
            y.append(p["f"])
            qids.append(rec["id"])
            arts.append(rec["article"])
            ranks.append(p["lg_rank"])
    if not items:
        raise InvalidInputError("no sentence with at least two distinct parse scores")
    return items, np.asarray(y), np.asarray(qids), np.asarray(arts), np.asarray(ranks)


def extra_parses(records, max_parses, qids):
    """Unscored rows: parses beyond LG's first ``max_parses`` of the sentences in ``qids``.

    Returns ``(items, qids, articles)``; the F-scores of these parses are never returned.
    """
    keep = set(np.asarray(qids).tolist())
    items, q, arts = [], [], []
    if not max_parses:
        return items, np.asarray(q), np.asarray(arts)
    for rec in records:
        if rec["id"] not in keep:
            continue
        for p in rec["parses"][max_parses:]:
            items.append((p, rec["text"]))
            q.append(rec["id"])
            arts.append(rec["article"])
    return items, np.asarray(q), np.asarray(arts)


def labelled_split(qids, rows, fraction, rng):
    """``(labelled, unlabelled)`` row subsets of ``rows``: a random ``fraction`` of their
    sentences (at least 2) keep their scores; the others' rows are unlabelled."""
    if fraction >= 1.0:
        return rows, rows[:0]
    if not 0.0 < fraction < 1.0:
        raise InvalidParameterError(f"labelled_fraction must be in (0, 1], got {fraction}")
    sent = np.unique(qids[rows])
    n_lab = max(2, int(round(fraction * sent.size)))
    lab = np.isin(qids[rows], rng.permutation(sent)[:n_lab])
    return rows[lab], rows[~lab]


def article_folds(articles, n_folds, seed=0):
    """Fold id per row: articles shuffled with ``seed`` and dealt into ``n_folds`` groups
    (:func:`learners.splits.group_folds`)."""
    return group_folds(articles, n_folds, seed)


def _top1(y, scores, qids, lg_rank):
    """Mean over queries of the gold score of the top-scored row (ties → LG order)."""
    order = np.lexsort((lg_rank, -scores, qids))
    q_sorted = qids[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = q_sorted[1:] != q_sorted[:-1]
    return float(np.mean(y[order[first]]))


def _per_query_max(y, qids):
    order = np.lexsort((-y, qids))
    q_sorted = qids[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = q_sorted[1:] != q_sorted[:-1]
    return float(np.mean(y[order[first]]))


def ranking_measures(y, scores, qids, lg_rank):
    """The four parse ranking measures (module docstring) plus LG's first-parse F."""
    tau = kendall_tau_b(y, scores, qids, return_details=True)
    return {"kendall_tau_b": float(tau.value),
            "kendall_tau_b_skipped": int(tau.n_skipped),
            "disagreement": float(disagreement_error(y, scores, qids)),
            "top1_f": _top1(y, scores, qids, lg_rank),
            "oracle_f": _per_query_max(y, qids),
            "lg_first_f": _top1(y, -lg_rank.astype(float), qids, lg_rank),
            "n_sentences": int(np.unique(qids).size), "n_parses": int(y.size)}


def _features(kind, items_tr, items_te, rep_params, items_u=None):
    """Sparse rows of training, test (and unlabelled) parses; vocabulary from training."""
    rep = ParseRepresentation(kind, **rep_params)
    X_tr = rep.fit_transform(items_tr)
    X_te = rep.transform(items_te)
    X_u = rep.transform(items_u) if items_u else None
    return X_tr, X_te, X_u


def cross_validate(records, *, kernels=("locality",), rankers=None,
                   n_folds=5, alphas=DEFAULT_ALPHAS, seed=0, max_parses=None,
                   noise=(), rep_params=None, max_pairs=2_000_000, progress=True,
                   threads=1, coreg=None, labelled_fraction=1.0, n_basis=DEFAULT_N_BASIS):
    """Article-level CV (module docstring). Returns the results dict written by ``cv``.

    ``records``: a list or an iterator of records (:func:`parse_ranking.dataset.load_dataset`);
    an iterator (read once; twice-read with ``corankrls``, then materialized) lets the
    parses be freed once they are featurized for the last kernel — the rankers read only
    the feature rows. During the fits of a fold with a sparse ranker the feature rows of
    all parses are parked on disk (:meth:`parse_ranking.representations.FoldFeatures.parked`).

    ``results["rankers"]`` has one entry per ranker and kernel (``"rankrls[locality]"``;
    ``"lg"`` alone), each with the measures on the pooled out-of-fold scores, the per-fold
    measures and the λ chosen in each fold. With ``noise`` (σ values), entries
    ``"<ranker>[<kernel>]+noise<σ>"`` are added for every learned ranker. ``threads`` caps
    the BLAS threads (on a shared, loaded machine one thread is many times faster than
    an oversubscribed pool).

    ``coreg``: options of the ``corankrls`` ranker — ``views`` (default
    :data:`parse_ranking.coreg.DEFAULT_VIEWS`), ``alphas``, ``mus``, ``n_basis``,
    ``n_inner``, ``extra_parses`` (bool, default True: use the training sentences' parses
    beyond ``max_parses`` as unlabelled data); see :func:`parse_ranking.coreg.fit_corankrls`.
    ``labelled_fraction``: share of the training sentences whose scores the rankers see.

    ``rankers=None`` (the default) chooses by size (:func:`default_rankers`): the full-kernel rankers
    :data:`~parse_ranking.names.CV_RANKERS` up to
    :data:`~parse_ranking.names.SPARSE_ABOVE` parses, above that the sparse ones
    :data:`~parse_ranking.names.SPARSE_CV_RANKERS`. The sparse rankers
    (:func:`parse_ranking.ranking.fit_sparse_ranker`; basis size(s) ``n_basis``) work on the
    feature rows: when only they (and ``lg``) run, no parse-by-parse Gram matrix is formed.
    """
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=int(threads)):
        return _cross_validate(records, kernels, rankers, n_folds, alphas, seed, max_parses,
                               noise, rep_params, max_pairs, progress, dict(coreg or {}),
                               float(labelled_fraction),
                               tuple(DEFAULT_N_BASIS if n_basis is None else n_basis))


def default_rankers(n_parses):
    """The rankers of ``cv`` when none are named: the full-kernel ones on at most
    :data:`~parse_ranking.names.SPARSE_ABOVE` parses, the sparse ones above."""
    return SPARSE_CV_RANKERS if n_parses > SPARSE_ABOVE else CV_RANKERS


def _coreg_options(coreg):
    from parse_ranking import coreg as co
    opts = {"views": tuple(co.DEFAULT_VIEWS), "alphas": co.DEFAULT_CO_ALPHAS,
            "mus": co.DEFAULT_MUS, "n_basis": co.DEFAULT_N_BASIS, "n_inner": 3,
            "extra_parses": True}
    unknown = set(coreg) - set(opts)
    if unknown:
        raise InvalidParameterError(f"unknown corankrls options {sorted(unknown)}; choose "
                                    f"from {sorted(opts)}")
    opts.update(coreg)
    opts["views"] = tuple(opts["views"])
    if len(opts["views"]) < 2 or len(set(opts["views"])) != len(opts["views"]):
        raise InvalidParameterError(f"corankrls needs two or more distinct views, got "
                                    f"{opts['views']}")
    for v in opts["views"]:
        if v not in REPRESENTATIONS:
            raise InvalidParameterError(f"unknown corankrls view {v!r}; choose from "
                                        f"{REPRESENTATIONS}")
    return opts


def _cross_validate(records, kernels, rankers, n_folds, alphas, seed, max_parses, noise,
                    rep_params, max_pairs, progress, coreg, labelled_fraction, n_basis):
    for k in kernels:
        if k not in REPRESENTATIONS:
            raise InvalidParameterError(f"unknown kernel {k!r}; choose from {REPRESENTATIONS}")
    for r in rankers or ():
        if r not in RANKERS:
            raise InvalidParameterError(f"unknown ranker {r!r}; choose from {RANKERS}")
    rep_params = dict(rep_params or {})
    if rankers is not None and "corankrls" in rankers:
        records = list(records)          # read twice: the extra parses below
    items, y, qids, arts, lg_rank = flatten(records, max_parses)
    rankers_rule = None
    if rankers is None:
        rankers = default_rankers(y.size)
        rankers_rule = (f"default rankers for {y.size} parses: "
                        f"{'sparse' if y.size > SPARSE_ABOVE else 'full-kernel'} (sparse "
                        f"above {SPARSE_ABOVE} parses)")
    folds = article_folds(arts, n_folds, seed)
    use_co = "corankrls" in rankers
    co = _coreg_options(coreg) if use_co else None
    co_name = "+".join(co["views"]) if use_co else None
    if use_co and co["extra_parses"]:
        x_items, x_qids, _ = extra_parses(records, max_parses, qids)
    else:
        x_items, x_qids = [], np.asarray([])
    records = None            # an iterator of records (run_cv's) is now the last holder
    learned = [r for r in rankers if r not in ("lg", "corankrls")]
    settings = [(r, k, s) for k in kernels for r in learned for s in (0.0, *noise)]
    if use_co:
        settings += [("corankrls", co_name, s) for s in (0.0, *noise)]
    scores = {key: np.full(y.size, np.nan) for key in settings}
    chosen = {key: [] for key in settings}
    timings = {}
    rng = np.random.default_rng(seed)
    split_rng = np.random.default_rng([seed, 1])
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n_folds * (1 + len(noise)) * (len(kernels) * len(learned) + use_co),
                   desc="parse_ranking cv", unit="fit")
    parts = []                     # per fold: test rows, labelled / hidden training rows,
    for f in range(n_folds):       # noisy targets (the same draws as fold by fold)
        te, tr_all = np.flatnonzero(folds == f), np.flatnonzero(folds != f)
        tr, tr_hidden = labelled_split(qids, tr_all, labelled_fraction, split_rng)
        parts.append((te, tr, tr_hidden,
                      {s: y[tr] + rng.normal(0.0, s, tr.size) for s in noise}))
    park = any(r in SPARSE_RANKERS for r in learned)
    for ki, k in enumerate(kernels if learned else ()):
        t0 = time.perf_counter()
        cache = FoldFeatures(k, items, **rep_params)       # every parse featurized once
        timings[f"features[{k}]"] = round(time.perf_counter() - t0, 2)
        if ki == len(kernels) - 1 and not use_co:
            items = None        # the parses themselves are not read again (with the records
            #                     passed as an iterator, as run_cv does, this frees them)
        for te, tr, _, noisy in parts:
            t0 = time.perf_counter()
            X_tr = cache.train_rows(tr)
            K_tr = K_te = None
            if any(r not in SPARSE_RANKERS for r in learned):
                X_te = cache.test_rows(te)
                K_tr, K_te = gram_matrix(X_tr), gram_matrix(X_te, X_tr)
                del X_te
            timings[f"features+gram[{k}]"] = timings.get(f"features+gram[{k}]", 0.0) + \
                time.perf_counter() - t0
            fitted = {}                 # sparse models, scored once the rows are back
            # while the fits run, the rows of all parses wait on disk (FoldFeatures.parked):
            # a fit reads only the fold's training rows
            with cache.parked() if park else nullcontext():
                for r in learned:
                    for s in (0.0, *noise):
                        t0 = time.perf_counter()
                        y_fit = y[tr] if s == 0.0 else noisy[s]
                        try:
                            if r in SPARSE_RANKERS:
                                model, info = fit_sparse_ranker(r, X_tr, y_fit, qids[tr],
                                                                arts[tr], alphas, n_basis,
                                                                seed=seed)
                                fitted[(r, k, s)] = model
                            else:
                                model, info = fit_ranker(r, K_tr, y_fit, qids[tr], alphas,
                                                         max_pairs=max_pairs, seed=seed)
                                scores[(r, k, s)][te] = model.predict(K_te)
                            del model
                        except InvalidInputError as exc:
                            info = {"skipped": str(exc)}
                        chosen[(r, k, s)].append(info)
                        key = f"{r}[{k}]"
                        timings[key] = timings.get(key, 0.0) + time.perf_counter() - t0
                        if bar is not None:
                            bar.update(1)
            del X_tr, K_tr, K_te                # before the test rows and the next fold's
            if fitted:
                # test rows built after the fits: never held with their arrays
                X_te = cache.test_rows(te)
                for (r, kk, s), model in fitted.items():
                    t0 = time.perf_counter()
                    scores[(r, kk, s)][te] = model.predict(X_te)
                    timings[f"{r}[{k}]"] += time.perf_counter() - t0
                del X_te, fitted, model
        del cache                               # before the next kernel's features
    for te, tr, tr_hidden, noisy in parts:
        if use_co:
            _fold_corankrls(items, y, qids, arts, tr, tr_hidden, te, x_items, x_qids, co,
                            co_name, noisy, noise, rep_params, seed, scores, chosen, timings,
                            bar)
    if bar is not None:
        bar.close()
    out, final = {}, {}
    if "lg" in rankers:
        final["lg"] = -lg_rank.astype(float)
        out["lg"] = _summary(y, final["lg"], qids, lg_rank, folds, n_folds)
    for (r, k, s), sc in scores.items():
        name = f"{r}[{k}]" + (f"+noise{s:g}" if s else "")
        if np.isnan(sc).any():
            out[name] = {"skipped": [c.get("skipped") for c in chosen[(r, k, s)]
                                     if "skipped" in c]}
            continue
        final[name] = sc
        out[name] = _summary(y, sc, qids, lg_rank, folds, n_folds)
        out[name]["fold_info"] = chosen[(r, k, s)]
        out[name].update(ranker=r, kernel=k, noise=s)
    data = {"sentences": int(np.unique(qids).size), "parses": int(y.size),
            "articles": int(np.unique(arts).size), "folds": n_folds,
            "max_parses": max_parses, "alphas": [float(a) for a in alphas],
            "seed": seed, "noise": list(noise), "representation": rep_params,
            "labelled_fraction": labelled_fraction, "rankers": list(rankers)}
    if rankers_rule:
        data["rankers_rule"] = rankers_rule
    if any(r in SPARSE_RANKERS for r in rankers):
        data["n_basis"] = [int(b) for b in n_basis]
    if use_co:
        data["corankrls"] = {k: (list(v) if isinstance(v, (tuple, list)) else v)
                             for k, v in co.items()}
        data["corankrls"]["alphas"] = [float(a) for a in co["alphas"]]
        data["corankrls"]["mus"] = [float(m) for m in co["mus"]]
        data["corankrls"]["extra_parses_available"] = int(len(x_items))
    return {"rankers": out, "comparisons": paired_comparisons(y, final, qids),
            "timings_seconds": {k: round(v, 2) for k, v in timings.items()},
            "data": data}


def _fold_corankrls(items, y, qids, arts, tr, tr_hidden, te, x_items, x_qids, co, co_name,
                    noisy, noise, rep_params, seed, scores, chosen, timings, bar):
    """One outer fold of ``corankrls``: views fitted on the labelled training parses;
    unlabelled = training sentences' extra parses + the hidden training sentences."""
    from parse_ranking.coreg import fit_corankrls

    t0 = time.perf_counter()
    train_q = np.unique(qids[np.concatenate([tr, tr_hidden])])
    x_rows = np.flatnonzero(np.isin(x_qids, train_q)) if len(x_items) else np.zeros(0, int)
    u_items = [items[i] for i in tr_hidden] + [x_items[i] for i in x_rows]
    u_qids = np.concatenate([qids[tr_hidden], np.asarray(x_qids)[x_rows]]) \
        if u_items else None
    Xl, Xt, Xu = [], [], []
    for v in co["views"]:
        a, b, c = _features(v, [items[i] for i in tr], [items[i] for i in te], rep_params,
                            u_items)
        Xl.append(a), Xt.append(b), Xu.append(c)
    if not u_items:
        Xu = None
    opts = {k: co[k] for k in ("alphas", "mus", "n_basis", "n_inner")}
    for s in (0.0, *noise):
        y_fit = y[tr] if s == 0.0 else noisy[s]
        try:
            model, info = fit_corankrls(Xl, y_fit, qids[tr], arts[tr], Xu, u_qids,
                                        seed=seed, **opts)
            scores[("corankrls", co_name, s)][te] = model.predict(Xt)
        except InvalidInputError as exc:
            info = {"skipped": str(exc)}
        chosen[("corankrls", co_name, s)].append(info)
        if bar is not None:
            bar.update(1)
    key = f"corankrls[{co_name}]"
    timings[key] = timings.get(key, 0.0) + time.perf_counter() - t0


def paired_comparisons(y, scores, qids):
    """Wilcoxon signed-rank tests (Paper I §5: threshold 0.05) on per-sentence τ_b.

    Compares every learned ranker with ``lg``, RankRLS with RLS and with all-pairs RankRLS
    per kernel, RankRLS across kernels, and co-regularized RankRLS with RankRLS on each of
    its views; sentences where τ_b is undefined for either
    ranker are left out of that comparison.
    """
    from scipy.stats import wilcoxon

    taus = {name: kendall_tau_b(y, sc, qids, return_details=True).per_query
            for name, sc in scores.items()}
    names = sorted(taus)
    wanted = [(n, "lg") for n in names if n != "lg" and "lg" in taus]
    kernels = sorted({n[n.index("[") + 1:n.index("]")] for n in names if "[" in n})
    for k in kernels:
        for other in ("rls", "rankrls_all", "kpcrank"):
            if f"rankrls[{k}]" in taus and f"{other}[{k}]" in taus:
                wanted.append((f"rankrls[{k}]", f"{other}[{k}]"))
    for n in names:
        if n.startswith("corankrls[") and "+noise" not in n:
            for v in n[n.index("[") + 1:n.index("]")].split("+"):
                if f"rankrls[{v}]" in taus:
                    wanted.append((n, f"rankrls[{v}]"))
    rk = [f"rankrls[{k}]" for k in kernels if f"rankrls[{k}]" in taus]
    wanted += [(a, b) for i, a in enumerate(rk) for b in rk[i + 1:]]
    out = []
    for a, b in wanted:
        ok = np.isfinite(taus[a]) & np.isfinite(taus[b])
        diff = taus[a][ok] - taus[b][ok]
        if not np.any(diff != 0):
            continue
        test = wilcoxon(taus[a][ok], taus[b][ok])
        out.append({"a": a, "b": b, "sentences": int(ok.sum()),
                    "mean_tau_difference": float(diff.mean()),
                    "wilcoxon_p": float(test.pvalue)})
    return out


def _summary(y, sc, qids, lg_rank, folds, n_folds):
    res = ranking_measures(y, sc, qids, lg_rank)
    res["per_fold"] = [ranking_measures(y[folds == f], sc[folds == f], qids[folds == f],
                                        lg_rank[folds == f]) for f in range(n_folds)]
    return res
