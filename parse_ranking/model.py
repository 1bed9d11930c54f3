"""Train a parse ranker on a built data set, save it without pickle, rerank new sentences.

A saved model is two files (format ``kernelrank.parse_ranking.model/4``):

``<model>.json`` (UTF-8 JSON)::

    {"format": "kernelrank.parse_ranking.model/4", "ranker": "rankrls" | ... | "corankrls",
     "views": [{"kernel": "locality" | "bag_of_links" | "links_words" | "graph",
                "representation": {fitted state, see representation_state}}, ...],
     "combine": "mean", "fit_info": {...}, "n_sentences": .., "n_parses": ..,
     "lg_options": {...}, "weights_sha256": sha256 of <model>.npz,
     "meta_sha256": sha256 of this object without the key itself, as canonical JSON}

``<model>.npz`` (NumPy, compressed, ``allow_pickle=False``): ``w0, w1, …``, the primal
weight vector of each view over that view's feature columns, and ``codes0, codes1, …``
(int64), the sorted feature-pair codes of the views that have them (locality and graph
kernels) — kept out of the JSON, where they were the bulk of the file in version 2.

The two files are written and read by :mod:`kernelrank.sealed` as a pair
(:func:`kernelrank.sealed.save_pair`, :func:`kernelrank.atomic.atomic_files`): both are
written and checked by :func:`load_model` before either replaces anything (what is saved
can be loaded; the archive is byte for byte reproducible), then moved into place, the
``.npz`` first, then the ``.json`` that records its sha256, each atomically; a crash
between the two leaves a new ``.npz`` beside the old ``.json``, which :func:`load_model`
refuses (the checksum) instead of scoring with the mixture — and a reader that meets the
pair between the two renames waits for the second (:func:`kernelrank.atomic.
read_consistently`). :func:`load_model` also checks the JSON's
own seal ``meta_sha256`` (canonical JSON: ``json.dumps(meta, sort_keys=True,
separators=(",", ":"))``, so whitespace and key order do not matter, an edited value
does), every field's type, each view's representation state (parameters, vocabularies,
pair codes naming known symbols or labels, the locality factor ``R``) and each weight
vector against it (float64, finite, one weight per feature column of the view); every
failure — a truncated or damaged ``.npz``, an object array, files of two models — is a
:class:`~kernelrank.errors.CorpusFormatError` naming the file.

Every supported kernel is linear in explicit sparse features (the graph kernel's all-paths
features included, :mod:`learners.kernels.all_paths`), so the dual solution ``a`` of a kernel
model collapses to ``w = Xᵀ a`` and scoring a new parse is one sparse dot product per view;
the score is the mean over the views (one view for the single-kernel rankers; the
co-regularized ranker averages its view predictors, :mod:`learners.coreg`, whose basis
rows play the role of ``X``). Version-3 files (no checksums), version-2 files (pair codes
as JSON integers inside ``representation``) and version-1 files (single view: top-level
``kernel``, ``representation`` and ``w``) are still read, with the same field checks.
"""

from pathlib import Path

import numpy as np

from kernelrank.atomic import read_consistently
from learners.kernels import gram_matrix
from kernelrank.errors import (CorpusFormatError, DataNotFoundError, InvalidInputError,
                               InvalidParameterError)
from kernelrank.sealed import NPZ_ERRORS, meta_sha256  # noqa: F401 (this module's names too)
from kernelrank.sealed import NUMBER, SealedFormat, save_pair, typed
from parse_ranking.evaluation import extra_parses, flatten
from parse_ranking.names import MATCHING, SAVEABLE_KERNELS, SAVEABLE_RANKERS
from parse_ranking.ranking import (DEFAULT_ALPHAS, DEFAULT_N_BASIS, SPARSE_RANKERS, fit_ranker,
                                   fit_sparse_ranker)
from parse_ranking.representations import (ParseRepresentation, representation_from_state,
                                           representation_state)

__all__ = ["train_model", "load_model", "score_parses", "rank_sentence", "SAVEABLE_RANKERS",
           "SAVEABLE_KERNELS", "FORMAT"]

FORMAT = "kernelrank.parse_ranking.model/4"
_FORMAT_V3 = "kernelrank.parse_ranking.model/3"
_FORMAT_V2 = "kernelrank.parse_ranking.model/2"
_FORMAT_V1 = "kernelrank.parse_ranking.model/1"


