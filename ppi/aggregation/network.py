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

The records of a typed model (``type1`` / ``type2``, ``relation_type``, ``novel``:
:mod:`ppi.aggregation.aggregate`) add, to every node and edge of the network, node ``type``
(the concept's entity type, the most frequent over its records, ties alphabetical; None when
no record gives it) and edge ``relation_type`` (the relation type most of the edge's
documents predict, ties to the type of the best document score, then alphabetical; None when
none predicts one) and ``novel_documents`` (how many of the edge's documents call it a novel
finding) — the edge's documents being those its ``documents`` counts (``--all-pairs``: every
co-mentioning one). A network of records without them has none of these attributes.

Outputs (``--output-dir``): ``network.tsv`` (one line per edge, strongest first: by
documents, then best score; the columns of :data:`TSV_COLUMNS`, the types empty when
unknown), ``network.graphml`` (GraphML, opens in Cytoscape; ``networkx.read_graphml`` gives
back the same edges and attributes, a None attribute — an unknown type — as no value),
``network.png`` (the picture, :func:`picture_edges` and
:func:`ppi.aggregation.picture.draw_network`), and
``results.json`` + ``results.md`` (nodes, edges, components, what the picture shows, the
strongest edges and the best-connected genes; the report links the picture). The three
network files are made first and then moved into place together: a failure leaves none of
them (nor a report).

A network without an edge — an input without records, or none predicted to interact — is a
result, not an error: every output is written (the TSV its header only, an empty GraphML
graph, a picture saying "no interaction") and the report says in words that there is no
interaction and how many document pairs were read.

The picture shows what a reader looks for in a literature network — who interacts with whom
around the hubs — rather than the strongest edges alone, which in a corpus of abstracts are
mostly isolated pairs (each stated by its own few documents): the largest connected
components, largest first, while they fit in ``--top-edges`` edges (at most
:data:`ppi.names.MAX_TOP_EDGES`); the largest one, when it alone is larger, is cut to its strongest
edges grown from its strongest one, so that the part drawn stays connected. Isolated pairs
are drawn only when the network has no larger component; self-loops are not drawn. Each
component is laid out on its own (stress majorization: Kamada and Kawai's energy) and the
components are packed in rows; the picture grows with the genes drawn; the best-connected
genes are labelled while their labels fit (all of them in a small picture) and no two labels
overlap (:mod:`ppi.aggregation.picture`). Edge width is the number of documents, edge colour
the best document score, both explained in a legend; in a typed network node colour is the
entity type and edge colour and line style the relation type, explained in two more legends.

Memory: the graph (genes and gene pairs), not the input: the input is streamed; per
(edge, document) only the document id is kept while reading; the picture O(n²) for the n
genes of the largest component drawn.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from xml.sax.saxutils import escape

from kernelrank.atomic import atomic_files
from kernelrank.errors import InvalidParameterError
from ppi.aggregation.aggregate import gene_pair, read_document_pairs
from ppi.aggregation.picture import draw_network, has_types
from ppi.extraction.records import clean
from ppi.names import MAX_TOP_EDGES

__all__ = ["build_network", "write_network", "run_network", "picture_edges", "draw_network",
           "graphml_text", "TSV_COLUMNS"]

TSV_COLUMNS = ("gene1", "gene2", "name1", "name2", "documents", "co_mentions", "evidence",
               "best_score", "doc_ids", "type1", "type2", "relation_type", "novel_documents")


def _most_frequent(relations):
    """The most frequent relation type of ``{type: (documents, best score)}``, ties to the
    highest score, then to the first in alphabetical order; None for none."""
    if not relations:
        return None
    return min(relations.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))[0]


