"""Typed relations through ``ppi aggregate`` and ``ppi network``: hand-written extract records
of a typed ``documents`` model (entity types, a relation type and novelty per concept pair)
→ aggregate records → network, TSV, GraphML and picture; and untyped records left as they
were."""

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from kernelrank.errors import CorpusFormatError

GENE, CHEMICAL, DISEASE = "GeneOrGeneProduct", "ChemicalEntity", "DiseaseOrPhenotypicFeature"
#: the fields of an untyped model's aggregate records (a documents model's: with
#: mention_score and level)
UNTYPED_FIELDS = {"doc_id", "gene1", "gene2", "gene1_text", "gene2_text", "self_pair",
                  "score", "interaction", "mention_pairs", "positive_mention_pairs",
                  "evidence_sentences", "evidence", "mention_score", "level"}


def _typed(doc, e1, e2, score, relation, novel=True, novelty=0.8, scores=None):
    """A typed model's document record; ``e1`` / ``e2`` as ``(text, concept id, type)``."""
    (t1, c1, k1), (t2, c2, k2) = e1, e2
    r = {"doc_id": doc, "level": "document", "sentence_id": None,
         "e1": {"text": t1, "concept_id": c1, "type": k1},
         "e2": {"text": t2, "concept_id": c2, "type": k2},
         "pair_type": ":".join(sorted((k1, k2))) if k1 and k2 else None,
         "score": score, "interaction": score > 0,
         "relation_type": relation,
         "relation_scores": scores or {relation: 0.9, "Association": 0.1},
         "novel": novel, "novelty_score": novelty, "mention_pairs": 0}
    if novel is None:
        del r["novel"], r["novelty_score"]
    return r


def _mention(doc, sid, e1, e2, score):
    """A mention-pair record; its mentions carry types, as every extract output's do."""
    (t1, c1, k1), (t2, c2, k2) = e1, e2
    return {"doc_id": doc, "sentence_id": f"{doc}.{sid}", "pair_id": f"{doc}.{sid}.p0",
            "sentence": f"{t1} and {t2}.", "sentence_start": 0,
            "e1": {"id": "e1", "text": t1, "type": k1, "start": 0, "end": 1,
                   "concept_id": c1},
            "e2": {"id": "e2", "text": t2, "type": k2, "start": 2, "end": 3,
                   "concept_id": c2},
            "score": score, "interaction": score > 0}


P53, MDM2, EGFR = ("p53", "7157", GENE), ("MDM2", "4193", GENE), ("EGFR", "1956", GENE)
ASPIRIN, CANCER = ("aspirin", "D001241", CHEMICAL), ("cancer", "D009369", DISEASE)

#: three documents; the chemical is e1 where the canonical order puts the gene first
TYPED = [
    _mention("A", "s0", ASPIRIN, P53, 0.4),
    _typed("A", ASPIRIN, P53, 1.2, "Negative_Correlation", novel=True, novelty=0.9),
    _typed("A", P53, MDM2, 0.7, "Bind", novel=False, novelty=0.2),
    _typed("A", CANCER, MDM2, -0.5, "Association", novel=None),
    _typed("B", P53, ASPIRIN, 0.3, "Negative_Correlation", novel=False, novelty=0.1),
    _typed("B", MDM2, P53, 0.9, "Bind", novel=True, novelty=0.7),
    _typed("C", MDM2, P53, 0.2, "Association", novel=True, novelty=0.6),
    _typed("C", EGFR, CANCER, 0.5, "Positive_Correlation", novel=True, novelty=0.6),
]


def _main(*args):
    from ppi.__main__ import main
    return main([*map(str, args)])


def _write(records, path):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _aggregate(records, tmp_path, name="docs.jsonl", *options):
    src = _write(records, tmp_path / f"{name}.extract.jsonl")
    out = tmp_path / name
    assert _main("aggregate", "--quiet", "--input", src, "--output", out, *options) == 0
    return out


