"""All-paths feature rows of candidate pairs compiled straight from sentence arrays.

:class:`ppi.representation.features.PairFeaturizer` builds, for every candidate pair, the two
:class:`learners.kernels.LabelledGraph` objects of :mod:`ppi.representation.graphs` and lets the generic
kernel invert each adjacency.  At extraction time (``transform``, ``variant="max"``) that
Python work per pair cost as much as spaCy's parse.  Here one compiled pass per batch does
the same per sentence and pair, from a handful of arrays:

* per sentence — the kept dependencies ``(t1, t2)``, a topological order of the dependency
  subgraph (Kahn), its undirected token–dependency graph and the breadth-first distances
  from every token a shortest path starts from (computed once, shared by the pairs);
* per pair — the dependencies on all shortest paths between the two proteins (the rule of
  :meth:`ppi.representation.graphs.SentenceStructure.path_dependency_mask`), the blinded, prefixed vertex
  labels of both subgraphs (as :func:`ppi.representation.graphs.structure_pair_graphs`), the walk sums ``W`` of
  both subgraphs by dynamic programming over the topological order
  (:func:`learners.kernels.all_paths.dag_walk_sums`: ``O(|E| · V)`` instead of an O(V³)
  inverse; the linear-order chain's once per sentence), and the label-pair maxima of ``G``
  (:func:`learners.kernels.all_paths.label_pairs.update_max`).

This is the one route of the ``max`` variant's rows for :class:`ppi.representation.features.PairFeaturizer`,
``fit`` (:meth:`learners.kernels.AllPathsKernel.fit_features_from_entries`, which also
receives every label's first occurrence, so the label table is numbered as a fit on the
graphs would number it) and ``transform`` (:meth:`learners.kernels.AllPathsKernel.
map_from_entries`) alike.

The label strings are looked up once per distinct word, POS and dependency type of a batch
(five prefixed forms each: none, the path prefix, ``B_``, ``M_``, ``A_``), not once per
vertex and pair.  The rows are those of the graph route up to round-off (``W`` by products
along walks instead of an LU inverse: relative differences ≈ 1e-16; tested against it on
every pair of two corpora and on random sentences).  A sentence whose dependency graph has a
cycle (possible in the corpora's collapsed Stanford dependencies, never in spaCy's trees)
goes through the graph route, pair by pair, so its walk sums keep the inverse's divergence
handling.

Complexity per sentence with n tokens and m dependencies: O(e · (n + m)) breadth-first
search for e path end tokens; per pair O(k₁ k₂ m) for the path marks, O((n + m)²) for the
walk sums and O((n + m)² c²) for the maxima (c ≤ 2 labels per vertex).
"""

from __future__ import annotations

import numba
import numpy as np

from learners.kernels.all_paths import append_entries, dag_walk_sums, dot_entries, update_max
from ppi.representation.graphs import (PROT1, PROT2, bfs_into, sentence_structure, structure_pair_graphs,
                        undirected_csr)

__all__ = ["PairArrays", "max_entries", "max_scores"]

#: Bits of a label's position within its pair in the first-occurrence keys (row << 24 | position)
_POSITION_BITS = 24
#: Label forms looked up per string: no prefix, the path prefix, then the linear-order tags.
_PLAIN, _PATH, _BEFORE, _MIDDLE, _AFTER = range(5)
_LINEAR_TAGS = ("B_", "M_", "A_")


def _csr(lists):
    """``(ptr, flat int64)`` of a list of int lists."""
    ptr = np.zeros(len(lists) + 1, np.int64)
    np.cumsum([len(x) for x in lists], out=ptr[1:])
    flat = np.fromiter((v for x in lists for v in x), np.int64, count=int(ptr[-1]))
    return ptr, flat


def _distinct(strings):
    """``(distinct strings in order of first occurrence, the index of each string in
    them)``, by C-level dictionary passes: O(N)."""
    distinct = list(dict.fromkeys(strings))
    index = {x: i for i, x in enumerate(distinct)}
    return distinct, np.fromiter(map(index.__getitem__, strings), np.int64, count=len(strings))


