"""Document-level relations (ppi.documents.relations, ppi.documents.stage): candidates and bags against
brute-force enumeration, bag maxima, the document features, relation lines of PubTator and
BioC, what becomes of every relation (ppi.documents.relation_counts) and the refusal of a
file training cannot learn from (ppi.documents.mention_stage.check_classes)."""

import gzip
import itertools
import json

import numpy as np
import pytest

from corpora.documents import Mention, Relation, TextDocument
from corpora.standoff import split_concept_ids
from corpora.text_input import read_pubtator, write_pubtator
from kernelrank.errors import CorpusFormatError
from ppi.aggregation.aggregate import gene_pair
from ppi.documents.stage import FEATURES, document_features
from ppi.documents.relations import bag_max, build_candidates
from tests.conftest import parsed_sentence


def _random_documents(seed, n_docs=6):
    rng = np.random.default_rng(seed)
    ids = ["1", "2", "3", "10", "22", "-", "1,2", "3,10", None]
    docs, rels = [], []
    for d in range(n_docs):
        sentences, pos = [], 0
        for k in range(rng.integers(1, 5)):
            ms = [Mention(pos + 2 * j, pos + 2 * j + 1, "g", "Gene",
                          ids[rng.integers(len(ids))]) for j in range(rng.integers(0, 5))]
            sentences.append(parsed_sentence(f"d{d}", k, pos, ms))
            pos += 100
        docs.append(sentences)
        rels.append([Relation("Bind", ids[rng.integers(5)], ids[rng.integers(5)])
                     for _ in range(rng.integers(0, 3))] + [Relation("Association", "1,2", "22")])
    return docs, rels


@pytest.mark.parametrize("seed", range(5))
def test_candidates_and_bags_equal_brute_force_enumeration(seed):
    docs, rels = _random_documents(seed)
    c = build_candidates(docs, [50] * len(docs), rels, [1000] * len(docs))
    got = {}
    for k in range(len(c)):
        got[(int(c.doc[k]), c.id1[k], c.id2[k])] = (
            sorted(c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]].tolist()), c.y[k])
    want, row = {}, 0
    for d, (sentences, rel) in enumerate(zip(docs, rels)):
        ids = {i for p in sentences for m in p.mentions for i in split_concept_ids(m.id)}
        related = {gene_pair(a, b) for r in rel for a in split_concept_ids(r.id1)
                   for b in split_concept_ids(r.id2)}
        for a, b in itertools.combinations(sorted(ids), 2):
            want[(d,) + gene_pair(a, b)] = ([], 1.0 if gene_pair(a, b) in related else -1.0)
        for p in sentences:
            for m1, m2 in itertools.combinations(p.mentions, 2):
                keys = {gene_pair(a, b) for a in split_concept_ids(m1.id)
                        for b in split_concept_ids(m2.id) if a != b}
                for key in keys:
                    want[(d,) + key][0].append(row)
                row += 1
    assert got == want
    assert c.bag_rows.max(initial=-1) < row


def test_bag_max_equals_a_loop_and_leaves_empty_bags_at_the_fill_value():
    docs, rels = _random_documents(7, n_docs=10)
    c = build_candidates(docs, [None] * len(docs), rels)
    rng = np.random.default_rng(0)
    n_rows = sum(len(p.sentence.pairs) for d in docs for p in d)
    S = rng.normal(size=(3, n_rows))
    B = bag_max(S, c)
    for k in range(len(c)):
        rows = c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]]
        for t in range(3):
            assert B[t, k] == (S[t, rows].max() if len(rows) else -np.inf)
    assert (c.bag_sizes == 0).any() and np.array_equal(bag_max(S[0], c), B[0])