def test_typed_pairs_take_the_types_in_the_canonical_concept_order(tmp_path):
    rows = {(x["doc_id"], x["gene1"], x["gene2"]): x
            for x in _read(_aggregate(TYPED, tmp_path))}
    # e1 was the chemical (MeSH id), but the gene's numeric id sorts first
    a = rows[("A", "7157", "D001241")]
    assert (a["concept1"], a["concept2"], a["type1"], a["type2"]) == \
        ("7157", "D001241", GENE, CHEMICAL)
    assert (a["concept1_text"], a["concept2_text"], a["gene1_text"], a["gene2_text"]) == \
        ("p53", "aspirin", "p53", "aspirin")
    assert a["pair_type"] == f"{CHEMICAL}:{GENE}"
    assert (a["relation_type"], a["novel"], a["novelty_score"], a["score"]) == \
        ("Negative_Correlation", True, 0.9, 1.2)
    assert a["relation_scores"] == {"Negative_Correlation": 0.9, "Association": 0.1}
    assert a["mention_pairs"] == 1 and a["mention_score"] == 0.4
    # e1 first in the canonical order: nothing flips
    c = rows[("C", "1956", "D009369")]
    assert (c["type1"], c["type2"], c["concept1_text"]) == (GENE, DISEASE, "EGFR")
    # the contract's field order: the concept fields first, then today's
    assert list(a)[:13] == ["doc_id", "concept1", "concept2", "concept1_text",
                            "concept2_text", "type1", "type2", "pair_type", "relation_type",
                            "relation_scores", "novel", "novelty_score", "gene1"]
    # no novelty from the model: null, not False
    n = rows[("A", "4193", "D009369")]
    assert n["novel"] is None and n["novelty_score"] is None
    summary = json.loads((tmp_path / "docs.jsonl.summary.json").read_text())
    assert summary["pair_types"] == {
        f"{CHEMICAL}:{GENE}": {"pairs": 2, "related": 2},
        f"{DISEASE}:{GENE}": {"pairs": 2, "related": 1},
        f"{GENE}:{GENE}": {"pairs": 3, "related": 3}}
    assert summary["relation_types"] == {"Bind": 2, "Negative_Correlation": 2,
                                         "Association": 1, "Positive_Correlation": 1}
    assert summary["novel_pairs"] == 4
    report = (tmp_path / "docs.jsonl.summary.md").read_text()
    assert "## Pair and relation types" in report and "Negative_Correlation 2" in report


def test_untyped_records_give_exactly_todays_fields(tmp_path):
    """Mention-pair records (their mentions typed ``Gene``, as ever) and untyped document
    records: no typed field, no typed column, no type count."""
    untyped = [_mention("A", "s0", ("p53", "7157", "Gene"), ("MDM2", "4193", "Gene"), 0.4),
               {"doc_id": "A", "level": "document", "sentence_id": None,
                "e1": {"text": "MDM2", "concept_id": "4193"},
                "e2": {"text": "p53", "concept_id": "7157"},
                "score": 0.5, "interaction": True, "mention_pairs": 1},
               _mention("B", "s0", ("p53", "7157", "Gene"), ("EGFR", "1956", "Gene"), -0.1)]
    from ppi.aggregation.aggregate import TSV_COLUMNS, read_document_pairs
    for records in (untyped, untyped[2:]):          # a documents model, a mention model
        out = _aggregate(records, tmp_path)
        for x in _read(out):
            assert set(x) <= UNTYPED_FIELDS
        assert "pair_types" not in json.loads((tmp_path / "docs.jsonl.summary.json")
                                              .read_text())
        tsv = _aggregate(records, tmp_path, "docs.tsv")
        assert tsv.read_text().splitlines()[0].split("\t") == list(TSV_COLUMNS)
        assert all("concept1" not in x and "type1" not in x
                   for _, x in read_document_pairs(tsv))
    # an empty input: the TSV is its header
    assert _aggregate([], tmp_path, "empty.tsv").read_text() == "\t".join(TSV_COLUMNS) + "\n"


