"""The machinery every kernel learner shares: kernel handling and the shape of its outputs.

:class:`KernelLearnerMixin` gives RLS, the RankRLS learners (:mod:`learners.rankrls`),
:class:`~learners.l2svm.L2SVM`, :class:`~learners.kpcrank.KPCRank` and the reduced-set
learners (:mod:`learners.reduced_set`) one way to resolve their kernel hyper-parameters
(:func:`learners.kernels.resolve_kernel`), validate training and prediction data, store
primal or dual coefficients and score new rows (``k(X, X_fit) a`` or ``X w``), and the
scikit-learn tags of a kernel learner (``pairwise`` for ``kernel="precomputed"``, sparse
input, several outputs). :func:`shape_output` gives every λ path and hold-out method its
output shape: the λ axis dropped when one alpha was asked for, the output axis for 1-D
targets.

Cost: scoring n new rows is one n x m kernel block times the dual coefficients (n m kernel
evaluations + O(n m t)), or O(nnz(X) t) in the primal.
"""

from sklearn.utils.validation import check_is_fitted

from learners._solvers import dense
from learners._validation import validate_data
from learners.base import validate_hyperparameters
from learners.kernels import kernel_matrix, resolve_kernel

__all__ = ["KernelLearnerMixin", "KernelTagsMixin", "shape_output"]


def shape_output(out, single_alpha, was_1d):
    """Drop the λ axis when one alpha was used and the output axis for 1-D targets."""
    if was_1d:
        out = out[..., 0]
    if single_alpha:
        out = out[0]
    return out


class KernelTagsMixin:
    """The scikit-learn tags of a learner on a ``kernel`` hyper-parameter: ``pairwise`` when
    ``kernel="precomputed"`` (cross-validation then slices the kernel matrix on both axes),
    sparse input accepted, several outputs."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        return tags


class KernelLearnerMixin(KernelTagsMixin):
    """Kernel handling shared by RLS and the RankRLS learners (not public)."""

    def _set_primal(self, W):
        self._W = W
        self.coef_ = W[:, 0] if self._was_1d else W.T.copy()
        self.__dict__.pop("dual_coef_", None)

    def _set_dual(self, a):
        self._a = a
        self.dual_coef_ = a[:, 0] if self._was_1d else a
        self.__dict__.pop("coef_", None)

    def _scores(self, X):
        """``k(X, X_fit) a`` (dual) or ``X w`` (primal), shaped like the training targets."""
        X = self._validate_predict(X)
        if self.solver_ == "primal":
            P = dense(X @ self._W)
        else:
            P = self._kernel(X, self.X_fit_) @ self._a
        return P[:, 0] if self._was_1d else P

    def _resolve_kernel(self):
        return resolve_kernel(self.kernel, gamma=self.gamma, degree=self.degree,
                              coef0=self.coef0, kernel_params=self.kernel_params)

    def _kernel(self, X, Z):
        name, params = self.kernel_spec_
        return kernel_matrix(X, Z, name, **params)

    def _train_kernel(self):
        """The training kernel matrix (recomputed from ``X_fit_``; free when precomputed)."""
        return self._kernel(self.X_fit_, self.X_fit_)

    def _kernel_is_fresh(self):
        """True when :meth:`_train_kernel` returns a new array that may be overwritten (the
        built-in kernels); a precomputed or callable kernel may share the caller's memory."""
        name = self.kernel_spec_[0]
        return isinstance(name, str) and name != "precomputed"

    def _validate_fit(self, X, y, y_numeric=True):
        validate_hyperparameters(self)
        spec = self._resolve_kernel()
        X, y = validate_data(self, X, y, precomputed=spec[0] == "precomputed",
                             y_numeric=y_numeric)
        return spec, X, y

    def _validate_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False)
