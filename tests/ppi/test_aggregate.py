"""ppi aggregate (document-level gene pairs, max over mention pairs) and ppi network (networkx
graph, TSV, GraphML read back, PNG, report) on hand-made extract records with known answers."""

import json

import pytest

from kernelrank.errors import CorpusFormatError


def _rec(doc, sid, t1, id1, t2, id2, score, interaction=None):
    return {"doc_id": doc, "sentence_id": f"{doc}.{sid}", "pair_id": f"{doc}.{sid}.p",
            "sentence": f"sentence {sid} of {doc}: {t1} and {t2}", "sentence_start": 0,
            "e1": {"id": "e1", "text": t1, "type": "Gene", "start": 0, "end": 1,
                   "concept_id": id1},
            "e2": {"id": "e2", "text": t2, "type": "Gene", "start": 2, "end": 3,
                   "concept_id": id2},
            "score": score, "interaction": score > 0 if interaction is None else interaction}


RECORDS = [
    _rec("A", "s0", "p53", "7157", "MDM2", "4193", 0.5),
    _rec("A", "s1", "MDM2", "4193", "p53", "7157", -0.2),
    _rec("A", "s1", "p53", "7157", "TP53", "7157", 0.1),              # one gene twice
    _rec("A", "s1", "MexAB", "877855,877852", "p53", "7157", -0.5),   # two ids
    _rec("A", "s2", "X", None, "p53", "7157", 0.9),                  # no id: left out
    _rec("B", "s0", "Mdm2", "4193", "p53", "7157", -0.3),
    _rec("B", "s0", "Mdm2", "4193", "p53", "7157", -0.4),
    _rec("C", "s0", "g9", "9", "g10", "10", 0.2),
]


def _write_jsonl(records, path):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _write_tsv(records, path):
    from ppi.extraction.records import TSV_COLUMNS, format_records
    path.write_text("\t".join(TSV_COLUMNS) + "\n" + format_records(records, "tsv"),
                    encoding="utf-8")
    return path


def _main(*args):
    from ppi.__main__ import main
    return main([*map(str, args)])


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_aggregate_max_over_mention_pairs(tmp_path):
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    out = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", out, "--self-pairs") == 0
    got = {(x["doc_id"], x["gene1"], x["gene2"]): x for x in _read(out)}
    assert list(got) == [("A", "4193", "7157"), ("A", "7157", "7157"), ("A", "7157", "877852"),
                         ("A", "7157", "877855"), ("B", "4193", "7157"), ("C", "9", "10")]
    a = got[("A", "4193", "7157")]
    assert (a["score"], a["interaction"], a["mention_pairs"], a["positive_mention_pairs"]) == \
        (0.5, True, 2, 1)
    assert (a["gene1_text"], a["gene2_text"]) == ("MDM2", "p53")
    assert [e["sentence_id"] for e in a["evidence"]] == ["A.s0", "A.s1"]
    assert a["evidence"][1]["score"] == -0.2 and a["evidence"][1]["e1_text"] == "MDM2"
    selfp = got[("A", "7157", "7157")]
    assert selfp["self_pair"] and selfp["interaction"] and selfp["score"] == 0.1
    assert got[("A", "7157", "877852")]["score"] == got[("A", "7157", "877855")]["score"] == -0.5
    # max, not noisy-or: two negative mention pairs stay at the best one, not above it
    b = got[("B", "4193", "7157")]
    assert (b["score"], b["interaction"], b["mention_pairs"]) == (-0.3, False, 2)
    assert len(b["evidence"]) == 1                       # one sentence, listed once
    summary = json.loads((tmp_path / "docs.jsonl.summary.json").read_text())
    assert summary["mention_pairs"] == 8 and summary["mention_pairs_without_ids"] == 1
    assert summary["gene_pairs"] == 6 and summary["interacting_gene_pairs"] == 3
    assert (tmp_path / "docs.jsonl.scores.png").stat().st_size > 0
    # by default the self-pair is left out and counted; nothing else changes
    default = tmp_path / "default.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", default) == 0
    assert [x for x in _read(out) if not x["self_pair"]] == _read(default)
    s2 = json.loads((tmp_path / "default.jsonl.summary.json").read_text())
    assert s2["self_pairs_left_out"] == 1 and s2["gene_pairs"] == 5


