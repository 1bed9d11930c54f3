"""The door of the selection engine: the splitter objects of learners/splits.py, the
PathLearner protocol and HoldoutMixin of learners/base.py, and the grouped inputs of
learners/selection.py (Search, Scoring, RowStructure, Channels).

Each splitter's hold-out sets are checked against their definition (not against another
output of our code), every splitter served by the closed form is checked against explicit
retraining, and a learner lacking a hold-out method gets an error naming the method."""

import inspect

import numpy as np
import pytest

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners import RLS, GlobalRankRLS, QueryRankRLS
from learners.base import HoldoutMixin, PathLearner, path_parameters, supports
from learners.coreg import CoRLS
from learners.model_selection import GlobalRankRLSCV
from learners.reduced_set import ReducedSetRLS
from learners.selection import (
    Channels,
    HoldoutPart,
    Scoring,
    Search,
    Selection,
    holdout_predictions,
    select,
)
from learners.splits import (
    GroupKFold,
    HoldoutSets,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    LeavePairOut,
    RowStructure,
    Splitter,
    ValidationSet,
    check_cv,
)
from learners.transfer import TransferRLS

ALPHAS = 2.0 ** np.arange(-8, 9, 4)


def _problem(rng, m=30, n=4):
    X = rng.normal(size=(m, n))
    y = X[:, 0] - 0.5 * X[:, 1] + 0.2 * rng.normal(size=m)
    return X, y


def _partition(sets, m):
    rows = np.concatenate(sets)
    return rows.size == m and np.array_equal(np.sort(rows), np.arange(m))


# ---------------------------------------------------------------------------- splitters
def test_leave_one_out_sets():
    sets = LeaveOneOut().split(5, RowStructure())
    assert [s.tolist() for s in sets] == [[0], [1], [2], [3], [4]]


def test_kfold_partitions_rows_and_depends_on_the_seed():
    a = KFold(4, seed=0).split(23, RowStructure())
    b = KFold(4, seed=1).split(23, RowStructure())
    assert len(a) == 4 and _partition(a, 23)
    assert sorted(len(s) for s in a) == [5, 6, 6, 6]
    assert any(not np.array_equal(x, y) for x, y in zip(a, b))
    assert all(np.array_equal(x, y) for x, y in zip(a, KFold(4, seed=0).split(23, None or
                                                                             RowStructure())))


def test_group_splitters_keep_groups_together(rng):
    groups = rng.integers(0, 7, size=40).astype(str)
    s = RowStructure(groups=groups)
    for sets in (GroupKFold(3, seed=2).split(40, s), LeaveOneGroupOut().split(40, s)):
        assert _partition(sets, 40)
        for H in sets:
            rest = np.setdiff1d(np.arange(40), H)
            assert not set(groups[H]) & set(groups[rest])       # a group is never split
    logo = LeaveOneGroupOut().split(40, s)
    assert len(logo) == np.unique(groups).size
    assert all(np.unique(groups[H]).size == 1 for H in logo)
    with pytest.raises(InvalidInputError, match="groups"):
        GroupKFold(3).split(40, RowStructure())
    with pytest.raises(InvalidInputError, match="groups"):
        LeaveOneGroupOut().split(40, RowStructure())
    with pytest.raises(InvalidInputError, match="2 groups"):
        LeaveOneGroupOut().split(3, RowStructure(groups=["a", "a", "a"]))


def test_leave_pair_out_pairs_are_every_differently_labelled_pair():
    y = np.array([2.0, 0.0, 1.0, 0.0])
    pairs = LeavePairOut().split(4, RowStructure(y_eval=y))
    got = {tuple(p) for p in pairs.tolist()}
    want = {(i, j) for i in range(4) for j in range(4) if y[i] > y[j]}
    assert got == want and len(pairs) == len(want)
    given = np.array([[0, 1], [2, 3]])
    assert np.array_equal(LeavePairOut().split(4, RowStructure(pairs=given, y_eval=y)), given)


def test_explicit_sets_are_checked():
    assert [s.tolist() for s in HoldoutSets([[0, 2], [1]]).split(4, RowStructure())] == \
        [[0, 2], [1]]
    with pytest.raises(InvalidInputError):
        HoldoutSets([[0, 7]]).split(4, RowStructure())
    with pytest.raises(InvalidInputError):
        HoldoutSets([[0, 0]]).split(4, RowStructure())


