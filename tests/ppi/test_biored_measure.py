"""``ppi evaluate-documents --measure biored`` (ppi/aggregation/biored_measure.py): BioRED's
levels — entity pair, + relation type, + relation type + novelty, and the BioCreative VIII
track's entity pair + novelty — on a hand-made PubTator gold file and hand-written
aggregate records, every expected number counted by hand from the definition; and the real
BioRED dev gold predicted exactly."""

import json

import pytest

from kernelrank.errors import CorpusFormatError, InvalidParameterError

LEVELS = ("pair", "type", "novelty", "pair_novelty")
MEASURES = ("precision", "recall", "f1", "tp", "fp", "fn")


def _main(*args):
    from ppi.__main__ import main
    return main([*map(str, args)])


def _record(title, annotations, relations):
    """A PubTator record: ``annotations`` ``(name, type, id)`` placed where ``name`` first
    occurs in the title; ``relations`` ``(type, id1, id2, novelty)``."""
    pmid = title.split()[0].rstrip(":")
    lines = [f"{pmid}|t|{title}", f"{pmid}|a|-"]
    for name, kind, concept in annotations:
        start = title.index(name)
        lines.append(f"{pmid}\t{start}\t{start + len(name)}\t{name}\t{kind}\t{concept}")
    lines += [f"{pmid}\t" + "\t".join(r) for r in relations]
    return "\n".join(lines) + "\n"


CHEM, GENE, DIS = "ChemicalEntity", "GeneOrGeneProduct", "DiseaseOrPhenotypicFeature"
CG, GG, DG = f"{CHEM}:{GENE}", f"{GENE}:{GENE}", f"{DIS}:{GENE}"


def _gold(path):
    path.write_text("\n".join([
        _record("A: aspirin lowers TP53, TP53 binds MDM2, in cancer",
                [("aspirin", CHEM, "D001241"), ("TP53", GENE, "7157"), ("MDM2", GENE, "4193"),
                 ("cancer", DIS, "D009369")],
                [("Negative_Correlation", "D001241", "7157", "Novel"),
                 ("Bind", "7157", "4193", "Novel"),
                 ("Association", "7157", "D009369", "No")]),
        # EGFR's mention and a relation list two ids; one pair related twice
        _record("B: gefitinib inhibits EGFR in lung cancer",
                [("gefitinib", CHEM, "D000077156"), ("EGFR", GENE, "1956,1957"),
                 ("lung cancer", DIS, "D008175")],
                [("Negative_Correlation", "D000077156", "1956,1957", "Novel"),
                 ("Association", "1956", "D008175", "No"),
                 ("Positive_Correlation", "1956", "D008175", "Novel")]),
        # D999999: named by a relation, no mention
        _record("C: BRCA1 in breast cancer",
                [("BRCA1", GENE, "672"), ("breast cancer", DIS, "D001943")],
                [("Association", "672", "D001943", "Novel"),
                 ("Association", "672", "D999999", "No")]),
    ]), encoding="utf-8")
    return path


def _pred(doc, a, b, relation_type=None, novel=None, pair_type=None, interaction=True):
    """An aggregate record of a typed model (``a <= b`` in concept order); None fields are
    left out, as an untyped model's records lack them."""
    x = {"doc_id": doc, "concept1": a, "concept2": b, "gene1": a, "gene2": b,
         "concept1_text": a, "concept2_text": b, "gene1_text": a, "gene2_text": b,
         "score": 1.0 if interaction else -1.0, "interaction": interaction,
         "mention_pairs": 1}
    for k, v in (("relation_type", relation_type), ("novel", novel), ("pair_type", pair_type)):
        if v is not None:
            x[k] = v
    return x


PREDICTIONS = [
    _pred("A", "7157", "D001241", "Negative_Correlation", True, CG),   # right at every level
    _pred("A", "4193", "7157", "Association", True, GG),     # gold Bind: the pair right only
    _pred("A", "7157", "D009369", "Association", False, DG, interaction=False),  # not predicted
    _pred("A", "4193", "D009369", "Association", False),     # no gold relation; type from gold
    _pred("B", "1956", "D000077156", "negative_correlation", True, CG),  # one of the two ids
    _pred("B", "1956", "D008175", "Positive_Correlation", False, DG),  # 2nd relation's type,
                                                                      # 1st relation's novelty
    _pred("C", "672", "D001943"),                            # untyped: no type, no novelty
]


