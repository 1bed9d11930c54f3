"""Corpus → sparse all-paths feature matrix of its candidate pairs (Paper V, "Methods").

Every candidate pair becomes the two subgraphs of :mod:`ppi.representation.graphs`; the generic
:class:`learners.kernels.AllPathsKernel` turns them into rows of a sparse matrix (its
feature map) whose linear kernel is the (normalized) all-paths graph kernel.  One kernel
object — one vocabulary of label pairs (or one hash) — is shared by every corpus featurized
together, so kernels between corpora are dot products of rows.

Because rows are normalized by the norm of the *whole* ``G`` (not only of the vocabulary's
columns), the kernel between two pairs does not depend on which corpus the vocabulary was
fitted on: featurizing a corpus once and slicing its kernel matrix by fold gives exactly
the kernel a vocabulary fitted on each training part would give (tested in
``tests/learners/kernels/test_all_paths.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from corpora.ppi_xml import resolve_parse_name
from kernelrank.errors import InvalidParameterError
from learners.kernels import AllPathsKernel, gaussian_of, gram_matrix, squared_row_norms
from learners.kernels.all_paths import CHUNK
from learners.kernels.vocabulary_union import vocabulary_union
from ppi.representation.graphs import GraphSettings, sentence_graphs
from ppi.representation.pair_rows import PairArrays, max_entries, max_scores

__all__ = ["PairSet", "PairFeaturizer", "corpus_graphs", "iter_corpus_graphs",
           "same_analyses", "split_rows", "kernel", "keep_vocabulary_only"]


@dataclass
class PairSet:
    """The candidate pairs of one corpus: features, labels (+1/−1) and their provenance."""

    corpus: str
    X: sp.csr_matrix
    y: np.ndarray
    pair_ids: np.ndarray
    sentence_ids: np.ndarray
    document_ids: np.ndarray

    def __len__(self):
        return len(self.y)

    def subset(self, index):
        index = np.asarray(index)
        return PairSet(self.corpus, self.X[index], self.y[index], self.pair_ids[index],
                       self.sentence_ids[index], self.document_ids[index])


def _corpus_pairs(corpus, parse, settings, progress, graphs):
    docs = tqdm(corpus.documents, desc=f"graphs {corpus.source}", unit="doc",
                disable=not progress, leave=False)
    for doc in docs:
        for s in doc.sentences:
            if graphs:
                yield from ((doc, s, p, g) for p, g in sentence_graphs(s, parse, settings))
            else:
                yield from ((doc, s, p, None) for p in s.pairs)


def iter_corpus_graphs(corpus, parse="split_parse", settings=None, progress=False):
    """The two pair graphs of every candidate pair, in corpus order, one at a time."""
    return (g for _, _, _, g in _corpus_pairs(corpus, parse, settings, progress, True))


def corpus_graphs(corpus, parse="split_parse", settings=None, progress=False, graphs=True):
    """``(instances, y, pair_ids, sentence_ids, document_ids)`` of every candidate pair
    (``graphs=False``: without the graphs — ``instances`` empty — only the pairs' labels and
    provenance)."""
    instances, y, pids, sids, dids = [], [], [], [], []
    for doc, s, pair, g in _corpus_pairs(corpus, parse, settings, progress, graphs):
        if graphs:
            instances.append(g)
        y.append(1.0 if pair.interaction else -1.0)
        pids.append(pair.id)
        sids.append(s.id)
        dids.append(doc.id)
    return (instances, np.array(y), np.array(pids, dtype=object), np.array(sids, dtype=object),
            np.array(dids, dtype=object))


def keep_vocabulary_only(vectorizer):
    """Drop a fitted feature-map kernel's training rows (``X_fit_``): featurizers use its
    vocabulary (``features``), never its kernel against the training rows, and the rows are
    the size of the whole featurized data — the caller holds them already."""
    for name in ("X_fit_", "self_kernel_fit_"):
        vectorizer.__dict__.pop(name, None)


class PairFeaturizer:
    """Candidate pairs → all-paths feature vectors.

    Parameters
    ----------
    parse : {"split_parse", "split", "Charniak-Lease"}
    variant : {"max", "sum"}      ``G`` by max (errata, published) or sum (paper)
    normalize : bool              unit-norm rows (the published setting)
    min_weight : float            ignore W entries ≤ this (published implementation: 1e-5)
    n_features : int or None      feature hashing width, or None for a fitted vocabulary
    settings : GraphSettings      weights and labelling of the pair graphs
    """

    def __init__(self, parse="split_parse", variant="max", normalize=True, min_weight=1e-5,
                 n_features=None, settings=None):
        self.parse = resolve_parse_name(parse)
        self.settings = settings or GraphSettings()
        self.vectorizer = AllPathsKernel(variant=variant, normalize=normalize,
                                         min_weight=min_weight, n_features=n_features,
                                         on_divergence="scale")

    @property
    def variant(self):
        """The all-paths variant (``max`` or ``sum``)."""
        return self.vectorizer.variant

    @property
    def parses(self):
        """The dependency analyses it reads: ``(parse,)``."""
        return (self.parse,)

    def _graphs(self, corpora, progress):
        """Labels and provenance of every pair (one cheap pass), and a generator of their
        graphs (built while the vectorizer consumes them: never all in memory)."""
        parts = [corpus_graphs(c, self.parse, self.settings, graphs=False) for c in corpora]
        graphs = (g for c in corpora
                  for g in iter_corpus_graphs(c, self.parse, self.settings, progress))
        return parts, graphs

    def fit_transform(self, corpora, progress=False):
        """Fit the vocabulary on all ``corpora`` together; one :class:`PairSet` each (the
        rows by the route of :attr:`compiled`, as :meth:`transform`'s)."""
        corpora = list(corpora)
        return self._split(corpora, *self.fit_rows(corpora, progress))

    def fit_rows(self, corpora, progress=False):
        """:meth:`fit_transform` before the split: ``(parts, X)``, the labels and provenance
        of each corpus' pairs and the rows of all of them, in corpus order (the caller owns
        ``X``)."""
        corpora = list(corpora)
        if self.compiled:
            parts = [corpus_graphs(c, self.parse, self.settings, graphs=False)
                     for c in corpora]
            batches = _pair_arrays(corpora, self.parse, self.settings, progress)
            kernel = self.vectorizer
            X = kernel.fit_features_from_entries(
                lambda label_ids, _: (max_entries(b, label_ids, None, kernel, fit=True)
                                      for b in batches))
        else:
            parts, graphs = self._graphs(corpora, progress)
            X = self.vectorizer.fit_features(graphs)
        self.n_scaled_ = self.vectorizer.n_scaled_
        keep_vocabulary_only(self.vectorizer)
        return parts, X

    def transform(self, corpora, progress=False):
        """Feature rows in the fitted vocabulary (unseen label pairs are dropped)."""
        return PairFeaturizer.transform_shared([self], corpora, progress)[0]

    def scores(self, corpora, weights, progress=False):
        """``[data.X @ weights for data in self.transform(corpora)]``, each raveled: a
        linear model's scores (as :meth:`ppi.representation.views.MultiViewFeaturizer.scores`) — one
        weight vector on the compiled route with a vocabulary by :meth:`union_scores`,
        without the rows."""
        corpora = list(corpora)
        if np.ndim(weights) == 1 and not sp.issparse(weights) and self.scores_without_rows:
            sizes = [sum(len(s.pairs) for s in c.sentences()) for c in corpora]
            return split_rows(self.union_scores([self], corpora, weights, progress), sizes)
        return [np.asarray(d.X @ weights).ravel() for d in self.transform(corpora, progress)]

    @property
    def compiled(self):
        """Whether the rows come from the compiled route of :mod:`ppi.representation.pair_rows`, in
        ``fit_transform`` and ``transform`` alike: the ``max`` variant (``sum``: the pair
        graphs through :class:`learners.kernels.AllPathsKernel`, in both as well)."""
        return self.variant == "max"

    @property
    def scores_without_rows(self):
        """Whether a linear model (one weight vector) scores this view by the inner
        products of :meth:`union_scores`, no rows built: the compiled route with a
        vocabulary (not feature hashing)."""
        return self.compiled and self.vectorizer.n_features is None

    @staticmethod
    def transform_shared(featurizers, corpora, progress=False):
        """``[f.transform(corpora) for f in featurizers]`` reading the sentences once: the
        compiled route (:attr:`compiled`) computes the rows once, in the union of the
        featurizers' vocabularies, and cuts each one's columns out of them
        (:mod:`learners.kernels.vocabulary_union`); the graph route builds each pair's
        graphs once and inverts each distinct adjacency once
        (:meth:`learners.kernels.AllPathsKernel.features_shared`).

        Only valid when every featurizer would build the same graphs: equal graph settings
        and vectorizer parameters, and parse names that hold the very same analysis in
        every sentence with a pair (:func:`same_analyses`; raw text parsed by spaCy, whose
        one analysis is stored under every name).  The separate results: the same
        entries, the values up to the order in which the norms are summed (≤ 1e-14
        relative; tested).
        """
        featurizers = list(featurizers)
        corpora = list(corpora)
        first = featurizers[0]
        if all(f.compiled for f in featurizers):
            parts = [corpus_graphs(c, first.parse, first.settings, graphs=False)
                     for c in corpora]
            union, Phi, self_kernel = PairFeaturizer.union_map(featurizers, corpora, progress)
            Xs = union.split(Phi, self_kernel)
        else:
            parts, graphs = first._graphs(corpora, progress)
            Xs = AllPathsKernel.features_shared([f.vectorizer for f in featurizers], graphs)
        out = []
        for f, X in zip(featurizers, Xs):
            f.n_scaled_ = f.vectorizer.n_scaled_
            out.append(f._split(corpora, parts, X))
        return out

    @staticmethod
    def union_map(featurizers, corpora, progress=False):
        """``(union, Phi, self_kernel)``: the featurizers' :class:`learners.kernels.
        vocabulary_union.VocabularyUnion` and its unnormalized map of every pair of
        ``corpora`` (rows in corpus order), by the compiled route (all :attr:`compiled`;
        the conditions of :meth:`transform_shared`)."""
        union, kernel, batches = PairFeaturizer._union_batches(featurizers, corpora, progress)
        Phi, self_kernel = kernel.map_from_entries(
            lambda label_ids, vocabulary: (
                max_entries(b, label_ids, vocabulary, kernel) for b in batches))
        for f in featurizers:
            f.vectorizer.n_scaled_ = kernel.n_scaled_
        return union, Phi, self_kernel

    @staticmethod
    def union_scores(featurizers, corpora, weights, progress=False):
        """``rows_of_map(*union_map(...)[1:]) @ weights`` without the rows: a linear model's
        scores of every pair of ``corpora`` (corpus order), ``weights`` one per column of
        the featurizers' vocabulary union (one featurizer: its own columns); the compiled
        route's inner products (:func:`ppi.representation.pair_rows.max_scores`), O(entries) with no
        entry written.  The conditions of :meth:`union_map`, and a vocabulary
        (``n_features=None``)."""
        union, kernel, batches = PairFeaturizer._union_batches(featurizers, corpora, progress)
        scores = kernel.linear_scores_from_entries(
            lambda label_ids, vocabulary, dense: (
                max_scores(b, label_ids, vocabulary, kernel, weights, dense)
                for b in batches), weights)
        for f in featurizers:
            f.vectorizer.n_scaled_ = kernel.n_scaled_
        return scores

    @staticmethod
    def _union_batches(featurizers, corpora, progress):
        """``(union, its kernel, the pair arrays of corpora)`` of :meth:`union_map`."""
        first = featurizers[0]
        union = vocabulary_union([f.vectorizer for f in featurizers])
        return union, union.union, _pair_arrays(corpora, first.parse, first.settings,
                                                progress)

    def shares_graphs_with(self, other):
        """Whether ``other`` builds its graphs and rows the same way on the same analysis
        (equal graph settings and vectorizer parameters; the parse names may differ)."""
        return (isinstance(other, PairFeaturizer)
                and self.settings.as_dict() == other.settings.as_dict()
                and self.vectorizer.get_params() == other.vectorizer.get_params())

    @staticmethod
    def _split(corpora, parts, X):
        rows = split_rows(X, [len(p[1]) for p in parts])
        return [PairSet(c.source, Xc, y, pids, sids, dids)
                for c, Xc, (_, y, pids, sids, dids) in zip(corpora, rows, parts)]


def _pair_arrays(corpora, parse, settings, progress):
    """:class:`ppi.representation.pair_rows.PairArrays` of consecutive sentences with pairs, about
    :data:`learners.kernels.all_paths.CHUNK` pairs each, in corpus order."""
    batch, size = [], 0
    for c in corpora:
        docs = tqdm(c.documents, desc=f"pairs {c.source}", unit="doc", disable=not progress,
                    leave=False)
        for doc in docs:
            for s in doc.sentences:
                if s.pairs:
                    batch.append(s)
                    size += len(s.pairs)
                    if size >= CHUNK:
                        yield PairArrays(batch, parse, settings)
                        batch, size = [], 0
    if batch:
        yield PairArrays(batch, parse, settings)


def same_analyses(corpora, parse_a, parse_b):
    """Whether every sentence with a candidate pair holds the very same token and
    dependency lists (identical objects) under both parse names — the one spaCy analysis of
    raw text stored under each name a model reads (:mod:`ppi.parsing.spacy_parse`) — so anything
    computed from one is what the other would give.  False on any error (a missing parse:
    the caller then featurizes each name on its own and reports it as before)."""
    try:
        for c in corpora:
            for doc in c.documents:
                for s in doc.sentences:
                    if s.pairs:
                        ta, da = s.analysis(parse_a)
                        tb, db = s.analysis(parse_b)
                        if ta is not tb or da is not db:
                            return False
    except Exception:
        return False
    return True


def _owner(a):
    """The array that owns ``a``'s memory and holds exactly ``a`` (``a`` itself, or the
    whole base SciPy's constructors wrap an array in), or None: what may be resized in
    place once ``a`` is given up."""
    if a.flags.owndata:
        return a
    b = a.base
    if (isinstance(b, np.ndarray) and b.flags.owndata and b.ndim == 1 and b.dtype == a.dtype
            and b.size == a.size and b.ctypes.data == a.ctypes.data):
        return b
    return None


def split_rows(X, sizes, consume=False):
    """Consecutive row blocks of ``X`` of the given sizes (``X`` itself for one block).

    ``consume``: ``X`` is the caller's fresh CSR matrix, given up — the largest block is
    then made of ``X``'s own arrays (its entries moved to their front in chunks, the arrays
    shrunk in place) and only the other blocks are copied, so the rows are not held twice.
    With ``consume`` every block owns its arrays (SciPy's row slices may be views of
    ``X``'s, and its products on them copy)."""
    if len(sizes) == 1:
        return [X]
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    pairs = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    data = _owner(X.data) if consume and sp.isspmatrix_csr(X) else None
    indices = _owner(X.indices) if data is not None else None
    if indices is None or len(data) != X.nnz:
        return [X[a:b] for a, b in pairs]
    ptr = X.indptr.astype(np.int64)
    sorted_rows = X.has_sorted_indices
    big = int(np.argmax([ptr[b] - ptr[a] for a, b in pairs]))
    out = [None if k == big else X[a:b].copy() for k, (a, b) in enumerate(pairs)]
    a, b = pairs[big]
    p0, p1 = int(ptr[a]), int(ptr[b])
    step = 1 << 22
    for i in range(p0, p1, step):              # forward: the target lies before the source
        j = min(i + step, p1)
        data[i - p0:j - p0] = data[i:j]
        indices[i - p0:j - p0] = indices[i:j]
    X.data = X.indices = None                  # the views of the arrays resized below
    data.resize(p1 - p0, refcheck=False)
    indices.resize(p1 - p0, refcheck=False)
    block = sp.csr_matrix((b - a, X.shape[1]), dtype=data.dtype)
    block.data, block.indices = data, indices
    block.indptr = (ptr[a:b + 1] - p0).astype(X.indptr.dtype)
    block.has_sorted_indices = sorted_rows
    out[big] = block
    return out


def hstack_in_place(blocks, scales):
    """``sp.hstack([scales[v] * blocks[v] for v ...], format="csr")`` built in the arrays of
    the block with the most stored entries (the *host*, consumed: its arrays are grown in
    place and its rows moved into their places from the last row block to the first), so
    the rows are held about once, not twice as a new matrix beside its parts would hold them.

    Every block must be CSR with the same rows; the host's ``data`` and ``indices`` must be
    its own arrays (or SciPy's views of whole arrays) that nothing else holds — the caller's
    fresh rows, given up; otherwise the result is the plain ``sp.hstack``.  Within a row the entries keep the blocks' order, so
    sorted rows stay sorted.  O(total entries) time; O(row block) temporaries
    (:func:`learners.kernels.base.row_blocks`).
    """
    from learners.kernels.base import row_blocks

    blocks = [sp.csr_matrix(b) for b in blocks]
    scales = np.asarray(scales, dtype=np.float64)
    n = blocks[0].shape[0]
    if any(b.shape[0] != n for b in blocks):
        raise InvalidParameterError("hstack_in_place: the blocks have different numbers of rows")
    widths = np.array([b.shape[1] for b in blocks], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(widths)])
    h = int(np.argmax([b.nnz for b in blocks]))
    sorted_rows = all(b.has_sorted_indices for b in blocks)
    host = blocks[h]
    data, indices = _owner(host.data), _owner(host.indices)
    if data is None or indices is None or data.dtype != np.float64 or len(data) != host.nnz:
        return sp.hstack([sc * b for sc, b in zip(scales, blocks)], format="csr")
    counts = np.stack([np.diff(b.indptr).astype(np.int64) for b in blocks])   # (V, n)
    before = np.cumsum(counts, axis=0) - counts       # entries of earlier blocks in a row
    ptr = np.concatenate([[0], np.cumsum(counts.sum(axis=0))]).astype(np.int64)
    total = int(ptr[-1])
    index_dtype = np.int32 if max(total, int(offsets[-1])) < 2 ** 31 else np.int64
    old = host.indptr.astype(np.int64)
    if indices.dtype != index_dtype:
        indices = indices.astype(index_dtype)
    host.data = host.indices = None            # the views of the arrays resized below
    data.resize(total, refcheck=False)
    indices.resize(total, refcheck=False)
    for i, j in reversed(list(row_blocks(ptr, ENTRY_BLOCK_OF_ROWS))):
        rows = np.arange(i, j)
        # the host's entries of these rows, before any of their new places is written
        host_vals, host_cols = data[old[i]:old[j]].copy(), indices[old[i]:old[j]].copy()
        for v, b in enumerate(blocks):
            if v == h:
                a, z = old[i], old[j]
                vals, cols = host_vals, host_cols
                bptr = old
            else:
                a, z = b.indptr[i], b.indptr[j]
                vals, cols = b.data[a:z], b.indices[a:z]
                bptr = b.indptr
            if z == a:
                continue
            c = counts[v, i:j]
            r = np.repeat(rows, c)
            k = np.arange(z - a) - np.repeat(bptr[i:j] - a, c)
            dest = ptr[r] + before[v, r] + k
            data[dest] = vals * scales[v]
            indices[dest] = cols + offsets[v]
    out = sp.csr_matrix((n, int(offsets[-1])), dtype=np.float64)
    out.data, out.indices, out.indptr = data, indices, ptr.astype(index_dtype)
    out.has_sorted_indices = sorted_rows
    return out


#: stored entries per row block of :func:`hstack_in_place`
ENTRY_BLOCK_OF_ROWS = 1 << 20


def kernel(A, B=None):
    """Dense linear kernel matrix between the feature rows of two PairSets (``B = A`` if
    None). O(nnz products) (:func:`learners.kernels.gram_matrix`)."""
    return gram_matrix(A.X, None if B is None else B.X)


def gaussian_kernel(A, B=None, *, gamma):
    """The Gaussian ``exp(−γ‖x − z‖²)`` of :func:`kernel` between two PairSets (``B = A`` if
    None), from the linear kernel and the rows' squared norms
    (:func:`learners.kernels.gaussian_of`)."""
    K = kernel(A, B)
    sq = squared_row_norms(A.X)
    return gaussian_of(K, gamma, sq, sq if B is None else squared_row_norms(B.X))