def train_model(records, path, *, kernel="locality", ranker="rankrls", alphas=DEFAULT_ALPHAS,
                max_parses=None, rep_params=None, lg_options=None, threads=1, coreg=None,
                seed=0, n_basis=None):
    """Fit ``ranker`` on all ``records`` and save it at ``path`` (``.json`` + ``.npz``).

    Single-kernel rankers: λ by leave-query-out (:func:`parse_ranking.ranking.fit_ranker`).
    ``corankrls``: views ``coreg["views"]`` (default links_words + locality), unlabelled
    data = the parses beyond ``max_parses`` (needs ``max_parses``), (α, μ) by inner
    article-level CV (:func:`parse_ranking.coreg.fit_corankrls`; other ``coreg`` keys:
    ``alphas``, ``mus``, ``n_basis``, ``n_inner``). ``sparse_rankrls`` /
    ``nystroem_rankrls``: basis size(s) ``n_basis`` (:func:`parse_ranking.ranking.fit_sparse_ranker`;
    no parse-by-parse kernel matrix), saved like the others as ``w = X_Rᵀ b`` over the
    feature columns. Returns the saved metadata.
    """
    from threadpoolctl import threadpool_limits

    if ranker not in SAVEABLE_RANKERS:
        raise InvalidParameterError(f"ranker {ranker!r} cannot be saved; choose from "
                                    f"{SAVEABLE_RANKERS}")
    _refuse_directories(Path(path))
    items, y, qids, arts, _ = flatten(records, max_parses)
    if np.unique(qids).size < 2:
        raise InvalidInputError(f"{np.unique(qids).size} sentence with parses to rank: λ is "
                                "chosen by leave-sentence-out, which needs at least 2 — "
                                "build the data set from more sentences")
    rep_params = dict(rep_params or {})
    with threadpool_limits(limits=int(threads)):
        if ranker == "corankrls":
            views, weights, info = _train_corankrls(records, items, y, qids, arts, max_parses,
                                                    rep_params, dict(coreg or {}), seed)
        else:
            if kernel not in SAVEABLE_KERNELS:
                raise InvalidParameterError(f"kernel {kernel!r}: choose from "
                                            f"{SAVEABLE_KERNELS}")
            rep = ParseRepresentation(kernel, **rep_params)
            X = rep.fit_transform(items)
            state = representation_state(rep)   # fail before the expensive fit
            views = [{"kernel": kernel, "representation": state}]
            if ranker in SPARSE_RANKERS:       # kernel against r basis parses only
                sel, info = fit_sparse_ranker(ranker, X, y, qids, arts, alphas,
                                              DEFAULT_N_BASIS if n_basis is None else n_basis,
                                              seed=seed, refit=True)
                model = sel.model
                # w = Z^T b over the basis vectors Z (rows or query-centred rows)
                weights = [np.asarray(model.nystroem_.basis_X_.T @ model.dual_coef_).ravel()]
            else:
                model, info = fit_ranker(ranker, gram_matrix(X), y, qids, alphas, seed=seed)
                weights = [np.asarray(X.T @ model.dual_coef_).ravel()]
    path = Path(path)
    arrays = {f"w{v}": w for v, w in enumerate(weights)}
    for v, view in enumerate(views):
        codes = view["representation"].pop("pair_codes", None)
        if codes is not None:
            arrays[f"codes{v}"] = np.asarray(codes, dtype=np.int64)
    meta = {"format": FORMAT, "ranker": ranker, "views": views, "combine": "mean",
            "fit_info": info, "n_sentences": int(np.unique(qids).size),
            "n_parses": int(y.size), "lg_options": lg_options or {}}
    _refuse_directories(path)
    # the npz first, then the JSON naming it; both checked by the loader before either
    # replaces anything, the archive byte for byte reproducible
    return save_pair(path.with_suffix(".json"), path.with_suffix(".npz"), meta, arrays,
                     validate=lambda npz, js: load_model(npz))


def _refuse_directories(path):
    for p in (path.with_suffix(".json"), path.with_suffix(".npz")):
        if p.is_dir():
            raise InvalidParameterError(f"{p} is a directory; the model is written as the "
                                        "files <stem>.json and <stem>.npz — choose another "
                                        "--output-model")