def test_check_cv_turns_every_legacy_form_into_a_splitter():
    grouped = RowStructure(groups=np.arange(10) % 3)
    assert isinstance(check_cv("loo"), LeaveOneOut)
    assert isinstance(check_cv("lpo"), LeavePairOut)
    assert isinstance(check_cv("group"), LeaveOneGroupOut)
    assert type(check_cv(5)) is KFold and check_cv(5).n_folds == 5
    assert type(check_cv(3, grouped, seed=4)) is GroupKFold and check_cv(3, grouped,
                                                                          seed=4).seed == 4
    assert isinstance(check_cv([[0], [1, 2]]), HoldoutSets)
    v = ValidationSet(np.zeros((2, 1)), np.zeros(2))
    k = KFold(3)
    assert check_cv(v) is v and check_cv(k) is k
    for bad in ("bootstrap", 2.5, True):
        with pytest.raises(InvalidParameterError):
            check_cv(bad)


def test_row_structure_take_renumbers_pairs():
    s = RowStructure(qids=np.array([9, 9, 8, 8, 7]), groups=np.arange(5),
                     pairs=np.array([[0, 2], [1, 4], [3, 2]]), y_eval=np.arange(5.0))
    t = s.take(np.array([2, 3, 4]))
    assert t.qids.tolist() == [8, 8, 7] and t.groups.tolist() == [2, 3, 4]
    assert t.y_eval.tolist() == [2.0, 3.0, 4.0]
    assert t.pairs.tolist() == [[1, 0]]                     # (3, 2) renumbered; others cut


@pytest.mark.parametrize("cv", [LeaveOneOut(), KFold(3, seed=1), LeaveOneGroupOut(),
                                HoldoutSets([[0, 1, 2], [2, 3], [10, 20]])])
def test_every_splitter_closed_form_equals_explicit_retraining(rng, cv):
    X, y = _problem(rng)
    groups = np.arange(30) // 5
    s = RowStructure(groups=groups)
    h, fitted = holdout_predictions(RLS(kernel="gaussian", gamma=0.3), X, y, cv=cv,
                                    path={"alpha": ALPHAS}, structure=s)
    assert fitted is not None                               # one fit on all rows
    for part in h.parts:
        H = part.rows
        for k, a in enumerate(ALPHAS):
            if part.rows.size == 30:                        # leave-one-out: one part
                for i in (0, 17):
                    T = np.setdiff1d(np.arange(30), [i])
                    ref = RLS(alpha=a, kernel="gaussian", gamma=0.3).fit(X[T], y[T])
                    assert part.predictions[k, i] == pytest.approx(
                        ref.predict(X[[i]])[0], rel=1e-8, abs=1e-10)
                continue
            T = np.setdiff1d(np.arange(30), H)
            ref = RLS(alpha=a, kernel="gaussian", gamma=0.3).fit(X[T], y[T]).predict(X[H])
            np.testing.assert_allclose(part.predictions[k], ref, rtol=1e-8, atol=1e-10)
        np.testing.assert_array_equal(part.y, y[H])


def test_leave_pair_out_through_select_is_its_error_of_retrained_pairs(rng):
    X, _ = _problem(rng, m=16)
    y = (X[:, 0] > 0).astype(float)
    sel = select(GlobalRankRLS(kernel="gaussian", gamma=0.5), X, y, cv="lpo",
                 search={"alpha": ALPHAS})
    pairs = LeavePairOut().split(16, RowStructure(y_eval=y))
    assert sel.greater_is_better is False
    for k, a in enumerate(ALPHAS):
        correct = 0.0
        for i, j in pairs:
            T = np.setdiff1d(np.arange(16), [i, j])
            p = GlobalRankRLS(alpha=a, kernel="gaussian", gamma=0.5).fit(X[T], y[T]) \
                .predict(X[[i, j]])
            correct += 1.0 if p[0] > p[1] else 0.5 if p[0] == p[1] else 0.0
        assert sel.scores[k] == pytest.approx(1.0 - correct / len(pairs), abs=1e-12)
    with pytest.raises(InvalidParameterError, match="scoring=None"):
        select(GlobalRankRLS(), X, y, cv="lpo", search={"alpha": ALPHAS}, scoring="auc")
    with pytest.raises(InvalidParameterError, match="scoring"):
        select(GlobalRankRLS(), X, y, cv="loo", search={"alpha": ALPHAS})


def test_lpo_cv_estimator_predicts_with_the_chosen_alpha(rng):
    """The CV estimator's best_estimator_ is fitted at alpha_ under leave-pair-out too (not
    the path model fitted at the largest λ, whichever λ won)."""
    X = rng.normal(size=(60, 5))
    y = (X[:, 0] + 0.1 * rng.normal(size=60) > 0).astype(float)
    cv = GlobalRankRLSCV(alphas=[1e-2, 1.0, 1e2, 1e4], cv="lpo").fit(X, y)
    assert cv.best_estimator_.alpha == cv.alpha_
    ref = GlobalRankRLS(alpha=cv.alpha_).fit(X, y)
    np.testing.assert_allclose(cv.predict(X[:5]), ref.predict(X[:5]), rtol=1e-10)