def test_document_features_by_their_definition():
    docs, rels = _random_documents(3, n_docs=8)
    c = build_candidates(docs, [150] * len(docs), rels, [400] * len(docs))
    rng = np.random.default_rng(1)
    n_rows = sum(len(p.sentence.pairs) for d in docs for p in d)
    s = rng.normal(size=n_rows)
    F = document_features(s, c)
    assert F.shape == (len(c), len(FEATURES)) and np.isfinite(F).all()
    col = {name: k for k, name in enumerate(FEATURES)}
    for k in range(len(c)):
        bag = np.sort(s[c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]]])[::-1]
        best = bag[0] if len(bag) else 0.0
        second = bag[1] if len(bag) > 1 else best
        assert F[k, col["max_score"]] == pytest.approx(best)
        assert F[k, col["second_score"]] == pytest.approx(second)
        assert F[k, col["mean_score"]] == pytest.approx(bag.mean() if len(bag) else 0.0)
        assert F[k, col["empty_bag"]] == (len(bag) == 0)
        d = int(c.doc[k])
        mentions = [(j, p.doc_start, m) for j, p in enumerate(docs[d]) for m in p.mentions]
        count = {g: sum(g in split_concept_ids(m.id) for _, _, m in mentions)
                 for g in (c.id1[k], c.id2[k])}
        assert F[k, col["log_mentions_min"]] == pytest.approx(np.log1p(min(count.values())))
        assert F[k, col["log_mentions_max"]] == pytest.approx(np.log1p(max(count.values())))
        sent = {g: {j for j, _, m in mentions if g in split_concept_ids(m.id)}
                for g in (c.id1[k], c.id2[k])}
        shared = sent[c.id1[k]] & sent[c.id2[k]]
        assert F[k, col["log_shared_sentences"]] == pytest.approx(np.log1p(len(shared)))
        gap = min(abs(a - b) for a in sent[c.id1[k]] for b in sent[c.id2[k]])
        assert F[k, col["log_sentence_distance"]] == pytest.approx(np.log1p(gap))
        title = {g: any(g in split_concept_ids(m.id) and m.start < 150 for _, _, m in mentions)
                 for g in (c.id1[k], c.id2[k])}
        assert F[k, col["title_max"]] == max(title.values())
        assert F[k, col["title_min"]] == min(title.values())
    # symmetric in the two concepts: the features do not depend on which is id1
    swapped = build_candidates(docs, [150] * len(docs), rels, [400] * len(docs))
    swapped.id1, swapped.id2 = c.id2.copy(), c.id1.copy()
    np.testing.assert_array_equal(document_features(s, swapped), F)


def test_every_relation_is_counted_as_used_or_left_out_for_its_reason():
    """ppi.documents.relation_counts: each relation in one class (used, another relation
    type, an id no mention carries — listed —, a concept of an unpaired entity type, one
    concept twice), the classes summing to the relations read; the used ones are exactly
    the ones that relate candidates (ppi.aggregation.evaluation.gold_candidates)."""
    from ppi.aggregation.evaluation import gold_candidates
    from ppi.documents.relation_counts import account_relations
    from ppi.documents.relations import keep_relation_types

    genes = [Mention(0, 1, "a", "Gene", "7157"), Mention(2, 3, "b", "Gene", "4193"),
             Mention(4, 5, "c", "Gene", "1956,1957"), Mention(6, 7, "d", "Disease", "D001")]
    one = TextDocument("1", "a b c d", genes, relations=[
        Relation("Bind", "7157", "4193"),               # used
        Relation("Association", "1956", "7157"),        # used (1956 of the mention 1956,1957)
        Relation("Association", "7157", "D001"),        # a disease: not paired
        Relation("Bind", "7157", "77777777"),           # no mention carries 77777777
        Relation("Bind", "7157", "7157"),               # one concept twice
        Relation("Cause", "7157", "4193")])             # not of the relation types asked
    two = TextDocument("2", "e f", [Mention(0, 1, "e", "Gene", "5"),
                                    Mention(2, 3, "f", "Gene", "6")],
                       relations=[Relation("Bind", "5", "-")])     # names nothing in place 2
    counts = account_relations([one, two], relation_types=["Bind", "association"], dropped=3)
    assert (counts.read, counts.used, counts.other_relation_types, counts.unknown_ids,
            counts.other_entity_types, counts.one_concept, counts.dropped) == \
        (7, 2, 1, 2, 1, 1, 3)
    assert counts.read == (counts.used + counts.other_relation_types + counts.unknown_ids
                           + counts.other_entity_types + counts.one_concept)
    assert counts.unknown_id_examples == ["doc 1: 77777777", "doc 2: -"]
    assert counts.unpaired_types == {"Disease": 1} and counts.left_out == 8
    words = counts.describe()
    assert "2 name an id no mention" in words and "doc 1: 77777777" in words
    assert "Disease 1" in words and "3 were left out" in words
    related = gold_candidates(keep_relation_types([one, two], ["Bind", "association"]))
    assert related["1"][1] == {("4193", "7157"), ("1956", "7157")} and not related["2"][1]
    # the entity types decide what is paired: with the diseases, the disease relation is used
    both = account_relations([one], entity_types=["Gene", "Disease"])
    assert (both.used, both.other_entity_types) == (4, 0)


