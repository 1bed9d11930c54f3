"""Representations of Link Grammar parses as sparse feature rows (linear kernel = the kernel).

Four representations of one linkage (a record of :mod:`parse_ranking.dataset`), from the
parse ranking papers (Tsivtsivadze et al. 2005 features; 2006 locality-convolution kernel;
Pahikkala et al. 2006 graph representation — thesis ../shared/papers/003 §2.2.1, §2.2.3):

* ``"bag_of_links"``: counts of link types (LG labels such as ``Ss``, ``Mp``, ``Jp``).
* ``"links_words"``: link types plus link types with their words — ``label``,
  ``label|left word``, ``label|right word``, ``label|left|right`` (words lower-cased from
  the sentence by character offsets, so LG subscripts do not split counts; walls are
  ``LEFT-WALL`` / ``RIGHT-WALL``).
* ``"locality"``: the locality-convolution kernel (:class:`learners.kernels.LocalityKernel`,
  shared with ``homology``; vocabulary of link types learned at fit) over the sequence of
  link types in order of appearance (links sorted by left word, then right); parameters
  ``window`` (its ``half_width``, default 2), ``theta`` (1.0), ``matching`` ("sensitive").
* ``"graph"``: the all-paths graph kernel (:class:`learners.kernels.AllPathsKernel`, shared
  with ``ppi``)
  on a graph with one vertex per word (labels: the word and LG's subscript class, e.g.
  ``W:levels``, ``S:n``) and one vertex per link (label ``L:<type>``), each link vertex
  joined to its two words in both directions with weight ``edge_weight`` (0.3);
  ``on_divergence="scale"`` keeps the Neumann series convergent on dense linkages.

Every representation returns unit-norm CSR rows by default (cosine-normalised kernel), so
long and short sentences weigh alike. ``fit`` learns the vocabulary on training parses;
``transform`` maps new ones into it.
"""

from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction import DictVectorizer

from kernelrank.errors import InvalidInputError, InvalidParameterError
from kernelrank.memory import release_freed_memory
from learners.kernels import AllPathsKernel, LabelledGraph, LocalityKernel
from parse_ranking.names import REPRESENTATIONS

__all__ = ["REPRESENTATIONS", "ParseRepresentation", "FoldFeatures", "link_sequence",
           "parse_words", "parse_graph", "representation_state", "representation_from_state"]

WALL_NAMES = ("LEFT-WALL", "RIGHT-WALL")


def parse_words(parse, text):
    """Lower-cased surface word of every LG word (walls keep their names)."""
    out = []
    for word, start, end in parse["words"]:
        base = word.split("[", 1)[0]
        if base in WALL_NAMES:
            out.append(base)
        elif end > start:
            out.append(text[start:end].lower())
        else:
            out.append(base.lower())
    return out


def _subscript(word):
    """LG's dictionary subscript (``levels.n`` → ``n``), '' when absent."""
    base = word.split("[", 1)[0]
    if base in WALL_NAMES or "." not in base[1:]:
        return ""
    return base.rsplit(".", 1)[1]


def link_sequence(parse):
    """Link types in order of appearance (sorted by left word, then right word)."""
    return [lab for _, _, lab in sorted(parse["links"], key=lambda x: (x[0], x[1]))]


def _bag(parse, text, with_words):
    feats = {}
    words = parse_words(parse, text) if with_words else None
    for a, b, lab in parse["links"]:
        keys = [lab]
        if with_words:
            keys += [f"{lab}|L={words[a]}", f"{lab}|R={words[b]}",
                     f"{lab}|{words[a]}|{words[b]}"]
        for k in keys:
            feats[k] = feats.get(k, 0) + 1
    return feats


def parse_graph(parse, text, edge_weight=0.3):
    """:class:`learners.kernels.LabelledGraph` of a linkage (see module docstring)."""
    words = parse_words(parse, text)
    n_words = len(words)
    labels = []
    for word, (raw, _, _) in zip(words, parse["words"]):
        sub = _subscript(raw)
        labels.append([f"W:{word}"] + ([f"S:{sub}"] if sub else []))
    edges = []
    for k, (a, b, lab) in enumerate(parse["links"]):
        v = n_words + k
        labels.append([f"L:{lab}"])
        edges += [(a, v), (v, a), (b, v), (v, b)]
    edges = np.asarray(edges, dtype=np.intp).reshape(-1, 2)
    return LabelledGraph(n_vertices=len(labels), edges=edges,
                         weights=np.full(len(edges), float(edge_weight)), labels=labels)


