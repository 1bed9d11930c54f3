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
strongest subnetwork: the ``--top-edges`` strongest edges and their genes; spring layout
seeded with ``--seed``), and ``results.json`` + ``results.md`` (nodes, edges, components,
the strongest edges and the best-connected genes).

Memory: the graph (genes and gene pairs), not the input: the input is streamed; per
(edge, document) only the document id is kept while reading.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kernelrank.atomic import atomic_open, save_figure
from kernelrank.errors import InvalidParameterError
from ppi.aggregate import gene_pair, read_document_pairs

__all__ = ["build_network", "write_network", "run_network", "TSV_COLUMNS"]

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


def write_network(graph, output_dir, *, top_edges=50, seed=0):
    """Write ``network.tsv``, ``network.graphml`` and ``network.png`` into ``output_dir``;
    returns the three paths."""
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
    strongest = nx.Graph()
    for u, v in order[:top_edges]:
        strongest.add_edge(u, v, **graph.edges[u, v])
    fig, ax = plt.subplots(figsize=(9, 7))
    if strongest.number_of_edges():
        pos = nx.spring_layout(strongest, seed=seed, k=1.5 / max(1, len(strongest)) ** 0.5)
        widths = [0.8 + 2.5 * strongest.edges[e]["documents"] /
                  max(d["documents"] for _, _, d in strongest.edges(data=True))
                  for e in strongest.edges]
        nx.draw_networkx_edges(strongest, pos, ax=ax, width=widths, alpha=0.6)
        nx.draw_networkx_nodes(strongest, pos, ax=ax, node_size=120, node_color="tab:orange")
        nx.draw_networkx_labels(strongest, pos, ax=ax, font_size=7,
                                labels={g: graph.nodes[g]["name"] for g in strongest})
    ax.set_title(f"the {strongest.number_of_edges()} strongest interactions (of "
                 f"{graph.number_of_edges()}); edge width: documents")
    ax.axis("off")
    fig.tight_layout()
    save_figure(fig, png, dpi=100)
    plt.close(fig)
    return [tsv, graphml, png]


def run_network(input, output_dir, *, all_pairs=False, top_edges=50, seed=0):
    """Build, write and report the network; returns ``(results, written)``."""
    import networkx as nx

    from kernelrank.report import markdown_image, markdown_table, write_report

    if top_edges < 1:
        raise InvalidParameterError(f"--top-edges {top_edges}; give a number ≥ 1")
    graph, counts = build_network(input, all_pairs=all_pairs)
    written = write_network(graph, output_dir, top_edges=top_edges, seed=seed)
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
               "strongest_edges": top, "hubs": hub_rows, "top_edges_drawn": top_edges,
               "seed": seed, "files": [str(p) for p in written]}
    md = ["# Interaction network", "",
          f"From `{input}`: {results['edges_from']}.", "",
          f"- genes (nodes): {results['nodes']}; interactions (edges): {results['edges']} "
          f"({results['self_loops']} self-loops: a gene with itself)",
          f"- connected components: {results['components']} (largest: "
          f"{results['largest_component']} genes)",
          f"- edges supported by one document only: {results['edges_in_one_document']}",
          "- files: `network.tsv`, `network.graphml` (Cytoscape), `network.png`", "",
          "## Strongest interactions", "",
          markdown_table(top, ["gene1", "name1", "gene2", "name2", "documents", "evidence",
                               "best_score"]),
          "## Best-connected genes", "",
          markdown_table(hub_rows, ["gene", "name", "degree", "documents"]),
          markdown_image(written[2], "strongest subnetwork"), ""]
    written += list(write_report(output_dir, "results", results, "\n".join(md)))
    return results, written
