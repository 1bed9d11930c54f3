"""The mention-pair stage of the documents system on the reduced-set route: its input is the
sparse rows themselves (no m × m matrix), and its leave-one-document-out path over (λ, β) is
the model retrained without each document — checked against explicit retraining."""

import numpy as np
import pytest
import scipy.sparse as sp

from learners.selection import Channels, holdout_predictions
from learners.splits import group_sets
from learners.transfer import TransferReducedSetRLS
from ppi.documents.mention_stage import mention_learner_input
from ppi.learning.evaluation import ppi_learner


def _data(seed=0, m=120, d=400, docs=15):
    rs = np.random.default_rng(seed)
    X = sp.random(m, d, density=0.05, format="csr", random_state=seed,
                  data_rvs=lambda k: rs.random(k))
    X = sp.csr_matrix(X + sp.eye(m, d, format="csr"))      # no empty row
    y = np.where(rs.random(m) < 0.3, 1.0, -1.0)
    prior = rs.normal(size=m)
    doc = rs.integers(0, docs, size=m)
    return X, y, prior, doc


def test_reduced_set_input_is_the_sparse_rows_at_any_size():
    X, *_ = _data()
    assert mention_learner_input(X, "reduced_set", 30) is X
    K = mention_learner_input(X, "rls", 30)
    assert K.shape == (X.shape[0], X.shape[0])
    np.testing.assert_allclose(K, (X @ X.T).toarray())


@pytest.mark.parametrize("seed", [0, 1])
def test_leave_one_document_out_path_equals_explicit_retraining(seed):
    """Every document's held-out scores, for λ over eight decades and β in [0, 1], equal those
    of the transfer reduced-set RLS retrained on the other documents with the remaining basis
    rows (the held-out document's basis rows removed)."""
    X, y, prior, doc = _data(seed)
    alphas = np.array([1e-4, 1e-2, 1.0, 1e2, 1e4])
    betas = np.array([0.0, 0.5, 1.0])
    est = ppi_learner("reduced_set", 40, seed, len(y), "linear", transfer=True)
    assert isinstance(est, TransferReducedSetRLS)
    sets = group_sets(doc)
    h, fitted = holdout_predictions(est, mention_learner_input(X, "reduced_set", 40), y,
                                    cv=sets, path={"alpha": alphas, "beta": betas},
                                    channels=Channels(fit={"prior": prior}))
    P = h.snapped().in_row_order(len(y))                    # (candidates, m)
    basis = fitted.basis_indices_
    for U in sets:
        train = np.setdiff1d(np.arange(len(y)), U)
        keep = np.flatnonzero(np.isin(train, basis))         # remaining basis, in train rows
        for a in alphas:
            for b in betas:
                ref = TransferReducedSetRLS(alpha=a, beta=b, kernel="linear",
                                            basis_indices=keep)
                ref.fit(X[train], y[train], prior=prior[train])
                want = ref.predict(X[U], prior=prior[U])
                k = [i for i, c in enumerate(h.candidates)
                     if c["alpha"] == a and c["beta"] == b]
                assert len(k) == 1
                np.testing.assert_allclose(P[k[0]][U], want, rtol=1e-8,
                                           atol=1e-8 * np.abs(want).max())
