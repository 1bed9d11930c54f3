"""ppi.learning.source_cache: a hit returns what the fit returned; any change of the key, a damaged
file or the switch refits."""

import numpy as np

from ppi.representation.features import PairSet
from ppi.learning.source_cache import DISABLE_ENV_VAR, cache_dir, source_fit


def _data(n=5):
    X = np.eye(n)
    return PairSet("s", X, np.ones(n), np.array([f"p{i}" for i in range(n)], dtype=object),
                   None, None)


def test_cache_hit_miss_and_damage(tmp_path, monkeypatch):
    monkeypatch.delenv(DISABLE_ENV_VAR, raising=False)
    corpus = tmp_path / "c.xml"
    corpus.write_text("corpus one")
    calls = []

    def fit(value=1.0):
        calls.append(value)
        return value, np.array([0, 2]), np.array([0.5, -1.5])

    settings = {"seed": 0}
    a = source_fit("LLL", corpus, _data(), settings, fit, tmp_path)
    b = source_fit("LLL", corpus, _data(), settings, fit, tmp_path)
    assert len(calls) == 1 and a[0] == b[0] == 1.0
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    # another seed, another corpus content, other kept pairs: refit
    source_fit("LLL", corpus, _data(), {"seed": 1}, fit, tmp_path)
    corpus.write_text("corpus two")
    source_fit("LLL", corpus, _data(), settings, fit, tmp_path)
    source_fit("LLL", corpus, _data(4), settings, fit, tmp_path)
    assert len(calls) == 4
    # a damaged file is refitted and replaced
    assert len(list(cache_dir(tmp_path).iterdir())) == 4
    for p in cache_dir(tmp_path).iterdir():
        p.write_bytes(b"not an npz")
    source_fit("LLL", corpus, _data(4), settings, fit, tmp_path)
    assert len(calls) == 5
    monkeypatch.setenv(DISABLE_ENV_VAR, "1")
    source_fit("LLL", corpus, _data(4), settings, fit, tmp_path)
    assert len(calls) == 6
