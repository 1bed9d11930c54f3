"""Entity-pair types: which two kinds of concept a ``documents`` model relates, and the
feature augmentation that lets one model learn them all.

BioRED (Luo et al. 2022, "BioRED: a rich biomedical relation extraction dataset", Briefings
in Bioinformatics 23(5)) relates concepts of six entity types in eight combinations —
disease–gene, chemical–disease, gene–gene, chemical–gene, disease–variant,
chemical–chemical, chemical–variant, variant–variant.  A **pair type** is the unordered pair
of two entity types, written ``A:B`` with the two names in sorted order
(``ChemicalEntity:GeneOrGeneProduct``; :func:`pair_type_name`), compared ignoring case.
A candidate concept pair has the pair type of its two concepts' entity types; a mention
pair the pair type of its two mentions' types.

:class:`PairTypes` is a model's set of pair types: given (``--pairs A:B …``) or read off the
training file (``--pairs all``, :meth:`PairTypes.from_relations`: every pair type that at
least :data:`MIN_RELATIONS` of its relations relate; rarer ones are left out and counted,
and naming them keeps them).

**One model over all pair types** (:func:`augment`): the frustratingly easy domain
adaptation of Daumé III (2007, "Frustratingly easy domain adaptation", ACL, §3): a row
``x`` of pair type ``t`` becomes ``[x, 0, …, x (block t), …, 0]`` — one shared copy and one
copy in its pair type's own block.  Its linear kernel is ``k(x, z) (1 + [t_x = t_z])``: the
pair types share what they have in common and keep what is their own, and the fitted
weights are a shared vector and one per pair type, a row's score ``x·(w_shared + w_t)``
(:func:`type_weights` keeps the two apart: the shared weights once, not once per pair
type).  ``shared=False``
drops the shared copy: one independent model per pair type (block-diagonal kernel), with
one λ for all.  O(nnz) time and memory: the augmented rows hold twice the non-zeros; without
the shared copy they are the rows themselves with their columns moved.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from corpora.standoff import split_concept_ids
from kernelrank.errors import InvalidParameterError
from ppi.names import MIN_RELATIONS, PAIR_MODELS

__all__ = ["MIN_RELATIONS", "PairTypes", "pair_type_name", "parse_pair_type",
           "concept_types", "relation_pair_types", "augment", "type_weights", "keep_pair_types",
           "row_pair_types", "PAIR_MODELS"]



def pair_type_name(a, b):
    """The name ``A:B`` of the unordered pair of entity types ``a``, ``b`` (sorted)."""
    a, b = sorted((a, b))
    return f"{a}:{b}"


def parse_pair_type(text):
    """``(a, b)``, sorted, of a pair type written ``A:B``; an
    :class:`InvalidParameterError` saying the syntax otherwise."""
    parts = [p.strip() for p in str(text).split(":")]
    if len(parts) != 2 or not all(parts):
        raise InvalidParameterError(
            f"pair type {text!r}: write two entity types joined by ':', e.g. "
            "ChemicalEntity:GeneOrGeneProduct, or `all` for every pair type the training "
            "file relates")
    return tuple(sorted(parts))


def concept_types(mentions):
    """``{concept id: entity type}`` of a document's ``mentions``: each id's most frequent
    mention type (ties: the first mentioned).  O(mentions)."""
    counts, first = {}, {}
    for k, m in enumerate(mentions):
        for i in split_concept_ids(m.id):
            counts.setdefault(i, Counter())[m.type or ""] += 1
            first.setdefault((i, m.type or ""), k)
    return {i: max(c, key=lambda t: (c[t], -first[(i, t)])) for i, c in counts.items()}


def relation_pair_types(docs):
    """``Counter`` of the pair types (:func:`pair_type_name`) of the relations of ``docs``
    (each relation's ids typed by :func:`concept_types` of its document's mentions; a
    relation naming an id without a mention is not counted here — the relation counts of
    :mod:`ppi.documents.relation_counts` say what became of it).  O(mentions + relations)."""
    out = Counter()
    for d in docs:
        types = concept_types(d.mentions or ())
        for r in d.relations or ():
            seen = set()
            for a in split_concept_ids(r.id1):
                for b in split_concept_ids(r.id2):
                    if a in types and b in types:
                        seen.add(pair_type_name(types[a], types[b]))
            out.update(seen)
    return out


@dataclass(frozen=True)
class PairTypes:
    """The pair types of a model: ``pairs``, each ``(a, b)`` sorted, in sorted order (a
    pair type's number is its position)."""

    pairs: tuple

    def __post_init__(self):
        if not self.pairs:
            raise InvalidParameterError("a model relates at least one pair type (--pairs)")
        object.__setattr__(self, "pairs", tuple(sorted({tuple(sorted(p)) for p in self.pairs})))
        object.__setattr__(self, "_index", {(a.lower(), b.lower()): k
                                            for k, (a, b) in enumerate(self.pairs)})

    @classmethod
    def parse(cls, specs):
        """The pair types of ``--pairs`` values ``A:B``; ``all`` is resolved by
        :meth:`from_relations` (this returns None for it)."""
        specs = list(specs)
        if any(s.strip().lower() == "all" for s in specs):
            if len(specs) > 1:
                raise InvalidParameterError("--pairs all stands alone: it is every pair type "
                                            "the training file relates")
            return None
        return cls(tuple(parse_pair_type(s) for s in specs))

    @classmethod
    def from_relations(cls, docs, path=None, min_relations=MIN_RELATIONS):
        """``(pair_types, left_out)``: every pair type that at least ``min_relations``
        relations of ``docs`` relate, and ``{name: relations}`` of those left out.  A file
        too small for that keeps every related pair type, and one whose relations relate no
        two mentioned concepts every pair of its mentions' types — so that what is wrong
        with it is said where the candidates are counted
        (:func:`ppi.documents.mention_stage.check_classes`)."""
        import itertools

        counts = relation_pair_types(docs)
        kept = [n for n, c in counts.items() if c >= min_relations] or list(counts)
        if not kept:
            types = sorted({m.type for d in docs for m in d.mentions or () if m.type})
            kept = [pair_type_name(a, b)
                    for a, b in itertools.combinations_with_replacement(types, 2)]
        if not kept:
            raise InvalidParameterError(f"{path or 'the documents'}: no mention has an entity "
                                        "type, so no pair type can be related; --pairs A:B "
                                        "names the types of the mentions to pair")
        left = {n: c for n, c in counts.items() if n not in kept}
        return cls(tuple(parse_pair_type(n) for n in kept)), left

    @property
    def names(self):
        """The pair types' names ``A:B`` in number order."""
        return [f"{a}:{b}" for a, b in self.pairs]

    @property
    def entity_types(self):
        """Every entity type of a pair type (sorted): the mentions that are candidates."""
        return tuple(sorted({t for p in self.pairs for t in p}))

    def __len__(self):
        return len(self.pairs)

    def index(self, a, b):
        """The number of the pair type of entity types ``a``, ``b`` (−1: not a pair type of
        the model).  O(1)."""
        x, y = sorted(((a or "").lower(), (b or "").lower()))
        return self._index.get((x, y), -1)

    def as_list(self):
        """JSON form: ``[[a, b], …]``."""
        return [list(p) for p in self.pairs]


def augment(X, pair_type, n_types, shared=True):
    """The rows ``X`` (CSR, m × d) in the augmented space of Daumé III (2007): ``[x, x in
    block t]`` (``shared``) or ``[x in block t]`` alone — m × d(1 + T), resp. m × dT
    (module docstring).  ``pair_type``: the number of each row's pair type.  O(nnz), the
    values shared with ``X`` without the shared copy; 32-bit indices where they fit."""
    import scipy.sparse as sp

    X = sp.csr_matrix(X)
    t = np.asarray(pair_type, dtype=np.int64)
    if t.shape != (X.shape[0],) or (t.size and (t.min() < 0 or t.max() >= n_types)):
        raise InvalidParameterError("every row needs the number of one of the model's pair "
                                    "types")
    d = X.shape[1]
    n_cols = d * (n_types + (1 if shared else 0))
    width = np.int32 if n_cols < 2 ** 31 and 2 * X.nnz < 2 ** 31 else np.int64
    counts = np.diff(X.indptr)
    own = np.repeat((t * d + (d if shared else 0)).astype(width), counts)
    own += X.indices                     # each entry's column in its pair type's block
    if not shared:
        return sp.csr_matrix((X.data, own, X.indptr.astype(width)), shape=(X.shape[0], n_cols))
    # row i: its shared entries at 2 p_i + k, its block's at 2 p_i + c_i + k (p_i: the row's
    # start in X, c_i its entries, k = 0 … c_i − 1)
    first = np.repeat(X.indptr[:-1], counts)
    first += np.arange(X.nnz, dtype=first.dtype)
    indices = np.empty(2 * X.nnz, dtype=width)
    data = np.empty(2 * X.nnz, dtype=X.data.dtype)
    indices[first], data[first] = X.indices, X.data
    first += np.repeat(counts, counts)
    indices[first], data[first] = own, X.data
    return sp.csr_matrix((data, indices, (2 * X.indptr).astype(width)),
                         shape=(X.shape[0], n_cols))


def type_weights(weights, columns, d, n_blocks, prior=None):
    """The weights of an augmented linear model as one sparse matrix over the base
    columns, d × B·q: block ``b``'s column ``c`` (at ``b·q + c``) holds the weights of the
    augmented columns ``b·d … b·d + d − 1`` (``weights``, u × q: the model's on the augmented
    ``columns``, the others 0).  With the shared copy block 0 is ``w_shared`` and pair type
    ``t``'s own block ``t + 1``, a row's score ``x·(w_shared + w_t)``; without it block ``t``.
    ``prior``: ``[(block, w), …]``, vectors over the base columns added to column 0 of
    those blocks (a transfer prior's ``β w_g``).  O(u q + nnz(w)): the same non-zeros as
    ``weights``, never a dense d × B·q nor a copy of the shared weights per pair type."""
    import scipy.sparse as sp

    weights = np.asarray(weights, dtype=float)
    columns = np.asarray(columns, dtype=np.int64)
    q = weights.shape[1]
    block, base = np.divmod(columns, d)
    rows = [np.repeat(base, q)]
    cols = [(block[:, None] * q + np.arange(q)[None, :]).ravel()]
    vals = [weights.ravel()]
    for b, w in prior or ():
        nz = np.flatnonzero(w)
        rows.append(nz)
        cols.append(np.full(len(nz), b * q))
        vals.append(np.asarray(w)[nz])
    W = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(d, n_blocks * q)).tocsr()
    W.sum_duplicates()
    W.eliminate_zeros()
    return W


def keep_pair_types(parsed, pair_types):
    """Keep, in each of the ``parsed`` sentences (:class:`ppi.parsing.spacy_parse.
    ParsedSentence`), only the mention pairs whose two mentions' types make one of
    ``pair_types``: the others are no candidate of the model, so they are neither featurized
    nor scored — in training and in ``ppi extract`` alike.  Returns ``parsed`` (changed in
    place).  O(pairs)."""
    for p in parsed:
        s = p.sentence
        if not s.pairs:
            continue
        kind = {e.id: e.type for e in s.entities}
        s.pairs = [q for q in s.pairs if pair_types.index(kind[q.e1], kind[q.e2]) >= 0]
    return parsed


def row_pair_types(sentences, pair_types):
    """The number of the pair type of every mention pair of ``sentences``
    (:class:`corpora.ppi_xml.Sentence` objects, in row order) — the rows of the
    featurizers.  O(pairs)."""
    out = []
    for s in sentences:
        kind = {e.id: e.type for e in s.entities}
        out.extend(pair_types.index(kind[q.e1], kind[q.e2]) for q in s.pairs)
    return np.array(out, dtype=np.int64)
