"""``X Xᵀ`` of a large dense matrix without BLAS's SYRK (:func:`learners.kernels.sparse_gram.
dense_gram`): NumPy sends ``A @ A.T`` to SYRK, whose threaded OpenBLAS kernel kills the
process on large matrices (numpy/numpy#19685) — the Gram matrices of the kernels and of
:func:`~learners.kernels.sparse_gram.gram_matrix` take the GEMM path above
``SYRK_MAX_ROWS`` rows, with the same values."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import learners.kernels.sparse_gram as sparse_gram
from learners.kernels.vector import kernel_matrix


@pytest.fixture
def few_rows_for_syrk(monkeypatch):
    monkeypatch.setattr(sparse_gram, "SYRK_MAX_ROWS", 5)      # read by gemm_operand


def _explicit(A, B):
    return np.array([[float(np.dot(a, b)) for b in B] for a in A])


def test_the_gemm_path_gives_the_gram_matrix(rng, few_rows_for_syrk):
    X = rng.normal(size=(30, 7))
    np.testing.assert_allclose(sparse_gram.dense_gram(X, X), _explicit(X, X), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(kernel_matrix(X, X, "linear"), _explicit(X, X), rtol=1e-12,
                               atol=1e-12)
    sq = np.sum(X ** 2, axis=1)
    G = np.exp(-0.3 * (sq[:, None] + sq[None, :] - 2 * _explicit(X, X)))
    np.testing.assert_allclose(kernel_matrix(X, X, "gaussian", gamma=0.3), G, rtol=1e-10,
                               atol=1e-12)
    S = sp.random(30, 40, density=0.5, random_state=1, format="csr")
    D = S.toarray()
    np.testing.assert_allclose(sparse_gram.gram_matrix(S), _explicit(D, D), rtol=1e-12,
                               atol=1e-12)                    # every column dense
    np.testing.assert_allclose(sparse_gram.gram_matrix(S, dense_columns=10), _explicit(D, D),
                               rtol=1e-12, atol=1e-12)        # dense and sparse parts


@pytest.mark.slow
def test_a_gram_matrix_of_20000_dense_rows_does_not_crash_the_process():
    """In a child process (a segmentation fault would end it, not the test run): the Gram
    matrix of 20,000 rows of 200 stored features, whose dense ``A @ A.T`` crashed NumPy
    2.4's OpenBLAS on 2 threads (it did, before :func:`dense_gram`)."""
    code = ("import numpy as np\n"
            "import scipy.sparse as sp\n"
            "from learners.kernels.sparse_gram import gram_matrix\n"
            "A = np.random.default_rng(0).standard_normal((20000, 200))\n"
            "K = gram_matrix(sp.csr_matrix(A))\n"
            "i, j = 19999, 123\n"
            "assert abs(K[i, j] - float(A[i] @ A[j])) <= 1e-9 * (1 + abs(K[i, j]))\n"
            "assert abs(K[j, i] - K[i, j]) <= 1e-9 * (1 + abs(K[i, j]))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