@pytest.mark.slow
def test_aggregate_options_and_tsv(tmp_path):
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    tsv_in = _write_tsv(RECORDS, tmp_path / "pairs.tsv")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", a, "--positive-only",
                 "--evidence", "1") == 0
    assert [(x["doc_id"], x["gene1"], x["gene2"]) for x in _read(a)] == \
        [("A", "4193", "7157"), ("C", "9", "10")]
    assert all(len(x["evidence"]) == 1 for x in _read(a))
    assert _main("aggregate", "--quiet", "--input", tsv_in, "--output", b, "--positive-only",
                 "--evidence", "1") == 0
    assert _read(a) == _read(b)                        # TSV input = JSONL input
    out = tmp_path / "docs.tsv"
    assert _main("aggregate", "--quiet", "--input", src, "--output", out) == 0
    from ppi.aggregation.aggregate import TSV_COLUMNS
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(TSV_COLUMNS) and len(lines) == 6     # no self-pair
    assert lines[1].split("\t")[:3] == ["A", "4193", "7157"]


def test_aggregate_bad_input(tmp_path, capsys):
    scattered = _write_jsonl([RECORDS[0], RECORDS[5], RECORDS[1]], tmp_path / "s.jsonl")
    from ppi.aggregation.aggregate import aggregate
    with pytest.raises(CorpusFormatError, match="again after other documents") as info:
        aggregate(scattered, tmp_path / "o.jsonl")
    assert info.value.line == 3
    old = dict(RECORDS[0], e1={k: v for k, v in RECORDS[0]["e1"].items() if k != "concept_id"})
    with pytest.raises(CorpusFormatError, match="older"):
        aggregate(_write_jsonl([old], tmp_path / "old.jsonl"), tmp_path / "o2.jsonl")
    assert _main("aggregate", "--quiet", "--input", tmp_path / "absent.jsonl",
                 "--output", tmp_path / "o3.jsonl") == 2
    assert "error:" in capsys.readouterr().err


def test_network_edges_attributes_graphml(tmp_path):
    import networkx as nx
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    docs = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", docs, "--self-pairs") == 0
    net = tmp_path / "net"
    assert _main("network", "--quiet", "--input", docs, "--output-dir", net) == 0
    g = nx.read_graphml(net / "network.graphml")
    assert {frozenset(e) for e in g.edges} == {frozenset(("4193", "7157")),
                                               frozenset(("7157",)), frozenset(("9", "10"))}
    e = g.edges["4193", "7157"]
    assert (e["documents"], e["co_mentions"], e["evidence"], e["best_score"], e["doc_ids"]) == \
        (1, 2, 1, 0.5, "A")
    assert g.nodes["4193"]["name"] in ("MDM2", "Mdm2") and g.nodes["7157"]["name"] == "p53"
    assert g.edges["7157", "7157"]["documents"] == 1          # self-loop: homodimer claim
    rows = (net / "network.tsv").read_text(encoding="utf-8").splitlines()
    # strongest first: by documents (all 1 here), then best score
    assert [r.split("\t")[:2] for r in rows[1:]] == [["4193", "7157"], ["9", "10"],
                                                      ["7157", "7157"]]
    results = json.loads((net / "results.json").read_text())
    assert (results["nodes"], results["edges"], results["self_loops"]) == (4, 3, 1)
    report = (net / "results.md").read_text()
    assert (net / "network.png").stat().st_size > 0 and "[`network.png`](network.png)" in report
    assert results["picture"] == {"components": 2, "components_drawn": 2, "components_cut": 0,
                                  "self_loops": 1, "edges": 2, "genes": 4, "labelled": 4}
    # co-occurrence network: every co-mentioned pair, documents counted over all of them
    allp = tmp_path / "all"
    assert _main("network", "--quiet", "--input", docs, "--output-dir", allp,
                 "--all-pairs") == 0
    g2 = nx.read_graphml(allp / "network.graphml")
    assert g2.number_of_edges() == 5
    assert (g2.edges["4193", "7157"]["documents"], g2.edges["4193", "7157"]["best_score"]) == \
        (2, 0.5)


def test_network_graphml_round_trip_equals_graph(tmp_path):
    import networkx as nx

    from ppi.aggregation.network import build_network, write_network
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    docs = tmp_path / "docs.tsv"
    assert _main("aggregate", "--quiet", "--input", src, "--output", docs, "--self-pairs") == 0
    graph, _ = build_network(docs, all_pairs=True)      # from the TSV form
    write_network(graph, tmp_path, seed=1)
    back = nx.read_graphml(tmp_path / "network.graphml")
    assert sorted(map(sorted, back.edges)) == sorted(map(sorted, graph.edges))
    for u, v, d in graph.edges(data=True):
        assert back.edges[u, v] == d
    for n, d in graph.nodes(data=True):
        assert back.nodes[n] == d


def test_network_graphml_holds_any_gene_name(tmp_path):
    """Gene names with XML's special characters and with characters XML cannot hold (a
    control character from a PDF's text): the GraphML is well-formed, read back with the
    special characters as they are and the impossible one as U+FFFD, not a crash."""
    import networkx as nx
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"doc_id": 'd<1>&"', "gene1": "1", "gene2": "2",
                                "gene1_text": 'A<&>"\'b', "gene2_text": "B\x01\x0bc",
                                "score": 1.0, "interaction": True}) + "\n")
    assert _main("network", "--quiet", "--input", docs, "--output-dir", tmp_path / "n") == 0
    g = nx.read_graphml(tmp_path / "n" / "network.graphml")
    assert g.nodes["1"]["name"] == 'A<&>"\'b' and g.nodes["2"]["name"] == "B\ufffd\ufffdc"
    assert g.edges["1", "2"]["doc_ids"] == 'd<1>&"'