def build_network(path, *, all_pairs=False):
    """The :class:`networkx.Graph` of an aggregate output (module docstring), and counts."""
    import networkx as nx

    edges, names, types = {}, {}, {}
    read, typed = 0, False
    for _, x in read_document_pairs(path):
        read += 1
        g1, g2 = gene_pair(str(x["gene1"]), str(x["gene2"]))
        flipped = (g1, g2) != (str(x["gene1"]), str(x["gene2"]))
        t1, t2 = x.get("gene1_text"), x.get("gene2_text")
        k1, k2 = x.get("type1"), x.get("type2")
        if flipped:
            t1, t2, k1, k2 = t2, t1, k2, k1
        typed = typed or "type1" in x or "relation_type" in x
        e = edges.get((g1, g2))
        if e is None:
            e = edges[(g1, g2)] = {"documents": [], "co_mentions": 0, "evidence": 0,
                                   "best_score": float("-inf"), "relations": {}, "novel": 0}
        e["co_mentions"] += 1
        if x["interaction"] or all_pairs:
            e["documents"].append(str(x["doc_id"]))
            e["evidence"] += int(x.get("positive_mention_pairs", 0) or 0)
            e["best_score"] = max(e["best_score"], float(x["score"]))
            relation = x.get("relation_type")
            if relation:
                n, best = e["relations"].get(relation, (0, float("-inf")))
                e["relations"][relation] = (n + 1, max(best, float(x["score"])))
            e["novel"] += x.get("novel") is True
        for g, t in ((g1, t1), (g2, t2)):
            if t:
                counter = names.get(g)
                if counter is None:
                    counter = names[g] = Counter()
                counter[t] += 1
        for g, k in ((g1, k1), (g2, k2)):
            if k:
                types.setdefault(g, Counter())[k] += 1
    graph = nx.Graph()
    node_docs = {}                   # gene → the documents of its edges
    for (g1, g2), e in edges.items():
        if not e["documents"]:
            continue
        docs = list(dict.fromkeys(e["documents"]))
        graph.add_edge(g1, g2, documents=len(docs), co_mentions=e["co_mentions"],
                       evidence=e["evidence"], best_score=e["best_score"],
                       doc_ids=";".join(docs))
        if typed:
            graph.edges[g1, g2].update(relation_type=_most_frequent(e["relations"]),
                                       novel_documents=e["novel"])
        for g in {g1, g2}:
            node_docs.setdefault(g, set()).update(docs)
    for g, attributes in graph.nodes.items():
        counter = names.get(g)
        attributes["name"] = counter.most_common(1)[0][0] if counter else g
        attributes["documents"] = len(node_docs[g])
        attributes["degree"] = graph.degree(g)
        if typed:
            counter = types.get(g)
            attributes["type"] = min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0] \
                if counter else None
    return graph, {"document_pairs_read": read, "gene_pairs_co_mentioned": len(edges)}


def _strength(u, v, d):
    """``(key, pair)`` of the edge ``u``–``v`` with attributes ``d``: its gene pair and the
    key that sorts the strongest edge first (most documents, then best score, then the
    pair)."""
    e = gene_pair(u, v)
    return (-d["documents"], -d["best_score"], *e), e


def _sorted_edges(graph):
    """The edges as gene pairs, strongest first (:func:`_strength`)."""
    return [e for _, e in sorted(_strength(u, v, d) for u, v, d in graph.edges(data=True))]


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
    strength = {e: key for key, e in (_strength(u, v, d) for u, v, d in plain.edges(data=True))}
    components = []                  # (genes, its strongest edge, its edges)
    for genes in nx.connected_components(plain):
        edges = [gene_pair(u, v) for u, v in plain.edges(genes)]
        components.append((len(genes), min(map(strength.__getitem__, edges)), edges))
    components.sort(key=lambda c: (-c[0], c[1]))
    n_components = len(components)
    if components and components[0][0] > 2:
        components = [c for c in components if c[0] > 2]
    parts, left, cut = [], top_edges, 0
    for _, _, edges in components:
        if left < 1:
            break
        if parts and len(edges) > left:
            continue                  # only the first (largest) component is ever cut
        first = min(edges, key=strength.__getitem__)
        taken, seen, nodes = [first], {first}, set(first)
        heap = []

        def push(node, heap, seen):
            for other in plain[node]:
                e = gene_pair(node, other)
                if e not in seen:
                    heapq.heappush(heap, (strength[e], e))

        for node in first:
            push(node, heap, seen)
        while heap and len(taken) < left:
            _, e = heapq.heappop(heap)
            if e in seen:
                continue
            seen.add(e)
            taken.append(e)
            for node in e:
                if node not in nodes:
                    nodes.add(node)
                    push(node, heap, seen)
        cut += len(taken) < len(edges)
        parts.append(taken)
        left -= len(taken)
    counts = {"components": n_components,
              "components_drawn": len(parts), "components_cut": cut,
              "self_loops": nx.number_of_selfloops(graph)}
    return parts, counts