def _relation_corpus(n_docs, relations_of, source="train.pubtator"):
    """A RelationCorpus of ``n_docs`` documents of one sentence with three gene mentions
    (ids 1, 2, 3: candidates (1, 2), (1, 3), (2, 3)), the relations ``relations_of(d)`` —
    built without spaCy."""
    from corpora.ppi_xml import Corpus, Document
    from ppi.documents.relations import _assemble

    parsed = [[parsed_sentence(f"d{d}", 0, 0, [Mention(2 * j, 2 * j + 1, "g", "Gene", str(j + 1))
                                         for j in range(3)])] for d in range(n_docs)]
    corpus = Corpus("x", [Document(f"d{d}", [p.sentence for p in ps])
                          for d, ps in enumerate(parsed)])
    return _assemble(corpus, parsed, [50] * n_docs, [relations_of(d) for d in range(n_docs)],
                     [100] * n_docs, source)


def test_a_degenerate_training_file_is_refused_with_what_is_wrong_and_the_minimum():
    """check_classes before the learner runs, in the user's terms: the file, what it holds
    and the minimum training needs (2 documents with a mention pair: λ is chosen by
    leaving one out; a related and an unrelated candidate); relations that name no
    mention's id are said to (more documents would not help); ppi cv: as many documents as
    folds, each fold's training part learnable."""
    from kernelrank.errors import InvalidParameterError
    from ppi.documents.mention_stage import check_classes
    from ppi.documents.relation_counts import RelationCounts
    from ppi.documents.system import DocumentSystem

    bind = [Relation("Bind", "1", "2")]
    with pytest.raises(InvalidParameterError) as info:
        check_classes(_relation_corpus(1, lambda d: bind))
    message = str(info.value)
    assert message.startswith("train.pubtator: 1 document;")
    assert "at least 2 documents with a mention pair" in message and "leaving one" in message
    unknown = _relation_corpus(4, lambda d: [Relation("Bind", "1", "77777777")])
    unknown.relation_counts = RelationCounts(read=4, unknown_ids=4, unknown_id_examples=[
        f"doc d{d}: 77777777" for d in range(4)])
    with pytest.raises(InvalidParameterError) as info:
        check_classes(unknown)
    message = str(info.value)
    assert message.startswith("train.pubtator: 0 related candidate pairs of 12")
    assert "4 name an id no mention of their document carries (doc d0: 77777777" in message
    assert "more documents would not help" in message and "give more documents" not in message
    every = [Relation("Bind", "1", "2"), Relation("Bind", "1", "3"), Relation("Bind", "2", "3")]
    with pytest.raises(InvalidParameterError, match="at least one unrelated pair"):
        check_classes(_relation_corpus(3, lambda d: every))
    check_classes(_relation_corpus(2, lambda d: bind))                   # the minimum
    system = DocumentSystem(transfer=False)
    with pytest.raises(InvalidParameterError, match="3 documents for 10 folds; cv needs at "
                                                    "least as many documents as folds"):
        system.check_data(_relation_corpus(3, lambda d: bind), folds=10)
    with pytest.raises(InvalidParameterError, match=r"training part of fold \d of 2 \(--folds\)"
                                                    ": 1 document"):
        system.check_data(_relation_corpus(3, lambda d: bind), folds=2)   # 2 + 1 documents
    system.check_data(_relation_corpus(3, lambda d: bind), folds=3)
    system.check_data(_relation_corpus(4, lambda d: bind), folds=2)