def test_typed_fields_round_trip_through_the_tsv(tmp_path):
    from ppi.aggregation.aggregate import TSV_COLUMNS, TYPED_COLUMNS, TYPED_FIELDS
    from ppi.aggregation.aggregate import read_document_pairs
    # a document of mention pairs only comes first: its rows wait until the kind is known,
    # then take the typed columns (empty)
    records = [_mention("0", "s0", ("p53", "7157", "Gene"), ("p53", "7157", "Gene"), 0.3),
               *TYPED]
    jsonl = _aggregate(records, tmp_path, "docs.jsonl", "--self-pairs")
    tsv = _aggregate(records, tmp_path, "docs.tsv", "--self-pairs")
    lines = tsv.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(TSV_COLUMNS + TYPED_COLUMNS)
    assert {len(line.split("\t")) for line in lines} == {len(TSV_COLUMNS + TYPED_COLUMNS)}
    got = [x for _, x in read_document_pairs(tsv)]
    want = _read(jsonl)
    assert len(got) == len(want) == 8
    keys = ("doc_id", "gene1", "gene2", "gene1_text", "gene2_text", "score", "interaction")
    for g, w in zip(got, want):
        assert {k: g.get(k) for k in keys + TYPED_FIELDS} == \
            {k: w.get(k) for k in keys + TYPED_FIELDS}
        assert set(TYPED_FIELDS) <= set(g) or not set(TYPED_FIELDS) & set(g)
    self_pair = got[0]
    assert self_pair["doc_id"] == "0" and "concept1" not in self_pair
    by_pair = {(x["doc_id"], x["gene1"], x["gene2"]): x for x in got}
    a = by_pair[("A", "7157", "D001241")]
    assert a["novel"] is True and isinstance(a["novelty_score"], float)
    assert a["relation_scores"] == {"Negative_Correlation": 0.9, "Association": 0.1}
    assert by_pair[("A", "4193", "D009369")]["novel"] is None
    assert by_pair[("A", "4193", "7157")]["novel"] is False


def test_typed_and_untyped_document_records_in_one_input_are_refused(tmp_path):
    from ppi.aggregation.aggregate import aggregate
    untyped = {"doc_id": "Z", "level": "document", "sentence_id": None,
               "e1": {"text": "MDM2", "concept_id": "4193"},
               "e2": {"text": "p53", "concept_id": "7157"},
               "score": 0.5, "interaction": True, "mention_pairs": 0}
    src = _write(TYPED + [untyped], tmp_path / "mixed.jsonl")
    with pytest.raises(CorpusFormatError, match="untyped document record after typed") as info:
        aggregate(src, tmp_path / "out.jsonl")
    assert info.value.line == len(TYPED) + 1


def _typed_network(tmp_path, **options):
    from ppi.aggregation.network import build_network
    return build_network(_aggregate(TYPED, tmp_path), **options)[0]


def test_the_network_carries_node_and_edge_types(tmp_path):
    graph = _typed_network(tmp_path)
    assert {n: d["type"] for n, d in graph.nodes(data=True)} == {
        "7157": GENE, "4193": GENE, "1956": GENE, "D001241": CHEMICAL, "D009369": DISEASE}
    # p53–MDM2: Bind in A and B, Association in C → Bind; novel in B and C
    pm = graph.edges["4193", "7157"]
    assert (pm["documents"], pm["relation_type"], pm["novel_documents"]) == (3, "Bind", 2)
    pa = graph.edges["7157", "D001241"]
    assert (pa["relation_type"], pa["novel_documents"]) == ("Negative_Correlation", 1)
    assert not graph.has_edge("4193", "D009369")              # not predicted to relate
    # --all-pairs counts every document, the unrelated one too
    every = _typed_network(tmp_path, all_pairs=True)
    assert every.edges["4193", "D009369"]["relation_type"] == "Association"
    assert every.edges["4193", "D009369"]["novel_documents"] == 0