def _network(edges):
    """A network as :func:`ppi.aggregation.network.build_network` makes it, from ``(gene1, gene2,
    documents, best_score)``; gene names are ``name-<id>``, long enough to collide."""
    import networkx as nx

    from ppi.aggregation.network import gene_pair
    g = nx.Graph()
    for a, b, docs, score in edges:
        a, b = gene_pair(a, b)
        g.add_edge(a, b, documents=docs, co_mentions=docs, evidence=docs, best_score=score,
                   doc_ids=";".join(f"d{k}" for k in range(docs)))
    for n in g:
        g.nodes[n].update(name=f"name-{n}", documents=1, degree=g.degree(n))
    return g


def test_picture_takes_the_largest_components_cut_connected_from_their_strongest_edge():
    import networkx as nx

    from ppi.aggregation.network import picture_edges
    hub = [("h", f"s{k}", 1 + k % 3, 0.1 * k) for k in range(12)]          # a star of 13
    chain = [("s0", "c0", 1, 0.05), ("c0", "c1", 1, 0.04)]                  # hanging off it
    triangle = [("t0", "t1", 2, 0.3), ("t1", "t2", 1, 0.2), ("t0", "t2", 1, 0.1)]
    pairs = [(f"p{k}", f"q{k}", 9, 5.0) for k in range(20)]               # the strongest edges
    loop = [("h", "h", 4, 1.0)]
    g = _network(hub + chain + triangle + pairs + loop)
    parts, counts = picture_edges(g, top_edges=10)
    assert counts == {"components": 22, "components_drawn": 1, "components_cut": 1,
                      "self_loops": 1}
    (part,) = parts
    assert len(part) == 10 and nx.is_connected(nx.Graph(part))
    # grown from the component's strongest edge (3 documents, best score 1.1), then always
    # the strongest edge touching what is taken: the star's 3-document edges come first
    assert part[0] == ("h", "s11")
    assert [g.edges[e]["documents"] for e in part[:4]] == [3, 3, 3, 3]
    # room for all: the star with its chain, then the triangle; pairs never, self-loops never
    parts, counts = picture_edges(g, top_edges=100)
    assert [len(p) for p in parts] == [14, 3] and counts["components_cut"] == 0
    # only the largest is ever cut: a smaller one that does not fit is left out whole
    parts, counts = picture_edges(g, top_edges=16)
    assert [len(p) for p in parts] == [14] and counts["components_cut"] == 0
    assert not any(e[0].startswith("p") or e[0] == e[1] for p in parts for e in p)
    # a network of pairs only: the strongest pairs
    only_pairs = _network(pairs[:5] + [("x", "y", 1, 0.0)])
    parts, _ = picture_edges(only_pairs, top_edges=3)
    assert [p[0][0] for p in parts] == ["p0", "p1", "p2"]