# ---------------------------------------------------------------------------- protocol
def test_learners_declare_the_protocol():
    for est in (RLS(), GlobalRankRLS(), QueryRankRLS(), ReducedSetRLS(), TransferRLS()):
        assert isinstance(est, PathLearner) and isinstance(est, HoldoutMixin)
        assert all(supports(est, m) for m in ("leave_one_out", "holdout_sets",
                                              "leave_pair_out", "predict_path"))
    assert path_parameters(RLS()) == ("alpha",)
    assert path_parameters(TransferRLS()) == ("alpha", "beta")
    assert not supports(CoRLS(), "holdout_sets") and supports(CoRLS(), "predict_path")
    with pytest.raises(ValueError):
        supports(RLS(), "predict")                          # not a method of the protocol


def test_holdout_is_defined_once(rng):
    """``holdout`` lives in HoldoutMixin only, and equals the first of ``holdout_sets``."""
    owners = {cls for est in (RLS, GlobalRankRLS, QueryRankRLS, ReducedSetRLS, TransferRLS)
              for cls in est.__mro__ if "holdout" in vars(cls)}
    assert owners == {HoldoutMixin}
    X, y = _problem(rng)
    g = rng.normal(size=30)
    for model, kw in ((RLS(kernel="gaussian").fit(X, y), {}),
                      (ReducedSetRLS(n_basis=10, random_state=0).fit(X, y), {}),
                      (TransferRLS().fit(X, y, prior=g), {"betas": [0.0, 0.5]})):
        H = np.array([3, 7, 11])
        np.testing.assert_array_equal(model.holdout(H, alphas=ALPHAS, **kw),
                                      model.holdout_sets([H], alphas=ALPHAS, **kw)[0])
        mask = np.zeros(30, dtype=bool)
        mask[H] = True
        np.testing.assert_array_equal(model.holdout(mask, alphas=ALPHAS, **kw),
                                      model.holdout(H, alphas=ALPHAS, **kw))
        with pytest.raises(InvalidInputError, match="indices"):
            model.holdout([3, 3])


def test_a_learner_lacking_a_holdout_method_gets_a_clear_error(rng):
    X, y = _problem(rng)
    views = [X, X[:, ::-1]]
    with pytest.raises(InvalidParameterError, match=r"CoRLS has no leave_pair_out\(\)"):
        select(CoRLS(), views, (y > 0).astype(float), cv="lpo", search={"alpha": [1.0]})
    with pytest.raises(InvalidParameterError, match=r"CoRLS has no holdout_sets\(\)"):
        holdout_predictions(CoRLS(), views, y, cv=KFold(3), path={"alpha": [1.0]},
                            method="closed_form")
    with pytest.raises(InvalidParameterError, match="LeavePairOut has no refit route"):
        select(GlobalRankRLS(), X, (y > 0).astype(float), cv="lpo",
               search=Search({"alpha": [1.0]}, method="refit"))
    # without a closed form the engine refits per set (CoRLS has only predict_path)
    h, fitted = holdout_predictions(CoRLS(), views, y, cv=KFold(3), path={"alpha": [1.0]})
    assert fitted is None and len(h.parts) == 3


# ---------------------------------------------------------------------------- inputs
def test_select_has_at_most_eight_parameters():
    assert len(inspect.signature(select).parameters) <= 8


def test_grouped_inputs():
    assert Search.of({"alpha": [1.0]}) == Search(path={"alpha": [1.0]})
    assert Search(grid={"b": [1, 2], "a": [3]}).grid_points() == [{"a": 3, "b": 1},
                                                                   {"a": 3, "b": 2}]
    with pytest.raises(InvalidParameterError):
        Search(method="fast")
    with pytest.raises(InvalidParameterError):
        Search.of([1.0, 2.0])
    with pytest.raises(InvalidParameterError):
        Scoring("mse", average="median")
    c = Channels(fit={"qids": np.arange(4)}, fixed_fit={"U": "u"},
                 predict={"prior": np.arange(4.0)})
    assert c.fit_kwargs(np.array([1, 3]))["qids"].tolist() == [1, 3]
    assert c.fit_kwargs()["U"] == "u" and c.predict_kwargs(None) == {}
    assert c.take(np.array([0, 2])).predict["prior"].tolist() == [0.0, 2.0]


def test_selection_and_parts_have_named_fields(rng):
    X, y = _problem(rng)
    sel = select(RLS(), X, y, cv=KFold(3), search={"alpha": ALPHAS}, scoring="mse")
    assert isinstance(sel, Selection) and sel.best_params["alpha"] in ALPHAS
    part = sel.holdout.parts[0]
    assert isinstance(part, HoldoutPart)
    assert part.predictions.shape == (ALPHAS.size, part.rows.size)
    np.testing.assert_array_equal(part.y, y[part.rows])
    assert issubclass(ValidationSet, Splitter)