def _tsv_text(graph):
    lines = ["\t".join(TSV_COLUMNS)]
    for u, v in _sorted_edges(graph):
        d = graph.edges[u, v]
        row = (u, v, graph.nodes[u]["name"], graph.nodes[v]["name"], d["documents"],
               d["co_mentions"], d["evidence"], repr(d["best_score"]), d["doc_ids"],
               graph.nodes[u].get("type"), graph.nodes[v].get("type"),
               d.get("relation_type"), d.get("novel_documents"))
        lines.append("\t".join(clean(x) for x in row))
    return "\n".join(lines) + "\n"


#: GraphML's attribute type of each Python type of our attributes
_GRAPHML_TYPES = {bool: "boolean", int: "long", float: "double", str: "string"}
#: characters XML 1.0 cannot hold (controls but tab, newline and carriage return; the
#: non-characters of the surrogate range and U+FFFE, U+FFFF)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(value):
    """``value`` as XML character data (escaped; a character XML cannot hold becomes
    U+FFFD, the replacement character)."""
    return escape(_NOT_XML.sub("\ufffd", str(value)), {'"': "&quot;"})


def graphml_text(graph):
    """The GraphML document of a network of :func:`build_network` (what
    :func:`networkx.write_graphml` writes: the same keys, types and values, so that
    :func:`networkx.read_graphml` gives back the same graph), as one string.

    networkx builds an XML element per node, edge and attribute (about 0.6 s for 10,000
    edges, more than the picture's layout); this writes the same document line by line.
    Every attribute has its ``<key>``, typed by its first value that is not None (``string``
    when all are: the types of a network without a known type); a None value is no
    ``<data>``, which ``read_graphml`` reads as the attribute missing. Cost: O(V + E).
    """
    keys, lines = {}, []
    for kind, items in (("node", (d for _, d in graph.nodes(data=True))),
                        ("edge", (d for _, _, d in graph.edges(data=True)))):
        for attributes in items:
            for name, value in attributes.items():
                key = keys.setdefault((kind, name), [f"d{len(keys)}", None])
                if key[1] is None and value is not None:
                    key[1] = _GRAPHML_TYPES[type(value)]

    def data(kind, attributes):
        out = []
        for name, value in attributes.items():
            if value is None:
                continue
            value = repr(value) if isinstance(value, float) else (
                str(value).lower() if isinstance(value, bool) else value)
            out.append(f'  <data key="{keys[(kind, name)][0]}">{_xml(value)}</data>')
        return out

    for node, attributes in graph.nodes(data=True):
        lines += [f'<node id="{_xml(node)}">', *data("node", attributes), "</node>"]
    for u, v, attributes in graph.edges(data=True):
        lines += [f'<edge source="{_xml(u)}" target="{_xml(v)}">',
                  *data("edge", attributes), "</edge>"]
    head = ["<?xml version='1.0' encoding='utf-8'?>",
            ('<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
             'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">')]
    head += [f'<key id="{key}" for="{kind}" attr.name="{_xml(name)}" '
             f'attr.type="{kind_type or "string"}"/>'
             for (kind, name), (key, kind_type) in keys.items()]
    return "\n".join([*head, '<graph edgedefault="undirected">', *lines, "</graph>",
                      "</graphml>"]) + "\n"


