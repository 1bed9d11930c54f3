"""learners/kernels/sparse_product.py: the sparse × sparse product into a dense result equals
SciPy's sparse product made dense, on random matrices of every shape that can occur (empty
rows and columns, no non-zeros, one row, heavy rows of B, other sparse formats, unsorted and
duplicate indices), and refuses mismatched shapes."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.kernels.sparse_product import add_sparse_product, sparse_dense_product


@pytest.mark.parametrize("m,k,r,da,db", [(50, 300, 40, 0.05, 0.05), (1, 10, 3, 0.5, 0.5),
                                         (30, 200, 60, 0.0, 0.1), (30, 200, 60, 0.1, 0.0),
                                         (80, 500, 25, 0.01, 0.3), (0, 5, 4, 0.3, 0.3),
                                         (6, 0, 4, 0.0, 0.0)])
def test_equals_scipys_product_made_dense(rng, m, k, r, da, db):
    A = sp.random(m, k, density=da, random_state=rng, format="csr")
    B = sp.random(k, r, density=db, random_state=rng, format="csr")
    if k:
        B = sp.vstack([B[:-1], sp.csr_matrix(np.ones((1, r)))], format="csr")  # a heavy row
    got = sparse_dense_product(A, B)
    assert got.shape == (m, r) and got.dtype == np.float64
    np.testing.assert_allclose(got, (A @ B).toarray(), rtol=1e-13, atol=1e-15)


def test_other_formats_and_unsorted_duplicate_indices(rng):
    A = sp.random(20, 60, density=0.2, random_state=rng, format="coo")
    B = sp.random(60, 15, density=0.2, random_state=rng, format="csc")
    want = (A.tocsr() @ B.tocsr()).toarray()
    np.testing.assert_allclose(sparse_dense_product(A, B), want, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(sparse_dense_product(A.toarray(), B), want, rtol=1e-13,
                               atol=1e-15)
    # CSR with unsorted and repeated column indices in a row: entries add up
    dup = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([5, 1, 5]), np.array([0, 3])),
                        shape=(1, 60))
    np.testing.assert_allclose(sparse_dense_product(dup, B),
                               (4.0 * B[5] + 2.0 * B[1]).toarray(), rtol=1e-13, atol=1e-15)


def test_mismatched_shapes_are_refused():
    with pytest.raises(InvalidParameterError, match="A's columns must be B's rows"):
        sparse_dense_product(sp.csr_matrix((3, 4)), sp.csr_matrix((5, 2)))


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.slow
def test_add_sparse_product_accumulates_into_the_callers_rows(rng, parallel, dtype):
    """``out += A @ B`` in place, serial or on all cores, into a row block of a larger
    array (how gram_matrix uses it): the rows outside the block are untouched."""
    A = sp.random(40, 300, density=0.05, random_state=rng, format="csr")
    B = sp.random(300, 25, density=0.1, random_state=rng, format="csr")
    base = rng.standard_normal((60, 25)).astype(dtype)
    out = base.copy()
    add_sparse_product(out[10:50], A, B, parallel=parallel)
    want = base.astype(np.float64)
    want[10:50] += (A @ B).toarray()
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
    np.testing.assert_array_equal(out[:10], base[:10])
    with pytest.raises(InvalidParameterError, match="C-contiguous"):
        add_sparse_product(out[:, :5][:3], A[:3], B[:, :5])