def test_pubtator_relation_lines_are_read_written_and_checked(tmp_path):
    doc = TextDocument("123", "IL2 binds CD25. Done.", [Mention(0, 3, "IL2", "Gene", "3558"),
                                                        Mention(10, 14, "CD25", "Gene", "3559")],
                       title_end=15, relations=[Relation("Bind", "3558", "3559",
                                                         (("novelty", "Novel"),))])
    path = tmp_path / "a.pubtator"
    with open(path, "w") as fh:
        write_pubtator([doc], fh)
    (back,) = read_pubtator(path)
    assert back.relations == doc.relations and back.mentions == doc.mentions
    text = path.read_text().replace("123\tBind\t3558\t3559\tNovel", "123\tBind\t3558")
    path.write_text(text)
    with pytest.raises(CorpusFormatError, match="relation line") as e:
        list(read_pubtator(path))
    assert "line 5" in str(e.value) or ":5" in str(e.value)


def test_bioc_relations_with_entity_infons_become_relations(tmp_path):
    from corpora.bioc import read_bioc_json

    doc = {"id": "9", "infons": {}, "passages": [{
        "offset": 0, "infons": {"type": "title"}, "text": "IL2 binds CD25.",
        "annotations": [
            {"id": "a", "infons": {"type": "GeneOrGeneProduct", "identifier": "3558"},
             "text": "IL2", "locations": [{"offset": 0, "length": 3}]},
            {"id": "b", "infons": {"type": "GeneOrGeneProduct", "identifier": "3559"},
             "text": "CD25", "locations": [{"offset": 10, "length": 4}]}],
        "relations": []}],
        "relations": [{"id": "R0", "infons": {"entity1": "3558", "entity2": "3559",
                                              "type": "Bind", "novel": "Novel"},
                       "nodes": []}], "annotations": []}
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"source": "t", "date": "", "key": "", "infons": {},
                                "documents": [doc]}))
    (d,) = read_bioc_json(path)
    assert d.relations == [Relation("Bind", "3558", "3559", (("novel", "Novel"),))]


def test_passage_relations_are_gold_too_and_relation_types_filter_them(tmp_path):
    """BioC puts relations in passages as often as in the document: the gold reader of
    ``evaluate-documents`` takes both, as the training reader does, and keeps only the
    asked types."""
    from corpora.bioc import read_bioc_json, read_bioc_relations

    ann = [{"id": k, "infons": {"type": "Gene", "identifier": i}, "text": t,
            "locations": [{"offset": o, "length": len(t)}]}
           for k, i, t, o in (("a", "3558", "IL2", 0), ("b", "3559", "CD25", 10),
                              ("c", "7124", "TNF", 16))]
    doc = {"id": "9", "infons": {}, "annotations": [], "passages": [{
        "offset": 0, "infons": {"type": "title"}, "text": "IL2 binds CD25 TNF.",
        "annotations": ann,
        "relations": [{"id": "R1", "infons": {"type": "Association"},
                       "nodes": [{"refid": "a", "role": ""}, {"refid": "c", "role": ""}]}]}],
        "relations": [{"id": "R0", "infons": {"entity1": "3558", "entity2": "3559",
                                              "type": "Bind"}, "nodes": []}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"source": "t", "date": "", "key": "", "infons": {},
                                "documents": [doc]}))
    (d,) = read_bioc_json(path)
    assert {(r.type, gene_pair(r.id1, r.id2)) for r in d.relations} == \
        {("Bind", ("3558", "3559")), ("Association", ("3558", "7124"))}
    ((_, pairs),) = read_bioc_relations(path, "bioc-json")
    assert pairs == {gene_pair(r.id1, r.id2) for r in d.relations}
    ((_, pairs),) = read_bioc_relations(path, "bioc-json", relation_types=["association"])
    assert pairs == {("3558", "7124")}


