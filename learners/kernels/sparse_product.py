"""The product of two sparse matrices whose result is dense.

``A @ B`` of two ``scipy.sparse`` matrices is computed by SciPy as a sparse matrix: a
symbolic pass counts the result's non-zeros, a numeric pass fills them, and the caller then
turns the result into an array.  When the result is dense anyway — the inner products of a
batch of new feature rows with the r basis rows of a kernel model, ``X @ Bᵀ``, where every
row shares frequent features with most basis rows — both passes and the m × r index array
are wasted.  :func:`sparse_dense_product` accumulates each row of the result straight into
a dense output (Gustavson's row-by-row algorithm with a dense accumulator: F. G.
Gustavson, "Two fast algorithms for sparse matrices: multiplication and permuted
transposition", ACM TOMS 4(3), 1978).

Cost: O(flops + m r) time, flops = Σ over the non-zeros A[i, k] of nnz(B[k, :]) — SciPy's
numeric pass alone — and O(m r) memory for the result (no index arrays).
:func:`add_sparse_product` accumulates into a caller's array (a row block of a Gram
matrix, :func:`learners.kernels.sparse_gram.gram_matrix`), its rows optionally spread over the
cores (each row of the result is written by one thread: no synchronization, and the same
sums in the same order as the serial loop).
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError

__all__ = ["sparse_dense_product", "add_sparse_product"]


@numba.njit(cache=True, nogil=True)
def _row_times_rows(i, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out):
    """``out[i] += Σ_k A[i, k] B[k, :]`` for one row i (CSR arrays)."""
    row = out[i]
    for p in range(a_ptr[i], a_ptr[i + 1]):
        k = a_idx[p]
        x = a_val[p]
        for q in range(b_ptr[k], b_ptr[k + 1]):
            row[b_idx[q]] += x * b_val[q]


@numba.njit(cache=True, nogil=True)
def _rows_times_rows(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out):
    """``out += A B`` over CSR arrays (out m × r), one row after another."""
    for i in range(len(a_ptr) - 1):
        _row_times_rows(i, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out)


@numba.njit(cache=True, nogil=True, parallel=True)
def _rows_times_rows_parallel(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out):
    """:func:`_rows_times_rows` with the rows of ``out`` spread over numba's threads."""
    for i in numba.prange(len(a_ptr) - 1):
        _row_times_rows(i, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out)


def add_sparse_product(out, A, B, *, parallel=False):
    """``out += A @ B`` in place, for sparse ``A`` (m × k) and ``B`` (k × r).

    Parameters
    ----------
    out : ndarray (m, r), C-contiguous, float64 or float32
    A, B : scipy.sparse matrices (any format; converted to CSR) or, for ``A``, an array
    parallel : bool
        Spread the rows of ``out`` over numba's threads (``NUMBA_NUM_THREADS``).

    Returns
    -------
    out

    Raises
    ------
    InvalidParameterError
        The shapes do not fit, or ``out`` is not a C-contiguous array.
    """
    A = sp.csr_matrix(A, dtype=np.float64)
    B = sp.csr_matrix(B, dtype=np.float64)
    if A.shape[1] != B.shape[0]:
        raise InvalidParameterError(f"sparse product: A is {A.shape[0]} × {A.shape[1]}, "
                                    f"B is {B.shape[0]} × {B.shape[1]}; A's columns must be "
                                    "B's rows")
    if out.shape != (A.shape[0], B.shape[1]) or not out.flags.c_contiguous:
        raise InvalidParameterError(f"sparse product: out must be a C-contiguous array of "
                                    f"shape {(A.shape[0], B.shape[1])}, got {out.shape}")
    if A.nnz and B.nnz:
        kernel = _rows_times_rows_parallel if parallel else _rows_times_rows
        kernel(A.indptr, A.indices, A.data, B.indptr, B.indices, B.data, out)
    return out


def sparse_dense_product(A, B):
    """``A @ B`` as a dense float64 array, for sparse ``A`` (m × k) and ``B`` (k × r).

    Parameters
    ----------
    A, B : scipy.sparse matrices (any format; converted to CSR) or, for ``A``, an array

    Returns
    -------
    ndarray (m, r)
        Equal to ``(A @ B).toarray()`` up to the order of the floating-point sums (each
        entry sums the same products, in the order of ``A``'s columns).

    Raises
    ------
    InvalidParameterError
        The inner dimensions differ.
    """
    return add_sparse_product(np.zeros((A.shape[0], B.shape[1])), A, B)