class PairArrays:
    """The kernel-independent arrays of a batch of sentences' candidate pairs.

    Parameters
    ----------
    sentences : list of :class:`corpora.ppi_xml.Sentence`
        Their pairs, in order, are the batch's instances.
    parse : str
    settings : :class:`ppi.representation.graphs.GraphSettings`

    Every view of a multi-view model that reads the same analysis shares one (the label ids
    are looked up per kernel by :func:`max_entries`).
    """

    def __init__(self, sentences, parse, settings):
        self.settings = settings
        texts, pos_tags, dep_types = [], [], []   # of every token / dependency, in order
        n_tok, t1, t2, dep_n, pair_n = [], [], [], [], []
        p1, p2, e1, e2 = [], [], [], []
        self.structures = []                    # (structure, pair) of each instance
        for s in sentences:
            if not s.pairs:
                continue
            st = sentence_structure(s, parse, settings)
            n_tok.append(st.n)
            dep_n.append(len(st.deps))
            pair_n.append(len(s.pairs))
            t1.append(st.dep_governors), t2.append(st.dep_dependents)
            texts += st.unblinded_texts
            pos_tags += st.pos_tags
            dep_types += st.dep_types
            for pair in s.pairs:
                toks1, toks2 = st.pair_tokens(pair, settings.order)
                ends1, ends2 = st.endpoints(toks1, toks2, settings.endpoints)
                p1.append(toks1), p2.append(toks2), e1.append(ends1), e2.append(ends2)
                self.structures.append((st, pair))
        (self.words, self.word_of), (self.tags, self.tag_of), (self.types, self.type_of) = (
            _distinct(x) for x in (texts, pos_tags, dep_types))
        self.n_tok = np.array(n_tok, np.int64)
        self.tok_ptr = np.concatenate([[0], np.cumsum(n_tok)]).astype(np.int64)
        self.dep_ptr = np.concatenate([[0], np.cumsum(dep_n)]).astype(np.int64)
        self.pair_ptr = np.concatenate([[0], np.cumsum(pair_n)]).astype(np.int64)
        self.t1 = np.concatenate(t1).astype(np.int64) if t1 else np.zeros(0, np.int64)
        self.t2 = np.concatenate(t2).astype(np.int64) if t2 else np.zeros(0, np.int64)
        self.p1, self.p2, self.e1, self.e2 = _csr(p1), _csr(p2), _csr(e1), _csr(e2)
        # a word that reads PROT1 / PROT2 itself is tagged "between" like the proteins
        self.literal_protein = np.array([w in (PROT1, PROT2) for w in self.words],
                                        bool)[self.word_of]

    def __len__(self):
        return int(self.pair_ptr[-1])

    def label_tables(self, label_ids):
        """The kernel's label ids of every form of every token's word and POS, of every
        dependency's type and of the two protein placeholders: ``(word_ids (N, 5),
        tag_ids (N, 5), type_ids (M, 2), protein_ids (2, 5))``, forms ordered as
        :data:`_PLAIN`, :data:`_PATH`, :data:`_BEFORE`, :data:`_MIDDLE`, :data:`_AFTER`."""
        pp = self.settings.path_prefix

        def forms(strings):
            flat = [f for x in strings for f in (x, pp + x, *(t + x for t in _LINEAR_TAGS))]
            return label_ids(flat).reshape(-1, 5)

        word_ids = forms(self.words)[self.word_of] if self.words else \
            np.zeros((0, 5), np.int64)
        tag_ids = forms(self.tags)[self.tag_of] if self.tags else np.zeros((0, 5), np.int64)
        type_ids = (label_ids([f for t in self.types for f in (t, pp + t)]).reshape(-1, 2)
                    [self.type_of] if self.types else np.zeros((0, 2), np.int64))
        return word_ids, tag_ids, type_ids, forms([PROT1, PROT2])


def _compiled(arrays, label_ids, vocabulary, kernel, fit, weights):
    """:func:`_pair_max_entries` of the pairs of ``arrays`` and the first-occurrence array
    ``seen`` (``fit``; else empty), sized after the batch's labels are numbered;
    ``weights`` None (entries) or ``(weights, dense_row, dense)`` (inner products)."""
    s = arrays.settings
    word_ids, tag_ids, type_ids, protein_ids = arrays.label_tables(label_ids)
    none = np.zeros(0, np.int64)
    vocab_ptr, vocab_codes = vocabulary if vocabulary is not None else (none, none)
    seen = np.full(len(kernel.labels_), -1, np.int64) if fit else none
    if fit and len(arrays) and 4 * int(arrays.n_tok.max()) + int(np.diff(
            arrays.dep_ptr).max()) >= 1 << _POSITION_BITS:      # pragma: no cover
        raise ValueError("a sentence too long for the first-occurrence keys")
    return seen, _pair_max_entries(
        arrays.n_tok, arrays.tok_ptr, arrays.dep_ptr, arrays.t1, arrays.t2, arrays.pair_ptr,
        *arrays.p1, *arrays.p2, *arrays.e1, *arrays.e2, word_ids, tag_ids, type_ids,
        protein_ids, arrays.literal_protein, float(s.path_weight), float(s.other_weight),
        float(s.linear_weight), float(kernel.min_weight), vocab_ptr, vocab_codes, seen,
        *((np.zeros(0), none, np.zeros(0)) if weights is None else weights))


