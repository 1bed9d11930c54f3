"""Align Link Grammar words to gold treebank tokens by character offsets.

Parse goodness (Tsivtsivadze et al. 2005) compares a candidate linkage with the gold tree,
so every LG word must be mapped to a gold token. Strings are not compared — LG adds
dictionary subscripts (``levels.n``), unknown-word marks (``mRNA[?].a``) and lower-cases
the first word — only character spans are (LG's C API reports them; gold spans come from
:func:`corpora.conllu.token_offsets`). Rules, for an LG word spanning ``[s, e)``:

1. Walls (``LEFT-WALL``, ``RIGHT-WALL``) and empty spans map to nothing (``-1``).
2. The candidate gold tokens are those whose span overlaps ``[s, e)`` by at least one
   character. None → ``-1``.
3. One candidate → that token. This also covers an LG word that is only a piece of a
   gold token (LG split it): every piece maps to the one token, and a link between two
   pieces becomes a self-loop that scoring drops.
4. Several candidates (CRAFT splits ``ADAM11-deficient`` and ``alphaA/BKO``, LG keeps them
   whole) → the syntactic head of the covered tokens: the candidate whose gold head lies
   outside the covered set; if several qualify, the rightmost of them (English compounds
   are head-final).

Cost: O(words + tokens) per linkage with a sorted sweep; sentences are short, so the
simple O(words × tokens) overlap scan used here is fine.
"""

import numpy as np

__all__ = ["WALLS", "align_words", "is_punctuation"]

WALLS = frozenset({"LEFT-WALL", "RIGHT-WALL"})


def is_punctuation(tokens):
    """Boolean array: gold token is punctuation (UPOS ``PUNCT`` or DEPREL ``punct``)."""
    return np.array([t.upos == "PUNCT" or t.deprel == "punct" for t in tokens], dtype=bool)


def align_words(words, token_spans, heads):
    """Map LG words to 0-based gold token indices (``-1`` = unmapped).

    Parameters
    ----------
    words : sequence of (text, start, end)
        LG words with character spans (end exclusive), as in
        :class:`parse_ranking.linkgrammar.LGLinkage`.
    token_spans : sequence of (start, end)
        Gold token spans in the same string.
    heads : sequence of int
        Gold heads, 1-based with 0 = root (CoNLL-U convention).

    Returns
    -------
    list of int, one per LG word.
    """
    starts = np.asarray([s for s, _ in token_spans], dtype=np.int64)
    ends = np.asarray([e for _, e in token_spans], dtype=np.int64)
    heads = np.asarray(heads, dtype=np.int64)
    out = []
    for text, s, e in words:
        base = text.split("[", 1)[0]
        if base in WALLS or text in WALLS or e <= s:
            out.append(-1)
            continue
        cand = np.flatnonzero((starts < e) & (ends > s))
        if cand.size == 0:
            out.append(-1)
        elif cand.size == 1:
            out.append(int(cand[0]))
        else:
            covered = set((cand + 1).tolist())
            outside = [int(c) for c in cand if int(heads[c]) not in covered]
            out.append(outside[-1] if outside else int(cand[-1]))
    return out