class ParseRepresentation:
    """Parses → sparse rows for one of :data:`REPRESENTATIONS`.

    Parameters
    ----------
    kind : str
    normalize : bool, default True
    window, theta, matching : locality-kernel parameters (``kind="locality"``)
    edge_weight, variant : graph parameters (``kind="graph"``)

    Input to ``fit``/``transform``: a list of ``(parse, sentence_text)`` pairs.
    """

    def __init__(self, kind="locality", normalize=True, window=2, theta=1.0,
                 matching="sensitive", edge_weight=0.3, variant="sum"):
        self.kind = kind
        self.normalize = normalize
        self.window = window
        self.theta = theta
        self.matching = matching
        self.edge_weight = edge_weight
        self.variant = variant

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("kind", "normalize", "window", "theta",
                                              "matching", "edge_weight", "variant")}

    def _check(self):
        if self.kind not in REPRESENTATIONS:
            raise InvalidParameterError(f"representation must be one of {REPRESENTATIONS}, "
                                        f"got {self.kind!r}")

    def _kernel(self):
        """The structured kernel of ``kind`` "locality" or "graph" (unfitted)."""
        if self.kind == "locality":
            return LocalityKernel(half_width=self.window, matching=self.matching,
                                  normalize=self.normalize,
                                  **({"theta": self.theta} if self.matching == "sensitive"
                                     else {}))
        return AllPathsKernel(variant=self.variant, normalize=self.normalize,
                              on_divergence="scale")

    def _objects(self, items):
        if self.kind == "locality":
            return [link_sequence(p) for p, _ in items]
        return [parse_graph(p, t, self.edge_weight) for p, t in items]

    @staticmethod
    def _unit(X):
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        return (sp.diags(scale) @ X).tocsr()

    def fit_transform(self, items):
        self._check()
        items = list(items)
        if self.kind in ("bag_of_links", "links_words"):
            self.vec_ = DictVectorizer(sparse=True)
            X = self.vec_.fit_transform([_bag(p, t, self.kind == "links_words")
                                         for p, t in items]).tocsr().astype(float)
            return self._unit(X) if self.normalize else X
        self.vec_ = self._kernel()
        return self.vec_.fit_features(self._objects(items))

    def fit(self, items):
        self.fit_transform(items)
        return self

    def transform(self, items):
        items = list(items)
        if self.kind in ("bag_of_links", "links_words"):
            X = self.vec_.transform([_bag(p, t, self.kind == "links_words")
                                     for p, t in items]).tocsr().astype(float)
            return self._unit(X) if self.normalize else X
        return self.vec_.features(self._objects(items))



#: Name prefix of :meth:`FoldFeatures.parked` directories: ``kernelrank-rows-<pid>-<random>``.
PARKING_PREFIX = "kernelrank-rows-"