def write_network(graph, output_dir, *, top_edges=100, seed=0, report=None):
    """Write ``network.tsv``, ``network.graphml`` and ``network.png`` into ``output_dir``,
    all three or none (made first, then moved into place together).

    Parameters
    ----------
    graph : networkx.Graph
        The network of :func:`build_network` (it may have no node).
    output_dir : path
    top_edges : int
        At most this many edges drawn (:func:`picture_edges`).
    seed : int
        Accepted for the command line's uniformity: the picture is deterministic.
    report : callable, optional
        ``report(files, picture) -> (results, markdown)``: also ``results.json`` +
        ``results.md``, written in the same unit.

    Returns
    -------
    files : list of Path
        The files written (the three, then the report's two).
    picture : dict
        :func:`picture_edges`' counts with the ``genes``, ``edges`` and ``labelled`` genes
        drawn.
    """
    import matplotlib.pyplot as plt

    from kernelrank.atomic import save_figure, write_json, write_text

    output_dir = Path(output_dir)
    files = [output_dir / name for name in ("network.tsv", "network.graphml", "network.png")]
    parts, counts = picture_edges(graph, top_edges)
    fig, labels = draw_network(graph, parts, counts)
    try:
        picture = dict(counts, edges=sum(map(len, parts)),
                       genes=len({g for part in parts for e in part for g in e}),
                       labelled=len(labels))
        results = None
        if report is not None:
            files += [output_dir / "results.json", output_dir / "results.md"]
            results, markdown = report(files, picture)
        with atomic_files(files) as tmp:
            write_text(tmp[0], _tsv_text(graph))
            write_text(tmp[1], graphml_text(graph))
            save_figure(fig, tmp[2], dpi=110, pil_kwargs={"compress_level": 1})
            if results is not None:
                write_json(tmp[3], results)
                write_text(tmp[4], markdown)
    finally:
        plt.close(fig)
    return files, picture


def run_network(input, output_dir, *, all_pairs=False, top_edges=100, seed=0):
    """Build, write and report the network (module docstring: a network without an edge is
    written and reported as such); returns ``(results, written)``."""
    import networkx as nx

    if not 1 <= top_edges <= MAX_TOP_EDGES:
        raise InvalidParameterError(f"--top-edges {top_edges}; give a number from 1 to "
                                    f"{MAX_TOP_EDGES} (the picture's edges; the TSV and the "
                                    "GraphML hold every edge)")
    graph, counts = build_network(input, all_pairs=all_pairs)
    comps = sorted((len(c) for c in nx.connected_components(graph)), reverse=True)
    typed = has_types(graph)
    shown = ("documents", "evidence", "best_score") + (
        ("relation_type", "novel_documents") if typed else ())
    top = [{"gene1": u, "gene2": v, "name1": graph.nodes[u]["name"],
            "name2": graph.nodes[v]["name"], **{k: graph.edges[u, v][k] for k in shown}}
           for u, v in _sorted_edges(graph)[:20]]
    hubs = sorted(graph.nodes, key=lambda g: (-graph.degree(g), g))[:15]
    hub_rows = [{"gene": g, "name": graph.nodes[g]["name"], "degree": graph.degree(g),
                 "documents": graph.nodes[g]["documents"]} for g in hubs]
    edges_from = ("every co-mentioned pair" if all_pairs
                  else "pairs predicted to interact in at least one document")
    results = {}

    def report(files, picture):
        results.update({"input": str(input), "edges_from": edges_from,
                   **counts, "nodes": graph.number_of_nodes(),
                   "edges": graph.number_of_edges(),
                   "self_loops": nx.number_of_selfloops(graph), "components": len(comps),
                   "largest_component": comps[0] if comps else 0,
                   "edges_in_one_document": sum(1 for _, _, d in graph.edges(data=True)
                                                if d["documents"] == 1),
                   "strongest_edges": top, "hubs": hub_rows, "top_edges": top_edges,
                   "picture": picture, "seed": seed, "files": [str(p) for p in files],
                   **(_type_counts(graph) if typed else {})})
        return results, _report_markdown(results, files[2])

    written, _ = write_network(graph, output_dir, top_edges=top_edges, seed=seed,
                               report=report)
    return results, written


