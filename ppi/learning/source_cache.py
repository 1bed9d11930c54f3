"""A cache of the transfer's source models (:mod:`ppi.learning.transfer`): each benchmark corpus' fitted
model, kept in ``<data dir>/cache/ppi-sources`` so that a run with transfer does not retrain
BioInfer and the others every time.

What is cached is what does not depend on the run's joint vocabulary: the chosen λ, the rows
of the source corpus the model is expanded over (all, or a reduced-set model's basis) and
their dual coefficients.  The run re-featurizes the source corpus in its own vocabulary (one
pass over the corpus, seconds) and forms the model's weights ``w = X[rows]ᵀ c`` there — the
same vector a fresh fit gives (the selection sees only the kernel between source rows, which
a joint vocabulary does not change: rows are normalized by their full-space norm).

The key (a SHA-256 of canonical JSON) covers the corpus file's SHA-256, the rows kept by
the leak guard (their pair ids), the system's views, graph settings and spaCy model and
version, the learner, basis size, seed, λ grid and criterion, and the cache format.  A stale,
unreadable or damaged file is recomputed and overwritten (written atomically); a folder that
cannot be written is one warning, and the run goes on without the cache; ``$KERNELRANK_
NO_SOURCE_CACHE=1`` turns the cache off.  Cost on a hit: reading one small ``.npz``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import numpy as np

from kernelrank.atomic import read_cache_file, write_cache_file

__all__ = ["source_fit", "cache_dir"]

log = logging.getLogger(__name__)

_FORMAT = 1
#: the environment variable that turns the cache off
DISABLE_ENV_VAR = "KERNELRANK_NO_SOURCE_CACHE"


def cache_dir(data_dir=None):
    """``<data dir>/cache/ppi-sources`` (:func:`kernelrank.datadir.resolve_data_dir`)."""
    from kernelrank.datadir import resolve_data_dir

    return Path(resolve_data_dir(data_dir)) / "cache" / "ppi-sources"


def _key(name, corpus_file, data, settings):
    from kernelrank.checksum import file_sha256

    kept = hashlib.sha256("\n".join(map(str, data.pair_ids)).encode("utf-8")).hexdigest()
    key = {"format": _FORMAT, "source": name, "file_sha256": file_sha256(corpus_file),
           "kept_pairs": kept, **settings}
    return key, hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


def _load(path):
    with np.load(path, allow_pickle=False) as z:
        return (json.loads(str(z["key"])), float(z["alpha"]), z["rows"].astype(np.int64),
                z["coef"].astype(float))


#: what moves the cache (it lives in the data folder), for the warning of an unwritable one
MOVED_BY = (f"--data-dir or $KERNELRANK_DATA (the data folder holding it; ${DISABLE_ENV_VAR}=1 "
            "turns it off)")


def source_fit(name, corpus_file, data, settings, fit, data_dir=None):
    """``(alpha, rows, coef)`` of the source model of corpus ``name`` (its featurized pairs
    ``data``, a :class:`ppi.representation.features.PairSet`): from the cache when the key matches, else
    ``fit()`` — which returns the same triple — and stored.  ``settings``: a JSON-able dict
    of everything the fit depends on besides the corpus (module docstring).  The cache is an
    optimisation: a damaged file is a warning and refitted, a folder that cannot be written
    one warning naming it (:func:`kernelrank.atomic.write_cache_file`), and the run goes
    on."""
    if os.environ.get(DISABLE_ENV_VAR):
        return fit()
    key, digest = _key(name, corpus_file, data, settings)
    path = cache_dir(data_dir) / f"{name}-{digest}.npz"
    hit = read_cache_file(path, _load, what="source model cache")
    if hit is not None and hit[0] == key:
        log.info("source model %s read from %s", name, path)
        return hit[1:]
    alpha, rows, coef = fit()

    def write(fh):
        np.savez(fh, key=np.array(json.dumps(key, sort_keys=True)), alpha=np.array(alpha),
                 rows=np.asarray(rows, dtype=np.int64), coef=np.asarray(coef, dtype=float))

    if write_cache_file(path, write, what="source model cache", moved_by=MOVED_BY):
        log.info("source model %s cached in %s", name, path)
    return alpha, rows, coef