@pytest.mark.slow
def test_picture_labels_do_not_overlap_and_width_and_colour_are_explained(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import ppi.aggregation.network as network
    from ppi.aggregation import picture
    # a dense component — 40 genes, each linked to the next six — with long names, beside a
    # chain of three: labels placed at their genes collide
    genes = [f"g{k:02d}" for k in range(40)]
    edges = [(genes[i], genes[(i + d) % 40], 1 + (i * d) % 4, 0.1 * i)
             for i in range(40) for d in range(1, 7)]
    g = _network(edges + [("a", "b", 1, 0.0), ("b", "c", 1, 0.0)])
    for n in g:
        g.nodes[n]["name"] = f"interleukin-{n}"
    parts, counts = network.picture_edges(g, top_edges=300)

    with monkeypatch.context() as m:            # the labels left where they are placed
        m.setattr(picture, "_separate_labels", lambda fig, ax, texts, *_: texts)
        fig, labels = network.draw_network(g, parts, counts)
        assert _boxes_overlapping(fig, labels)
        plt.close(fig)
    fig, labels = network.draw_network(g, parts, counts)
    assert len(labels) == 43 and not _boxes_overlapping(fig, labels)
    (legend_ax,) = [ax for ax in fig.axes if ax.get_legend()]
    legend = legend_ax.get_legend()
    assert legend.get_title().get_text() == "edge width"
    assert [t.get_text() for t in legend.get_texts()] == ["1 document", "2 documents",
                                                          "4 documents"]
    assert any("best document score" in ax.get_ylabel() for ax in fig.axes)   # colour bar
    plt.close(fig)


@pytest.mark.parametrize("records", ["none", "none interacting"])
def test_a_network_without_interaction_is_written_whole_and_said(records, tmp_path, capsys):
    """An aggregate file without a record, or with none predicted to interact: exit 0, every
    output written and consistent (the TSV its header, an empty GraphML graph, a picture),
    and the report and the summary say there is no interaction."""
    import networkx as nx

    from ppi.aggregation.network import TSV_COLUMNS
    docs = tmp_path / "docs.jsonl"
    docs.write_text("" if records == "none" else json.dumps(
        {"doc_id": "A", "gene1": "1", "gene2": "2", "score": -1.0, "interaction": False})
        + "\n")
    net = tmp_path / "net"
    assert _main("network", "--input", docs, "--output-dir", net) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "no interaction in the" in out
    assert sorted(p.name for p in net.iterdir()) == ["network.graphml", "network.png",
                                                     "network.tsv", "results.json",
                                                     "results.md"]
    assert (net / "network.tsv").read_text().splitlines() == ["\t".join(TSV_COLUMNS)]
    assert nx.read_graphml(net / "network.graphml").number_of_nodes() == 0
    assert (net / "network.png").read_bytes()[:4] == b"\x89PNG"
    results = json.loads((net / "results.json").read_text())
    assert (results["nodes"], results["edges"], results["document_pairs_read"]) == \
        (0, 0, 0 if records == "none" else 1)
    assert "**No interaction**" in (net / "results.md").read_text()


def test_a_network_whose_picture_fails_leaves_no_file(tmp_path, monkeypatch):
    """The three network files and the report are one unit: the picture failing leaves
    none of them (not a TSV and a GraphML without their picture and report)."""
    from ppi.aggregation import network
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    docs = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", docs) == 0

    def fail(*args):
        raise MemoryError("the picture")
    monkeypatch.setattr(network, "draw_network", fail)
    with pytest.raises(MemoryError):
        network.run_network(docs, tmp_path / "net")
    assert not (tmp_path / "net").exists() or not any((tmp_path / "net").iterdir())


def _energy(graph, pos):
    """Kamada and Kawai's energy Σ d⁻² (‖x_i − x_j‖ − d)² of ``pos`` at its best scale
    (layouts are scaled to the unit square), by enumeration of the node pairs."""
    import networkx as nx
    import numpy as np
    hops = dict(nx.all_pairs_shortest_path_length(graph))
    nodes = list(graph)
    ratios = np.array([np.hypot(*np.subtract(pos[a], pos[b])) / hops[a][b]
                       for i, a in enumerate(nodes) for b in nodes[i + 1:]])
    scale = ratios.sum() / (ratios ** 2).sum()
    return float(((scale * ratios - 1) ** 2).sum())


@pytest.mark.parametrize("seed", range(4))
def test_the_stress_layout_reaches_kamada_kawai_energy(seed):
    """The layout of the picture minimises Kamada and Kawai's energy as well as networkx's
    general-purpose optimizer of it when run to convergence, and within 10 % of it at the
    picture's tolerance, on random connected graphs, stars (nodes in symmetric places) and
    paths (energy 0: a perfect embedding)."""
    import networkx as nx

    from ppi.aggregation.picture import stress_layout
    graphs = [nx.barabasi_albert_graph(60 + 20 * seed, 1 + seed % 2, seed=seed),
              nx.star_graph(8 + seed), nx.path_graph(5 + seed)]
    for g in graphs:
        ours = stress_layout(g)
        assert set(ours) == set(g)
        assert max(abs(c) for xy in ours.values() for c in xy) == pytest.approx(1.0)
        reference = _energy(g, nx.kamada_kawai_layout(g))
        assert _energy(g, ours) <= 1.10 * reference + 1e-6
        converged = stress_layout(g, iterations=5000, tol=1e-9)
        assert _energy(g, converged) <= 1.001 * reference + 1e-6
        assert len({(round(x, 6), round(y, 6)) for x, y in ours.values()}) == len(g)


def _boxes_overlapping(fig, labels):
    """Pairs of ``labels`` whose drawn boxes overlap (matplotlib's own extents)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in labels]
    return [(labels[i].get_text(), labels[j].get_text()) for i in range(len(boxes))
            for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.slow
def test_a_large_network_picture_grows_and_no_two_labels_overlap():
    """A generated literature-like network (preferential attachment, 1,500 genes) drawn at
    800 edges: the picture is larger than a small network's, the best-connected genes are
    labelled, every label lies inside the plot and no two labels' boxes overlap."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx

    from ppi.aggregation.network import draw_network, picture_edges
    ba = nx.barabasi_albert_graph(1500, 2, seed=3)
    g = _network([(f"g{u}", f"g{v}", 1 + (u * v) % 3, ((u + v) % 10) / 10) for u, v in ba.edges])
    parts, counts = picture_edges(g, top_edges=800)
    fig, labels = draw_network(g, parts, counts)
    assert not _boxes_overlapping(fig, labels)
    drawn = {n for part in parts for e in part for n in e}
    width, height = fig.get_size_inches()
    assert width * height > 16 * 12 and len(drawn) > 600
    assert 50 <= len(labels) < len(drawn)
    sub = g.subgraph(drawn).edge_subgraph([e for part in parts for e in part])
    hub = max(drawn, key=lambda n: (sub.degree(n), n))
    assert f"name-{hub}" in {t.get_text() for t in labels}
    frame = fig.axes[0].get_window_extent(fig.canvas.get_renderer())
    renderer = fig.canvas.get_renderer()
    for t in labels:
        box = t.get_window_extent(renderer)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 <= frame.y1
    plt.close(fig)


def _gold(path, relations):
    """A BioC XML file of documents with only document-level gold relations."""
    docs = []
    for doc, pairs in relations.items():
        rels = "".join(f'<relation id="R{k}"><infon key="Gene1">{a}</infon><infon key="Gene2">'
                       f'{b}</infon><infon key="relation">PPIm</infon></relation>'
                       for k, (a, b) in enumerate(pairs))
        docs.append(f"<document><id>{doc}</id><passage><offset>0</offset><text>t</text>"
                    f"</passage>{rels}</document>")
    path.write_text("<collection><source>s</source><date>d</date><key>k</key>"
                    + "".join(docs) + "</collection>", encoding="utf-8")
    return path


@pytest.mark.slow
def test_evaluate_documents_known_answer(tmp_path):
    pytest.importorskip("bioc")
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    docs = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", docs, "--self-pairs") == 0
    gold = _gold(tmp_path / "gold.bioc.xml", {
        "A": [("7157", "4193"), ("7157", "7157"), ("1", "2")],   # (1, 2): never co-mentioned
        "B": [("4193", "7157"), ("7157", "4193")],               # the same pair twice
        "C": [], "D": [("5", "6")]})                             # D: no prediction at all
    out = tmp_path / "eval"
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", gold,
                 "--output-dir", out, "--note", "hand-made") == 0
    r = json.loads((out / "results.json").read_text())
    assert (r["gold_pairs"], r["candidate_pairs"], r["candidate_pairs_in_gold"]) == (5, 6, 3)
    assert r["gold_pairs_without_candidate"] == 2 and r["recall_ceiling"] == pytest.approx(0.6)
    m, c = r["model"], r["cooccurrence"]
    assert (m["precision"], m["recall"], m["f1"]) == pytest.approx((2 / 3, 2 / 5, 0.5))
    assert m["auc"] == pytest.approx(7 / 9)
    assert (c["precision"], c["recall"], c["auc"]) == pytest.approx((0.5, 0.6, 0.5))
    assert c["f1"] == pytest.approx(2 * 0.5 * 0.6 / 1.1)
    ns = r["model_without_self_pairs"]
    assert (ns["precision"], ns["recall"]) == pytest.approx((0.5, 0.25))
    cns = r["cooccurrence_without_self_pairs"]
    assert (cns["precision"], cns["recall"]) == pytest.approx((0.4, 0.5))
    md = (out / "results.md").read_text()
    assert "lower bound" in md and "precision_recall.png" in md and "hand-made" in md
    # a predicted document the gold file lacks: a typed error, or left out and counted
    partial = _gold(tmp_path / "partial.bioc.xml", {"A": [("4193", "7157")]})
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", partial,
                 "--output-dir", tmp_path / "e2") == 2
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", partial,
                 "--output-dir", tmp_path / "e3", "--skip-bad") == 0
    r3 = json.loads((tmp_path / "e3" / "results.json").read_text())
    assert r3["documents_not_in_gold"] == 2 and r3["candidate_pairs"] == 4


