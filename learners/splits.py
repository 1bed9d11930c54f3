"""Hold-out sets for cross-validation: the one place where folds are built.

Cross-validation in this project always keeps dependent rows together — the pairs of one
document (PPI, Paper V; thesis §5.5), the parses of one sentence or article (Paper I §5.2,
Paper III §4), the documents of one query (LETOR) — so every builder here works on *groups*
(a row is its own group for plain k-fold). Group labels are always passed explicitly, never
inferred from row order.

* :func:`group_sets` — leave-one-group-out: one hold-out set per distinct group;
* :func:`group_folds` — k folds of whole groups, either shuffled (groups dealt round-robin in
  a seeded random order) or, given labels, *stratified*: groups dealt largest first to the
  fold whose larger share of all positives and of all rows stays smallest, ties broken by a
  hash of (seed, group) — the assignment depends only on the groups, the labels and the
  seed, never on the row order;
* :func:`folds_to_sets` — fold numbers → list of index arrays (what the learners' exact
  hold-out methods and :func:`learners.selection.select` take).

Cost: O(m log m) for m rows (a sort of the labels), plus O(g k) for g groups and k folds
when stratified.

**Splitters.** Every way of holding rows out is a small object with one way to produce its
hold-out sets, ``split(n_rows, structure)`` (the model is scikit-learn's
``model_selection/_split.py``): :class:`LeaveOneOut`, :class:`LeavePairOut`,
:class:`KFold`, :class:`GroupKFold`, :class:`LeaveOneGroupOut`, :class:`HoldoutSets`
(explicit, possibly overlapping sets) and :class:`ValidationSet` (a separate validation
part). The rows' structure they read — groups, pairs, labels, queries — is one
:class:`RowStructure`. :func:`check_cv` turns every legacy ``cv`` form (``"loo"``,
``"lpo"``, ``"group"``, an int, a list of index arrays) into a splitter at the door of
:func:`learners.selection.select`, which then has one route: a splitter also names the
learner's closed form that serves all its sets from one fit (``closed_form``, a method of
:class:`learners.base.PathLearner`), and gives the training and test inputs of each set
for the refit route (:meth:`Splitter.folds`).
"""

import hashlib
from dataclasses import dataclass

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError
from learners._validation import check_groups, check_index_sets

__all__ = ["group_sets", "group_folds", "folds_to_sets", "RowStructure", "Splitter",
           "LeaveOneOut", "LeavePairOut", "KFold", "GroupKFold", "LeaveOneGroupOut",
           "HoldoutSets", "ValidationSet", "check_cv", "rows_of", "n_samples"]


def group_sets(groups):
    """Leave-one-group-out hold-out sets: the rows of each distinct group.

    Parameters
    ----------
    groups : array-like (m,)
        Group label of every row (document, sentence, query, article).

    Returns
    -------
    list of int ndarray
        One ascending index array per group, groups in sorted label order.
    """
    arr = np.asarray(groups)
    codes, _ = check_groups(arr, arr.shape[0] if arr.ndim else 0, "groups")
    return folds_to_sets(codes)


def folds_to_sets(fold):
    """``[rows of fold 0, rows of fold 1, ...]`` from one fold number per row (0..k−1)."""
    fold = np.asarray(fold)
    if fold.ndim != 1 or fold.size == 0 or not np.issubdtype(fold.dtype, np.integer) \
            or fold.min() < 0:
        raise InvalidInputError("fold must be a non-empty 1-d array of fold numbers >= 0")
    order = np.argsort(fold, kind="stable")
    bounds = np.cumsum(np.bincount(fold))[:-1]
    return [np.sort(s) for s in np.split(order, bounds)]


def _hash_key(seed, label):
    return hashlib.blake2b(f"{seed}\x00{label}".encode(), digest_size=8).hexdigest()


def group_folds(groups, n_folds, seed=0, *, y=None):
    """Fold number (0..n_folds−1) of every row; the rows of a group share a fold.

    Parameters
    ----------
    groups : array-like (m,)
        Group label of every row; pass ``np.arange(m)`` for plain row-level k-fold.
    n_folds : int >= 2
        At most the number of distinct groups.
    seed : int
        Shuffled: the seed of the random group order. Stratified: changes only the
        tie-breaking between equally large groups.
    y : array-like (m,), optional
        Labels (> 0 = positive). When given the folds are stratified (module docstring):
        both the number of rows and the number of positives are balanced across folds.

    Returns
    -------
    fold : int ndarray (m,)
    """
    arr = np.asarray(groups)
    m = arr.shape[0] if arr.ndim else 0
    codes, labels = check_groups(arr, m, "groups")
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise InvalidParameterError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    n_groups = labels.size
    if n_groups < n_folds:
        raise InvalidInputError(f"{n_groups} groups (of n_samples={m} rows) cannot fill "
                                f"{n_folds} folds; use fewer folds or leave-one-group-out")
    if y is None:
        perm = np.random.default_rng(seed).permutation(n_groups)
        fold_of = np.empty(n_groups, dtype=np.intp)
        fold_of[perm] = np.arange(n_groups) % n_folds
        return fold_of[codes]
    y = np.asarray(y)
    if y.shape != (m,):
        raise InvalidInputError(f"y has shape {y.shape} but groups has {m} rows")
    return _stratified(codes, labels, y, int(n_folds), seed)[codes]


