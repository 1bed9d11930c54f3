"""Shared test fixtures: the real data folder (skipped with a reason when absent), seeded RNGs,
broken gzip files."""

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _shared_data_dir():
    env = os.environ.get("KERNELRANK_DATA")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir():
    """The real data folder (``$KERNELRANK_DATA`` or ``../shared/data``); skip if absent."""
    path = _shared_data_dir()
    if not path.is_dir():
        pytest.skip(f"real data folder {path} is absent; set KERNELRANK_DATA or place "
                    "the shared data beside the repository")
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def broken_gzip(tmp_path):
    """``make(payload, kind)``: a gzip file of ``payload`` (bytes) cut in half
    (``kind="truncated"``) or with one byte flipped a third of the way in (``"damaged"``)."""
    def make(payload, kind):
        packed = bytearray(gzip.compress(payload, mtime=0))
        if kind == "truncated":
            packed = packed[:len(packed) // 2]
        else:
            packed[len(packed) // 3] ^= 0xFF
        path = tmp_path / f"{kind}.gz"
        path.write_bytes(bytes(packed))
        return path
    return make