def test_a_tie_of_relation_types_goes_to_the_best_scored_document(tmp_path):
    from ppi.aggregation.network import build_network
    docs = _aggregate([_typed("A", P53, MDM2, 0.4, "Association"),
                       _typed("B", P53, MDM2, 0.8, "Bind"),
                       _typed("C", ("x", "9", None), MDM2, 0.1, None)], tmp_path)
    graph, _ = build_network(docs)
    assert graph.edges["4193", "7157"]["relation_type"] == "Bind"     # not alphabetical
    assert graph.edges["9", "4193"]["relation_type"] is None      # none predicted
    assert graph.nodes["9"]["type"] is None                       # unknown type


def test_the_types_of_a_record_out_of_the_canonical_order_follow_their_concepts(tmp_path):
    """An aggregate record written by hand with the chemical first: the network puts the
    gene first and its type with it."""
    from ppi.aggregation.network import build_network, write_network
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"doc_id": "A", "gene1": "D001241", "gene2": "7157",
                                "gene1_text": "aspirin", "gene2_text": "p53",
                                "type1": CHEMICAL, "type2": GENE, "score": 1.0,
                                "interaction": True, "relation_type": "Bind"}) + "\n")
    graph, _ = build_network(docs)
    assert graph.nodes["7157"]["type"] == GENE and graph.nodes["D001241"]["type"] == CHEMICAL
    assert graph.nodes["7157"]["name"] == "p53"
    write_network(graph, tmp_path / "net")
    row = (tmp_path / "net" / "network.tsv").read_text().splitlines()[1].split("\t")
    assert (row[0], row[9], row[10]) == ("7157", GENE, CHEMICAL)


def test_graphml_and_tsv_hold_the_types(tmp_path):
    import networkx as nx

    from ppi.aggregation.network import TSV_COLUMNS, build_network, write_network
    docs = _aggregate(TYPED + [_typed("D", ("x", "9", None), MDM2, 0.1, None)], tmp_path)
    graph, _ = build_network(docs)
    write_network(graph, tmp_path / "net")
    text = (tmp_path / "net" / "network.graphml").read_text()
    assert '<key id="d3" for="node" attr.name="type" attr.type="string"/>' in text
    assert 'attr.name="relation_type" attr.type="string"' in text
    assert 'attr.name="novel_documents" attr.type="long"' in text
    back = nx.read_graphml(tmp_path / "net" / "network.graphml")
    assert back.nodes["D001241"]["type"] == CHEMICAL and back.nodes["7157"]["type"] == GENE
    assert back.edges["4193", "7157"]["relation_type"] == "Bind"
    assert back.edges["4193", "7157"]["novel_documents"] == 2
    assert "type" not in back.nodes["9"]                       # None: no value
    assert "relation_type" not in back.edges["9", "4193"]
    for n, d in graph.nodes(data=True):
        assert back.nodes[n] == {k: v for k, v in d.items() if v is not None}
    rows = [dict(zip(TSV_COLUMNS, line.split("\t"))) for line in
            (tmp_path / "net" / "network.tsv").read_text().splitlines()[1:]]
    assert list(TSV_COLUMNS[-4:]) == ["type1", "type2", "relation_type", "novel_documents"]
    row = next(r for r in rows if (r["gene1"], r["gene2"]) == ("7157", "D001241"))
    assert (row["type1"], row["type2"], row["relation_type"], row["novel_documents"]) == \
        (GENE, CHEMICAL, "Negative_Correlation", "1")
    unknown = next(r for r in rows if r["gene1"] == "9" or r["gene2"] == "9")
    assert unknown["relation_type"] == "" and "" in (unknown["type1"], unknown["type2"])