def _stratified(codes, labels, y, n_folds, seed):
    """Per group: the fold of the balanced dealing (largest share first)."""
    n_groups = labels.size
    pos = np.bincount(codes, weights=(y > 0).astype(float), minlength=n_groups)
    size = np.bincount(codes, minlength=n_groups).astype(float)
    tot_pos, tot_size = max(pos.sum(), 1.0), size.sum()
    names = [str(g) for g in labels]
    order = sorted(range(n_groups), key=lambda d: (
        -max(pos[d] / tot_pos, size[d] / tot_size), _hash_key(seed, names[d])))
    fold_pos = np.zeros(n_folds)
    fold_size = np.zeros(n_folds)
    fold_of = np.empty(n_groups, dtype=np.intp)
    for d in order:                      # O(g k): a loop over groups, not over rows
        share = np.maximum((fold_pos + pos[d]) / tot_pos, (fold_size + size[d]) / tot_size)
        # smallest larger share; then smallest current total share; then lowest fold number
        f = np.lexsort((np.arange(n_folds), fold_pos / tot_pos + fold_size / tot_size,
                        share))[0]
        fold_of[d] = f
        fold_pos[f] += pos[d]
        fold_size[f] += size[d]
    return fold_of


# ---------------------------------------------------------------------------- rows
def n_samples(X):
    """Number of rows of an input: a matrix or a list of views (multi-view learners)."""
    if isinstance(X, (list, tuple)):
        return n_samples(X[0])
    return X.shape[0]


def rows_of(X, rows, cols=None, pairwise=False):
    """Rows of an input: a matrix, a list of views (multi-view learners) or, for a precomputed
    kernel (``pairwise``), the block ``X[rows][:, cols]`` (``cols`` defaults to ``rows``)."""
    if isinstance(X, (list, tuple)):
        return [rows_of(v, rows, cols, pairwise) for v in X]
    if pairwise:
        return X[np.ix_(rows, rows if cols is None else cols)]
    return X[rows]


def _take(a, rows):
    return None if a is None else np.asarray(a)[rows]


@dataclass(frozen=True)
class RowStructure:
    """The structure of the training rows that splitters and measures read (one object
    instead of loose keyword arguments).

    Parameters
    ----------
    qids : array-like (m,), optional
        Query of every row, passed to per-query measures (``measure(y, p, qids)``).
    groups : array-like (m,), optional
        Group of every row (document, sentence, article): the hold-out unit of
        :class:`LeaveOneGroupOut` and :class:`GroupKFold`.
    pairs : int array (n, 2), optional
        The pairs :class:`LeavePairOut` holds out (default: every pair of rows with
        different labels, the first preferred).
    y_eval : array-like (m,), optional
        The labels the measure compares the hold-out predictions with (default: the fit
        targets ``y``; they differ when the fit targets are transformed, e.g. class-balanced
        RLS targets, or absent, a learner fitted from pairs).
    """

    qids: object = None
    groups: object = None
    pairs: object = None
    y_eval: object = None

    def take(self, rows):
        """The structure of the rows ``rows`` (an int array) of the training data, renumbered
        0..len(rows)-1; pairs with a row outside ``rows`` are dropped. O(m + n)."""
        pairs = None
        if self.pairs is not None:
            rows = np.asarray(rows)
            P = np.asarray(self.pairs)
            new = np.full(max(P.max(initial=-1), rows.max(initial=-1)) + 1, -1)
            new[rows] = np.arange(rows.size)         # old row number -> new, or -1
            P = new[P]
            pairs = P[(P >= 0).all(axis=1)]
        return RowStructure(_take(self.qids, rows), _take(self.groups, rows), pairs,
                            _take(self.y_eval, rows))