def test_evaluate_documents_with_nothing_to_measure_says_why(tmp_path, capsys):
    """No predicted document in the gold file (all left out by --skip-bad) or no gene pair
    at all: exit 2 and a sentence naming the files, not an error of the AUC."""
    pytest.importorskip("bioc")
    src = _write_jsonl(RECORDS, tmp_path / "pairs.jsonl")
    docs = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", docs) == 0
    other = _gold(tmp_path / "other.bioc.xml", {"Z": [("1", "2")]})
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", other,
                 "--output-dir", tmp_path / "e", "--skip-bad") == 2
    err = capsys.readouterr().err
    assert "no predicted document of" in err and "left out all 3" in err, err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert _main("evaluate-documents", "--quiet", "--input", empty, "--gold", other,
                 "--output-dir", tmp_path / "e") == 2
    assert "holds no gene pair" in capsys.readouterr().err
    assert not (tmp_path / "e").exists()


def _doc_rec(doc, id1, id2, score, interaction):
    return {"doc_id": doc, "level": "document", "sentence_id": None,
            "e1": {"text": f"g{id1}", "concept_id": id1},
            "e2": {"text": f"g{id2}", "concept_id": id2},
            "score": score, "interaction": interaction, "mention_pairs": 0}


def test_document_records_set_the_pair_scores_and_add_cross_sentence_pairs(tmp_path):
    """A documents model's output: the document records decide each pair's score and
    decision; a pair without mention pairs is written with no evidence; the mention
    maximum is kept as mention_score."""
    records = [_rec("A", "s0", "p53", "7157", "MDM2", "4193", 0.5),
               _doc_rec("A", "4193", "7157", -1.5, False),
               _doc_rec("A", "7157", "1", 2.0, True)]
    for fmt, write in (("jsonl", _write_jsonl), ("tsv", _write_tsv)):
        src = write(records, tmp_path / f"pairs.{fmt}")
        out = tmp_path / f"docs-{fmt}.jsonl"
        assert _main("aggregate", "--quiet", "--input", src, "--output", out) == 0
        rows = {(r["gene1"], r["gene2"]): r for r in _read(out)}
        assert set(rows) == {("4193", "7157"), ("1", "7157")}
        a, b = rows[("4193", "7157")], rows[("1", "7157")]
        assert (a["score"], a["interaction"], a["mention_score"], a["mention_pairs"]) == \
            (-1.5, False, 0.5, 1)
        assert (b["score"], b["interaction"], b["mention_score"], b["evidence"]) == \
            (2.0, True, None, [])


