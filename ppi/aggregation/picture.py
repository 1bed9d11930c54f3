"""The picture of the interaction network, ``network.png`` of ``python -m ppi network``: the
components :func:`ppi.aggregation.network.picture_edges` chose, each laid out on its own by
stress majorization (:func:`stress_layout`: Kamada and Kawai's energy), packed in rows, on a
canvas that grows with the genes drawn, with gene labels that never overlap.

Labels: every drawn gene is labelled while the labels fit (their boxes cover at most
:data:`LABEL_AREA` of the plot and there are at most :data:`MAX_LABELS`); in a larger picture
the best-connected genes are (by partners drawn, then documents). Best-connected first, each
label takes the free place nearest its gene — just above it when free, else the nearest of
the places around it within two label widths and five heights (:func:`_separate_labels`); a
label without a free place there is left out, so that no two labels ever overlap. The figure
returns the labels it kept.

Types: in a network with entity and relation types (:func:`has_types`) each node is coloured
by its entity type and each edge by its relation type, in colour and line style (one pair a
type, :func:`_type_styles`: the types of the network in alphabetical order, unknown in grey),
each explained in a legend of its own right of the plot (titles ``entity type`` and
``relation type``: the types drawn); the edge colour then does not show the best score
(the TSV and the GraphML hold it) and there is no colour bar. An untyped network is drawn
without them.

Cost: the layout O(n²) memory and O(n²) per majorization step plus O(n³) once (the start by
classical scaling and the Cholesky factor of the weighted Laplacian) for a component of n
genes — ``--top-edges`` (at most 2,000) bounds n; the labels O(L² P), L ≤
:data:`MAX_LABELS` labels, P places tried around each gene.
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["LABEL_AREA", "MAX_LABELS", "draw_network", "figure_size", "has_types",
           "stress_layout"]

#: the labels' boxes cover at most this share of the plot
LABEL_AREA = 0.12
#: at most this many gene labels
MAX_LABELS = 250
#: control characters, which no font draws: a label shows U+FFFD instead
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
#: the colours of the entity types (nodes), in turn
ENTITY_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
                  "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
#: the colours and line styles of the relation types (edges), in turn: 8 colours × 3 styles,
#: 24 distinct pairs, and the first eight distinct in colour as in style
_RELATION_COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
                     "#a6761d", "#17becf")
_RELATION_LINES = ("solid", "dashed", "dashdot")
#: the colour of an unknown type
_UNKNOWN = "#b0b0b0"


def has_types(graph):
    """Whether ``graph`` (:func:`ppi.aggregation.network.build_network`) holds entity and
    relation types: its nodes have a ``type`` attribute (the network of a typed model)."""
    return any("type" in d for _, d in graph.nodes(data=True))


def _type_styles(graph):
    """``(node colour, edge style)`` of a typed network: entity type → colour, relation type
    → ``(colour, line style)``, the types of the whole network in alphabetical order (the
    same type, the same colour, whatever part is drawn); None → grey (dotted)."""
    entities = sorted({d["type"] for _, d in graph.nodes(data=True)} - {None})
    relations = sorted({d.get("relation_type") for _, _, d in graph.edges(data=True)} - {None})
    colour = {t: ENTITY_COLOURS[i % len(ENTITY_COLOURS)] for i, t in enumerate(entities)}
    style = {t: (_RELATION_COLOURS[i % len(_RELATION_COLOURS)],
                 _RELATION_LINES[i % len(_RELATION_LINES)]) for i, t in enumerate(relations)}
    colour[None], style[None] = _UNKNOWN, (_UNKNOWN, "dotted")
    return colour, style


def stress_layout(graph, iterations=300, tol=1e-3):
    """Positions of the nodes of a connected graph minimising Kamada and Kawai's (1989) energy.

    The stress ``Σ_{i<j} d_ij⁻² (‖x_i − x_j‖ − d_ij)²``, ``d_ij`` the shortest-path length,
    is minimised by stress majorization (Gansner, Koren & North 2004, eq. 9): starting from
    classical multidimensional scaling of ``d`` (its two leading eigenvectors), each step
    solves ``L_w X' = L_Z(X) X`` — ``L_w`` the Laplacian of the weights ``d⁻²``, factorized
    once — which never increases the stress; it stops when a step lowers the stress by less
    than ``tol`` of it. The same energy as :func:`networkx.kamada_kawai_layout`, without its
    general-purpose optimizer (``benchmarks.timings.bench_ppi_network`` compares the two).

    Parameters
    ----------
    graph : networkx.Graph
        Connected, at least two nodes.
    iterations : int
        At most this many majorization steps.
    tol : float
        Relative decrease of the stress below which it stops.

    Returns
    -------
    dict
        node → ``(x, y)``, centred, the largest coordinate ±1 (as networkx's layouts).

    Cost: O(n³) once (the start and the factor), O(n²) time and memory per step, in one
    BLAS thread (at these sizes more threads gain little, and on a busy machine their
    waiting for each other costs many times the work). Deterministic: the start is nudged
    apart by a fixed pseudo-random draw so that nodes in symmetric places (the leaves of a
    star) do not coincide.
    """
    import scipy.linalg  # noqa: F401 - loaded first: the limit binds the BLAS loaded
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _stress_layout(graph, iterations, tol)


def _stress_layout(graph, iterations, tol):
    import networkx as nx
    import numpy as np
    import scipy.linalg
    from scipy.sparse.csgraph import shortest_path

    nodes = list(graph)
    n = len(nodes)
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=nodes, weight=None, format="csr")
    d = shortest_path(adjacency, directed=False, unweighted=True)
    centred = d ** 2
    centred -= centred.mean(axis=0)
    centred -= centred.mean(axis=1)[:, None]
    values, vectors = scipy.linalg.eigh(-0.5 * centred, subset_by_index=[n - 2, n - 1])
    del centred
    x = vectors * np.sqrt(np.maximum(values, 0.0))
    x += 0.01 * np.random.default_rng(0).standard_normal((n, 2))
    off = ~np.eye(n, dtype=bool)
    inverse = np.zeros((n, n))
    inverse[off] = 1.0 / d[off]                      # w_ij d_ij, with w = d⁻²
    del d, off
    w = inverse * inverse
    laplacian = np.diag(w.sum(axis=1)) - w
    factor = scipy.linalg.cho_factor(laplacian[1:, 1:])  # x_0 fixed at 0: L_w is singular
    del laplacian
    constant = float(n * (n - 1))                    # Σ_{i≠j} w_ij d_ij²
    before = math.inf
    dist = np.empty((n, n))
    for _ in range(iterations):
        # ‖x_i − x_j‖² = ‖x_i‖² + ‖x_j‖² − 2 x_i·x_j, in one n × n array; the floor keeps
        # the distances (the diagonal's too) ≥ 1e-12: no division by zero below
        square = (x * x).sum(axis=1)
        np.matmul(-2.0 * x, x.T, out=dist)
        dist += square[:, None]
        dist += square[None, :]
        np.maximum(dist, 1e-24, out=dist)
        # the stress, Σ_{i<j} w (‖x_i − x_j‖ − d)², as sums of products (no temporary)
        stress = np.vdot(w, dist)
        np.sqrt(dist, out=dist)
        stress = (stress - 2.0 * np.vdot(inverse, dist) + constant) / 2
        if before - stress < tol * stress:
            break
        before = stress
        ratio = np.divide(inverse, dist, out=dist)           # 0 on the diagonal
        target = ratio.sum(axis=1)[:, None] * x - ratio @ x        # L_Z(X) X
        x = np.zeros_like(x)
        x[1:] = scipy.linalg.cho_solve(factor, target[1:])
    x -= x.mean(axis=0)
    x /= max(np.abs(x).max(), 1e-12)
    return {node: (float(a), float(b)) for node, (a, b) in zip(nodes, x)}


def _pack(layouts):
    """Place each component's layout (node → (x, y) in [-1, 1]², largest first) in its own
    square of side ∝ nodes^0.65 (a large component gets room for its hubs' neighbours),
    packed left to right in rows; returns one dict of positions (empty for no layout)."""
    if not layouts:
        return {}
    sides = [len(pos) ** 0.65 for pos in layouts]
    width = max(max(sides), 1.25 * math.sqrt(sum(s * s for s in sides)))
    placed, x, y, row = {}, 0.0, 0.0, 0.0
    for pos, side in zip(layouts, sides):
        if x > 0 and x + side > width:
            x, y, row = 0.0, y - row - 0.5, 0.0
        for node, (px, py) in pos.items():
            placed[node] = (x + side * (px + 1) / 2, y - side * (1 - py) / 2)
        x += side + 0.5
        row = max(row, side)
    return placed


def figure_size(genes):
    """``(width, height)`` in inches of the picture of ``genes`` drawn genes: 8 × 6 and one
    inch more per 10 (12) genes up to 16 × 12, then growing with the square root of the
    genes (the area with the genes) up to 36 × 27."""
    root = math.sqrt(genes)
    return (min(36.0, max(min(16.0, 8 + genes / 10), 0.8 * root)),
            min(27.0, max(min(12.0, 6 + genes / 12), 0.6 * root)))


#: where a label may go, in its own width and height from its gene: every combination, the
#: nearest first (just above the gene first)
_STEPS_X = (0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0)
_STEPS_Y = (0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 4.5, -4.5)


def _places(width, height):
    """The places a label of ``width`` × ``height`` may take, offsets of its centre from its
    gene, nearest first (ties: above before below, right before left)."""
    import numpy as np

    steps = np.array([(x, y) for y in _STEPS_Y for x in _STEPS_X])
    offsets = steps * [width, height] + [0.0, 2.0] * np.sign(steps[:, 1:])
    return offsets[np.argsort(np.hypot(*offsets.T), kind="stable")]


def _separate_labels(fig, ax, texts, anchors, sizes=None, pad=1.5):
    """Place the labels ``texts`` (best-connected gene first) near their genes' positions
    ``anchors`` (data coordinates) so that no two overlap and all stay inside the axes.

    In the order given, each label takes the free place nearest its gene among
    :func:`_places` (just above it when that is free: within two label widths and five
    heights), in display coordinates with ``pad`` pixels around every label; a label with no
    free place is removed from the axes. ``sizes``: the labels' ``(width, height)`` in
    display coordinates when known (else measured). Returns the labels kept, in the order
    given.

    Cost: O(L² P) for L labels and P = 90 places, vectorized over the places and the labels
    placed.
    """
    import numpy as np

    if not texts:
        return []
    renderer = fig.canvas.get_renderer()
    if sizes is None:
        sizes = [t.get_window_extent(renderer).size for t in texts]
    size = np.array(sizes, dtype=float).reshape(-1, 2) + 2 * pad
    anchor = ax.transData.transform(np.asarray(anchors, dtype=float).reshape(-1, 2))
    frame = ax.get_window_extent(renderer)
    corner, far = np.array([frame.x0, frame.y0]), np.array([frame.x1, frame.y1])
    centre = np.empty((0, 2))
    boxes = np.empty((0, 2))
    kept = []
    for i, t in enumerate(texts):
        places = anchor[i] + _places(*size[i])
        inside = ((places - size[i] / 2 >= corner) & (places + size[i] / 2 <= far)).all(axis=1)
        places = places[inside]
        if len(centre):
            gap = np.abs(places[:, None, :] - centre[None, :, :]) - (size[i] + boxes) / 2
            places = places[(gap >= 0).any(axis=2).all(axis=1)]
        if not len(places):
            t.remove()
            continue
        centre = np.vstack([centre, places[:1]])
        boxes = np.vstack([boxes, size[i:i + 1]])
        kept.append(i)
    for i, xy in zip(kept, ax.transData.inverted().transform(centre)):
        texts[i].set_position(xy)
    return [texts[i] for i in kept]


def _label_texts(fig, ax, graph, drawn, pos):
    """``(gene, text, (width, height))`` of the label texts of the best-connected genes of
    ``drawn`` while they fit (module docstring), best first, with their size in display
    coordinates; a name two drawn genes share is followed by the gene id."""
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    budget = LABEL_AREA * frame.width * frame.height
    names = Counter(graph.nodes[g]["name"] for g in drawn)
    ranked = sorted(drawn, key=lambda g: (-drawn.degree(g),
                                          -graph.nodes[g].get("documents", 0), g))
    texts, area = [], 0.0
    for g in ranked[:MAX_LABELS]:
        name = graph.nodes[g]["name"]
        t = ax.text(*pos[g], _CONTROL.sub("\ufffd", name + (f" ({g})" if names[name] > 1
                                                              else "")),
                    ha="center", va="center", fontsize=7, zorder=5)
        box = t.get_window_extent(renderer)
        area += (box.width + 3) * (box.height + 3)
        if area > budget:
            t.remove()
            break
        texts.append((g, t, (box.width, box.height)))
    return texts


def _type_legends(fig, colour, style, nodes, edges, left, top):
    """The legends of a typed picture (module docstring), at ``(left, top)`` in figure
    coordinates, the relation types' below the entity types'; ``nodes`` / ``edges``: the
    types drawn. Returns the two legends."""
    from matplotlib.lines import Line2D

    def order(t):
        return (t is None, t or "")
    node_handles = [Line2D([], [], marker="o", linestyle="", markersize=6, color=colour[t],
                           markeredgecolor="white", label=t or "unknown")
                    for t in sorted(set(nodes), key=order)]
    edge_handles = [Line2D([], [], color=style[t][0], linestyle=style[t][1], linewidth=1.6,
                           label=t or "unknown") for t in sorted(set(edges), key=order)]
    options = dict(loc="upper left", fontsize=7, title_fontsize=7, frameon=False,
                   alignment="left")
    first = fig.legend(handles=node_handles, title="entity type", bbox_to_anchor=(left, top),
                       **options)
    box = first.get_window_extent(fig.canvas.get_renderer()).transformed(
        fig.transFigure.inverted())
    second = fig.legend(handles=edge_handles, title="relation type",
                        bbox_to_anchor=(left, box.y0 - 0.02), **options)
    return first, second


def draw_network(graph, parts, counts):
    """The figure of ``network.png``: the components of ``parts``
    (:func:`ppi.aggregation.network.picture_edges`), edge width = documents, colour = best
    score, gene labels that do not overlap (module docstring), a legend and a colour bar; a
    typed network (:func:`has_types`): node colour = entity type, edge colour and line style
    = relation type, explained in the figure's legends (``figure.legends``) instead of the
    colour bar.

    Returns
    -------
    figure : matplotlib.figure.Figure
    labels : list of matplotlib.text.Text
        The gene labels drawn, best-connected gene first (none for a network without an
        interaction to draw: the title says so).
    """
    import matplotlib.pyplot as plt
    import networkx as nx
    import numpy as np
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    drawn = nx.Graph()
    layouts = []
    for part in parts:
        sub = nx.Graph()
        sub.add_edges_from(part)
        drawn.add_edges_from((u, v, graph.edges[u, v]) for u, v in part)
        layouts.append(stress_layout(sub) if len(sub) > 2 else
                       {n: (x, 0.0) for n, x in zip(sub, (-1.0, 1.0))})
    pos = _pack(layouts)
    typed = has_types(graph)
    width, height = figure_size(len(drawn))
    fig, ax = plt.subplots(figsize=(width, height))
    # margins in inches for the title above, the legend below and, typed, the type legends
    # on the right (saved as it is: no second drawing to crop it)
    right = 1 - (2.2 if typed else 0.3) / width
    fig.subplots_adjust(left=0.3 / width, right=right, bottom=0.7 / height,
                        top=1 - 0.55 / height)
    labels = []
    if drawn.number_of_edges():
        documents = [drawn.edges[e]["documents"] for e in drawn.edges]
        scores = [drawn.edges[e]["best_score"] for e in drawn.edges]
        most = max(documents)
        width = [0.8 + 3.2 * (d - 1) / max(1, most - 1) for d in documents]
        segments = [(pos[u], pos[v]) for u, v in drawn.edges]
        # one LineCollection and one scatter (networkx's drawing maps each edge's colour
        # on its own)
        if typed:
            colour, style = _type_styles(graph)
            relations = [drawn.edges[e].get("relation_type") for e in drawn.edges]
            entities = [graph.nodes[g].get("type") for g in drawn]
            ax.add_collection(LineCollection(segments, linewidths=width,
                                             colors=[style[t][0] for t in relations],
                                             linestyles=[style[t][1] for t in relations],
                                             alpha=0.85, zorder=1))
            node_colours = [colour[t] for t in entities]
        else:
            norm = Normalize(min(scores), max(scores) if max(scores) > min(scores)
                             else min(scores) + 1)
            cmap = plt.get_cmap("viridis")
            ax.add_collection(LineCollection(segments, linewidths=width,
                                             array=np.asarray(scores), cmap=cmap, norm=norm,
                                             alpha=0.85, zorder=1))
            node_colours = "tab:orange"
        xy = np.array([pos[g] for g in drawn])
        ax.scatter(xy[:, 0], xy[:, 1], s=[25 + 10 * drawn.degree(g) for g in drawn],
                   c=node_colours, edgecolors="white", linewidths=0.5, zorder=2)
        span = np.maximum(xy.max(axis=0) - xy.min(axis=0), 1.0)
        ax.set_xlim(xy[:, 0].min() - 0.12 * span[0], xy[:, 0].max() + 0.12 * span[0])
        ax.set_ylim(xy[:, 1].min() - 0.08 * span[1], xy[:, 1].max() + 0.12 * span[1])
        if typed:
            _type_legends(fig, colour, style, entities, relations,
                          right + 0.1 / fig.get_figwidth(), 1 - 0.55 / height)
        else:
            fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6,
                         label="edge colour: best document score")
        steps = sorted({1, (1 + most) // 2, most})
        handles = [Line2D([], [], color="grey",
                          linewidth=0.8 + 3.2 * (d - 1) / max(1, most - 1),
                          label=f"{d} document{'s' * (d != 1)}") for d in steps]
        ax.legend(handles=handles, title="edge width", loc="upper center",
                  bbox_to_anchor=(0.5, 0.0), ncol=len(handles), fontsize=7, title_fontsize=7,
                  frameon=False)
        texts = _label_texts(fig, ax, graph, drawn, pos)
        labels = _separate_labels(fig, ax, [t for _, t, _ in texts],
                                  [pos[g] for g, _, _ in texts], [z for _, _, z in texts])
    k, of = counts["components_drawn"], counts["components"]
    shown = ("no interaction" if not k else
             f"{k} of its {of} connected component{'s' * (of != 1)}, largest first")
    cut = " (the largest cut to its strongest edges)" if counts["components_cut"] else ""
    named = ("" if len(labels) == len(drawn) else
             f"; labelled: the {len(labels)} best-connected")
    kind, nodes, edges = (("Relation", "concepts", "relations") if typed else
                          ("Interaction", "genes", "interactions"))
    ax.set_title(f"{kind} network: {shown}{cut}\n{drawn.number_of_nodes()} {nodes}"
                 f"{named}, {drawn.number_of_edges()} of {graph.number_of_edges()} "
                 f"{edges}; not drawn: {counts['self_loops']} self-loops", fontsize=9)
    ax.axis("off")
    return fig, labels
