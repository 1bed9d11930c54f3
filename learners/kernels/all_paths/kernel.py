"""The all-paths graph kernel as a scikit-learn-style estimator: :class:`AllPathsKernel`,
the explicit sparse feature map of :mod:`learners.kernels.all_paths` on the kernel base class.

One class, one concept — the fitted label table and label-pair columns (a vocabulary or
hashing) and every way rows enter them: from graphs (``fit`` / ``features``: batches of
:mod:`~learners.kernels.all_paths.batches`, ``G`` by :mod:`~learners.kernels.all_paths.
label_pairs`; :meth:`AllPathsKernel.features_shared` for several kernels), from entries
computed elsewhere (:meth:`AllPathsKernel.fit_features_from_entries`,
:meth:`AllPathsKernel.map_from_entries`) and the vocabulary-union protocol of
:mod:`learners.kernels.vocabulary_union`.  They share the fitted state and its invariants
(label ids are positions in ``labels_``; columns are the sorted codes ``i << 32 | j``).
"""

from __future__ import annotations

from itertools import chain, islice, repeat
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions

from kernelrank.errors import InvalidParameterError
from kernelrank.memory import release_freed_memory
from learners.kernels.all_paths import batches
from learners.kernels.all_paths.batches import one_blas_thread, prepare_chunk
from learners.kernels.all_paths.graphs import all_paths_matrices
from learners.kernels.all_paths.hashing import mix64, stable_hash64
from learners.kernels.all_paths.label_pairs import (VARIANTS, aggregate_label_pairs,
                                                    dense_weight_rows, label_pair_entries,
                                                    max_label_pairs)
from learners.kernels.base import FeatureMapKernel, KernelNotFittedError
from learners.kernels.vocabulary_union import merged_columns

__all__ = ["AllPathsKernel", "DENSE_WEIGHT_BYTES"]

#: Memory for the dense weight rows of :meth:`AllPathsKernel.linear_scores_from_entries`
#: (per model and weight vector): with 22,000 (30,000) labels, the 192 (139) first labels of
#: most columns, which hold more than half of an extraction's look-ups.
DENSE_WEIGHT_BYTES = 32 << 20


def _feature_maps(kernels, instances, fit):
    """``[kernel._feature_map(instances, fit) for kernel in kernels]`` reading
    ``instances`` once (:meth:`AllPathsKernel._feature_map`, :meth:`AllPathsKernel.
    features_shared`): per chunk of :data:`~learners.kernels.all_paths.batches.CHUNK`
    instances the kernel-independent work once (:func:`~learners.kernels.all_paths.batches.
    prepare_chunk`, ``variant="max"``), then each kernel's aggregation into its own
    vocabulary."""
    n_known = [k._begin(fit) for k in kernels]
    try:
        parts = [([], [], []) for _ in kernels]
        iterator = iter(instances)
        prepare = kernels[0].variant == "max"     # equal parameters (features_shared)
        while chunk := list(islice(iterator, batches.CHUNK)):
            prepared = prepare_chunk(chunk, kernels[0].on_divergence) if prepare else None
            for j, k in enumerate(kernels):
                c, code, w = k._chunk_rows(chunk, prepared)
                counts, codes, values = parts[j]
                counts.append(c), codes.append(code), values.append(w)
        return [k._complete(p, fit) for k, p in zip(kernels, parts)]
    finally:
        for k, nk in zip(kernels, n_known):
            k._end(fit, nk)