def _legends(fig):
    return {legend.get_title().get_text(): [t.get_text() for t in legend.get_texts()]
            for legend in fig.legends}


def test_the_picture_explains_the_types_in_legends_only_when_typed(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ppi.aggregation.network import build_network, draw_network, picture_edges
    graph = _typed_network(tmp_path)
    parts, counts = picture_edges(graph)
    fig, labels = draw_network(graph, parts, counts)
    try:
        # the triangle p53–MDM2–aspirin is drawn, the isolated pair EGFR–cancer is not:
        # the legends list the types drawn
        assert _legends(fig) == {"entity type": [CHEMICAL, GENE],
                                 "relation type": ["Bind", "Negative_Correlation"]}
        (ax,) = fig.axes                                            # no colour bar
        assert ax.get_legend().get_title().get_text() == "edge width"
        # one colour per entity type on the nodes, one per relation type on the edges
        edges, nodes = ax.collections
        assert len({tuple(c) for c in nodes.get_facecolors()}) == 2
        assert len({tuple(c) for c in edges.get_colors()}) == 2
        # every legend inside the figure, right of the plot
        renderer = fig.canvas.get_renderer()
        frame = ax.get_window_extent(renderer)
        for legend in fig.legends:
            box = legend.get_window_extent(renderer)
            assert box.x0 >= frame.x1 and box.x1 <= fig.bbox.x1 and box.y0 >= 0
    finally:
        plt.close(fig)
    from tests.ppi.test_aggregate import RECORDS
    plain = tmp_path / "plain"
    plain.mkdir()
    graph, _ = build_network(_aggregate(RECORDS, plain))
    fig, _ = draw_network(graph, *picture_edges(graph))
    try:
        assert fig.legends == []
        assert any("best document score" in a.get_ylabel() for a in fig.axes)   # colour bar
        assert "type" not in next(iter(graph.nodes.values()))
    finally:
        plt.close(fig)


def _zlib_level(png):
    """The FLEVEL field (0: the fastest compression, levels 0–1) of the first IDAT chunk's
    zlib stream of the PNG bytes ``png``."""
    at = 8
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IDAT":
            return png[at + 9] >> 6
        at += 12 + length
    raise AssertionError("no IDAT chunk")


def test_the_commands_write_a_typed_network(tmp_path):
    docs = _aggregate(TYPED, tmp_path)
    net = tmp_path / "net"
    assert _main("network", "--quiet", "--input", docs, "--output-dir", net) == 0
    results = json.loads((net / "results.json").read_text())
    assert results["node_types"] == {GENE: 3, CHEMICAL: 1, DISEASE: 1}
    assert results["edge_relation_types"] == {"Bind": 1, "Negative_Correlation": 1,
                                              "Positive_Correlation": 1}
    assert results["novel_edges"] == 3
    assert results["strongest_edges"][0]["relation_type"] == "Bind"
    report = (net / "results.md").read_text()
    assert "- node (entity) types: GeneOrGeneProduct 3" in report
    assert "edge colour and line style: the relation type" in report
    assert _zlib_level((net / "network.png").read_bytes()) == 0


@pytest.mark.slow
def test_python_m_ppi_aggregate_and_network_on_a_typed_extract(tmp_path):
    import networkx as nx
    src = _write(TYPED, tmp_path / "extract.jsonl")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    for args in (["aggregate", "--quiet", "--input", src, "--output", tmp_path / "docs.tsv"],
                 ["network", "--quiet", "--input", tmp_path / "docs.tsv", "--output-dir",
                  tmp_path / "net"]):
        run = subprocess.run([sys.executable, "-m", "ppi", *map(str, args)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
    back = nx.read_graphml(tmp_path / "net" / "network.graphml")
    assert back.nodes["D009369"]["type"] == DISEASE
    assert back.edges["1956", "D009369"]["relation_type"] == "Positive_Correlation"