def test_evaluate_documents_over_the_pubtator_gold_candidates(tmp_path):
    """The candidate measure by its definition on a hand-made PubTator gold file: every pair
    of two distinct gene ids with a gene mention; unscored candidates rank last."""
    gold = tmp_path / "gold.pubtator"
    gold.write_text(
        "A|t|p53 MDM2 EGFR KRAS\nA|a|aspirin.\n"
        "A\t0\t3\tp53\tGeneOrGeneProduct\t7157\n"
        "A\t4\t8\tMDM2\tGeneOrGeneProduct\t4193\n"
        "A\t9\t13\tEGFR\tGeneOrGeneProduct\t1956,1957\n"
        "A\t14\t18\tKRAS\tGeneOrGeneProduct\t-\n"
        "A\t19\t26\taspirin\tChemicalEntity\tD001241\n"
        "A\tBind\t7157\t4193\tNovel\n"
        "A\tAssociation\t1956\t7157\tNo\n"
        "A\tAssociation\t7157\tD001241\tNo\n", encoding="utf-8")
    # candidates (7157, 4193, 1956, 1957): 6 pairs; related: (4193, 7157), (1956, 7157)
    preds = [_doc_rec("A", "4193", "7157", 0.9, True), _doc_rec("A", "1956", "7157", 0.1,
                                                               False),
             _doc_rec("A", "1956", "4193", 0.5, True), _doc_rec("A", "1957", "7157", 0.2,
                                                               False),
             _doc_rec("A", "7157", "D001241", 3.0, True)]      # not a gene pair: outside
    src = _write_jsonl(preds, tmp_path / "pairs.jsonl")
    docs = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", src, "--output", docs) == 0
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", gold,
                 "--output-dir", tmp_path / "e") == 0
    c = json.loads((tmp_path / "e" / "results.json").read_text())["candidates"]
    assert (c["n"], c["related"], c["never_scored"], c["related_never_scored"]) == (6, 2, 2, 0)
    assert c["predictions_outside_candidates"] == 1
    m = c["model"]
    # predicted: (4193,7157) TP, (1956,4193) FP → P 1/2, R 1/2
    assert (m["precision"], m["recall"], m["f1"]) == pytest.approx((0.5, 0.5, 0.5))
    # scores: related 0.9, 0.1; unrelated 0.5, 0.2, unscored, unscored (lowest)
    # pairs ranked right: 0.9 beats 4; 0.1 beats the 2 unscored → 6 of 8
    assert m["auc"] == pytest.approx(6 / 8)
    # BioRED's relations are all the abstract's: no "precision is a lower bound" caveat
    assert "lower bound" not in (tmp_path / "e" / "results.md").read_text()


