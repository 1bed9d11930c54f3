"""More views of a candidate pair than the all-paths graph, and their combination.

Each view turns a candidate pair into a sparse, unit-norm feature row; the combined kernel is
the weighted sum of the views' normalized kernels, ``k = Σ_v w_v k̂_v`` (Σ w_v = 1, so
``k(x, x) = 1``), computed as the linear kernel on the concatenation
``[√w_1 Φ̂_1, √w_2 Φ̂_2, ...]`` (as :class:`learners.kernels.SumKernel`).  Summing normalized
kernels of several parses and several feature views is the combination of Miwa et al. 2009
("Protein–protein interaction extraction by leveraging multiple kernels and parsers", Int. J.
Med. Inform. 78(12)): the all-paths graph kernel on each parser's dependency graph, a bag of
words and shortest-path features, each normalized, added with equal weights.

Views (``name[:parse]``):

* ``apg:<parse>`` — the all-paths graph kernel (Paper V, :mod:`ppi.representation.features`) on one
  dependency analysis of the corpus file (``split_parse``, ``Charniak-Lease``) or on spaCy's
  (``spacy``, added beside them by :func:`ppi.parsing.spacy_analyses.add_spacy_analyses`);
* ``bow`` — bag of words around the pair (Bunescu & Mooney 2005's before / between / after
  regions, as Miwa et al.'s BOW kernel): every token, lower-cased, with protein names
  blinded (``PROT1``, ``PROT2``, ``PROT``), prefixed by its region relative to the two
  proteins in text order (``B:``, ``M:``, ``A:``), plus the bigrams of the between region
  (``M2:``) and the number of tokens between (``gap:``, capped at 10);
* ``path:<parse>`` — shortest-path features (Miwa et al.'s SP kernel; the walk features of
  Kim et al. 2010, "Walk-weighted subsequence kernels for protein–protein interaction
  extraction", BMC Bioinformatics 11:107): along every shortest undirected dependency path
  between the two proteins' head tokens (:meth:`ppi.representation.graphs.SentenceStructure.head_token`),
  the words, POS and dependency types with their direction (``>`` with the dependency, ``<``
  against it), the v-walks (token, dependency, token) and e-walks (dependency, token,
  dependency) in word and POS form, and the path length; ``nopath`` when the parse does not
  connect the two;
* ``local`` — the local context of each protein (the local-context kernel of Giuliano et
  al. 2006, "Exploiting shallow linguistic information for relation extraction from
  biomedical literature", EACL, §3.2): the tokens at offsets −2, −1, +1, +2 around each of
  the two proteins (first and second in text order, ``L1`` / ``L2``), each as its blinded
  lower-cased word, its POS and its orthographic shape (:func:`word_shape`), prefixed by
  the protein and the offset (``L1-1w:binds``, ``L2+2p:NN``, ``L1+1s:Xx``); the tokens
  read as ``bow`` reads them (``bow_parse``).  Giuliano et al.'s lemmas are left out: the
  corpus files carry none;
* ``pair`` — the mention pair itself, which every other view blinds (``PROT1`` / ``PROT2``
  hide whether the two mentions name one protein): ``name:same`` when the two names are
  equal as :func:`name_key` compares them, ``name:nested`` when one contains the other
  (``IL-2`` / ``IL-2 receptor``), else ``name:differ``; and ``span:overlap`` when the two
  mentions share characters (nested annotations).  Pairs of one protein named twice are
  hardly ever annotated as interacting (AIMed 10 of 616, IEPA 0 of 98, HPRD50 0 of 35,
  LLL 1 of 14; BioInfer 56 of 558, against 26 % of all its pairs) and overlapping mentions
  in AIMed never (0 of 164) — the observation behind the candidate-filtering rules of
  hybrid systems (cf. Bui, Katrenko & Sloot 2011, "A hybrid approach to extract
  protein–protein interactions", Bioinformatics 27(2)); here a view whose weights are
  learned from the training folds, not a rule.  Its rows hold one or two features: as a
  normalized kernel it is 1 between pairs of the same kind, so it also gives each kind
  its own offset (RLS has no intercept).

Complexity per sentence: one undirected graph and one breadth-first search per entity token
(shared by the sentence's pairs and by the parse names holding the same analysis,
:func:`ppi.representation.graphs.sentence_structure`), then per pair its shortest paths, O(V + E) plus
their length; the vectorization is one sort over all features
(:class:`learners.kernels.bag.BagOfFeaturesKernel`).

Views of identical inputs are computed once at ``transform``: on raw text the one spaCy
analysis is stored under every parse name, so ``apg:split_parse`` and
``apg:Charniak-Lease`` see the same graphs and ``path:…`` the same bags
(:meth:`MultiViewFeaturizer._shared_groups`): their rows are computed once, in the union of
the views' vocabularies, and each view's columns cut out of them
(:mod:`learners.kernels.vocabulary_union`; the rows of the views computed one by one, up to
the summation order of the all-paths norms: ≤ 1e-14 relative, tested).
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from corpora.ppi_xml import resolve_parse_name
from kernelrank.errors import InvalidParameterError
from kernelrank.memory import release_freed_memory
from learners.kernels.bag import BagOfFeaturesKernel
from learners.kernels.sparse_product import sparse_dense_product
from learners.kernels.vocabulary_union import vocabulary_union
from ppi.representation.features import (PairFeaturizer, PairSet, corpus_graphs, keep_vocabulary_only,
                          hstack_in_place, same_analyses, split_rows)
from ppi.representation.graphs import PROT1, PROT2, GraphSettings, sentence_structure
from ppi.names import MULTIVIEW_VIEWS

__all__ = ["VIEW_KINDS", "PAPER_V_VIEWS", "DEFAULT_VIEWS", "parse_view", "view_parses",
           "bow_features", "path_features", "local_features", "pair_features", "name_key",
           "word_shape", "MultiViewFeaturizer"]

#: The kinds of view and whether they take a parse.
VIEW_KINDS = {"apg": True, "bow": False, "path": True, "local": False, "pair": False}
#: Paper V's system: the all-paths kernel on the split parse alone.
PAPER_V_VIEWS = ("apg:split_parse",)
#: Both parses' all-paths kernels, bag of words, shortest-path features on both parses (the
#: ``multiview`` system, :mod:`ppi.systems.multiview`).
DEFAULT_VIEWS = MULTIVIEW_VIEWS

_GAP_CAP = 10


def parse_view(name):
    """``"apg:split_parse"`` → ``("apg", "split_parse")``; ``"bow"`` → ``("bow", None)``."""
    kind, _, parse = str(name).partition(":")
    if kind not in VIEW_KINDS:
        raise InvalidParameterError(f"view {name!r}: unknown kind {kind!r}; choose among "
                                    f"{sorted(VIEW_KINDS)} (apg:PARSE, bow, path:PARSE, local, pair)")
    if VIEW_KINDS[kind]:
        if not parse:
            raise InvalidParameterError(f"view {name!r} needs a parse: {kind}:split_parse, "
                                        f"{kind}:Charniak-Lease or {kind}:spacy")
        try:
            return kind, resolve_parse_name(parse)
        except Exception:
            raise InvalidParameterError(f"view {name!r}: unknown parse {parse!r}; choose "
                                        "split_parse, Charniak-Lease or spacy") from None
    if parse:
        raise InvalidParameterError(f"view {name!r}: {kind} takes no parse")
    return kind, None


def view_parses(views):
    """The canonical parse names the ``views`` name, in order of first use (``bow`` names
    none: it reads the featurizer's ``bow_parse``).

    Parameters
    ----------
    views : sequence of str
        View names (:func:`parse_view`).

    Returns
    -------
    tuple of str
    """
    return tuple(dict.fromkeys(p for _, p in map(parse_view, views) if p is not None))


def _words(st, toks1, toks2):
    """Blinded token texts, lower-cased except the protein placeholders (``PROT1`` over
    ``PROT2`` over ``PROT``)."""
    words = list(st.lowered_texts())
    for i in toks2:
        words[i] = PROT2
    for i in toks1:
        words[i] = PROT1
    return words


def bow_features(st, pair, order="text"):
    """Bag-of-words features of one pair (see the module docstring)."""
    toks1, toks2 = st.pair_tokens(pair, order)
    texts = _words(st, toks1, toks2)
    first = min(min(toks1), min(toks2))
    last = max(max(toks1), max(toks2))
    region = ["B" if i < first else "A" if i > last else "M" for i in range(st.n)]
    out = [f"{r}:{w}" for r, w in zip(region, texts)]
    between = texts[first + 1:last]
    out += [f"M2:{a}_{b}" for a, b in zip(between, between[1:])]
    out.append(f"gap:{min(len(between), _GAP_CAP)}")
    return out


def path_features(st, pair, order="text"):
    """Shortest-path walk features of one pair (see the module docstring)."""
    toks1, toks2 = st.pair_tokens(pair, order)
    a, b = st.head_token(toks1), st.head_token(toks2)
    texts = _words(st, toks1, toks2)
    pos = st.pos_tags
    if a == b:
        return ["samehead"]
    paths = st.shortest_paths(a, b)
    if not paths:
        return ["nopath"]
    n, out = st.n, []
    for path in paths:
        toks = path[0::2]                    # token vertices; dependency vertices between
        deps = []
        for k, v in enumerate(path[1::2]):
            gov, dep, typ = st.deps[v - n]
            deps.append(f"{typ}{'>' if gov == toks[k] else '<'}")
        out.append(f"len:{min(len(deps), _GAP_CAP)}")
        out += [f"d:{d}" for d in deps]
        out += [f"w:{texts[t]}" for t in toks[1:-1]]
        out += [f"p:{pos[t]}" for t in toks]
        for k, d in enumerate(deps):
            out.append(f"vw:{texts[toks[k]]}|{d}|{texts[toks[k + 1]]}")
            out.append(f"vp:{pos[toks[k]]}|{d}|{pos[toks[k + 1]]}")
        for k in range(1, len(deps)):
            out.append(f"ew:{deps[k - 1]}|{texts[toks[k]]}|{deps[k]}")
            out.append(f"ep:{deps[k - 1]}|{pos[toks[k]]}|{deps[k]}")
    return out


@functools.lru_cache(maxsize=1 << 16)
def word_shape(text):
    """Orthographic shape of a token (Giuliano et al. 2006's orthographic features as one
    string; Collins 2002's word classes): upper-case letters → ``X``, lower-case → ``x``,
    digits → ``d``, any other character kept, runs of one class collapsed: ``"Spo0A"`` →
    ``"XxdX"``, ``"p53"`` → ``"xd"``, ``"IL-2"`` → ``"X-d"``.  O(len(text)), once per distinct
    text (cached: a sentence's tokens recur in the windows of each of its pairs)."""
    out = []
    for ch in text:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


_LOCAL_OFFSETS = (-2, -1, 1, 2)


def local_features(st, pair, order="text"):
    """Local-context features of one pair (see the module docstring)."""
    toks1, toks2 = st.pair_tokens(pair, order)
    texts = _words(st, toks1, toks2)
    out = []
    for tag, toks in (("L1", toks1), ("L2", toks2)):
        lo, hi = min(toks), max(toks)
        for off in _LOCAL_OFFSETS:
            i = lo + off if off < 0 else hi + off
            if 0 <= i < st.n:
                t = st.tokens[i]
                out += [f"{tag}{off:+d}w:{texts[i]}", f"{tag}{off:+d}p:{t.pos}",
                        f"{tag}{off:+d}s:{word_shape(t.text)}"]
            else:
                out.append(f"{tag}{off:+d}:none")
    return out


def name_key(text):
    """A protein name as the ``pair`` view compares it: its letters and digits, lower-cased
    (``"IL-2"``, ``"Il 2"`` and ``"il2"`` are one name). O(len(text))."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def pair_features(st, pair, order="text"):
    """Mention-pair features of one pair (see the module docstring): how the two protein
    names relate (``name:same`` / ``name:nested`` / ``name:differ``) and ``span:overlap``
    when the two mentions share characters.  O(entities of the sentence + name lengths)."""
    e1 = e2 = None
    for e in st.sentence.entities:
        if e.id == pair.e1:
            e1 = e
        if e.id == pair.e2:
            e2 = e
    a, b = name_key(e1.text), name_key(e2.text)
    if a == b:
        out = ["name:same"]
    elif a and b and (a in b or b in a):
        out = ["name:nested"]
    else:
        out = ["name:differ"]
    if any(x0 <= y1 and y0 <= x1 for x0, x1 in e1.offsets for y0, y1 in e2.offsets):
        out.append("span:overlap")
    return out


_BAG_FEATURES = {"bow": bow_features, "path": path_features, "local": local_features,
                 "pair": pair_features}


def _corpus_bags(corpus, kind, parse, settings, progress):
    """One bag of features per candidate pair, in corpus order (as ``corpus_graphs``),
    generated sentence by sentence (the vocabulary is fitted while they are read:
    :class:`learners.kernels.bag.BagOfFeaturesKernel`)."""
    fn = _BAG_FEATURES[kind]
    docs = tqdm(corpus.documents, desc=f"{kind} {corpus.source}", unit="doc",
                disable=not progress, leave=False)
    for doc in docs:
        for s in doc.sentences:
            if not s.pairs:
                continue
            st = sentence_structure(s, parse, settings)
            for p in s.pairs:
                yield fn(st, p, settings.order)


def _product(rows, weights, shape):
    """``rows @ weights`` as a dense array of ``shape``: a vector of weights by SciPy, a
    sparse matrix of r models (a Gaussian model's basis) straight into a dense result
    (:func:`learners.kernels.sparse_product.sparse_dense_product`)."""
    if sp.issparse(weights):
        return sparse_dense_product(rows, weights).reshape(shape)
    return np.asarray(rows @ weights).reshape(shape)


class MultiViewFeaturizer:
    """Candidate pairs → the concatenated, weighted, unit-norm rows of several views.

    Parameters
    ----------
    views : sequence of str
        View names (:func:`parse_view`), e.g. :data:`DEFAULT_VIEWS`.
    weights : sequence of float or None
        Non-negative weight per view (normalized to sum 1); None: equal weights.
    variant : {"max", "sum"}          the all-paths variant (``apg`` views)
    settings : GraphSettings          orientation, end points and weights of the pair graphs
    n_features : int or None          feature hashing width of the ``apg`` views
    bow_parse : str                   whose tokenization the ``bow`` view reads

    Attributes
    ----------
    view_slices_ : dict
        After fit: view name → slice of its columns in the concatenated rows.
    """

    def __init__(self, views=DEFAULT_VIEWS, weights=None, variant="max", settings=None,
                 n_features=None, bow_parse="split_parse"):
        self.views = tuple(views)
        if not self.views:
            raise InvalidParameterError("views is empty; give at least one view")
        if len(set(self.views)) != len(self.views):
            raise InvalidParameterError(f"views {self.views} repeat a view")
        self.kinds = [parse_view(v) for v in self.views]
        if weights is None:
            weights = np.ones(len(self.views))
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (len(self.views),) or np.any(weights < 0) or \
                not np.isfinite(weights).all() or weights.sum() <= 0:
            raise InvalidParameterError(f"weights {weights.tolist()}: one non-negative number "
                                        f"per view ({len(self.views)}), not all zero")
        self.weights = weights / weights.sum()
        self.settings = settings or GraphSettings()
        self.variant = variant
        self.n_features = n_features
        self.bow_parse = resolve_parse_name(bow_parse)
        self._parts = {}
        for view, (kind, parse) in zip(self.views, self.kinds):
            if kind == "apg":
                self._parts[view] = PairFeaturizer(parse=parse, variant=variant,
                                                   n_features=n_features,
                                                   settings=self.settings)
            else:
                self._parts[view] = BagOfFeaturesKernel(normalize=True)

    @property
    def parses(self):
        """The dependency analyses (canonical parse names) it reads, in view order: the
        parse of every ``apg`` / ``path`` view and, with a view reading tokens (``bow``,
        ``local``, ``pair``), its ``bow_parse``."""
        return tuple(dict.fromkeys(parse or self.bow_parse for _, parse in self.kinds))

    def _view_rows(self, view, kind, parse, corpora, fit, progress):
        part = self._parts[view]
        if kind == "apg":
            sets = (part.fit_transform if fit else part.transform)(corpora, progress)
            return [s.X for s in sets]
        parse = parse or self.bow_parse
        bags = (b for c in corpora for b in _corpus_bags(c, kind, parse, self.settings,
                                                         progress))
        X = (part.fit_features if fit else part.features)(bags)
        if fit:
            keep_vocabulary_only(part)
        return split_rows(X, [sum(len(s.pairs) for s in c.sentences()) for c in corpora])

    def _shared_groups(self, corpora):
        """Views whose inputs are identical, as lists of ≥ 2 view names: the ``apg`` (or
        ``path``) views of parse names holding the same analysis objects in every sentence
        with a pair (:func:`ppi.representation.features.same_analyses`) — on raw text, spaCy's one parse
        under every name.  Their graphs (bags) are then built once."""
        groups = []
        for kind in ("apg", "path"):
            views = [(v, p) for v, (k, p) in zip(self.views, self.kinds) if k == kind]
            while views:
                (v0, p0), rest = views[0], views[1:]
                group = [v0] + [v for v, p in rest if same_analyses(corpora, p0, p) and (
                    kind != "apg" or self._parts[v0].shares_graphs_with(self._parts[v]))]
                if len(group) > 1:
                    groups.append(group)
                views = [(v, p) for v, p in rest if v not in group]
        return groups

    def _group_rows(self, group, corpora, progress):
        """``{view: rows per corpus}`` of views of identical inputs (:meth:`_shared_groups`),
        computed as :meth:`_view_rows` (``transform``) with the graphs or bags built once and
        the rows computed once in the union of the views' vocabularies, each view's columns
        then cut out (:mod:`learners.kernels.vocabulary_union`; the separate results up to
        the summation order of the all-paths norms)."""
        if parse_view(group[0])[0] == "apg":      # the graph route too, when not compiled
            sets = PairFeaturizer.transform_shared([self._parts[v] for v in group], corpora,
                                                   progress)
            return {v: [s.X for s in ss] for v, ss in zip(group, sets)}
        union, Phi, self_kernel = self._group_map(group, corpora, progress)
        sizes = [sum(len(s.pairs) for s in c.sentences()) for c in corpora]
        return {v: split_rows(X, sizes) for v, X in zip(group, union.split(Phi, self_kernel))}

    def _fit_view_rows(self, view, kind, parse, corpora, progress):
        """The newly fitted view's rows of all ``corpora`` together, in corpus order (fresh:
        the caller's to consume)."""
        part = self._parts[view]
        if kind == "apg":
            return part.fit_rows(corpora, progress)[1]
        parse = parse or self.bow_parse
        X = part.fit_features(b for c in corpora
                              for b in _corpus_bags(c, kind, parse, self.settings, progress))
        keep_vocabulary_only(part)
        return X

    def _fit_transform(self, corpora, meta, progress):
        """:meth:`fit_transform`'s rows: every view fitted on all corpora together, the
        views concatenated in the arrays of the widest (:func:`ppi.representation.features.
        hstack_in_place`: the rows are held about once), then cut per corpus (the largest
        corpus in those arrays, the others copied: :func:`ppi.representation.features.
        split_rows` with ``consume``)."""
        joint, start, self.view_slices_ = [], 0, {}
        for view, (kind, parse) in zip(self.views, self.kinds):
            X = self._fit_view_rows(view, kind, parse, corpora, progress)
            release_freed_memory()            # the view's temporaries, before the next one
            self.view_slices_[view] = slice(start, start + X.shape[1])
            start += X.shape[1]
            joint.append(X)
        X = hstack_in_place(joint, np.sqrt(self.weights))
        joint.clear()
        release_freed_memory()
        rows = split_rows(X, [len(m[1]) for m in meta], consume=True)
        del X
        return [PairSet(c.source, Xk, y, pids, sids, dids)
                for c, Xk, (_, y, pids, sids, dids) in zip(corpora, rows, meta)]

    def _transform(self, corpora, fit, progress):
        corpora = list(corpora)
        if fit:                                   # new vocabularies: new weight blocks
            self.__dict__.pop("_blocks_of_weights", None)
        meta = [corpus_graphs(c, self.bow_parse, self.settings, progress=False, graphs=False)
                for c in corpora]
        if fit:
            return self._fit_transform(corpora, meta, progress)
        shared = {}
        if not fit:
            for group in self._shared_groups(corpora):
                shared.update(self._group_rows(group, corpora, progress))
        blocks, start, self.view_slices_ = [], 0, {}
        for view, (kind, parse), w in zip(self.views, self.kinds, self.weights):
            rows = shared.pop(view, None)
            if rows is None:
                rows = self._view_rows(view, kind, parse, corpora, fit, progress)
            width = rows[0].shape[1] if rows else 0
            self.view_slices_[view] = slice(start, start + width)
            start += width
            for X in rows:
                X.data *= np.sqrt(w)                 # in place: the views' rows are ours
            blocks.append(rows)
        out = []
        for k, (c, (_, y, pids, sids, dids)) in enumerate(zip(corpora, meta)):
            X = sp.hstack([b[k] for b in blocks], format="csr")
            for b in blocks:                          # free each corpus' blocks at once
                b[k] = None
            out.append(PairSet(c.source, X, y, pids, sids, dids))
        return out

    def scores(self, corpora, weights, progress=False):
        """``[data.X @ weights for data in self.transform(corpora)]`` without the rows:
        views of identical inputs (:meth:`_shared_groups`) are scored from the rows of the
        union of their vocabularies with their weights merged (:meth:`learners.kernels.
        vocabulary_union.VocabularyUnion.merged_weights`), each other view from its own
        rows — no cutting, weighting and concatenating of the views' rows.  The same scores
        up to the order of the floating-point sums (tested).

        ``weights``: over the concatenated columns of the fitted views, in view order (a
        :class:`ppi.models.classes.PPIModel`'s) — a vector, or a matrix (dense or sparse, columns ×
        r) of r linear models at once, e.g. a Gaussian model's transposed basis rows (then
        each corpus' scores are its rows' inner products with the basis, pairs × r)."""
        corpora = list(corpora)
        sizes = [sum(len(s.pairs) for s in c.sentences()) for c in corpora]
        blocks = self._weight_blocks(weights)
        total = np.zeros((sum(sizes),) + np.shape(weights)[1:])
        linear = np.ndim(weights) == 1 and not sp.issparse(weights)
        done = set()
        for group in self._shared_groups(corpora):
            if parse_view(group[0])[0] == "apg" and \
                    not all(self._parts[v].compiled for v in group):
                continue                          # the graph route: view by view below
            key = tuple(group)
            if linear and self._compiled_with_vocabulary(group):
                if key not in blocks:
                    blocks[key] = vocabulary_union(
                        [self._parts[v].vectorizer for v in group]).merged_weights(
                        [blocks[v] for v in group])
                total += PairFeaturizer.union_scores([self._parts[v] for v in group],
                                                     corpora, blocks[key], progress)
            else:
                union, Phi, self_kernel = self._group_map(group, corpora, progress)
                if key not in blocks:             # once per model and group
                    blocks[key] = union.merged_weights([blocks[v] for v in group])
                total += (union.union.scores_of_map(Phi, self_kernel, blocks[key]) if linear
                          else _product(union.union.rows_of_map(Phi, self_kernel),
                                        blocks[key], total.shape))
            done.update(group)
        for view, (kind, parse) in zip(self.views, self.kinds):
            if view in done:
                continue
            if linear and self._compiled_with_vocabulary([view]):
                total += PairFeaturizer.union_scores([self._parts[view]], corpora,
                                                     blocks[view], progress)
            elif linear and kind != "apg":
                bags = [b for c in corpora for b in _corpus_bags(
                    c, kind, parse or self.bow_parse, self.settings, progress)]
                total += self._parts[view].linear_scores(bags, blocks[view])
            else:
                rows = self._view_rows(view, kind, parse, corpora, False, progress)
                total += _product(sp.vstack(rows, format="csr"), blocks[view], total.shape)
        return split_rows(total, sizes)

    def _compiled_with_vocabulary(self, views):
        """Whether ``views`` are all-paths views a linear model scores without rows
        (:attr:`ppi.representation.features.PairFeaturizer.scores_without_rows`; the largest share of an
        extraction's featurizing: about 1,600 entries per pair)."""
        return all(isinstance(self._parts[v], PairFeaturizer)
                   and self._parts[v].scores_without_rows for v in views)

    def _weight_blocks(self, weights):
        """``{view: its block of weights × √(view weight)}`` of the weights over the
        concatenated columns, kept (with the merged weights of shared views) while the
        same weights array is passed — a model scores batch after batch."""
        cached = self.__dict__.get("_blocks_of_weights")
        if cached is not None and cached[0] is weights:
            return cached[1]
        w_all = weights if sp.issparse(weights) else np.asarray(weights, dtype=np.float64)
        blocks, start = {}, 0
        for view, w in zip(self.views, self.weights):
            part = self._parts[view]
            width = (part.vectorizer if isinstance(part, PairFeaturizer) else part).n_columns()
            blocks[view] = w_all[start:start + width] * np.sqrt(w)
            start += width
        if start != w_all.shape[0]:
            raise InvalidParameterError(f"{w_all.shape[0]} weights for {start} columns of the "
                                        "views; give the model's weights")
        self.__dict__["_blocks_of_weights"] = (weights, blocks)
        return blocks

    def _group_map(self, group, corpora, progress):
        """``(union, Phi, self_kernel)`` of views of identical inputs: their vocabularies'
        union and its unnormalized map of every pair (corpus order)."""
        kind, parse = parse_view(group[0])
        if kind == "apg":
            return PairFeaturizer.union_map([self._parts[v] for v in group], corpora,
                                            progress)
        bags = [b for c in corpora for b in _corpus_bags(c, kind, parse, self.settings,
                                                         progress)]
        union = vocabulary_union([self._parts[v] for v in group])
        return (union, *union.union._feature_map(bags, False))

    def fit_transform(self, corpora, progress=False):
        """Fit every view's vocabulary on all ``corpora`` together; one PairSet each."""
        return self._transform(corpora, True, progress)

    def transform(self, corpora, progress=False):
        """Rows in the fitted vocabularies (unseen features dropped, norms kept)."""
        return self._transform(corpora, False, progress)