def _write(records, path):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _counts(m):
    return tuple(m[k] for k in ("tp", "fp", "fn"))


def _prf(m):
    return tuple(m[k] for k in ("precision", "recall", "f1"))


def test_the_levels_count_by_hand(tmp_path):
    """Gold pairs (8): A (7157, D001241) (4193, 7157) (7157, D009369); B (1956, D000077156)
    (1957, D000077156) — the comma-listed id — and (1956, D008175) once, though related twice;
    C (672, D001943) (672, D999999).  Predicted relations (6): A1 A2 A4 B1 B3 C1.

    pair:         TP A1 A2 B1 B3 C1 = 5, FP A4 = 1, FN 8 − 5 = 3
    type:         TP A1 B1 B3 = 3 (B3 matches the second relation's type), FP 3, FN 5
    novelty:      TP A1 B1 = 2 (B3: Positive_Correlation is Novel, not No), FP 4, FN 6
    pair_novelty: TP A1 A2 B1 B3 = 4 (B3: No is the first relation's), FP 2, FN 4
    """
    from ppi.aggregation.biored_measure import evaluate_biored

    gold = _gold(tmp_path / "gold.pubtator")
    r = evaluate_biored(_write(PREDICTIONS, tmp_path / "p.jsonl"), gold)
    expected = {"pair": (5, 1, 3), "type": (3, 3, 5), "novelty": (2, 4, 6),
                "pair_novelty": (4, 2, 4)}
    for level, (tp, fp, fn) in expected.items():
        assert _counts(r[level]) == (tp, fp, fn), level
        assert _prf(r[level]) == pytest.approx(
            (tp / (tp + fp), tp / (tp + fn), 2 * tp / (2 * tp + fp + fn))), level
    assert _prf(r["pair"]) == pytest.approx((5 / 6, 5 / 8, 5 / 7))
    assert (r["gold_relations"], r["gold_pairs"], r["gold_pairs_with_several_relations"]) == \
        (8, 8, 1)
    assert (r["gold_relations_without_mention"], r["gold_pairs_without_mention"]) == (1, 1)
    assert (r["predicted_pairs"], r["predicted_relations"]) == (7, 6)
    assert (r["predictions_without_relation_type"], r["predictions_without_novel"]) == (1, 1)
    assert r["gold_relations_without_novelty"] == 0 and r["pair_type_disagreements"] == 0


def test_the_per_pair_type_counts_by_hand(tmp_path):
    """Gold pair types: Chemical–Gene A1 B1 B2, Gene–Gene A2, Disease–Gene A3 B3 C1, unknown
    C2 (D999999 has no mention).  A4 (no pair_type field) is Disease–Gene by the gold
    mentions of its ids."""
    from ppi.aggregation.biored_measure import evaluate_biored

    r = evaluate_biored(_write(PREDICTIONS, tmp_path / "p.jsonl"),
                        _gold(tmp_path / "gold.pubtator"))
    pair = r["pair"]["per_pair_type"]
    assert set(pair) == {CG, GG, DG, "unknown"}
    assert _counts(pair[CG]) == (2, 0, 1) and _prf(pair[CG]) == pytest.approx((1, 2 / 3, 0.8))
    assert _counts(pair[GG]) == (1, 0, 0) and _prf(pair[GG]) == pytest.approx((1, 1, 1))
    assert _counts(pair[DG]) == (2, 1, 1)
    assert _prf(pair[DG]) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert _counts(pair["unknown"]) == (0, 0, 1) and pair["unknown"]["recall"] == 0
    # the wrong type of A2: a false positive and a false negative of Gene–Gene at type level
    assert _counts(r["type"]["per_pair_type"][GG]) == (0, 1, 1)
    assert r["type"]["per_pair_type"][GG]["f1"] == 0
    # type level, Disease–Gene: B3 right; A4 and the untyped C1 false positives; A3 and C1
    # false negatives
    assert _counts(r["type"]["per_pair_type"][DG]) == (1, 2, 2)
    for level in LEVELS:                       # the per-type counts sum to the overall ones
        per = r[level]["per_pair_type"].values()
        assert tuple(sum(m[k] for m in per) for k in ("tp", "fp", "fn")) == \
            _counts(r[level]), level