def test_the_gold_relations_are_read_and_counted_as_training_reads_and_counts_them(
        tmp_path, capsys):
    """evaluate-documents reads its gold with the readers' one rule for relations (an id
    with '|' no mention carries: refused naming the line, or with --skip-bad left out and
    counted; a BioC relation with an empty Gene2 the same) and counts what became of every
    gold relation (ppi.documents.relation_counts): the ones naming ids no mention carries
    are listed."""
    pytest.importorskip("bioc")
    from corpora.text_input import read_pubtator
    from tests.conftest import write_bioc_file

    gold = tmp_path / "gold.pubtator"
    gold.write_text(
        "A|t|p53 MDM2 EGFR\nA|a|aspirin.\n"
        "A\t0\t3\tp53\tGeneOrGeneProduct\t7157\n"
        "A\t4\t8\tMDM2\tGeneOrGeneProduct\t4193\n"
        "A\t9\t13\tEGFR\tGeneOrGeneProduct\t1956\n"
        "A\tBind\t7157\t4193\n"
        "A\tBind\t1956|77777777\t7157\n"
        "A\tBind\t1956\t88888888\n", encoding="utf-8")
    preds = [_doc_rec("A", "4193", "7157", 0.9, True), _doc_rec("A", "1956", "7157", 0.1,
                                                               False)]
    docs = tmp_path / "docs.jsonl"
    assert _main("aggregate", "--quiet", "--input", _write_jsonl(preds, tmp_path / "p.jsonl"),
                 "--output", docs) == 0
    capsys.readouterr()
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", gold,
                 "--output-dir", tmp_path / "e") == 2
    err = capsys.readouterr().err
    assert f"{gold}, line 7" in err and "1956|77777777" in err, err
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", gold,
                 "--output-dir", tmp_path / "e", "--skip-bad") == 0
    r = json.loads((tmp_path / "e" / "results.json").read_text())
    assert r["gold_relations_skipped"] == 1 and r["gold_pairs"] == 1
    assert {k: r["gold_relations"][k] for k in ("read", "used", "unknown_ids", "dropped")} == \
        {"read": 2, "used": 1, "unknown_ids": 1, "dropped": 1}
    assert r["gold_relations"]["unknown_id_examples"] == ["doc A: 88888888"]
    assert "doc A: 88888888" in (tmp_path / "e" / "results.md").read_text()
    # the same documents as BioC, the relation naming 88888888 written with an empty Gene2
    (doc,) = read_pubtator(gold, skip_bad=True)
    bioc_gold = write_bioc_file([doc], tmp_path / "gold.bioc.xml", lambda d, k, rel: (
        {"Gene1": rel.id1, "Gene2": ""} if rel.id2 == "88888888" else None))
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", bioc_gold,
                 "--output-dir", tmp_path / "b") == 2
    assert "A/relation R1" in capsys.readouterr().err
    assert _main("evaluate-documents", "--quiet", "--input", docs, "--gold", bioc_gold,
                 "--output-dir", tmp_path / "b", "--skip-bad") == 0
    r = json.loads((tmp_path / "b" / "results.json").read_text())
    assert r["gold_relations_skipped"] == 1 and r["gold_relations"]["used"] == 1


def test_the_models_pair_definition_is_read_from_the_summary_of_this_output(tmp_path, caplog):
    """ppi.extraction.records.recorded_definition: only the summary beside the file that names it as
    its output counts; a damaged one is said, not trusted.  The evaluation's choice of types:
    the recorded ones unless given, a given one that differs is noted."""
    import logging

    from ppi.aggregation.evaluation import pair_definition_of
    from ppi.extraction.records import pair_definition, recorded_definition

    out = tmp_path / "docs.jsonl"
    out.write_text("")
    summary = tmp_path / "docs.jsonl.summary.json"
    definition = pair_definition({"system": {"system": "documents", "entity_types": ["Gene"],
                                             "relation_types": ["Bind"]}})
    assert pair_definition({"system": {"system": "text"}}) == {} == pair_definition(None)
    assert recorded_definition(out) == {}                               # no summary
    summary.write_text(json.dumps({"output": str(tmp_path / "other.jsonl"), **definition}))
    assert recorded_definition(out) == {}                               # another run's
    summary.write_text(json.dumps({"output": str(out), **definition}))
    assert recorded_definition(out) == {"model_entity_types": ["Gene"],
                                        "model_relation_types": ["Bind"]}
    d = pair_definition_of(out)
    assert (d["entity_types"], d["relation_types"], d["note"]) == (["Gene"], ["Bind"], None)
    assert d["from"] == {"entity_types": "model", "relation_types": "model"}
    d = pair_definition_of(out, relation_types=["bind"])                 # same, other case
    assert d["note"] is None and d["from"]["relation_types"] == "command line"
    with caplog.at_level(logging.WARNING):
        d = pair_definition_of(out, relation_types=["Association"])
    assert d["relation_types"] == ["Association"] and "Bind" in d["note"]
    assert "Association" in caplog.text
    summary.write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert recorded_definition(out) == {}
    assert "docs.jsonl.summary.json is not a run summary" in caplog.text
    assert pair_definition_of(out)["from"]["relation_types"] == "default"