class AllPathsKernel(FeatureMapKernel):
    """The all-paths graph kernel as an explicit sparse feature map (module docstring).

    ``k(G_r, G_s) = ⟨Φ(G_r), Φ(G_s)⟩`` (Paper V eq. for ``k``; with ``normalize=True`` the
    normalized kernel).  An instance is one :class:`LabelledGraph` or a list of them (their
    disjoint union).  :meth:`features` gives the rows, ``transform`` the kernel matrix
    against the training graphs.

    Parameters
    ----------
    variant : {"max", "sum"}
        ``G = max_kl L_ik W_kl L_jl`` (errata, published numbers) or ``G = L W Lᵀ`` (paper).
    normalize : bool
        Cosine normalization: each row scaled to unit Euclidean norm — the norm of the
        whole ``G``, label pairs outside the vocabulary included.
    min_weight : float
        Ignore ``W_kl ≤ min_weight`` (the published implementation used 1e-5; 0 is exact).
    n_features : int or None
        None: a vocabulary of label pairs is fitted on training graphs (``fit``), and pairs
        never seen in training are dropped from the rows of new graphs (they cannot change a
        linear model's predictions).  An int: feature hashing into that many columns (the
        normalization then uses the hashed rows).
    on_divergence : {"raise", "scale"}
        What to do when ρ(A) ≥ 1 (see :func:`all_paths_matrix`).

    Attributes
    ----------
    labels_ : list of str            label vocabulary (ids are positions)
    pair_codes_ : int64 array        sorted label-pair codes (``i * 2**32 + j``) = columns
    n_scaled_ : int                  graphs whose A had to be scaled in the last call
    """

    _parameter_constraints = {
        "variant": [StrOptions(set(VARIANTS))],
        "normalize": ["boolean"],
        "min_weight": [Interval(Real, 0, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left"), None],
        "on_divergence": [StrOptions({"raise", "scale"})],
    }

    def __init__(self, variant="max", normalize=True, min_weight=0.0, n_features=None,
                 on_divergence="raise"):
        self.variant = variant
        self.normalize = normalize
        self.min_weight = min_weight
        self.n_features = n_features
        self.on_divergence = on_divergence

    def _label_ids(self, labels):
        index = self._index
        out = []
        for labs in labels:
            ids = []
            for x in labs:
                i = index.get(x)
                if i is None:
                    i = index[x] = len(self.labels_)
                    self.labels_.append(x)
                ids.append(i)
            out.append(ids)
        return out

    def _label_id_array(self, graphs):
        """Label ids of every vertex of ``graphs`` as ``(counts per vertex, flat ids)``;
        labels not yet known get new ids in order of first appearance, exactly as
        :meth:`_label_ids` graph after graph."""
        labels = [labs for g in graphs for labs in g.labels]
        counts = np.fromiter(map(len, labels), dtype=np.int64, count=len(labels))
        return counts, self._ids_of_labels(list(chain.from_iterable(labels)))

    def _ids_of_labels(self, labels):
        """Ids (int64 array) of the label strings ``labels``; labels not yet known get new
        ids in order of first appearance (temporary ones outside ``fit``: :meth:`_end`)."""
        ids = np.fromiter(map(self._index.get, labels, repeat(-1)), dtype=np.int64,
                          count=len(labels))
        for p in np.flatnonzero(ids < 0).tolist():
            x = labels[p]
            i = self._index.get(x)
            if i is None:
                i = self._index[x] = len(self.labels_)
                self.labels_.append(x)
            ids[p] = i
        return ids

    def _max_rows(self, prepared):
        """``(rows, codes, values)`` of ``G`` (``variant="max"``) of one chunk prepared by
        :func:`~learners.kernels.all_paths.batches.prepare_chunk`: each ``(row, code)``
        once, sorted by row then code — the one route of the ``max`` variant.

        The label-pair maxima come from :func:`~learners.kernels.all_paths.label_pairs.
        max_label_pairs` instead of expanding every term and sorting; the maximum is exact
        in any order, so the values are bit for bit those of the expansion (the tests'
        oracle, ``tests/all_paths_reference.py``).
        """
        out_r, out_c, out_v = [], [], []
        for sub in prepared:
            self.n_scaled_ += sub.n_scaled
            counts, ids = self._label_id_array(sub.graphs)
            lab_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            # each instance's distinct labels, sorted, and every entry's place among them
            n_inst = len(sub.inst_ptr) - 1
            v_bounds = np.concatenate([[0], np.cumsum(sub.g_n)])[sub.inst_ptr]
            inst = np.repeat(np.arange(n_inst, dtype=np.int64), np.diff(lab_ptr[v_bounds]))
            n_labels = np.int64(max(len(self.labels_), 1))
            keys, inverse = np.unique(inst * n_labels + ids, return_inverse=True)
            u_ptr = np.searchsorted(keys // n_labels, np.arange(n_inst + 1)).astype(np.int64)
            lab_loc = inverse.ravel().astype(np.int64) - u_ptr[inst]
            r, c, v = max_label_pairs(sub.inst_ptr, sub.g_n, sub.w_ptr, sub.w_flat,
                                       sub.v_ptr, lab_ptr, lab_loc, u_ptr, keys % n_labels,
                                       float(self.min_weight))
            out_r.append(r + sub.start), out_c.append(c), out_v.append(v)
        if not out_r:
            z = np.zeros(0, np.int64)
            return z, z, np.zeros(0)
        return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_v)

    def _chunk_rows(self, chunk, prepared):
        """``(counts, codes, values)`` of one chunk: ``counts[i]`` entries for instance i,
        its label-pair codes (``a << 32 | b``) ascending within the row, each code once —
        ``max``: :meth:`_max_rows` of the ``prepared`` chunk; ``sum``:
        :meth:`_sum_entries`."""
        if self.variant == "max":
            r, c, w = self._max_rows(prepared)
            return np.bincount(r, minlength=len(chunk)), c, w
        return self._sum_entries(chunk)

    def _entries(self, instances):
        """(row, code_a, code_b, value) over all instances (before aggregation)."""
        rows, A, B, V = [], [], [], []
        with one_blas_thread():   # many tiny matrices: threads only add overhead
            return self._entries_loop(instances, rows, A, B, V)

    def _entries_loop(self, instances, rows, A, B, V):
        graphs = [(r, g) for r, inst in enumerate(instances)
                  for g in (inst if isinstance(inst, (list, tuple)) else [inst])]
        start = 0
        while start < len(graphs):               # sub-batches of bounded memory
            stop, size = start, 0
            while stop < len(graphs) and (stop == start or size < batches.INVERSE_BUDGET):
                size += graphs[stop][1].n_vertices ** 2
                stop += 1
            part = graphs[start:stop]
            Ws = all_paths_matrices([g.adjacency() for _, g in part],
                                    on_divergence=self.on_divergence)
            for (r, g), (W, scaled) in zip(part, Ws):
                self.n_scaled_ += scaled
                a, b, w = label_pair_entries(W, self._label_ids(g.labels),
                                             min_weight=self.min_weight)
                rows.append(np.full(len(a), r, dtype=np.int64)), A.append(a), B.append(b)
                V.append(w)
            start = stop
        if not rows:
            z = np.zeros(0, np.int64)
            return z, z, z, np.zeros(0)
        return np.concatenate(rows), np.concatenate(A), np.concatenate(B), np.concatenate(V)

    def _ensure_labels(self):
        if not hasattr(self, "labels_"):
            self.labels_ = []
        self._index = {x: i for i, x in enumerate(self.labels_)} \
            if not hasattr(self, "_index") or len(self._index) != len(self.labels_) else self._index

    def _feature_map(self, instances, fit):
        """Rows of ``G`` over the label-pair columns, and the exact ``k(G, G)``.

        ``instances`` may be any iterable (a generator of graphs is consumed once); they are
        processed :data:`~learners.kernels.all_paths.batches.CHUNK` at a time and each chunk
        is aggregated to its rows' ``G`` entries before the next one, so memory holds the
        unaggregated terms of one chunk only (about 5000 per PPI pair graph, 2.7 times the
        aggregated ones).
        """
        return _feature_maps([self], instances, fit)[0]

    def _begin(self, fit):
        if fit:
            self.labels_, self._index = [], {}
        else:
            self._ensure_labels()
        self.n_scaled_ = 0
        return len(self.labels_)

    def _end(self, fit, n_known):
        """Labels first seen by transform are temporary: it never changes the model."""
        if not fit:
            for x in self.labels_[n_known:]:
                del self._index[x]
            del self.labels_[n_known:]

    def _complete(self, parts, fit):
        """The rows (and ``k(G, G)``) from the chunks' ``(counts, codes, values)`` lists."""
        counts, codes, values = parts
        counts = np.concatenate(counts) if counts else np.zeros(0, np.int64)
        if fit and self.n_features is None:
            return self._canonical(self._vocabulary_rows(counts, codes, values)), None
        rows = np.repeat(np.arange(counts.size), counts)
        codes = np.concatenate(codes) if codes else np.zeros(0, np.int64)
        w = np.concatenate(values) if values else np.zeros(0)
        return self._finish(rows, codes, w, counts.size)

    @staticmethod
    def features_shared(kernels, instances):
        """:meth:`features` of several fitted kernels on the same ``instances``, the
        kernel-independent work done once: the graphs are read once and each distinct
        adjacency is inverted once for all kernels (their vocabularies may differ).

        The kernels must have equal ``variant``, ``normalize``, ``min_weight``,
        ``n_features`` and ``on_divergence``; the rows are bit for bit those of
        ``[k.features(instances) for k in kernels]`` (tested).
        """
        kernels = list(kernels)
        params = {tuple(sorted(k.get_params().items())) for k in kernels}
        if len(params) > 1:
            raise InvalidParameterError("features_shared: the kernels' parameters differ")
        for k in kernels:
            k._check_fitted()
            k._check_feature_map()
        return [k.rows_of_map(Phi, self_kernel)
                for k, (Phi, self_kernel) in zip(kernels, _feature_maps(kernels, instances,
                                                                         False))]

    def features_from_entries(self, produce):
        """:meth:`features` of instances whose ``G`` entries (``variant="max"``) are
        computed outside this class: the rows of :meth:`map_from_entries`."""
        return self.rows_of_map(*self.map_from_entries(produce))

    def fit_features_from_entries(self, produce):
        """:meth:`fit_features` of instances whose ``G`` entries are computed outside this
        class (:meth:`map_from_entries`): fit the label table and the label-pair vocabulary
        (or the hashed columns) on them and return their rows.

        ``produce(label_ids, None)`` yields chunks ``(counts, codes, values, norms, seen)``:
        the first four as :meth:`map_from_entries` without a vocabulary (keys: label-pair
        codes; ``norms`` unused), and ``seen``, an int64 array over the label ids: the place
        of each label's first occurrence in the chunk, ``row << 24 | position`` (position
        among the row's vertex labels in vertex order, graph after graph: the order in
        which :meth:`fit` meets them), −1 where absent.  ``label_ids`` registers new labels
        for good.  The labels are then renumbered in order of first occurrence, so
        ``labels_``, ``pair_codes_`` and the columns are those :meth:`fit_features` gives
        on the instances' graphs.  O(N log N) in the N entries, for the renumbering.
        """
        self._check_params()
        self._check_feature_map()
        self._begin(True)
        counts, codes, values, first = [], [], [], np.zeros(0, np.int64)
        offset = 0
        for c, code, w, _, seen in produce(self._ids_of_labels, None):
            counts.append(c), codes.append(code), values.append(w)
            seen = np.where(seen >= 0, seen + (np.int64(offset) << np.int64(24)), -1)
            first = np.concatenate([first, np.full(len(seen) - len(first), -1, np.int64)])
            new = (first < 0) & (seen[:len(first)] >= 0)
            first[new] = seen[new]
            offset += len(c)
        self._renumber_labels(first, counts, codes, values)
        self.X_fit_, self.self_kernel_fit_ = self._scaled(
            *self._complete((counts, codes, values), True), own=True)
        return self._feature_rows(*self._fitted())

    def _renumber_labels(self, first, counts, codes, values):
        """Keep the labels that occur (``first[i] ≥ 0``), numbered in order of ``first``;
        rewrite the chunks' codes and re-sort each row by its new codes (in place)."""
        order = np.flatnonzero(first >= 0)
        order = order[np.argsort(first[order], kind="stable")]
        new = np.full(len(self.labels_), -1, np.int64)
        new[order] = np.arange(len(order))
        self.labels_ = [self.labels_[i] for i in order]
        self._index = {x: i for i, x in enumerate(self.labels_)}
        low = np.int64(0xFFFFFFFF)
        for k, code in enumerate(codes):
            code = (new[code >> np.int64(32)] << np.int64(32)) | new[code & low]
            rows = np.repeat(np.arange(len(counts[k])), counts[k])
            o = np.lexsort((code, rows))
            codes[k], values[k] = code[o], values[k][o]

    def graph_entries(self, graphs, by_column):
        """One chunk of :meth:`map_from_entries` (``variant="max"``) computed from the
        instances' graphs by this kernel's own route: ``(counts, keys, values, norms)``,
        keyed by label-pair code (``by_column`` False; ``norms`` None) or by the fitted
        vocabulary's column (``norms``: ``‖G‖²``).  For a producer of entries whose own
        route does not apply to some instances (:mod:`ppi.representation.pair_rows`: a dependency graph
        with a cycle, whose walk sums need the inverse's divergence handling)."""
        counts, keys, values = self._chunk_rows(
            graphs, prepare_chunk(graphs, self.on_divergence) if self.variant == "max"
            else None)
        norms = None
        if by_column:
            X, norms = self._finish(np.repeat(np.arange(len(graphs)), counts), keys, values,
                                    len(graphs))
            counts, keys, values = np.diff(X.indptr), X.indices.astype(np.int64), X.data
        return counts, keys, values, norms

    def map_from_entries(self, produce):
        """The unnormalized map ``(Phi, k(G, G))`` of instances whose ``G`` entries
        (``variant="max"``) are computed outside this class — e.g. compiled straight from
        sentence arrays, without :class:`LabelledGraph` objects (:mod:`ppi.representation.pair_rows`).

        Parameters
        ----------
        produce : callable
            ``produce(label_ids, vocabulary)`` returns an iterable of chunks ``(counts,
            keys, values, norms)``, ``counts[r]`` entries for the chunk's instance ``r`` in
            row-major order, keys ascending within a row:

            * ``vocabulary`` None (feature hashing): an entry per non-zero ``G_ij``, keyed
              by its label-pair code ``i << 32 | j``; ``norms`` None;
            * else ``vocabulary = (ptr, codes)``, the fitted label pairs by first label:
              the pairs ``(i, ·)`` (``i < len(ptr) - 1``) are the columns
              ``ptr[i]:ptr[i + 1]``, their codes ``codes[ptr[i]:ptr[i + 1]]`` ascending
              (``codes`` is ``pair_codes_``).  An entry per non-zero ``G_ij`` of a fitted
              pair, keyed by its column; ``norms[r] = ‖G‖²`` of the whole ``G`` of
              instance ``r``.

            ``label_ids(strings)`` gives the ids ``i``, ``j`` of label strings in this
            kernel's label table; labels it does not know get temporary ids valid for this
            call only.

        Returns
        -------
        ``(Phi, self_kernel)`` as :meth:`_feature_map` gives them for the same ``G``
        (``self_kernel`` None with hashing: the squared row norms); the kernel is not
        changed.
        """
        self._check_fitted()
        self._check_feature_map()
        n_known = self._begin(False)
        try:
            vocabulary = None if self.n_features is not None else \
                self._vocabulary_by_first_label(n_known)
            parts = ([], [], [], [])
            for chunk in produce(self._ids_of_labels, vocabulary):
                for part, array in zip(parts, chunk[:4]):
                    part.append(array)
            if vocabulary is None:
                Phi, self_kernel = self._complete(parts[:3], False)
            else:
                counts, cols, values, norms = (np.concatenate(p) if p else np.zeros(0)
                                               for p in parts)
                indptr = np.zeros(len(counts) + 1, np.int64)
                np.cumsum(counts, out=indptr[1:])
                Phi = sp.csr_matrix((values, cols.astype(np.int64), indptr),
                                    shape=(len(counts), len(self.pair_codes_)))
                self_kernel = norms
        finally:
            self._end(False, n_known)
        return Phi, self_kernel

    def linear_scores_from_entries(self, produce, weights):
        """``rows_of_map(*map_from_entries(...)) @ weights``: a linear model's scores of
        instances whose ``G`` entries are computed outside this class, without the rows.

        Parameters
        ----------
        produce : callable
            ``produce(label_ids, vocabulary, dense)`` (``label_ids`` and ``vocabulary`` as
            for :meth:`map_from_entries`, always with a vocabulary; ``dense`` the weights of
            the first labels with the most columns as dense rows,
            :func:`~learners.kernels.all_paths.label_pairs.dense_weight_rows`, built once
            per weight vector within :data:`DENSE_WEIGHT_BYTES`) returns an iterable of
            chunks ``(products, norms)``: ``products[r]`` the inner product of instance r's
            entries in the fitted columns with ``weights``, ``norms[r] = ‖G‖²`` of its
            whole ``G`` (:func:`ppi.representation.pair_rows.max_scores`).
        weights : ndarray of shape (n_columns,)

        Returns
        -------
        ndarray of shape (n_instances,)
            The same scores as the rows' product up to the order of the floating-point
            operations (the scale applied after the sum instead of to every entry).
        """
        self._check_fitted()
        self._check_feature_map()
        if self.n_features is not None:
            raise InvalidParameterError("linear_scores_from_entries needs a vocabulary "
                                        "(n_features=None); with hashing use "
                                        "map_from_entries")
        if np.shape(weights) != (len(self.pair_codes_),):
            raise InvalidParameterError(f"weights of shape {np.shape(weights)} for "
                                        f"{len(self.pair_codes_)} columns")
        n_known = self._begin(False)
        try:
            vocabulary = self._vocabulary_by_first_label(n_known)
            cached = self.__dict__.get("_dense_weights")    # once per weight vector
            if cached is None or cached[0] is not weights or cached[1] is not vocabulary[0] \
                    or cached[2] != DENSE_WEIGHT_BYTES:
                cached = (weights, vocabulary[0], DENSE_WEIGHT_BYTES,
                          dense_weight_rows(*vocabulary, np.asarray(weights, np.float64),
                                            DENSE_WEIGHT_BYTES))
                self.__dict__["_dense_weights"] = cached
            chunks = list(produce(self._ids_of_labels, vocabulary, cached[3]))
        finally:
            self._end(False, n_known)
        products = np.concatenate([c[0] for c in chunks]) if chunks else np.zeros(0)
        norms = np.concatenate([c[1] for c in chunks]) if chunks else np.zeros(0)
        return self.scores_of_products(products, norms)

    def _vocabulary_by_first_label(self, n_known):
        """``(ptr, codes)`` of :meth:`map_from_entries`: the fitted label pairs ``(i, ·)``
        are the columns ``ptr[i]:ptr[i + 1]`` of ``codes = pair_codes_``.  ``ptr`` is built
        once per vocabulary, O(n log V) for V label pairs and n labels (an extraction calls
        ``map_from_entries`` once per chunk; the model's V is in the millions)."""
        codes = self.pair_codes_
        cached = self.__dict__.get("_by_first_label")
        if cached is None or cached[0] is not codes or len(cached[1]) != n_known + 1:
            ptr = np.searchsorted(codes, np.arange(n_known + 1, dtype=np.int64)
                                  << np.int64(32)).astype(np.int64)
            cached = (codes, ptr)
            self.__dict__["_by_first_label"] = cached
        return cached[1], codes

    # ------------------------------------------------------------------ vocabulary union
    def _vocabulary_state(self):
        return (self.labels_, getattr(self, "pair_codes_", None))

    def n_columns(self):
        """The width of the fitted feature rows: ``n_features`` with hashing, else the number
        of fitted label pairs (the length of a linear model's weights over this view)."""
        return int(self.n_features) if self.n_features is not None else len(self.pair_codes_)

    @classmethod
    def _vocabulary_union(cls, kernels):
        """(:mod:`learners.kernels.vocabulary_union`) A kernel whose labels are the first
        kernel's followed by the others' new ones and whose label pairs are all of theirs,
        and per kernel its column of each union label pair (−1: not in its vocabulary).
        With feature hashing every kernel has the same columns: the first one serves."""
        first = kernels[0]
        if first.n_features is not None:
            return first, [None] * len(kernels)
        index = {x: i for i, x in enumerate(first.labels_)}
        codes = []
        for k in kernels:
            ids = np.array([index.setdefault(x, len(index)) for x in k.labels_], np.int64)
            c = k.pair_codes_
            codes.append((ids[c >> np.int64(32)] << np.int64(32))
                         | ids[c & np.int64(0xFFFFFFFF)] if len(ids) else c)
        union = clone(first)
        union.pair_codes_, maps = merged_columns(codes)
        union.labels_, union._index = list(index), index
        return union, maps

    def _sum_entries(self, chunk):
        """One chunk's ``G`` entries (``variant="sum"``) as :meth:`_chunk_rows` gives them:
        every term expanded (:func:`~learners.kernels.all_paths.label_pairs.
        label_pair_entries`) and summed per label pair, O(N log N) in the N terms."""
        r, a, b, w = self._entries(chunk)
        uniq, inverse = np.unique((a << np.int64(32)) | b, return_inverse=True)
        G = aggregate_label_pairs(r, inverse.ravel(), w, self.variant, len(chunk),
                                  max(len(uniq), 1))
        G.sum_duplicates()
        G.sort_indices()
        return np.diff(G.indptr), uniq[G.indices], G.data

    def _vocabulary_rows(self, counts, codes, values):
        """Fit the label-pair vocabulary ``pair_codes_`` (sorted) on the chunks' codes and
        return their CSR rows; each chunk's arrays are released as soon as they are copied,
        so the peak is about the chunks plus the int32 column ids (not a COO copy, a sort
        of all codes and its inverse at once)."""
        self.pair_codes_ = np.unique(np.concatenate([np.unique(k) for k in codes])
                                     if codes else np.zeros(0, np.int64))
        nnz = int(counts.sum())
        indices = np.empty(nnz, dtype=np.int32 if len(self.pair_codes_) < 2 ** 31
                           else np.int64)
        data = np.empty(nnz)
        start = 0
        for k in range(len(codes)):
            stop = start + codes[k].size
            indices[start:stop] = np.searchsorted(self.pair_codes_, codes[k])
            data[start:stop] = values[k]
            codes[k] = values[k] = None
            start = stop
            if k % 16 == 15:          # the chunks' heap back to the system as they are
                release_freed_memory()  # copied: the peak is the chunks, not chunks + rows
        release_freed_memory()
        indptr = np.concatenate([[0], np.cumsum(counts)])
        return sp.csr_matrix((data, indices, indptr),
                             shape=(counts.size, max(len(self.pair_codes_), 1)))

    def _finish(self, rows, codes, w, n_rows):
        """Rows in the fitted columns from entries that are one per ``(row, code)``, sorted
        by row then code (as every chunk gives them: :meth:`_chunk_rows`,
        :meth:`_max_rows`), so no aggregation is left to do.  Vocabulary: the known label
        pairs' columns, and ``k(G, G)`` of the whole ``G`` (the normalized kernel does not
        depend on the vocabulary); hashing: colliding pairs add up in their column."""
        if self.n_features is None:
            self_kernel = np.bincount(rows, weights=w ** 2, minlength=n_rows)
            n_cols = len(self.pair_codes_)
            cols = np.searchsorted(self.pair_codes_, codes)
            known = cols < n_cols
            known[known] = self.pair_codes_[cols[known]] == codes[known]
            X = sp.csr_matrix((w[known], (rows[known], cols[known])), shape=(n_rows, n_cols))
            return self._canonical(X), self_kernel
        hashes = self._label_hashes()
        h = mix64(hashes[codes >> np.int64(32)], hashes[codes & np.int64(0xFFFFFFFF)])
        n_cols = int(self.n_features)
        X = sp.csr_matrix((w, (rows, (h % np.uint64(n_cols)).astype(np.int64))),
                          shape=(n_rows, n_cols))
        return self._canonical(X), None

    def _label_hashes(self):
        cache = self.__dict__.setdefault("_hash_by_label", {})
        out = np.empty(len(self.labels_), dtype=np.int64)
        for i, x in enumerate(self.labels_):
            h = cache.get(x)
            if h is None:
                h = cache[x] = stable_hash64(x)
            out[i] = h
        return out

    @staticmethod
    def _canonical(X):
        X = X.tocsr()
        X.sum_duplicates()
        X.sort_indices()
        return X

    def feature_names(self):
        """``(label_i, label_j)`` of each column (vocabulary mode)."""
        if not hasattr(self, "pair_codes_"):
            raise KernelNotFittedError("no vocabulary: fit first (or hashing is used)")
        c = self.pair_codes_
        return [(self.labels_[i], self.labels_[j]) for i, j in zip(c >> 32, c & 0xFFFFFFFF)]