def max_entries(arrays, label_ids, vocabulary, kernel, fit=False):
    """One chunk ``(counts, keys, values, norms, seen)`` of ``G`` entries (``variant="max"``)
    of the pairs of ``arrays``, in the layout of :meth:`learners.kernels.AllPathsKernel.
    map_from_entries` (``label_ids`` and ``vocabulary`` as that method passes them) and, with
    ``fit``, of :meth:`~learners.kernels.AllPathsKernel.fit_features_from_entries`:
    ``seen[i]`` = ``row << 24 | position`` of label i's first occurrence (−1: none; else
    ``seen`` None).  Pairs of a sentence with a cyclic dependency graph go through
    ``kernel``'s graph route (:meth:`~learners.kernels.AllPathsKernel.graph_entries`)."""
    seen, (rows, keys, values, norms, cyclic, _) = _compiled(arrays, label_ids, vocabulary,
                                                             kernel, fit, None)
    counts = np.bincount(rows, minlength=len(arrays))
    if cyclic.any():
        rows, keys, values, norms, counts, seen = _with_graph_route(
            arrays, kernel, vocabulary is not None, cyclic, rows, keys, values, norms, counts,
            seen if fit else None, label_ids)
    return (counts, keys, values, (norms if vocabulary is not None else None),
            (seen if fit else None))