def test_evaluating_on_one_class_of_pairs_or_an_absent_type_says_so(tmp_path, capsys):
    """A gold file whose every candidate is related has no AUC: the summary leaves it out
    (rather than stop on a TypeError); a relation type the file lacks is a typed error."""
    from ppi.__main__ import main

    doc = {"id": "9", "infons": {}, "annotations": [], "relations": [], "passages": [{
        "offset": 0, "infons": {}, "text": "IL2 binds CD25.", "relations": [
            {"id": "R0", "infons": {"type": "Bind"},
             "nodes": [{"refid": "a", "role": ""}, {"refid": "b", "role": ""}]}],
        "annotations": [{"id": k, "infons": {"type": "Gene", "identifier": i}, "text": t,
                         "locations": [{"offset": o, "length": len(t)}]}
                        for k, i, t, o in (("a", "3558", "IL2", 0), ("b", "3559", "CD25", 10))]}]}
    gold, pred = tmp_path / "gold.json", tmp_path / "pairs.jsonl"
    gold.write_text(json.dumps({"source": "t", "date": "", "key": "", "infons": {},
                                "documents": [doc]}))
    pred.write_text(json.dumps({"doc_id": "9", "gene1": "3558", "gene2": "3559", "score": 1.0,
                                "interaction": True, "mention_pairs": 1}) + "\n")
    args = ["evaluate-documents", "--input", str(pred), "--gold", str(gold), "--output-dir",
            str(tmp_path / "eval")]
    assert main(args + ["--relation-types", "BIND"]) == 0
    out = capsys.readouterr().out
    assert "gold candidates (1, 1 related): P 100.0 R 100.0 F 100.0;" in out and "AUC" not in out
    assert main(args + ["--relation-types", "Association"]) == 2
    assert "no relation of type Association" in capsys.readouterr().err


