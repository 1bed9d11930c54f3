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


def test_an_unwritable_cache_folder_is_one_warning_naming_what_moves_it(tmp_path, caplog,
                                                                         monkeypatch):
    """A data folder the user cannot write (simulated: the tests run as root, so mkstemp is
    made to refuse as it would refuse another user): the fit is returned, one warning names
    the cache folder, --data-dir / $KERNELRANK_DATA and the switch — not the temporary file
    the refusal names — and the next fit goes on the same way."""
    import errno
    import logging
    import tempfile

    monkeypatch.delenv(DISABLE_ENV_VAR, raising=False)
    corpus = tmp_path / "c.xml"
    corpus.write_text("corpus one")

    def refuse(prefix="", suffix="", dir=None):
        raise PermissionError(errno.EACCES, "Permission denied", f"{dir}/{prefix}x1y2.tmp")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    fits = []

    def fit():
        fits.append(1)
        return 0.5, np.array([1]), np.array([2.0])

    with caplog.at_level(logging.WARNING):
        for name in ("LLL", "HPRD50"):
            alpha, rows, coef = source_fit(name, corpus, _data(), {"seed": 0}, fit, tmp_path)
            assert alpha == 0.5 and rows.tolist() == [1] and coef.tolist() == [2.0]
    assert len(fits) == 2
    (message,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert message.startswith(f"source model cache folder {cache_dir(tmp_path)} not writable "
                              "(Permission denied): going on without it; set --data-dir or "
                              "$KERNELRANK_DATA")
    assert DISABLE_ENV_VAR in message and ".tmp" not in message