def max_scores(arrays, label_ids, vocabulary, kernel, weights, dense):
    """One chunk ``(dots, norms)`` of a linear model on the ``G`` entries of the pairs of
    ``arrays`` (:meth:`learners.kernels.AllPathsKernel.linear_scores_from_entries`):
    ``dots[r]`` the inner product of pair r's entries in the vocabulary's columns with
    ``weights`` (one per column; ``dense`` their dense rows, as that method passes them),
    ``norms[r] = ‖G‖²`` — what :func:`max_entries` and a product give, without the entries
    (:func:`learners.kernels.all_paths.dot_entries`).
    Pairs of a sentence with a cyclic dependency graph go through ``kernel``'s graph
    route."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    _, (*_, norms, cyclic, dots) = _compiled(arrays, label_ids, vocabulary, kernel, False,
                                             (weights, *dense))
    if cyclic.any():
        index = np.flatnonzero(cyclic)
        graphs = [structure_pair_graphs(*arrays.structures[i], arrays.settings)
                  for i in index]
        counts, columns, values, graph_norms = kernel.graph_entries(graphs, True)
        dots[index] = np.bincount(np.repeat(np.arange(len(index)), counts),
                                  weights=values * weights[columns], minlength=len(index))
        norms[index] = graph_norms
    return dots, norms


def _with_graph_route(arrays, kernel, by_column, cyclic, rows, keys, values, norms, counts,
                      seen, label_ids):
    """Splice in the entries of the flagged pairs, computed through their graphs (keyed by
    the kernel's columns when ``by_column``), and (``seen`` not None) their labels' first
    occurrences."""
    index = np.flatnonzero(cyclic)
    graphs = [structure_pair_graphs(*arrays.structures[i], arrays.settings) for i in index]
    c, key, w, graph_norms = kernel.graph_entries(graphs, by_column)
    norms = norms.copy()
    if by_column:
        norms[index] = graph_norms
    if seen is not None:
        for r, pair in zip(index, graphs):
            ids = label_ids([x for g in pair for labs in g.labels for x in labs])
            seen = np.concatenate([seen, np.full(max(len(kernel.labels_) - len(seen), 0), -1,
                                                 np.int64)])
            at = (np.int64(r) << np.int64(_POSITION_BITS)) + np.arange(len(ids))
            first = np.unique(ids, return_index=True)
            for i, p in zip(*first):
                if seen[i] < 0 or at[p] < seen[i]:
                    seen[i] = at[p]
    rows = np.concatenate([rows, np.repeat(index, c)])
    order = np.argsort(rows, kind="stable")       # each row's entries stay in key order
    counts = counts.copy()
    counts[index] = c
    return rows[order], np.concatenate([keys, key])[order], \
        np.concatenate([values, w])[order], norms, counts, seen


@numba.njit(cache=True, nogil=True)
def _token_order(n, t1, t2):  # pragma: no cover - compiled
    """A topological order of the tokens under the edges ``t1[j] → t2[j]`` (Kahn), and
    whether one exists (False: a cycle, self-loops included)."""
    indeg = np.zeros(n, np.int64)
    for j in range(len(t1)):
        indeg[t2[j]] += 1
    ptr = np.zeros(n + 1, np.int64)
    for j in range(len(t1)):
        ptr[t1[j] + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    heads = np.empty(len(t1), np.int64)
    for j in range(len(t1)):
        heads[fill[t1[j]]] = j
        fill[t1[j]] += 1
    order = np.empty(n, np.int64)
    size = 0
    for i in range(n):
        if indeg[i] == 0:
            order[size] = i
            size += 1
    head = 0
    while head < size:
        v = order[head]
        head += 1
        for p in range(ptr[v], ptr[v + 1]):
            u = t2[heads[p]]
            indeg[u] -= 1
            if indeg[u] == 0:
                order[size] = u
                size += 1
    return order, size == n, ptr, heads


@numba.njit(cache=True, nogil=True)
def _pair_max_entries(n_tok, tok_ptr, dep_ptr, t1, t2, pair_ptr, p1_ptr, p1, p2_ptr, p2,
                      e1_ptr, e1, e2_ptr, e2, word_ids, tag_ids, type_ids, protein_ids,
                      literal_protein, path_weight, other_weight, linear_weight,
                      min_weight, vocab_ptr, vocab_codes, seen, weights, dense_row,
                      dense):  # pragma: no cover - compiled
    """``(rows, keys, values, norms, cyclic, dots)``: the ``G`` maxima of every pair (module
    docstring) as :func:`learners.kernels.all_paths.label_pairs.append_entries` gives them
    (keys: columns of the vocabulary ``(vocab_ptr, vocab_codes)``, or label-pair codes when
    it is empty), rows sorted, keys ascending within a row; ``norms[r] = ‖G‖²``;
    ``cyclic[r]`` marks the pairs left out (their sentence's dependency graph has a cycle).
    ``seen`` (when not empty): each label's first occurrence ``r << 24 | position`` is
    recorded where it is still −1 (:func:`max_entries`).  ``weights`` (when not empty, one
    per vocabulary column; ``dense_row``, ``dense`` their dense rows): no entries,
    ``dots[r]`` the inner product of pair r's entries with them instead
    (:func:`learners.kernels.all_paths.dot_entries`)."""
    unreachable = np.int64(1) << 40
    n_pairs = pair_ptr[-1]
    cyclic = np.zeros(n_pairs, np.bool_)
    norms = np.zeros(n_pairs)
    dots = np.zeros(n_pairs)
    out = (np.empty(1 << 16, np.int64), np.empty(1 << 16, np.int64),
           np.empty(1 << 16, np.float64))
    m_out = 0
    G_buffer = np.zeros(0)
    for s in range(len(n_tok)):
        n = n_tok[s]
        o = tok_ptr[s]
        d0 = dep_ptr[s]
        m = dep_ptr[s + 1] - d0
        T1 = t1[d0:d0 + m]
        T2 = t2[d0:d0 + m]
        order, acyclic, gov_ptr, governed = _token_order(n, T1, T2)
        if not acyclic:
            cyclic[pair_ptr[s]:pair_ptr[s + 1]] = True
            continue
        nv = n + m
        # dependency subgraph: token k → dependency vertex n + j (t1[j] = k) → token t2[j];
        # a topological order puts each dependency right after its governor
        full = np.empty(nv, np.int64)
        k = 0
        for t in range(n):
            v = order[t]
            full[k] = v
            k += 1
            for p in range(gov_ptr[v], gov_ptr[v + 1]):
                full[k] = n + governed[p]
                k += 1
        out_ptr = np.empty(nv + 1, np.int64)
        out_ptr[:n + 1] = gov_ptr
        for j in range(m):
            out_ptr[n + j + 1] = out_ptr[n + j] + 1
        out_idx = np.empty(out_ptr[nv], np.int64)
        for p in range(gov_ptr[n]):
            out_idx[p] = n + governed[p]
        for j in range(m):
            out_idx[gov_ptr[n] + j] = T2[j]
        out_w = np.empty(len(out_idx))
        deg, nbr = undirected_csr(n, T1, T2)
        dist = np.full((n, nv), unreachable)
        searched = np.zeros(n, np.bool_)
        # the linear-order chain: the same walk sums for every pair of the sentence
        W_lin = np.zeros((n, n))
        if n > 1:
            chain_ptr = np.empty(n + 1, np.int64)
            for i in range(n):
                chain_ptr[i] = min(i, n - 1)
            chain_ptr[n] = n - 1
            dag_walk_sums(np.arange(n), chain_ptr, np.arange(1, n), np.full(n - 1,
                          linear_weight), W_lin)
        W_lin_flat = W_lin.ravel()
        W = np.zeros((nv, nv))
        labels = np.empty(4 * n + m, np.int64)
        lab_ptr = np.empty(2 * n + nv + 1, np.int64)
        kind = np.zeros(n, np.int64)
        on_path = np.zeros(n, np.bool_)
        hit = np.zeros(m, np.bool_)
        for r in range(pair_ptr[s], pair_ptr[s + 1]):
            # dependencies on a shortest path between the end tokens
            for ends in ((e1, e1_ptr), (e2, e2_ptr)):
                for q in range(ends[1][r], ends[1][r + 1]):
                    a = ends[0][q]
                    if not searched[a]:
                        bfs_into(a, deg, nbr, dist[a])
                        searched[a] = True
            hit[:] = False
            for qa in range(e1_ptr[r], e1_ptr[r + 1]):
                a = e1[qa]
                for qb in range(e2_ptr[r], e2_ptr[r + 1]):
                    b = e2[qb]
                    dab = dist[a, b]
                    if a == b or dab >= unreachable:
                        continue
                    for j in range(m):
                        if dist[a, n + j] + dist[b, n + j] == dab:
                            hit[j] = True
            # labels: blinded words (PROT1 over PROT2), path prefix, linear-order tags
            kind[:] = 0
            for q in range(p2_ptr[r], p2_ptr[r + 1]):
                kind[p2[q]] = 2
            for q in range(p1_ptr[r], p1_ptr[r + 1]):
                kind[p1[q]] = 1
            first = n
            for q in range(p1_ptr[r], p1_ptr[r + 1]):
                first = min(first, p1[q])
            last = -1
            for q in range(p2_ptr[r], p2_ptr[r + 1]):
                last = max(last, p2[q])
            on_path[:] = False
            for j in range(m):
                if hit[j]:
                    on_path[T1[j]] = True
                    on_path[T2[j]] = True
                    out_w[gov_ptr[n] + j] = path_weight
                else:
                    out_w[gov_ptr[n] + j] = other_weight
            for p in range(gov_ptr[n]):
                out_w[p] = out_w[gov_ptr[n] + governed[p]]
            x = 0
            for i in range(n):                   # dependency subgraph: token vertices
                form = _PATH if on_path[i] else _PLAIN
                lab_ptr[i] = x
                labels[x] = protein_ids[kind[i] - 1, form] if kind[i] else \
                    word_ids[o + i, form]
                labels[x + 1] = tag_ids[o + i, form]
                x += 2
            for j in range(m):                   # dependency vertices
                lab_ptr[n + j] = x
                labels[x] = type_ids[d0 + j, _PATH if hit[j] else _PLAIN]
                x += 1
            for i in range(n):                   # linear-order subgraph
                if kind[i] or literal_protein[o + i] or first <= i <= last:
                    form = _MIDDLE
                elif i < first:
                    form = _BEFORE
                else:
                    form = _AFTER
                lab_ptr[nv + i] = x
                labels[x] = protein_ids[kind[i] - 1, form] if kind[i] else \
                    word_ids[o + i, form]
                labels[x + 1] = tag_ids[o + i, form]
                x += 2
            lab_ptr[nv + n] = x
            if len(seen):
                for q in range(x):
                    if seen[labels[q]] < 0:
                        seen[labels[q]] = (r << 24) | q
            u_ids = np.unique(labels)
            lab_loc = np.searchsorted(u_ids, labels)
            u = len(u_ids)
            if u * u > len(G_buffer):            # grown to the largest pair's labels
                G_buffer = np.zeros(u * u)
            G = G_buffer[:u * u].reshape((u, u))  # all zero again after append_entries
            dag_walk_sums(full, out_ptr, out_idx, out_w, W)
            update_max(G, W.ravel(), nv, 0, lab_ptr, lab_loc, min_weight)
            update_max(G, W_lin_flat, n, nv, lab_ptr, lab_loc, min_weight)
            if len(weights):
                dots[r], norms[r] = dot_entries(G, u_ids, vocab_ptr, vocab_codes, weights,
                                                dense_row, dense)
            else:
                out, m_out, norms[r] = append_entries(G, u_ids, r, vocab_ptr, vocab_codes,
                                                      out, m_out)
    return (out[0][:m_out].copy(), out[1][:m_out].copy(), out[2][:m_out].copy(), norms,
            cyclic, dots)