def _train_corankrls(records, items, y, qids, arts, max_parses, rep_params, coreg, seed):
    from parse_ranking.coreg import DEFAULT_VIEWS, fit_corankrls

    kinds = tuple(coreg.pop("views", DEFAULT_VIEWS))
    use_extra = coreg.pop("extra_parses", True)
    for k in kinds:
        if k not in SAVEABLE_KERNELS:
            raise InvalidParameterError(f"corankrls view {k!r}: choose from {SAVEABLE_KERNELS}")
    x_items, x_qids, _ = extra_parses(records, max_parses, qids) if use_extra \
        else ([], None, None)
    reps, X, U = [], [], []
    for k in kinds:
        rep = ParseRepresentation(k, **rep_params)
        X.append(rep.fit_transform(items))
        U.append(rep.transform(x_items) if x_items else None)
        reps.append(rep)
    states = [representation_state(r) for r in reps]
    model, info = fit_corankrls(X, y, qids, arts, U if x_items else None,
                                x_qids if x_items else None, seed=seed, **coreg)
    # f_v(x) = k_v(x, B_v) a_v = x · (B_vᵀ a_v) for the linear kernel of every view
    weights = [np.asarray(B.T @ a).ravel() for B, a in zip(model.basis_views_,
                                                            model.dual_coef_)]
    views = [{"kernel": k, "representation": s} for k, s in zip(kinds, states)]
    return views, weights, info


def load_model(path):
    """``(meta, views, weights)`` of a saved model: ``views`` the fitted
    :class:`ParseRepresentation` of every view, ``weights`` their primal weight vectors.

    Raises
    ------
    DataNotFoundError
        ``<path>.json`` or ``<path>.npz`` does not exist.
    CorpusFormatError
        A file is damaged, altered, of another model, or a field or array is not what the
        model needs (the message names the file and the field).
    """
    path = Path(path)
    js, npz = path.with_suffix(".json"), path.with_suffix(".npz")
    return read_consistently([js, npz], lambda: _load(js, npz), what=f"the model {path}")


def _load(js, npz):
    if not js.is_file() or not npz.is_file():
        raise DataNotFoundError(f"model files {js} and {npz} are needed; train one with "
                                "`python -m parse_ranking train`")
    meta = _read_meta(js)
    fmt = meta["format"]
    arrays = SEALED.read_arrays(npz, meta["weights_sha256"] if fmt == FORMAT else None,
                                recorded_by="the model's JSON")
    if fmt == _FORMAT_V1:
        meta = dict(meta, views=[{"kernel": meta["kernel"],
                                  "representation": meta["representation"]}],
                    combine="mean")
        if "w" not in arrays:
            raise _bad(npz, "no array 'w' (version 1)")
        arrays = {"w0": arrays["w"]}
    views, weights = [], []
    for v, view in enumerate(meta["views"]):
        state = view["representation"]
        codes = arrays.get(f"codes{v}")
        if fmt in (FORMAT, _FORMAT_V3) and view["kernel"] in ("locality", "graph"):
            if codes is None:
                raise _bad(npz, f"no array 'codes{v}' (pair codes of view {v})")
            state = dict(state, pair_codes=codes)
        elif codes is not None:
            raise _bad(npz, f"array 'codes{v}' belongs to no view with pair codes")
        n_columns = _check_state(js, npz, v, view["kernel"], state, every=fmt == FORMAT)
        w = arrays.get(f"w{v}")
        if w is None:
            raise _bad(npz, f"no array 'w{v}' (weights of view {v})")
        if w.dtype != np.float64 or w.shape != (n_columns,):
            raise _bad(npz, f"array 'w{v}' is {w.dtype}{w.shape}, not {n_columns} float64 "
                            f"weights (one per feature column of view {v})")
        if not np.isfinite(w).all():
            raise _bad(npz, f"array 'w{v}' holds non-finite weights")
        try:
            rep = representation_from_state(state)
        except (InvalidParameterError, TypeError, ValueError, KeyError) as exc:
            raise _bad(js, f"view {v}: the representation cannot be rebuilt ({exc})") from None
        views.append(rep)
        weights.append(w)
    extra = set(arrays) - {f"{k}{v}" for k in ("w", "codes") for v in range(len(views))}
    if extra:
        raise _bad(npz, f"unknown arrays {sorted(extra)}")
    return meta, views, weights