def test_a_right_pair_of_the_wrong_type_counts_at_the_pair_level_only(tmp_path):
    from ppi.aggregation.biored_measure import evaluate_biored

    gold = tmp_path / "one.pubtator"
    gold.write_text(_record("A: TP53 binds MDM2", [("TP53", GENE, "7157"),
                                                    ("MDM2", GENE, "4193")],
                            [("Bind", "7157", "4193", "Novel")]), encoding="utf-8")
    r = evaluate_biored(_write([_pred("A", "4193", "7157", "Association", True)],
                               tmp_path / "p.jsonl"), gold)
    assert _counts(r["pair"]) == (1, 0, 0) and _prf(r["pair"]) == (1, 1, 1)
    assert _counts(r["type"]) == (0, 1, 1) and _prf(r["type"]) == (0, 0, 0)
    assert _counts(r["novelty"]) == (0, 1, 1)
    assert _counts(r["pair_novelty"]) == (1, 0, 0)


def test_an_untyped_models_records_are_measured_at_the_pair_level_with_a_warning(
        tmp_path, caplog):
    """Records without relation_type and novel (an untyped gene model's): the pair level as
    usual; no credit at the type and novelty levels, and a warning saying so."""
    from ppi.aggregation.biored_measure import evaluate_biored

    untyped = [_pred("A", "4193", "7157"), _pred("A", "7157", "D001241"),
               _pred("B", "1957", "D000077156")]
    with caplog.at_level("WARNING"):
        r = evaluate_biored(_write(untyped, tmp_path / "p.jsonl"),
                            _gold(tmp_path / "gold.pubtator"))
    assert _counts(r["pair"]) == (3, 0, 5)
    for level in ("type", "novelty", "pair_novelty"):
        assert _counts(r[level]) == (0, 3, 8), level
    assert (r["predictions_without_relation_type"], r["predictions_without_novel"]) == (3, 3)
    text = " ".join(r["warnings"])
    assert "none of the 3 predicted relations carries relation_type" in text
    assert "zero-credit" in text and "zero-credit" in caplog.text


def test_the_command_writes_the_levels_and_their_pair_types(tmp_path, capsys):
    gold = _gold(tmp_path / "G.pubtator")
    preds = _write(PREDICTIONS, tmp_path / "P.jsonl")
    out = tmp_path / "E"
    assert _main("evaluate-documents", "--quiet", "--input", preds, "--gold", gold,
                 "--measure", "biored", "--output-dir", out, "--note", "hand-made") == 0
    r = json.loads((out / "results.json").read_text())
    assert r["measure"] == "biored"
    for level in LEVELS:
        assert set(MEASURES) | {"per_pair_type"} <= set(r[level]), level
        for pt, m in r[level]["per_pair_type"].items():
            assert set(MEASURES) <= set(m), (level, pt)
    assert r["pair"]["precision"] == pytest.approx(5 / 6)
    assert r["novelty"]["per_pair_type"][CG]["f1"] == pytest.approx(0.8)   # A1 B1 of 3 gold
    assert r["gold_relations_without_mention"] == 1
    assert r["predictions_without_relation_type"] == 1
    md = (out / "results.md").read_text()
    assert "| pair (entity pair) | 0.833 | 0.625 | 0.714 | 5 | 1 | 3 |" in md
    assert f"| {CG} |" in md and "hand-made" in md and "without a mention" in md
    assert not (out / "precision_recall.png").exists()
    assert "pair: P 83.3 R 62.5 F 71.4" in capsys.readouterr().out
    # the type lists of the gene measure are not the BioRED measure's: refused
    assert _main("evaluate-documents", "--quiet", "--input", preds, "--gold", gold,
                 "--measure", "biored", "--output-dir", tmp_path / "E2",
                 "--relation-types", "Bind") == 2
    assert "--relation-types: not read by --measure biored" in capsys.readouterr().err