def _type_counts(graph):
    """``results.json``'s counts of a typed network: nodes per entity type, edges per
    relation type (``unknown``: None), edges called novel by at least one document."""
    def counted(values):
        return dict(sorted(Counter(v or "unknown" for v in values).items(),
                           key=lambda kv: (-kv[1], kv[0])))
    return {"node_types": counted(d["type"] for _, d in graph.nodes(data=True)),
            "edge_relation_types": counted(d["relation_type"]
                                           for _, _, d in graph.edges(data=True)),
            "novel_edges": sum(1 for _, _, d in graph.edges(data=True)
                               if d["novel_documents"])}


def _types_line(results):
    """The report's line on the node and edge types (none for an untyped network)."""
    if "node_types" not in results:
        return []

    def listed(counts):
        return ", ".join(f"{t} {n}" for t, n in counts.items()) or "none"
    return [f"- node (entity) types: {listed(results['node_types'])}; edge types (the "
            f"relation type most of an edge's documents predict): "
            f"{listed(results['edge_relation_types'])}; edges a document calls novel: "
            f"{results['novel_edges']}"]


def _report_markdown(results, png):
    """``results.md`` of :func:`run_network`'s ``results``; ``png`` the picture."""
    from kernelrank.report import markdown_image, markdown_table

    picture, top_edges = results["picture"], results["top_edges"]
    read = results["document_pairs_read"]
    found = [] if results["edges"] else ["**No interaction**: " + (
        "the input has no record." if not read else
        f"none of the {read} document pairs read ({results['gene_pairs_co_mentioned']} "
        "co-mentioned gene pairs) is predicted to interact (`--all-pairs` draws the "
        "co-occurrence network)." if results["edges_from"] != "every co-mentioned pair" else
        f"the {read} document pairs read make no edge."), ""]
    labelled = ("every gene drawn is labelled" if picture["labelled"] == picture["genes"]
                else f"the {picture['labelled']} best-connected of the {picture['genes']} "
                     "genes drawn are labelled (the labels of all would overlap)")
    return "\n".join([
        "# Interaction network", "",
        f"From `{results['input']}`: {results['edges_from']}.", "", *found,
        f"- genes (nodes): {results['nodes']}; interactions (edges): {results['edges']} "
        f"({results['self_loops']} self-loops: a gene with itself)",
        f"- connected components: {results['components']} (largest: "
        f"{results['largest_component']} genes)",
        f"- edges supported by one document only: {results['edges_in_one_document']}",
        *_types_line(results),
        "- files: `network.tsv`, `network.graphml` (Cytoscape), "
        "[`network.png`](network.png)", "",
        "## Picture", "",
        f"[`network.png`](network.png) draws {picture['components_drawn']} of the "
        f"{picture['components']} connected components, largest first, as many as fit in "
        f"`--top-edges` {top_edges} edges" + (" (the largest cut to its strongest edges)"
                                              if picture["components_cut"] else "")
        + f": {picture['genes']} genes, {picture['edges']} of {results['edges']} "
        f"interactions; self-loops ({picture['self_loops']}) are not drawn; {labelled}. "
        "Edge width: the documents stating the interaction; " + (
            "node colour: the entity type; edge colour and line style: the relation type."
            if "node_types" in results else "edge colour: its best document score."), "",
        markdown_image(png, "interaction network"), "",
        "## Strongest interactions", "",
        markdown_table(results["strongest_edges"],
                       ["gene1", "name1", "gene2", "name2", "documents", "evidence",
                        "best_score"] + (["relation_type", "novel_documents"]
                                         if "node_types" in results else [])),
        "## Best-connected genes", "",
        markdown_table(results["hubs"], ["gene", "name", "degree", "documents"]), ""])