# ------------------------------------------------------------------ checks on load
#: the sealed-file reader of the format (:mod:`kernelrank.sealed`)
SEALED = SealedFormat("kernelrank parse ranking model", "python -m parse_ranking train")
_bad = SEALED.bad        # the error of a damaged or altered file: _bad(path, what)
_field = SEALED.field    # obj[key] of a checked type: _field(path, obj, key, kind, prefix)
_NUMBER = NUMBER
_PARAMS = {"kind": str, "normalize": bool, "window": int, "theta": _NUMBER, "matching": str,
           "edge_weight": _NUMBER, "variant": str}


def _read_meta(js):
    """The model's JSON as a dict whose fields have the types :func:`load_model` uses."""
    meta = SEALED.read_json(js)
    fmt = meta.get("format")
    if fmt not in (FORMAT, _FORMAT_V3, _FORMAT_V2, _FORMAT_V1):
        raise CorpusFormatError(f"unsupported model format {fmt!r} (expected {FORMAT}, "
                                f"{_FORMAT_V3}, {_FORMAT_V2} or {_FORMAT_V1})", path=js)
    if fmt == FORMAT:
        _field(js, meta, "weights_sha256", str)
        SEALED.check_seal(js, meta)
    ranker = _field(js, meta, "ranker", str)
    if ranker not in SAVEABLE_RANKERS:
        raise _bad(js, f"unknown ranker {ranker!r}")
    if fmt == _FORMAT_V1:
        _field(js, meta, "kernel", str)
        _field(js, meta, "representation", dict)
        views = [{"kernel": meta["kernel"], "representation": meta["representation"]}]
    else:
        views = _field(js, meta, "views", list)
        if meta.get("combine", "mean") != "mean":
            raise _bad(js, f"field 'combine' is {meta['combine']!r}, not 'mean'")
    if not views:
        raise _bad(js, "field 'views' is empty")
    for v, view in enumerate(views):
        if not isinstance(view, dict):
            raise _bad(js, f"view {v} is not an object")
        kernel = _field(js, view, "kernel", str, f"views[{v}].")
        if kernel not in SAVEABLE_KERNELS:
            raise _bad(js, f"view {v}: unknown kernel {kernel!r}")
        _field(js, view, "representation", dict, f"views[{v}].")
    lg = meta.get("lg_options", {})
    if not isinstance(lg, dict):
        raise _bad(js, "field 'lg_options' is not an object")
    for key in ("linkage_limit", "timeout"):
        if key in lg and (not typed(lg[key], int) or lg[key] < 1):
            raise _bad(js, f"field 'lg_options.{key}' is {lg[key]!r}, not a positive integer")
    return meta


def _codes(path, codes, what, n_ids):
    """Pair codes ``i·2^32 + j`` as an int64 array: strictly increasing, ids below
    ``n_ids``."""
    if isinstance(codes, list):
        if not all(typed(c, int) for c in codes):
            raise _bad(path, f"{what} holds a non-integer")
        try:
            codes = np.asarray(codes, dtype=np.int64)
        except OverflowError:
            raise _bad(path, f"{what} holds an integer beyond int64") from None
    if not isinstance(codes, np.ndarray) or codes.dtype != np.int64 or codes.ndim != 1:
        raise _bad(path, f"{what} is not a vector of int64 codes")
    if codes.size:
        if codes.min() < 0 or max((codes >> 32).max(), (codes & 0xFFFFFFFF).max()) >= n_ids:
            raise _bad(path, f"{what} names an id beyond the {n_ids} known")
        if not np.all(codes[1:] > codes[:-1]):
            raise _bad(path, f"{what} are not strictly increasing")
    return codes