def remove_stale_parking(directory=None):
    """Delete parking directories (:meth:`FoldFeatures.parked`) whose process is gone — a
    run killed by SIGKILL or a power cut cannot clean up after itself. Directories of live
    processes, and names that do not carry a pid, are left alone. Returns the removed paths."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    removed = []
    for path in Path(directory or tempfile.gettempdir()).glob(PARKING_PREFIX + "*"):
        pid = path.name[len(PARKING_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue                               # still running
        except ProcessLookupError:
            pass
        except PermissionError:
            continue                               # another user's live process
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed

class FoldFeatures:
    """Feature rows of every parse computed once; per CV fold, rows with exactly the dot
    products of a representation fitted on the fold's training parses only.

    Featurizing is the costly part of a fold (above all the all-paths graph), and
    what a training-only fit changes is just which columns exist and, for the bag
    representations, the norms:

    * ``locality``, ``graph``: a row's features and its normalization (the exact ``k(p, p)``
      over all its pairs, seen in training or not — :mod:`learners.kernels.locality`,
      :class:`learners.kernels.AllPathsKernel`) do not depend on the training set, and a
      column no training parse has is zero in every training row. So the rows of one fit on
      all parses give the training-only kernel values, ``K(train, train)`` and
      ``K(test, train)``, exactly; no score is read.
    * ``bag_of_links``, ``links_words``: counts are fitted once; per fold the columns of
      the training parses are kept and the rows normalized over those columns — the
      matrices of :meth:`ParseRepresentation.fit_transform` / ``transform`` up to the
      order of the columns.

    A test checks both against per-fold fits. Memory: the rows of all parses (sparse); they
    are computed ``chunk`` (1,000) parses at a time (the all-paths graph's entries before
    aggregation are far larger than the aggregated rows: too large for all CRAFT parses at
    once), each chunk
    fitted on its own and its columns mapped by name (label pair, symbol pair and offset,
    feature string) into one vocabulary (columns in order of first appearance).
    """

    def __init__(self, kind, items, chunk=1000, **rep_params):
        self.kind = kind
        bag = kind in ("bag_of_links", "links_words")
        self.normalize = rep_params.get("normalize", True)
        params = dict(rep_params, normalize=False if bag else self.normalize)
        items = list(items)
        index, data, indices, lengths = {}, [], [], []
        for i in range(0, len(items), int(chunk)):
            rep = ParseRepresentation(kind, **params)
            X = rep.fit_transform(items[i:i + int(chunk)]).tocsr()
            cols = np.fromiter((index.setdefault(k, len(index)) for k in _column_keys(rep)),
                               dtype=np.int64, count=X.shape[1])
            small = len(index) < 2 ** 31
            data.append(X.data)
            indices.append(cols[X.indices].astype(np.int32 if small else np.int64))
            lengths.append(np.diff(X.indptr))
            del X, rep
        self.X = _assemble(data, indices, lengths, len(items), len(index))
        self._bag = bag

    @contextmanager
    def parked(self, directory=None):
        """Context manager: the rows of all parses are held in a temporary directory
        (``directory``, default the system's) instead of memory while its body runs, and
        read back, bit for bit, when it ends (also on an error).

        For the fits of one CV fold: the fold's training rows (:meth:`train_rows`, a copy)
        are all a fit reads, so the rows of every parse need not stay beside them. Parking
        saves the memory of the rows of all parses for the cost of writing and reading them
        once per fold (three raw ``.npy`` files; docs/results/parse_ranking.md, "The all-paths
        graph representation within 4 GB"). :meth:`train_rows` / :meth:`test_rows`
        inside the body are an error. If writing fails (e.g. a full disk) the rows stay in
        memory and the ``OSError`` names the file.
        """
        import os
        import tempfile

        from kernelrank.atomic import named_os_error

        if self.X is None:
            raise InvalidInputError("FoldFeatures.parked: the rows are already parked")
        remove_stale_parking(directory)
        with tempfile.TemporaryDirectory(prefix=f"{PARKING_PREFIX}{os.getpid()}-",
                                         dir=directory) as tmp:
            X = self.X
            parts = {"data": X.data, "indices": X.indices, "indptr": X.indptr}
            for name, a in parts.items():
                path = os.path.join(tmp, name + ".npy")
                try:
                    np.save(path, a, allow_pickle=False)
                except OSError as exc:
                    raise named_os_error(exc, path) from exc
            shape, sorted_ = X.shape, X.has_sorted_indices
            self.X = None
            del X, parts, a
            release_freed_memory()
            try:
                yield self
            finally:
                arrays = {name: np.load(os.path.join(tmp, name + ".npy"), allow_pickle=False)
                          for name in ("data", "indices", "indptr")}
                X = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                                  shape=shape, copy=False)
                X.has_sorted_indices = sorted_
                self.X = X

    def _rows(self):
        if self.X is None:
            raise InvalidInputError("FoldFeatures: the rows are parked (FoldFeatures.parked); "
                                    "read them after its block")
        return self.X

    def fold(self, train, test):
        """``(X_train, X_test)`` for row indices ``train`` and ``test``."""
        X_tr = self.train_rows(train)
        return X_tr, self.test_rows(test)

    def train_rows(self, train):
        """``X_train`` of :meth:`fold`; remembers its columns for :meth:`test_rows`."""
        X_tr = self._rows()[train]
        if not self._bag:
            return X_tr
        self._cols = np.unique(X_tr.indices)
        X_tr = X_tr[:, self._cols]
        return ParseRepresentation._unit(X_tr) if self.normalize else X_tr

    def test_rows(self, test):
        """``X_test`` of :meth:`fold` for the training rows of the last :meth:`train_rows`
        (built when needed: the sparse rankers score the test parses after the fit, so
        the test rows are not held during it)."""
        X_te = self._rows()[test]
        if not self._bag:
            return X_te
        X_te = X_te[:, self._cols]
        return ParseRepresentation._unit(X_te) if self.normalize else X_te


def _assemble(data, indices, lengths, n_rows, n_cols):
    """One CSR matrix from per-chunk ``data`` / ``indices`` / row ``lengths`` (the lists are
    emptied): the final arrays are allocated once and each chunk is copied in and released,
    so the peak is the matrix plus one chunk — not the chunks plus their concatenation."""
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.concatenate(lengths or [np.zeros(0, np.int64)]), out=indptr[1:])
    nnz = int(indptr[-1])
    small = nnz < 2 ** 31 and n_cols < 2 ** 31                # scipy's int32 indices
    itype = np.int32 if small else np.int64
    out_data = np.empty(nnz, dtype=np.float64)
    out_ind = np.empty(nnz, dtype=itype)
    pos = 0
    done = 0
    while data:
        d, ix = data.pop(0), indices.pop(0)
        out_data[pos:pos + d.size] = d
        out_ind[pos:pos + d.size] = ix
        pos += d.size
        del d, ix
        done += 1
        if done % 8 == 0:
            release_freed_memory()
    lengths.clear()
    release_freed_memory()
    X = sp.csr_matrix((out_data, out_ind, indptr.astype(itype)), shape=(n_rows, n_cols),
                      copy=False)
    X.sort_indices()
    return X

def _column_keys(rep):
    """A name for every feature column of a fitted :class:`ParseRepresentation`, the same
    for the same feature in any fit: the feature string (bags), ``(label_i, label_j)``
    (graph), ``(symbol_a, symbol_b, offset column)`` (locality)."""
    v = rep.vec_
    if rep.kind in ("bag_of_links", "links_words"):
        return list(v.feature_names_)
    if rep.kind == "graph":
        return v.feature_names()
    names = [None] * len(v.symbols_)
    for sym, i in v.symbols_.items():
        names[i] = str(sym)
    width = v.factor_.shape[0]
    return [(names[c >> 32], names[c & 0xFFFFFFFF], o)
            for c in v.pair_codes_.tolist() for o in range(width)]


def representation_state(rep):
    """JSON-serialisable state of a fitted :class:`ParseRepresentation` (no pickle).

    ``bag_of_links``/``links_words``: the feature → column vocabulary; ``locality``: the
    symbol ids, sorted feature-pair codes and the offset factor ``R`` of
    :class:`learners.kernels.LocalityKernel`; ``graph``: the vertex label list of
    :class:`learners.kernels.AllPathsKernel` (a label's id is its
    position) and its sorted label-pair codes ``i·2^32 + j`` (the columns). Codes are
    JSON integers; Python's ``json`` reads them back exactly (no float rounding).
    """
    state = {"params": rep.get_params()}
    if rep.kind in ("bag_of_links", "links_words"):
        state["vocabulary"] = {k: int(v) for k, v in rep.vec_.vocabulary_.items()}
    elif rep.kind == "locality":
        v = rep.vec_
        state["symbols"] = {str(k): int(i) for k, i in v.symbols_.items()}
        state["pair_codes"] = [int(c) for c in v.pair_codes_]
        state["R"] = v.factor_.tolist()
    elif rep.kind == "graph":
        v = rep.vec_
        state["labels"] = [str(x) for x in v.labels_]
        state["pair_codes"] = [int(c) for c in v.pair_codes_]
    else:
        raise InvalidParameterError(f"saving the {rep.kind!r} representation is not supported; "
                                    f"use one of {REPRESENTATIONS}")
    return state


def representation_from_state(state):
    """Rebuild a fitted :class:`ParseRepresentation` from :func:`representation_state`."""
    rep = ParseRepresentation(**state["params"])
    if rep.kind in ("bag_of_links", "links_words"):
        vec = DictVectorizer(sparse=True)
        vec.vocabulary_ = dict(state["vocabulary"])
        names = [None] * len(vec.vocabulary_)
        for k, i in vec.vocabulary_.items():
            names[i] = k
        vec.feature_names_ = names
        rep.vec_ = vec
    elif rep.kind == "locality":
        vec = rep._kernel()
        vec.symbols_ = dict(state["symbols"])
        vec.pair_codes_ = np.asarray(state["pair_codes"], dtype=np.int64)
        vec.factor_ = np.asarray(state["R"], dtype=float)
        rep.vec_ = vec
    elif rep.kind == "graph":
        vec = rep._kernel()
        vec.labels_ = list(state["labels"])
        codes = np.asarray(state["pair_codes"], dtype=np.int64)
        if codes.size > 1 and not np.all(codes[1:] > codes[:-1]):
            raise InvalidParameterError("graph representation state: pair_codes must be "
                                        "strictly increasing (sorted vocabulary columns)")
        vec.pair_codes_ = codes
        rep.vec_ = vec
    else:
        raise InvalidParameterError(f"cannot restore representation {rep.kind!r}")
    return rep
