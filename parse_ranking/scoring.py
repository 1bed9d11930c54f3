"""Parse goodness: F-score of a linkage's word-pair links against the gold dependency tree.

The F-score based goodness function of Tsivtsivadze et al. (2005), as used for the parse
ranking data of Paper I §5.2 (Airola 2011) and KPCRank §6.1, computed here as follows:

* Gold edges ``G``: for every gold token with a head other than the root, the
  **undirected** pair ``{token, head}`` (0-based token indices). Pairs touching a
  punctuation token (:func:`parse_ranking.alignment.is_punctuation`) are left out.
* Linkage edges ``L``: for every LG link ``(a, b)``, the undirected pair of the gold tokens
  the two words align to (:func:`parse_ranking.alignment.align_words`). Links touching a
  wall, an unaligned word or a punctuation token, and self-loops (both words aligned to
  one token) are left out. Several links mapping to one pair count once (sets).
* ``P = |L ∩ G| / |L|``, ``R = |L ∩ G| / |G|``, ``F = 2PR / (P + R)``; ``F = 0`` when
  ``L ∩ G`` is empty (including when ``L`` or ``G`` is empty).

Direction and labels are ignored: LG links are undirected and typed by LG's own
inventory. Cost: O(links + tokens).
"""

from dataclasses import dataclass

__all__ = ["Score", "gold_edges", "linkage_edges", "f_score", "score_linkage"]


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    f: float
    n_correct: int
    n_predicted: int
    n_gold: int


def gold_edges(heads, punct):
    """Undirected gold edges ``{(min, max)}`` over 0-based indices, punctuation excluded.

    ``heads`` are 1-based CoNLL-U heads (0 = root); ``punct`` is a boolean sequence.
    """
    edges = set()
    for i, h in enumerate(heads):
        if h == 0:
            continue
        j = h - 1
        if punct[i] or punct[j] or i == j:
            continue
        edges.add((min(i, j), max(i, j)))
    return edges


def linkage_edges(links, alignment, punct):
    """Undirected gold-token pairs of a linkage's links (see module docstring)."""
    edges = set()
    for a, b, _label in links:
        i, j = alignment[a], alignment[b]
        if i < 0 or j < 0 or i == j or punct[i] or punct[j]:
            continue
        edges.add((min(i, j), max(i, j)))
    return edges


def f_score(predicted, gold):
    """:class:`Score` of edge set ``predicted`` against edge set ``gold``."""
    correct = len(predicted & gold)
    p = correct / len(predicted) if predicted else 0.0
    r = correct / len(gold) if gold else 0.0
    f = 2 * p * r / (p + r) if correct else 0.0
    return Score(p, r, f, correct, len(predicted), len(gold))


def score_linkage(links, alignment, heads, punct):
    """Score one linkage: :func:`f_score` of :func:`linkage_edges` vs :func:`gold_edges`."""
    return f_score(linkage_edges(links, alignment, punct), gold_edges(heads, punct))