def _check_state(js, npz, v, kernel, state, every=True):
    """Check view ``v``'s representation state (``every``: all parameters present, as
    version 4 writes them); return its number of feature columns."""
    where = f"views[{v}].representation."
    params = _field(js, state, "params", dict, where)
    for key, kind in _PARAMS.items():
        if every or key in params:
            _field(js, params, key, kind, where + "params.")
    unknown = set(params) - set(_PARAMS)
    if unknown:
        raise _bad(js, f"view {v}: unknown representation parameters {sorted(unknown)}")
    checks = {"window": lambda x: x >= 0, "theta": lambda x: x > 0,
              "matching": lambda x: x in MATCHING, "edge_weight": lambda x: x > 0,
              "variant": lambda x: x in ("sum", "max")}
    for key, ok in checks.items():
        if key in params and not ok(params[key]):
            raise _bad(js, f"view {v}: representation parameter {key!r} is "
                           f"{params[key]!r}, not a valid value")
    if params.get("kind") != kernel:
        raise _bad(js, f"view {v}: representation kind {params.get('kind')!r} is not its "
                       f"kernel {kernel!r}")
    if kernel in ("bag_of_links", "links_words"):
        vocabulary = _field(js, state, "vocabulary", dict, where)
        ids = list(vocabulary.values())
        if not all(typed(i, int) for i in ids) or sorted(ids) != list(range(len(ids))):
            raise _bad(js, f"view {v}: the vocabulary's columns are not 0..{len(ids) - 1}, "
                           "each once")
        return len(vocabulary)
    if kernel == "locality":
        symbols = _field(js, state, "symbols", dict, where)
        ids = list(symbols.values())
        if not all(typed(i, int) for i in ids) or sorted(ids) != list(range(len(ids))):
            raise _bad(js, f"view {v}: the symbol ids are not 0..{len(ids) - 1}, each once")
        R = _field(js, state, "R", list, where)
        window = params.get("window", 2)
        if (not R or not all(isinstance(r, list) and r and len(r) == len(R[0])
                             and all(typed(x, _NUMBER) for x in r) for r in R)
                or len(R) != 2 * window + 1):
            raise _bad(js, f"view {v}: the locality factor R is not a finite "
                           f"{2 * window + 1}-row matrix (window {window})")
        codes = _codes(npz if isinstance(state["pair_codes"], np.ndarray) else js,
                       _field(js, state, "pair_codes", (list, np.ndarray), where),
                       f"the pair codes of view {v}", len(ids))
        return len(codes) * len(R[0])
    labels = _field(js, state, "labels", list, where)
    if not all(isinstance(x, str) for x in labels) or len(set(labels)) != len(labels):
        raise _bad(js, f"view {v}: the graph labels are not distinct strings")
    codes = _codes(npz if isinstance(state["pair_codes"], np.ndarray) else js,
                   _field(js, state, "pair_codes", (list, np.ndarray), where),
                   f"the pair codes of view {v}", len(labels))
    return len(codes)


def score_parses(views, weights, items):
    """Scores of ``(parse, text)`` items: mean over the views of ``features · w``."""
    out = np.zeros(len(items))
    for rep, w in zip(views, weights):
        X = rep.transform(items)
        if X.shape[1] != w.size:
            raise CorpusFormatError(f"a view has {X.shape[1]} feature columns but {w.size} "
                                    "weights; the model files do not belong together")
        out += np.asarray(X @ w).ravel()
    return out / len(views)


def rank_sentence(path, sentence, max_parses=20, parser=None):
    """Parse ``sentence`` with Link Grammar and rank its linkages with the saved model.

    Returns a list of dicts (best first): score, LG rank, LG cost, links as
    ``left-word LABEL right-word`` strings.
    """
    from parse_ranking.linkgrammar import LinkGrammarParser
    from parse_ranking.representations import parse_words

    meta, views, weights = load_model(path)
    opts = dict(meta.get("lg_options") or {})
    opts["max_parses"] = max_parses
    parser = parser or LinkGrammarParser(**{k: v for k, v in opts.items()
                                            if k in ("max_parses", "linkage_limit",
                                                     "timeout")})
    result = parser.parse(sentence)
    if not result.linkages:
        return []
    parses = [{"lg_rank": r, "words": [list(x) for x in lk.words],
               "links": [list(x) for x in lk.links], "cost": list(lk.cost)}
              for r, lk in enumerate(result.linkages)]
    scores = score_parses(views, weights, [(p, sentence) for p in parses])
    order = np.lexsort((np.arange(len(parses)), -scores))
    out = []
    for i in order:
        p = parses[i]
        words = parse_words(p, sentence)
        out.append({"score": float(scores[i]), "lg_rank": p["lg_rank"], "cost": p["cost"],
                    "links": [f"{words[a]} {lab} {words[b]}" for a, b, lab in p["links"]]})
    return out