# ---------------------------------------------------------------------------- splitters
class Splitter:
    """A way of holding training rows out (base class).

    A subclass implements :meth:`split`, its hold-out sets, and names in ``closed_form``
    the :class:`learners.base.PathLearner` method that serves all of them (and every path
    point) from one fit on all rows. :func:`learners.selection.select` uses that closed form
    when the learner has it, and otherwise refits per set (:meth:`folds`).
    """

    #: the PathLearner method serving every set from one fit (None: refit per set)
    closed_form = "holdout_sets"
    #: whether the refit route (:meth:`folds`) can serve it when the closed form cannot
    refits = True

    def split(self, n_rows, structure):
        """The hold-out sets: a list of int arrays into the ``n_rows`` training rows."""
        raise NotImplementedError

    def closed_form_predictions(self, learner, sets, path_kw):
        """``[(rows, P)]`` from the fitted ``learner``'s closed form for the hold-out
        ``sets`` (from :meth:`split`): each set's rows and predictions (path axes first).
        Cost: the learner's (stated on its method)."""
        return list(zip(sets, learner.holdout_sets(sets, **path_kw)))

    def folds(self, X, sets, pairwise):
        """The refit route: per hold-out set ``(train rows, test rows, X_train, X_test)``
        (``pairwise``: ``X`` is a precomputed kernel, sliced on both axes)."""
        m = n_samples(X)
        for H in sets:
            train = np.setdiff1d(np.arange(m), H)
            yield (train, H, rows_of(X, train, pairwise=pairwise),
                   rows_of(X, H, train, pairwise=pairwise))

    def labels(self, rows, structure):
        """``(y, qids)`` a measure compares the predictions of ``rows`` with."""
        return _take(structure.y_eval, rows), _take(structure.qids, rows)

    def scoring(self, scoring):
        """The scoring of the predictions (the caller's; a splitter whose hold-out units are
        not rows fixes its own, :class:`LeavePairOut`)."""
        if scoring is None:
            raise InvalidParameterError(f"{type(self).__name__} needs a scoring (a measure "
                                        "name or a callable)")
        return scoring

    def __repr__(self):
        args = ", ".join(f"{k}={_short(v)}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


def _short(value):
    """A short repr for messages: arrays and long lists by their size."""
    if hasattr(value, "shape"):
        return f"<{type(value).__name__} of shape {value.shape}>"
    if isinstance(value, (list, tuple)) and len(value) > 3:
        return f"<{len(value)} {type(value).__name__} items>"
    return repr(value)


class LeaveOneOut(Splitter):
    """Every row its own hold-out set (``cv="loo"``).

    Closed form ``leave_one_out`` (thesis Ch. 5: one decomposition, then O(m r t) per λ for
    RLS), giving ONE part of all m rows; the refit route has m parts of one row (m fits).
    """

    closed_form = "leave_one_out"

    def split(self, n_rows, structure):
        """``[[0], [1], ..., [m-1]]``."""
        return [np.array([i]) for i in range(n_rows)]

    def closed_form_predictions(self, learner, sets, path_kw):
        """One part: every row's leave-one-out prediction."""
        return [(np.arange(len(sets)), learner.leave_one_out(**path_kw))]


class LeavePairOut(Splitter):
    """Leave-pair-out (``cv="lpo"``): each pair of rows held out together, scored by the
    leave-pair-out error — 1 − the fraction of held-out pairs ordered correctly (ties count
    1/2; with several outputs the pair's prediction difference is averaged over outputs),
    Paper I §4 (eqs. 34-39), thesis §5.4.

    The pairs are ``structure.pairs`` or every pair ``(i, j)`` with ``y_i > y_j`` (first
    output). Only the closed form ``leave_pair_out`` serves it (O(1) per pair after an
    O(m^2 r) product per λ for the global ranker); the path is over λ only. The error is
    computed on the unrounded predictions (the pair order of one model).
    """

    closed_form = "leave_pair_out"
    refits = False
    greater_is_better = False
    threshold = None

    def split(self, n_rows, structure):
        """The (n, 2) int array of pairs (each row a hold-out set of two rows)."""
        if structure.pairs is not None:
            return np.asarray(structure.pairs)
        if structure.y_eval is None:
            raise UndefinedMeasureError("leave-pair-out needs labels")
        yy = np.asarray(structure.y_eval, dtype=float)
        y1 = yy if yy.ndim == 1 else yy[:, 0]
        i, j = np.nonzero(np.subtract.outer(y1, y1) > 0)
        if i.size == 0:
            raise UndefinedMeasureError("leave-pair-out needs two different labels")
        return np.column_stack([i, j])

    def closed_form_predictions(self, learner, sets, path_kw):
        """One part (no row order): predictions (path, n, 2[, t]) of every pair."""
        if set(path_kw) - {"alphas"}:
            raise InvalidParameterError("cv='lpo' takes a path over alpha only")
        return [(None, learner.leave_pair_out(sets, **path_kw))]

    def labels(self, rows, structure):
        """None: the hold-out units are pairs, scored by :meth:`scores`."""
        return None, None

    def scoring(self, scoring):
        """Leave-pair-out is scored by its own error: ``scoring`` must be None."""
        if scoring is not None:
            raise InvalidParameterError("cv='lpo' is scored by the leave-pair-out error "
                                        "(1 - fraction of correctly ordered pairs); leave "
                                        "scoring=None")
        return self

    def scores(self, holdout):
        """``(leave-pair-out error of every candidate, False)`` (class docstring; lower is
        better). O(n t) per candidate."""
        P = np.concatenate([np.asarray(p.predictions) for p in holdout.parts], axis=1)
        d = P[:, :, 0] - P[:, :, 1]
        if d.ndim == 3:
            d = d.mean(axis=2)
        return 1.0 - np.mean((d > 0) + 0.5 * (d == 0), axis=1), self.greater_is_better


class KFold(Splitter):
    """k seeded folds of rows (:func:`group_folds` on ``arange(m)``); closed form
    ``holdout_sets``.

    Parameters
    ----------
    n_folds : int >= 2
    seed : int — the seed of the random fold assignment
    """

    def __init__(self, n_folds=5, seed=0):
        self.n_folds = n_folds
        self.seed = seed

    def split(self, n_rows, structure):
        """k disjoint sets covering the rows."""
        return folds_to_sets(group_folds(np.arange(n_rows), self.n_folds, self.seed))


class GroupKFold(KFold):
    """k seeded folds of whole groups (``structure.groups``: documents, sentences, queries);
    closed form ``holdout_sets``."""

    def split(self, n_rows, structure):
        """k disjoint sets of whole groups."""
        if structure.groups is None:
            raise InvalidInputError("GroupKFold needs groups (one label per row)")
        return folds_to_sets(group_folds(structure.groups, self.n_folds, self.seed))


class LeaveOneGroupOut(Splitter):
    """One hold-out set per distinct group (``cv="group"``; :func:`group_sets`): leave one
    document / sentence / query out. Closed form ``holdout_sets``."""

    def split(self, n_rows, structure):
        """The rows of each group, groups in sorted label order."""
        if structure.groups is None:
            raise InvalidInputError("cv='group' needs groups= (one label per row)")
        sets = group_sets(structure.groups)
        if len(sets) < 2:
            raise InvalidInputError("cv='group' needs at least 2 groups")
        return sets


class HoldoutSets(Splitter):
    """Explicit hold-out sets (a list of index arrays, possibly overlapping), used as given;
    closed form ``holdout_sets``."""

    def __init__(self, sets):
        self.sets = sets

    def split(self, n_rows, structure):
        """The sets, checked (unique indices in range, each leaving training rows)."""
        return check_index_sets(list(self.sets), n_rows, "cv")


@dataclass(repr=False)
class ValidationSet(Splitter):
    """A separate validation part: the learner is fitted on all training rows and its
    predictions of the validation rows are scored (LETOR protocol). One fit; with a path,
    one ``predict_path`` call for every path point (no closed form needed beyond it).

    Parameters
    ----------
    X, y : validation inputs (for a precomputed kernel: validation × training) and targets
    qids : array-like, optional — query of every validation row (for per-query measures)
    """

    X: object
    y: object
    qids: object = None
    closed_form = None

    def split(self, n_rows, structure):
        """No hold-out set among the training rows."""
        return []

    def folds(self, X, sets, pairwise):
        """One fold: all training rows (unsliced) against the validation inputs."""
        yield None, None, X, self.X

    def labels(self, rows, structure):
        """The validation targets and queries."""
        return np.asarray(self.y), None if self.qids is None else np.asarray(self.qids)


_CV_FORMS = "'loo', 'lpo', 'group', an int, a list of index arrays or a Splitter"


def check_cv(cv, structure=None, *, seed=0):
    """The splitter of a ``cv`` specification (the door of the selection engine).

    ``cv``: a :class:`Splitter` (returned unchanged); ``"loo"`` → :class:`LeaveOneOut`;
    ``"lpo"`` → :class:`LeavePairOut`; ``"group"`` → :class:`LeaveOneGroupOut`; an int k →
    :class:`GroupKFold` (k, ``seed``) when ``structure`` has groups, else :class:`KFold`; a
    list of index arrays → :class:`HoldoutSets`.
    """
    if isinstance(cv, Splitter):
        return cv
    if isinstance(cv, str):
        forms = {"loo": LeaveOneOut, "lpo": LeavePairOut, "group": LeaveOneGroupOut}
        if cv not in forms:
            raise InvalidParameterError(f"unknown cv {cv!r}; use {_CV_FORMS}")
        return forms[cv]()
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        grouped = structure is not None and structure.groups is not None
        return (GroupKFold if grouped else KFold)(int(cv), seed)
    try:
        return HoldoutSets(list(cv))
    except TypeError as exc:
        raise InvalidParameterError(f"cv must be {_CV_FORMS}, got {cv!r}") from exc