def test_a_model_measured_on_the_file_it_learned_from_is_said_to_be_in_sample(tmp_path,
                                                                           monkeypatch):
    """``ppi evaluate-documents --model``: a gold file that is the model's training file or
    its development file (the same file by another path too) makes the result in-sample,
    said by name; another file does not."""
    from pathlib import Path

    import ppi.models.training_record
    from ppi.aggregation.evaluation import in_sample_note

    train, dev, other = (tmp_path / n for n in ("train.pubtator", "dev.pubtator", "x.txt"))
    trainings = {"documents": {"file": str(train)},
                 "text": {"corpus": "AIMed", "file": "AIMed.xml",
                          "development": {"file": str(dev), "auc": 0.9}}}
    monkeypatch.setattr(ppi.models.training_record, "read_training",
                        lambda d: trainings[Path(d).name])
    monkeypatch.chdir(tmp_path)
    note = in_sample_note(tmp_path / "documents", Path("train.pubtator"))
    assert "in-sample" in note and "training file" in note
    note = in_sample_note(tmp_path / "text", dev)
    assert "in-sample" in note and "development file" in note
    assert in_sample_note(tmp_path / "documents", dev) is None
    assert in_sample_note(tmp_path / "text", other) is None


def test_a_summary_is_known_for_its_outputs_own_from_any_working_directory(tmp_path,
                                                                           monkeypatch):
    """A run given a relative ``--output`` records it absolute too (``output_path``), so
    that ``ppi aggregate`` or ``ppi evaluate-documents`` started in another folder still
    finds the model's pair definition; a summary naming the output only relative (written
    before ``output_path``) is resolved from the working directory."""
    from ppi.aggregation.aggregate import aggregate
    from ppi.extraction.records import recorded_definition

    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    run.mkdir()
    elsewhere.mkdir()
    _write_jsonl(RECORDS, run / "pairs.jsonl")
    definition = {"model_entity_types": ["Gene"], "model_relation_types": ["Bind"]}
    monkeypatch.chdir(run)
    summary = aggregate("pairs.jsonl", "docs.jsonl")
    assert summary["output"] == "docs.jsonl"
    assert summary["output_path"] == str(run / "docs.jsonl")
    (run / "docs.jsonl.summary.json").write_text(json.dumps({**summary, **definition}))
    monkeypatch.chdir(elsewhere)
    assert recorded_definition(run / "docs.jsonl") == definition
    (run / "docs.jsonl.summary.json").write_text(json.dumps({"output": "docs.jsonl",
                                                             **definition}))
    assert recorded_definition(run / "docs.jsonl") == {}       # docs.jsonl of elsewhere
    monkeypatch.chdir(run)
    assert recorded_definition(run / "docs.jsonl") == definition


def test_the_pair_definition_of_a_named_model_and_its_mismatch_with_the_summaries(
        tmp_path, caplog, monkeypatch):
    """``ppi evaluate-documents --model``: the saved model's training record decides (a
    mention-level model: the default genes, any relation type); summaries beside the input
    that record another definition are reported (the records were made by another model);
    a folder without a model is a typed error naming it."""
    import logging
    from pathlib import Path

    import ppi.models.classes
    from kernelrank.errors import DataNotFoundError
    from ppi.aggregation.evaluation import pair_definition_of

    out = tmp_path / "docs.jsonl"
    out.write_text("")
    trainings = {"bind": {"system": {"system": "documents", "relation_types": ["Bind"],
                                     "entity_types": ["GeneOrGeneProduct", "Gene"]}},
                 "mentions": {"system": {"system": "text"}}}
    monkeypatch.setattr(ppi.models.training_record, "read_training",
                        lambda d: trainings[Path(d).name])
    d = pair_definition_of(out, model=tmp_path / "bind")
    assert (d["relation_types"], d["note"]) == (["Bind"], None)
    assert d["from"] == {"entity_types": "model", "relation_types": "model"}
    d = pair_definition_of(out, model=tmp_path / "mentions")
    assert (d["entity_types"], d["relation_types"], d["note"]) == (None, None, None)
    assert d["from"]["relation_types"] == "model"
    # the summary beside the input records the same definition in another order: no note
    (tmp_path / "docs.jsonl.summary.json").write_text(json.dumps(
        {"output": str(out), "model_entity_types": ["gene", "GeneOrGeneProduct"],
         "model_relation_types": ["bind"]}))
    assert pair_definition_of(out, model=tmp_path / "bind")["note"] is None
    with caplog.at_level(logging.WARNING):
        d = pair_definition_of(out, model=tmp_path / "mentions")
    assert d["relation_types"] is None and "another model" in d["note"]
    assert "another model" in caplog.text
    monkeypatch.undo()
    with pytest.raises(DataNotFoundError, match="not a saved PPI model"):
        pair_definition_of(out, model=tmp_path / "nothing")
