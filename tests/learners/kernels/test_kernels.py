"""Kernels: values against direct formulas, sparse == dense, and loud failures on typos."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix, resolve_kernel


def _direct(X, Z, name, gamma, degree=3, coef0=1.0):
    out = np.empty((len(X), len(Z)))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            if name == "linear":
                out[i, j] = x @ z
            elif name == "gaussian":
                out[i, j] = np.exp(-gamma * np.sum((x - z) ** 2))
            else:
                out[i, j] = (gamma * (x @ z) + coef0) ** degree
    return out


@pytest.mark.parametrize("name,params", [
    ("linear", {}),
    ("gaussian", {"gamma": 0.3}),
    ("polynomial", {"gamma": 0.5, "degree": 2, "coef0": 2.0}),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_kernel_values_match_definition(rng, name, params, sparse):
    X, Z = rng.normal(size=(7, 4)), rng.normal(size=(5, 4))
    kname, kparams = resolve_kernel(name, **params)
    Xin, Zin = (sp.csr_matrix(X), sp.csr_matrix(Z)) if sparse else (X, Z)
    K = kernel_matrix(Xin, Zin, kname, **kparams)
    expected = _direct(X, Z, name, params.get("gamma"), params.get("degree", 3),
                       params.get("coef0", 1.0))
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-12)


def test_default_gamma_is_one_over_features(rng):
    X = rng.normal(size=(6, 8))
    name, params = resolve_kernel("rbf")
    np.testing.assert_allclose(kernel_matrix(X, X, name, **params),
                               _direct(X, X, "gaussian", 1 / 8), rtol=1e-12)


def test_callable_and_precomputed(rng):
    X = rng.normal(size=(4, 3))
    name, params = resolve_kernel(lambda A, B, scale: scale * A @ B.T, kernel_params={"scale": 2})
    np.testing.assert_allclose(kernel_matrix(X, X, name, **params), 2 * X @ X.T)
    name, params = resolve_kernel("precomputed")
    np.testing.assert_array_equal(kernel_matrix(X @ X.T, None, name), X @ X.T)


@pytest.mark.parametrize("kwargs", [
    {"kernel": "gausian"},                       # misspelled name
    {"kernel": "linear", "gamma": 0.1},          # parameter the kernel ignores
    {"kernel": "linear", "kernel_params": {"c": 1}},
    {"kernel": "gaussian", "gamma": -1.0},
    {"kernel": "polynomial", "degree": 0},
    {"kernel": 3},
])
def test_bad_kernel_specification_raises(kwargs):
    kernel = kwargs.pop("kernel")
    with pytest.raises(InvalidParameterError):
        resolve_kernel(kernel, **kwargs)


def test_feature_count_mismatch(rng):
    with pytest.raises(InvalidInputError, match="features"):
        kernel_matrix(rng.normal(size=(3, 4)), rng.normal(size=(3, 5)), "linear")