def _raw_genes_and_relations(path):
    """From a PubTator file's raw lines: ``{doc: gene ids}`` of its GeneOrGeneProduct
    mentions and ``{type: [(doc, gene pair)]}`` of its relation lines."""
    genes, typed = {}, {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            f = line.rstrip("\n").split("\t")
            if len(f) >= 6 and f[1].isdigit() and f[4] == "GeneOrGeneProduct":
                genes.setdefault(f[0], set()).update(split_concept_ids(f[5]))
            elif len(f) >= 4 and not f[1].isdigit():
                typed.setdefault(f[1], []).append((f[0], gene_pair(f[2], f[3])))
    return genes, typed


def test_relation_types_keep_only_their_relations_on_real_biored(data_dir):
    from kernelrank.errors import InvalidParameterError
    from ppi.aggregation.evaluation import gold_candidates
    from ppi.documents.relations import keep_relation_types

    path = data_dir / "biored" / "Dev.PubTator.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    docs = list(read_pubtator(path))
    genes, typed = _raw_genes_and_relations(path)
    for types in (["Bind"], ["positive_correlation", "NEGATIVE_Correlation"]):
        kept = {t for t in typed if t.lower() in {x.lower() for x in types}}
        want = {(d, p) for t in kept for d, p in typed[t]
                if p[0] != p[1] and p[0] in genes.get(d, ()) and p[1] in genes.get(d, ())}
        got = {(d, p) for d, (_, rel) in gold_candidates(keep_relation_types(docs, types))
               .items() for p in rel}
        assert got == want and got
        assert len(keep_relation_types(docs, types)) == len(docs)
    with pytest.raises(InvalidParameterError) as e:
        keep_relation_types(docs, ["Phosphorylation"], path)
    for t, rows in typed.items():
        assert f"{t} ({len(rows)})" in str(e.value)


def test_real_biored_candidates_are_the_relations_between_gene_concepts(data_dir):
    path = data_dir / "biored" / "Dev.PubTator.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    docs = list(read_pubtator(path))
    from ppi.aggregation.evaluation import gold_candidates
    cands = gold_candidates(docs)
    n = sum(len(c) for c, _ in cands.values())
    related = sum(len(r) for _, r in cands.values())
    # brute force over the raw lines: gene concepts per document, relations between two
    by_doc, typed = _raw_genes_and_relations(path)
    rel_pairs = {}
    for rows in typed.values():
        for d, p in rows:
            rel_pairs.setdefault(d, set()).add(p)
    want = sum(len(g) * (len(g) - 1) // 2 for g in by_doc.values())
    want_related = sum(len({p for p in rel_pairs.get(d, ()) if p[0] in g and p[1] in g
                            and p[0] != p[1]}) for d, g in by_doc.items())
    assert (n, related) == (want, want_related) and related > 0
    with gzip.open(path, "rt") as fh:
        lines = [x for x in fh if x.count("\t") >= 3 and not x.split("\t")[1].isdigit()]
    assert sum(len(d.relations) for d in docs) == len(lines)


def test_relation_sets_by_name_resolve_in_the_data_directory(tmp_path):
    from kernelrank.errors import DataNotFoundError
    from ppi.names import RELATION_SETS, relations_path

    (tmp_path / "biored").mkdir()
    train = tmp_path / "biored" / "Train.PubTator.gz"
    train.write_bytes(b"")
    assert relations_path(tmp_path, "biored") == train
    assert relations_path(tmp_path, str(train)) == train          # a path stays a path
    with pytest.raises(DataNotFoundError, match="corpora fetch biored"):
        relations_path(tmp_path, "biored-dev")
    assert set(RELATION_SETS) == {"biored", "biored-dev", "bc6ppim"}


def test_bagged_threshold():
    from learners.measures import best_f_threshold, precision_recall_f1
    from ppi.documents.stage import bagged_threshold

    rng = np.random.default_rng(0)
    y = np.where(rng.random(400) < 0.2, 1.0, -1.0)
    docs = np.repeat(np.arange(40), 10)
    noisy = y + rng.normal(size=400)
    assert bagged_threshold(y, noisy, docs, 0) == best_f_threshold(y, noisy).threshold
    t = bagged_threshold(y, noisy, docs, 50, seed=3)
    assert t == bagged_threshold(y, noisy, docs, 50, seed=3)
    assert noisy.min() < t < noisy.max()
    # separable scores: every resample's best-F threshold separates, so the median does
    separable = y + 0.1 * rng.random(400)
    assert precision_recall_f1(y, separable, bagged_threshold(y, separable, docs)).f1 == 1.0


@pytest.mark.parametrize("name", ["Train", "Dev"])
def test_every_real_biored_relation_is_counted_as_its_raw_lines_say(data_dir, name):
    """The counts of ppi.documents.relation_counts on the real BioRED files against their raw
    lines: none refused (its tmVar variant ids with '|' are the ids of mentions), none names
    an id no mention carries; a relation of two distinct gene concepts is used, of one
    concept twice not, any other names a concept of another entity type."""
    from corpora.documents import ReadStats
    from ppi.documents.relation_counts import account_relations

    path = data_dir / "biored" / f"{name}.PubTator.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    stats = ReadStats()
    counts = account_relations(list(read_pubtator(path, stats=stats)),
                               dropped=stats.relations_dropped)
    genes, typed = _raw_genes_and_relations(path)
    rows = [(d, p) for found in typed.values() for d, p in found]
    used = sum(p[0] != p[1] and {p[0], p[1]} <= genes.get(d, set()) for d, p in rows)
    same = sum(p[0] == p[1] for _, p in rows)
    assert (counts.dropped, counts.unknown_ids, stats.relations) == (0, 0, len(rows))
    assert (counts.read, counts.used, counts.one_concept, counts.other_entity_types) == \
        (len(rows), used, same, len(rows) - used - same)
    assert used > 0 and counts.other_entity_types > 0
