"""``python -m ppi network``: the corpus-level interaction network of the document-level pairs.

Input: the output of ``python -m ppi aggregate`` (JSONL or TSV).  The network
(:class:`networkx.Graph`) has a node per gene id and an edge per unordered gene pair predicted
to interact in at least one document (``--all-pairs``: every co-mentioned pair, a
co-occurrence network); a gene predicted to interact with itself (a homodimer claim) is a
self-loop.  Attributes:

edge
    ``documents`` (documents where the pair is predicted to interact), ``co_mentions``
    (documents where the two genes share a sentence), ``evidence`` (mention pairs predicted to
    interact, summed over documents), ``best_score`` (the highest document score),
    ``doc_ids`` (the interacting documents, ``;``-separated: GraphML has no lists);
node
    ``name`` (the gene's most frequent mention text over the pairs), ``documents``
    (documents in which it takes part in an edge), ``degree``.

Outputs (``--output-dir``): ``network.tsv`` (one line per edge, strongest first: by
documents, then best score), ``network.graphml`` (GraphML, opens in Cytoscape;
``networkx.read_graphml`` gives back the same edges and attributes), ``network.png`` (the
picture, :func:`picture_edges` and :func:`draw_network`), and ``results.json`` +
``results.md`` (nodes, edges, components, what the picture shows, the strongest edges and
the best-connected genes; the report links the picture).

The picture shows what a reader looks for in a literature network — who interacts with whom
around the hubs — rather than the strongest edges alone, which in a corpus of abstracts are
mostly isolated pairs (each stated by its own few documents): the largest connected
components, largest first, while they fit in ``--top-edges`` edges; the largest one, when it
alone is larger, is cut to its strongest edges grown from its strongest one, so that the part
drawn stays connected. Isolated pairs are drawn only when the network has no larger
component; self-loops are not drawn. A name that two drawn genes share is followed by the
gene id. Each component is laid out on its own (Kamada–Kawai)
and the components are packed in rows; gene labels are moved apart until no two overlap.
Edge width is the number of documents, edge colour the best document score, both explained
in a legend.

Memory: the graph (genes and gene pairs), not the input: the input is streamed; per
(edge, document) only the document id is kept while reading.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kernelrank.atomic import atomic_open, save_figure
from kernelrank.errors import InvalidParameterError
from ppi.aggregation.aggregate import gene_pair, read_document_pairs

__all__ = ["build_network", "write_network", "run_network", "picture_edges", "draw_network",
           "TSV_COLUMNS"]

TSV_COLUMNS = ("gene1", "gene2", "name1", "name2", "documents", "co_mentions", "evidence",
               "best_score", "doc_ids")


def build_network(path, *, all_pairs=False):
    """The :class:`networkx.Graph` of an aggregate output (module docstring), and counts."""
    import networkx as nx

    edges, names = {}, {}
    read = 0
    for _, x in read_document_pairs(path):
        read += 1
        g1, g2 = gene_pair(str(x["gene1"]), str(x["gene2"]))
        flipped = (g1, g2) != (str(x["gene1"]), str(x["gene2"]))
        t1, t2 = x.get("gene1_text"), x.get("gene2_text")
        if flipped:
            t1, t2 = t2, t1
        e = edges.get((g1, g2))
        if e is None:
            e = edges[(g1, g2)] = {"documents": [], "co_mentions": 0, "evidence": 0,
                                   "best_score": float("-inf")}
        e["co_mentions"] += 1
        if x["interaction"] or all_pairs:
            e["documents"].append(str(x["doc_id"]))
            e["evidence"] += int(x.get("positive_mention_pairs", 0) or 0)
            e["best_score"] = max(e["best_score"], float(x["score"]))
        for g, t in ((g1, t1), (g2, t2)):
            if t:
                names.setdefault(g, Counter())[t] += 1
    graph = nx.Graph()
    for (g1, g2), e in edges.items():
        if not e["documents"]:
            continue
        docs = list(dict.fromkeys(e["documents"]))
        graph.add_edge(g1, g2, documents=len(docs), co_mentions=e["co_mentions"],
                       evidence=e["evidence"], best_score=e["best_score"],
                       doc_ids=";".join(docs))
    for g in graph.nodes:
        counter = names.get(g)
        graph.nodes[g]["name"] = counter.most_common(1)[0][0] if counter else g
        docs = set()
        for _, _, d in graph.edges(g, data=True):
            docs.update(d["doc_ids"].split(";"))
        graph.nodes[g]["documents"] = len(docs)
        graph.nodes[g]["degree"] = graph.degree(g)
    return graph, {"document_pairs_read": read, "gene_pairs_co_mentioned": len(edges)}


def _strength(graph, u, v):
    d = graph.edges[u, v]
    return (-d["documents"], -d["best_score"], u, v)


def _sorted_edges(graph):
    return sorted(((u, v) if (u, v) == gene_pair(u, v) else (v, u)
                   for u, v in graph.edges), key=lambda e: _strength(graph, *e))


def picture_edges(graph, top_edges=100):
    """The edges ``network.png`` draws, grouped by connected component (module docstring).

    Parameters
    ----------
    graph : networkx.Graph
        The network of :func:`build_network`.
    top_edges : int
        At most this many edges are drawn.

    Returns
    -------
    parts : list of list of (str, str)
        One list of edges per component drawn, largest component first; each list in the
        order the edges were taken (strongest first, every edge touching the ones before).
    counts : dict
        ``components`` (of the network, self-loops aside), ``components_drawn``,
        ``components_cut`` (drawn in part), ``self_loops`` (never drawn).

    Cost: O(E log E) for the components and the growth (a heap of candidate edges).
    """
    import heapq

    import networkx as nx

    plain = nx.Graph((u, v, d) for u, v, d in graph.edges(data=True) if u != v)
    components = [plain.subgraph(c) for c in nx.connected_components(plain)]

    def strongest(sub):
        return min(_strength(graph, *gene_pair(u, v)) for u, v in sub.edges)

    components.sort(key=lambda sub: (-sub.number_of_nodes(), strongest(sub)))
    n_components = len(components)
    if components and components[0].number_of_nodes() > 2:
        components = [c for c in components if c.number_of_nodes() > 2]
    parts, left, cut = [], top_edges, 0
    for sub in components:
        if left < 1:
            break
        if parts and sub.number_of_edges() > left:
            continue                  # only the first (largest) component is ever cut
        first = min((gene_pair(u, v) for u, v in sub.edges),
                    key=lambda e: _strength(graph, *e))
        taken, seen, nodes = [first], {first}, set(first)
        heap = []

        def push(node):
            for u, v in sub.edges(node):
                e = gene_pair(u, v)
                if e not in seen:
                    heapq.heappush(heap, (_strength(graph, *e), e))

        for node in first:
            push(node)
        while heap and len(taken) < left:
            _, e = heapq.heappop(heap)
            if e in seen:
                continue
            seen.add(e)
            taken.append(e)
            for node in e:
                if node not in nodes:
                    nodes.add(node)
                    push(node)
        cut += len(taken) < sub.number_of_edges()
        parts.append(taken)
        left -= len(taken)
    counts = {"components": n_components,
              "components_drawn": len(parts), "components_cut": cut,
              "self_loops": nx.number_of_selfloops(graph)}
    return parts, counts


def _pack(layouts):
    """Place each component's layout (node → (x, y) in [-1, 1]², largest first) in its own
    square of side ∝ nodes^0.65 (a large component gets room for its hubs' neighbours),
    packed left to right in rows; returns one dict of positions."""
    import math

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


def _separate_labels(fig, ax, texts, anchors, iterations=500, pad=1.5):
    """Place the labels ``texts`` near their genes' positions ``anchors`` (data coordinates)
    so that no two overlap and all stay inside the axes: each starts just above its gene;
    every overlapping pair is pushed apart along the axis of least overlap (half each), in
    display coordinates, until none overlaps. Returns the number of overlapping pairs left
    (0 unless the labels cannot fit the axes)."""
    import numpy as np

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    size = np.array([t.get_window_extent(renderer).size for t in texts]).reshape(-1, 2)
    size += 2 * pad
    centre = ax.transData.transform(np.asarray(anchors, dtype=float).reshape(-1, 2))
    centre[:, 1] += size[:, 1] / 2 + 2
    frame = ax.get_window_extent(renderer)
    low = np.array([frame.x0, frame.y0]) + size / 2
    high = np.maximum(low, np.array([frame.x1, frame.y1]) - size / 2)
    order = np.arange(len(texts))
    left = 0
    for _ in range(iterations):
        d = centre[:, None, :] - centre[None, :, :]
        overlap = (size[:, None, :] + size[None, :, :]) / 2 - np.abs(d)
        hit = (overlap > 0).all(axis=2) & (order[:, None] != order[None, :])
        left = int(hit.sum()) // 2
        if not left:
            break
        axis = np.argmin(overlap, axis=2)                      # least overlap: move that way
        # identical centres: the later label moves up / right
        tie = np.where(order[:, None] > order[None, :], 1.0, -1.0)[:, :, None]
        sign = np.where(d == 0, tie, np.sign(d))
        push = np.zeros_like(d)
        rows, cols = np.nonzero(hit)
        push[rows, cols, axis[rows, cols]] = (sign[rows, cols, axis[rows, cols]]
                                              * (overlap[rows, cols, axis[rows, cols]] / 2 + 0.5))
        centre = np.clip(centre + push.sum(axis=1) / 2, low, high)
    to_data = ax.transData.inverted()
    for t, xy in zip(texts, to_data.transform(centre)):
        t.set_position(xy)
    return left


def draw_network(graph, parts, counts):
    """The figure of :func:`write_network`'s ``network.png``: the components of ``parts``
    (:func:`picture_edges`), edge width = documents, colour = best score, gene labels that do
    not overlap, a legend and a colour bar. Returns ``(figure, labels)``, ``labels`` the gene
    label texts (matplotlib ``Text``)."""
    import matplotlib.pyplot as plt
    import networkx as nx
    import numpy as np
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    drawn = nx.Graph()
    layouts = []
    for part in parts:
        sub = nx.Graph()
        sub.add_edges_from(part)
        drawn.add_edges_from((u, v, graph.edges[u, v]) for u, v in part)
        layouts.append(nx.kamada_kawai_layout(sub) if len(sub) > 2 else
                       {n: (x, 0.0) for n, x in zip(sub, (-1.0, 1.0))})
    pos = _pack(layouts)
    n = max(1, len(drawn))
    fig, ax = plt.subplots(figsize=(min(16, 8 + n / 10), min(12, 6 + n / 12)))
    labels = []
    if drawn.number_of_edges():
        documents = [drawn.edges[e]["documents"] for e in drawn.edges]
        scores = [drawn.edges[e]["best_score"] for e in drawn.edges]
        most = max(documents)
        width = [0.8 + 3.2 * (d - 1) / max(1, most - 1) for d in documents]
        norm = Normalize(min(scores), max(scores) if max(scores) > min(scores)
                         else min(scores) + 1)
        cmap = plt.get_cmap("viridis")
        nx.draw_networkx_edges(drawn, pos, ax=ax, width=width, edge_color=scores,
                               edge_cmap=cmap, edge_vmin=norm.vmin, edge_vmax=norm.vmax,
                               alpha=0.85)
        nx.draw_networkx_nodes(drawn, pos, ax=ax, node_color="tab:orange",
                               node_size=[25 + 10 * drawn.degree(g) for g in drawn],
                               edgecolors="white", linewidths=0.5)
        xy = np.array([pos[g] for g in drawn])
        span = np.maximum(xy.max(axis=0) - xy.min(axis=0), 1.0)
        ax.set_xlim(xy[:, 0].min() - 0.12 * span[0], xy[:, 0].max() + 0.12 * span[0])
        ax.set_ylim(xy[:, 1].min() - 0.08 * span[1], xy[:, 1].max() + 0.12 * span[1])
        names = Counter(graph.nodes[g]["name"] for g in drawn)
        labels = [ax.text(*pos[g], graph.nodes[g]["name"] + (
                          f" ({g})" if names[graph.nodes[g]["name"]] > 1 else ""),
                          ha="center", va="center", fontsize=7, zorder=5) for g in drawn]
        fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6,
                     label="edge colour: best document score")
        steps = sorted({1, (1 + most) // 2, most})
        handles = [Line2D([], [], color="grey",
                          linewidth=0.8 + 3.2 * (d - 1) / max(1, most - 1),
                          label=f"{d} document{'s' * (d != 1)}") for d in steps]
        ax.legend(handles=handles, title="edge width", loc="upper center",
                  bbox_to_anchor=(0.5, 0.0), ncol=len(handles), fontsize=7, title_fontsize=7,
                  frameon=False)
        _separate_labels(fig, ax, labels, [pos[g] for g in drawn])
    k, of = counts["components_drawn"], counts["components"]
    shown = ("no interaction" if not k else
             f"{k} of its {of} connected component{'s' * (of != 1)}, largest first")
    cut = " (the largest cut to its strongest edges)" if counts["components_cut"] else ""
    ax.set_title(f"Interaction network: {shown}{cut}\n{drawn.number_of_nodes()} genes, "
                 f"{drawn.number_of_edges()} of {graph.number_of_edges()} interactions; "
                 f"not drawn: {counts['self_loops']} self-loops", fontsize=9)
    ax.axis("off")
    return fig, labels


def write_network(graph, output_dir, *, top_edges=100, seed=0):
    """Write ``network.tsv``, ``network.graphml`` and ``network.png`` into ``output_dir``;
    returns the three paths and what the picture shows (:func:`picture_edges`' counts with
    the genes and edges drawn). ``seed`` is accepted for the command line's uniformity: the
    layout (Kamada–Kawai per component) is deterministic."""
    import matplotlib.pyplot as plt
    import networkx as nx

    output_dir = Path(output_dir)
    tsv, graphml, png = (output_dir / "network.tsv", output_dir / "network.graphml",
                         output_dir / "network.png")
    order = _sorted_edges(graph)
    with atomic_open(tsv) as out:
        out.write("\t".join(TSV_COLUMNS) + "\n")
        for u, v in order:
            d = graph.edges[u, v]
            row = (u, v, graph.nodes[u]["name"], graph.nodes[v]["name"], d["documents"],
                   d["co_mentions"], d["evidence"], repr(d["best_score"]), d["doc_ids"])
            out.write("\t".join(str(x).replace("\t", " ").replace("\n", " ") for x in row)
                      + "\n")
    with atomic_open(graphml, "wb") as out:
        nx.write_graphml(graph, out)
    parts, counts = picture_edges(graph, top_edges)
    fig, labels = draw_network(graph, parts, counts)
    save_figure(fig, png, dpi=110, bbox_inches="tight")
    plt.close(fig)
    picture = dict(counts, edges=sum(map(len, parts)),
                   genes=len({g for part in parts for e in part for g in e}))
    return [tsv, graphml, png], picture


def run_network(input, output_dir, *, all_pairs=False, top_edges=100, seed=0):
    """Build, write and report the network; returns ``(results, written)``."""
    import networkx as nx

    from kernelrank.report import markdown_image, markdown_table, write_report

    if top_edges < 1:
        raise InvalidParameterError(f"--top-edges {top_edges}; give a number ≥ 1")
    graph, counts = build_network(input, all_pairs=all_pairs)
    written, picture = write_network(graph, output_dir, top_edges=top_edges, seed=seed)
    comps = sorted((len(c) for c in nx.connected_components(graph)), reverse=True)
    top = [{"gene1": u, "gene2": v, "name1": graph.nodes[u]["name"],
            "name2": graph.nodes[v]["name"], **{k: graph.edges[u, v][k] for k in
                                                 ("documents", "evidence", "best_score")}}
           for u, v in _sorted_edges(graph)[:20]]
    hubs = sorted(graph.nodes, key=lambda g: (-graph.degree(g), g))[:15]
    hub_rows = [{"gene": g, "name": graph.nodes[g]["name"], "degree": graph.degree(g),
                 "documents": graph.nodes[g]["documents"]} for g in hubs]
    results = {"input": str(input), "edges_from": "every co-mentioned pair" if all_pairs
               else "pairs predicted to interact in at least one document",
               **counts, "nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(),
               "self_loops": nx.number_of_selfloops(graph), "components": len(comps),
               "largest_component": comps[0] if comps else 0,
               "edges_in_one_document": sum(1 for _, _, d in graph.edges(data=True)
                                            if d["documents"] == 1),
               "strongest_edges": top, "hubs": hub_rows, "top_edges": top_edges,
               "picture": picture, "seed": seed, "files": [str(p) for p in written]}
    md = ["# Interaction network", "",
          f"From `{input}`: {results['edges_from']}.", "",
          f"- genes (nodes): {results['nodes']}; interactions (edges): {results['edges']} "
          f"({results['self_loops']} self-loops: a gene with itself)",
          f"- connected components: {results['components']} (largest: "
          f"{results['largest_component']} genes)",
          f"- edges supported by one document only: {results['edges_in_one_document']}",
          "- files: `network.tsv`, `network.graphml` (Cytoscape), "
          "[`network.png`](network.png)", "",
          "## Picture", "",
          f"[`network.png`](network.png) draws {picture['components_drawn']} of the "
          f"{picture['components']} connected components, largest first, as many as fit in "
          f"`--top-edges` {top_edges} edges" + (" (the largest cut to its strongest edges)"
                                                if picture["components_cut"] else "")
          + f": {picture['genes']} genes, {picture['edges']} of {results['edges']} "
          f"interactions; self-loops ({picture['self_loops']}) are not drawn. Edge width: "
          "the documents stating the interaction; edge colour: its best document score.", "",
          markdown_image(written[2], "interaction network"), "",
          "## Strongest interactions", "",
          markdown_table(top, ["gene1", "name1", "gene2", "name2", "documents", "evidence",
                               "best_score"]),
          "## Best-connected genes", "",
          markdown_table(hub_rows, ["gene", "name", "degree", "documents"]), ""]
    written += list(write_report(output_dir, "results", results, "\n".join(md)))
    return results, written
