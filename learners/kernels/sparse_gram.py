"""The dense Gram matrix ``X Zᵀ`` of sparse feature rows, by a cost model of where each column
is cheapest.

The explicit feature maps of this project (all-paths graphs, locality and string kernels of
``ppi``, ``parse_ranking`` and ``homology``) give sparse rows whose Gram matrix is dense: a
few features occur in most rows, a long tail in a few. :func:`gram_matrix` splits the
columns between one dense BLAS product (the frequent ones) and a sparse product accumulated
straight into the result (:func:`learners.kernels.sparse_product.add_sparse_product`, the
tail), choosing the split by a measured cost model (see the function); the sum is exact.
Used by :class:`learners.kernels.base.FeatureMapKernel` (``Φ Φᵀ``), the linear and
Gaussian vector kernels on sparse input (:mod:`learners.kernels.vector`) and the
applications' precomputed kernels.

Cost: the dense part O(n_X n_Z d_dense) multiply-adds, the sparse part about
``Σ_f df_X(f) df_Z(f)`` scattered ones, plus one gather of every stored value when the
columns are split; memory the n_X × n_Z result plus at most ``max_dense_bytes`` of dense
copies.
"""

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidInputError

__all__ = ["gram_matrix", "dense_gram", "gemm_operand", "SPARSE_BLOCK", "SYRK_MAX_ROWS"]


#: Above this many rows, :func:`dense_gram` never lets NumPy send ``A @ A.T`` to SYRK.
SYRK_MAX_ROWS = 8192


def dense_gram(A, B):
    """``A @ B.T`` of two dense arrays, by GEMM also when ``B`` is ``A`` and large.

    NumPy computes ``A @ A.T`` (the same buffer on both sides) by BLAS's SYRK, and the
    threaded SYRK of the OpenBLAS in NumPy's wheels kills the process with a segmentation
    fault on large matrices (numpy/numpy#19685, OpenMathLib/OpenBLAS#2821; with NumPy 2.4
    from 20,000 × 200 on, not at 16,000 × 200).  Above
    :data:`SYRK_MAX_ROWS` rows the right operand is copied first, so the product takes the
    GEMM path: twice SYRK's multiply-adds and one more copy of ``B`` (n × d), and the
    same result up to round-off.
    """
    return A @ gemm_operand(A, B).T


def gemm_operand(A, B):
    """``B``, or a copy of it when ``A @ B.T`` would go to SYRK on more than
    :data:`SYRK_MAX_ROWS` rows (:func:`dense_gram`)."""
    return B.copy() if B.shape[0] > SYRK_MAX_ROWS and np.may_share_memory(A, B) else B


def gram_matrix(X, Z=None, *, dense_columns=None, max_dense_bytes=2**28, dtype=np.float64):
    """Dense linear kernel ``X Zᵀ`` of two sparse feature matrices (``Z = X`` if None).

    Cost model, in dense multiply-adds (measured on the all-paths, locality and string-kernel
    features of ``ppi``, ``parse_ranking`` and ``homology``): a column f costs n_X·n_Z in
    a dense BLAS product and about 100·df_X(f)·df_Z(f) in a sparse product (scattered
    memory access); splitting the columns between the two costs a gather of every stored
    value, about 3000 each.  So the columns with ``100 df_X df_Z ≥ n_X n_Z`` (the few label
    pairs present in most graphs) go through one dense product, within ``max_dense_bytes``
    of dense copies, and the long tail through the sparse one — or every used column goes
    dense when that is cheaper than the split (nearly all columns of a locality kernel over
    amino acids).  The sum is exact.  ``dense_columns``: force that many columns of highest
    document frequency into the dense part instead.
    """
    X = sp.csr_matrix(X)
    same = Z is None
    Z = X if same else sp.csr_matrix(Z)
    if X.shape[1] != Z.shape[1]:
        raise InvalidInputError(f"feature matrices have {X.shape[1]} and {Z.shape[1]} columns")
    df_x = np.bincount(X.indices, minlength=X.shape[1])
    df_z = df_x if same else np.bincount(Z.indices, minlength=Z.shape[1])
    df = df_x if same else df_x + df_z
    used = np.count_nonzero(df)
    if dense_columns is None:
        n2 = float(X.shape[0]) * Z.shape[0]
        budget = max_dense_bytes // (8 * max(X.shape[0] + (0 if same else Z.shape[0]), 1))
        pair_df = df_x.astype(np.float64) * df_z
        cheap = 100 * pair_df >= n2
        dense_columns = min(np.count_nonzero(cheap), budget)
        split = dense_columns * n2 + 100 * pair_df[~cheap].sum() \
            + (3000 * (X.nnz + Z.nnz) if 0 < dense_columns < used else 0)
        if used <= budget and used * n2 <= split:
            dense_columns = used
    dense = np.zeros(X.shape[1], bool)
    dense[np.argsort(-df, kind="stable")[:dense_columns]] = True
    dense &= df > 0
    n_dense = np.count_nonzero(dense)
    if n_dense == 0:
        return _add_sparse_product(np.zeros((X.shape[0], Z.shape[0]), dtype), X, Z.T.tocsr())
    if n_dense == used:                              # every used column: one dense product
        Xd = X.toarray().astype(dtype, copy=False)
        return dense_gram(Xd, Xd if same else Z.toarray().astype(dtype, copy=False))
    dense_cols, sparse_cols = np.flatnonzero(dense), np.flatnonzero(~dense)
    # the sparse part's transposed Z first, while nothing else is large; X's sparse
    # columns are then cut one row block at a time (never a second copy of X)
    Zt = Z[:, sparse_cols].T.tocsr()
    Xd = X[:, dense_cols].toarray().astype(dtype, copy=False)
    Zd = Xd if same else Z[:, dense_cols].toarray().astype(dtype, copy=False)
    K = dense_gram(Xd, Zd)
    del Xd, Zd
    return _add_sparse_product(K, X, Zt, columns=sparse_cols)


#: Rows per block of the sparse product in :func:`gram_matrix`: X's sparse columns are cut
#: one block of rows at a time (never a second copy of X).
SPARSE_BLOCK = 1024


def _add_sparse_product(K, X, Zt, columns=None):
    """``K += X[:, columns] Zt`` for sparse ``X`` and ``Zt`` (a transposed Z in CSR), one
    block of rows of ``X`` at a time (``columns`` None: all of X's columns), accumulated
    straight into K's rows on all cores (:func:`learners.kernels.sparse_product.
    add_sparse_product`: no sparse intermediate, no symbolic pass; its effect on BioInfer's
    all-view Gram matrix: docs/results/ppi.md, "Time and memory of the benchmark")."""
    from learners.kernels.sparse_product import add_sparse_product

    for start in range(0, X.shape[0], SPARSE_BLOCK):
        stop = min(start + SPARSE_BLOCK, X.shape[0])
        block = X[start:stop] if columns is None else X[start:stop][:, columns]
        add_sparse_product(K[start:stop], block, Zt, parallel=True)
    return K
