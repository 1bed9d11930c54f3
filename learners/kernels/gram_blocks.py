"""Gram matrices of expensive pairwise kernels, computed in blocks: in parallel, cached on
disk under a checksum of their inputs, resumable after a kill.

A kernel whose every value is a dynamic programme (the local-alignment kernel:
1.6·10¹¹ cells for the 4,352 SCOP sequences) gives its values block by block, through a
function ``compute_block(rows, cols, upper) -> ndarray`` (see :func:`blockwise_gram`):

* **parallel** — the blocks are tasks of :func:`kernelrank.parallel.map_tasks`: threads of
  this process (the block function releases the GIL), or the workers of a Dask cluster
  (``scheduler``). Blocks are submitted longest first (by an estimated cost), so the cores
  finish together;
* **cached** — with ``cache=BlockCache(directory, key)``, the finished matrix is the file
  ``<directory>/<name>.npy`` with a JSON sidecar ``<name>.json`` holding ``key`` (the
  caller's SHA-256 of everything the values depend on: the objects, the parameters, the
  version of the programme) and the SHA-256 of the ``.npy`` file. A later call with the same
  key reads the file after checking both; a file whose checksum does not match is computed
  again (and said so on the ``learners`` logger);
* **resumable** — while the matrix is computed, each finished block is written atomically to
  ``<name>.parts/`` (as soon as it arrives, :func:`map_tasks`' ``on_result``); a run that is
  killed and started again computes only the missing blocks. One run at a time holds the
  lock ``<name>.npy.lock`` (:func:`kernelrank.lock.output_lock`). The cache is an
  optimisation: a folder that cannot be written is one warning naming it and what moves it
  (:data:`MOVED_BY`), and the matrix is computed without it; a file that cannot be read is
  computed again.

Symmetric matrices (``n_cols=None``) are computed on the blocks on and above the
diagonal only (``upper=True`` on diagonal blocks: values with ``col >= row``) and mirrored.

Cost: the sum of the blocks' costs, spread over the workers; memory one n × m float64
matrix plus the finished blocks (held until the last one arrives).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernelrank.atomic import (
    cache_unwritable,
    dumps_strict,
    read_cache_file,
    write_cache_file,
)
from kernelrank.checksum import file_sha256
from kernelrank.errors import InvalidParameterError
from kernelrank.lock import output_lock
from kernelrank.parallel import map_tasks

__all__ = ["BlockCache", "blockwise_gram", "block_grid", "SERIAL_COST", "DEFAULT_BLOCK"]

log = logging.getLogger("learners")

#: Rows (and columns) per block.
DEFAULT_BLOCK = 256
#: Below this total cost (the caller's units, e.g. DP cells) the blocks run
#: in this thread: starting workers would cost more than it saves.
SERIAL_COST = 2e8
#: What moves a Gram-matrix cache folder (the kernel's ``memory``; the ``homology`` commands
#: keep it in ``<data dir>/cache``), named when it cannot be written.
MOVED_BY = "the kernel's memory= (homology: --data-dir or $KERNELRANK_DATA)"
#: The cache's name in warnings.
WHAT = "Gram-matrix cache"


@dataclass(frozen=True)
class BlockCache:
    """Where a Gram matrix is cached: ``directory / name`` (``.npy``, ``.json``, ``.parts/``)
    and the hex ``key`` its values depend on (the file is used only under the same key);
    ``moved_by``: what moves ``directory``, for the warning when it cannot be written."""

    directory: Path
    name: str
    key: str
    moved_by: str = MOVED_BY

    @property
    def matrix(self):
        return Path(self.directory) / f"{self.name}.npy"

    @property
    def sidecar(self):
        return Path(self.directory) / f"{self.name}.json"

    @property
    def parts(self):
        return Path(self.directory) / f"{self.name}.parts"

    def load(self, shape):
        """The cached matrix if its sidecar has this key, shape and the file's checksum;
        else None (a damaged or unreadable file is logged and computed again)."""
        if not (self.matrix.exists() and self.sidecar.exists()):
            return None
        meta = read_cache_file(self.sidecar, lambda p: json.loads(p.read_text()),
                               what=WHAT) or {}
        if not isinstance(meta, dict) or meta.get("key") != self.key or \
                meta.get("shape") != list(shape):
            return None
        digest = read_cache_file(self.matrix, file_sha256, what=WHAT)
        if digest is None:
            return None
        if digest != meta.get("sha256"):
            log.warning("cached Gram matrix %s does not match its checksum; computing it "
                        "again", self.matrix)
            return None
        return read_cache_file(self.matrix, lambda p: np.load(p, allow_pickle=False),
                               what=WHAT)

    def save(self, K, meta):
        """Write ``K`` and its sidecar (atomically), then remove the blocks; a folder that
        cannot be written is one warning, and ``K`` is returned all the same
        (:func:`kernelrank.atomic.write_cache_file`)."""
        def sidecar(handle):
            handle.write(dumps_strict({"key": self.key, "shape": list(K.shape),
                                       "sha256": file_sha256(self.matrix), **meta},
                                      indent=2) + "\n")

        if self._write(self.matrix, lambda handle: np.save(handle, K, allow_pickle=False)) \
                and self._write(self.sidecar, sidecar, mode="w"):
            shutil.rmtree(self.parts, ignore_errors=True)

    def _write(self, path, write, mode="wb"):
        return write_cache_file(path, write, what=WHAT, moved_by=self.moved_by,
                                folder=self.directory, mode=mode)

    def block_path(self, r, c):
        return self.parts / f"{self.key[:16]}-{r}-{c}.npy"

    def load_block(self, r, c, shape):
        """A finished block of a previous run (None when absent or not of ``shape``)."""
        path = self.block_path(r, c)
        if not path.exists():
            return None
        block = read_cache_file(path, lambda p: np.load(p, allow_pickle=False), what=WHAT)
        if block is None:
            return None
        return block if block.shape == shape and np.isfinite(block).all() else None

    def save_block(self, r, c, block):
        """Keep a finished block for a resumed run (a folder that cannot be written: one
        warning, the run goes on)."""
        self._write(self.block_path(r, c),
                    lambda handle: np.save(handle, block, allow_pickle=False))


def block_grid(n_rows, n_cols=None, block=DEFAULT_BLOCK):
    """The blocks ``(r, c, row_slice, col_slice)`` of an n_rows × n_cols matrix, or of the
    upper triangle (``c >= r``) of a symmetric n_rows × n_rows one (``n_cols=None``)."""
    if block < 1:
        raise InvalidParameterError(f"block must be >= 1, got {block!r}")
    symmetric = n_cols is None
    n_cols = n_rows if symmetric else n_cols
    out = []
    for r, r0 in enumerate(range(0, n_rows, block)):
        for c, c0 in enumerate(range(0, n_cols, block)):
            if symmetric and c < r:
                continue
            out.append((r, c, slice(r0, min(r0 + block, n_rows)),
                        slice(c0, min(c0 + block, n_cols))))
    return out


def blockwise_gram(compute_block, n_rows, n_cols=None, *, row_costs, col_costs=None,
                   block=DEFAULT_BLOCK, n_jobs=None, scheduler=None, cache=None, meta=None,
                   progress=False, desc="Gram blocks"):
    """The n_rows × n_cols matrix (symmetric n_rows × n_rows when ``n_cols`` is None) of
    ``compute_block``.

    Parameters
    ----------
    compute_block : callable ``(rows, cols, upper) -> ndarray (len(rows), len(cols))``
        ``rows``, ``cols`` int64 index arrays; with ``upper`` only the entries with
        ``col >= row`` need be right. Must be picklable for a Dask ``scheduler``.
    row_costs, col_costs : arrays — the cost of row i with column j is estimated as
        ``row_costs[i] * col_costs[j]`` (e.g. sequence lengths: DP cells); orders the blocks
        and decides whether to start workers at all (:data:`SERIAL_COST`)
    block : int — rows and columns per block
    n_jobs : int or None — threads of this process (None: every core)
    scheduler : str or None — address of a Dask scheduler (``tcp://host:port``)
    cache : BlockCache or None
    meta : dict — written into the cache's sidecar (parameters, for a person reading it)
    progress : bool, desc : str — a progress bar over the blocks
    """
    symmetric = n_cols is None
    shape = (n_rows, n_rows if symmetric else n_cols)
    if cache is not None:
        K = cache.load(shape)
        if K is not None:
            return K
    row_costs = np.asarray(row_costs, dtype=float)
    col_costs = row_costs if col_costs is None else np.asarray(col_costs, dtype=float)
    with contextlib.ExitStack() as locked:
        if cache is not None:
            try:
                Path(cache.directory).mkdir(parents=True, exist_ok=True)
                locked.enter_context(output_lock(cache.matrix))
            except OSError as exc:             # a folder that cannot be written: no cache
                cache_unwritable(cache.directory, exc, what=WHAT, moved_by=cache.moved_by)
                cache = None
        if cache is None:
            return _compute(compute_block, shape, symmetric, row_costs, col_costs, block,
                            n_jobs, scheduler, None, progress, desc)
        K = cache.load(shape)                  # another run may have finished it meanwhile
        if K is None:
            K = _compute(compute_block, shape, symmetric, row_costs, col_costs, block,
                         n_jobs, scheduler, cache, progress, desc)
            cache.save(K, meta or {})
    return K


def _compute(compute_block, shape, symmetric, row_costs, col_costs, block, n_jobs,
             scheduler, cache, progress, desc):
    K = np.zeros(shape)
    blocks = block_grid(shape[0], None if symmetric else shape[1], block)
    todo = []
    for r, c, rs, cs in blocks:
        done = None if cache is None else cache.load_block(
            r, c, (rs.stop - rs.start, cs.stop - cs.start))
        if done is None:
            todo.append((r, c, rs, cs))
        else:
            K[rs, cs] = done
    if cache is not None and len(todo) < len(blocks):
        log.info("%s: %d of %d blocks kept from an interrupted run", cache.matrix,
                 len(blocks) - len(todo), len(blocks))
    cost = np.array([row_costs[rs].sum() * col_costs[cs].sum() for _, _, rs, cs in todo])
    todo = [todo[i] for i in np.argsort(-cost, kind="stable")]          # longest first
    specs = [(np.arange(rs.start, rs.stop), np.arange(cs.start, cs.stop),
              symmetric and r == c) for r, c, rs, cs in todo]

    def keep(i, values):
        r, c, rs, cs = todo[i]
        K[rs, cs] = values
        if cache is not None:
            cache.save_block(r, c, values)

    jobs = (os.cpu_count() or 1) if n_jobs is None else int(n_jobs)
    if scheduler is None and cost.sum() < SERIAL_COST:
        jobs = 1
    map_tasks(_BlockTask(compute_block), specs, jobs=jobs, scheduler=scheduler,
              desc=desc, progress=progress, on_result=keep)
    if symmetric:
        _mirror(K, blocks)
    return K


def _mirror(K, blocks):
    """Fill the lower triangle of ``K`` from its upper-triangle blocks, block by block (no
    second n × n array)."""
    for r, c, rs, cs in blocks:
        if r == c:
            D = K[rs, cs]
            lower = np.tril_indices(D.shape[0], -1)
            D[lower] = D.T[lower]
        else:
            K[cs, rs] = K[rs, cs].T


class _BlockTask:
    """``compute_block(*spec)`` as a picklable callable (a task of :func:`map_tasks`)."""

    def __init__(self, compute_block):
        self.compute_block = compute_block

    def __call__(self, spec):
        rows, cols, upper = spec
        return np.asarray(self.compute_block(rows, cols, upper), dtype=np.float64)