def test_a_bad_record_is_an_error_naming_the_file_and_line(tmp_path, capsys):
    from ppi.aggregation.biored_measure import evaluate_biored

    gold = _gold(tmp_path / "gold.pubtator")
    bad = PREDICTIONS[:2] + [{**_pred("A", "4193", "D009369"), "novel": "perhaps"}]
    path = _write(bad, tmp_path / "bad.jsonl")
    with pytest.raises(CorpusFormatError) as e:
        evaluate_biored(path, gold)
    assert e.value.path == path and e.value.line == 3
    assert str(path) in str(e.value) and "line 3" in str(e.value) and "novel" in str(e.value)
    # a pair given twice; a document the gold does not have (--skip-bad: left out, counted)
    twice = _write(PREDICTIONS[:2] + [_pred("A", "7157", "D001241", "Bind", True)],
                   tmp_path / "twice.jsonl")
    with pytest.raises(CorpusFormatError, match="line 3"):
        evaluate_biored(twice, gold)
    other = _write(PREDICTIONS + [_pred("Z", "1", "2", "Bind", True)], tmp_path / "z.jsonl")
    with pytest.raises(CorpusFormatError, match="line 8.*not in the gold file"):
        evaluate_biored(other, gold)
    r = evaluate_biored(other, gold, skip_bad=True)
    assert r["documents_not_in_gold"] == 1 and _counts(r["pair"]) == (5, 1, 3)
    assert _main("evaluate-documents", "--quiet", "--input", path, "--gold", gold,
                 "--measure", "biored", "--output-dir", tmp_path / "E") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and f"{path}, line 3" in err, err
    assert not (tmp_path / "E" / "results.json").exists()
    empty = _write([], tmp_path / "empty.jsonl")
    with pytest.raises(InvalidParameterError, match="holds no concept pair"):
        evaluate_biored(empty, gold)


def _exact_records(docs, novelty=True):
    """The aggregate records that predict exactly the gold relations of ``docs`` (one per
    concept pair, the type and novelty of its first relation), with or without ``novel``."""
    from corpora.standoff import concept_pair, split_concept_ids

    records, seen = [], set()
    for d in docs:
        for rel in d.relations or ():
            for a in split_concept_ids(rel.id1):
                for b in split_concept_ids(rel.id2):
                    a_, b_ = concept_pair(a, b)
                    if (d.id, a_, b_) in seen:
                        continue
                    seen.add((d.id, a_, b_))
                    novel = dict(rel.attrs)["novelty"] == "Novel" if novelty else None
                    records.append(_pred(d.id, a_, b_, rel.type, novel))
    return records


def test_predicting_the_biored_dev_gold_exactly_scores_one_at_every_level(data_dir, tmp_path):
    from ppi.aggregation.biored_measure import evaluate_biored
    from ppi.documents.relations import read_relation_documents

    gold = data_dir / "biored" / "Dev.PubTator.gz"
    if not gold.is_file():
        pytest.skip(f"{gold} is absent (python -m corpora fetch biored)")
    docs = read_relation_documents(gold)
    exact = _write(_exact_records(docs), tmp_path / "exact.jsonl")
    r = evaluate_biored(exact, gold)
    assert r["gold_pairs"] == r["predicted_relations"] > 1000
    for level in LEVELS:
        assert _prf(r[level]) == (1, 1, 1), level
        assert all(_prf(m) == (1, 1, 1) for m in r[level]["per_pair_type"].values()), level
    assert len(r["pair"]["per_pair_type"]) >= 6 and not r["warnings"]
    # without the novelty: the levels that ask for it fall to zero, the others stay at one
    blind = evaluate_biored(_write(_exact_records(docs, novelty=False),
                                   tmp_path / "blind.jsonl"), gold)
    for level in ("pair", "type"):
        assert _prf(blind[level]) == (1, 1, 1), level
    for level in ("novelty", "pair_novelty"):
        assert _prf(blind[level]) == (0, 0, 0), level
    assert blind["predictions_without_novel"] == r["gold_pairs"]
