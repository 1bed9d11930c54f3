"""`ppi tune-parser`: spaCy's tagger and parser fine-tuned on CRAFT's gold trees — the split,
the gold documents, and a short run end to end on a slice of real CRAFT articles."""

import json

import pytest
from tests.conftest import write_craft_slice

from kernelrank.errors import DataNotFoundError, InvalidParameterError


def _articles(data_dir, n):
    src = data_dir / "craft" / "conllu"
    names = sorted(p.name.split(".")[0] for p in src.glob("*.conllu.gz"))
    if len(names) < n:
        pytest.skip(f"CRAFT absent from {src}")
    return names[:n]


def test_every_tenth_article_is_held_out(tmp_path):
    from ppi.parsing.parser_tuning import craft_split
    for k in range(23):
        (tmp_path / f"{1000 + k}.conllu.gz").write_bytes(b"")
    train, held = craft_split(tmp_path)
    assert [p.name for p in held] == ["1000.conllu.gz", "1010.conllu.gz", "1020.conllu.gz"]
    assert len(train) == 20 and not set(train) & set(held)
    with pytest.raises(DataNotFoundError, match="corpora fetch craft"):
        craft_split(tmp_path / "nothing")


def test_gold_documents_are_the_trees_of_the_file(data_dir, tmp_path):
    """Each Doc holds consecutive sentences of the file — their words, tags, trees and
    sentence starts: a root heads itself with spaCy's label ROOT, every other word its
    CoNLL-U head (within its sentence) and label."""
    spacy = pytest.importorskip("spacy")
    from corpora.conllu import iter_conllu
    from ppi.parsing.parser_tuning import craft_docs

    (art,) = _articles(data_dir, 1)
    path = write_craft_slice(data_dir, tmp_path, [art], 40, 15) / f"{art}.conllu.gz"
    sents = list(iter_conllu(path))
    docs = list(craft_docs([path], spacy.blank("en").vocab, sentences_per_doc=4))
    assert [len(list(d.sents)) for d in docs] == [4, 4, 4, 3]
    for doc_sent, s in zip((x for d in docs for x in d.sents), sents):
        assert [t.text for t in doc_sent] == [t.form for t in s.tokens]
        assert [t.tag_ for t in doc_sent] == [t.xpos for t in s.tokens]
        for tok, gold in zip(doc_sent, s.tokens):
            if gold.head == 0:
                assert tok.head.i == tok.i and tok.dep_ == "ROOT"
            else:
                assert tok.head.i == doc_sent.start + gold.head - 1
                assert tok.dep_ == gold.deprel
        assert doc_sent.text.split() == s.text.split()


def test_tune_parser_end_to_end_on_a_craft_slice(data_dir, nlp, tmp_path):
    """A short run from the command line: the pipeline is written, loads as a pipeline
    ppi parses with, and scores on the held-out article what the report says; the base's
    scores are those of the pipeline ppi loads; the same seed gives the same pipeline."""
    import spacy

    from ppi.__main__ import main
    from ppi.parsing.parser_tuning import (craft_docs, craft_split, evaluate_pipeline, tune_parser,
                                   write_docbin)
    from ppi.parsing.spacy_parse import load_spacy

    craft = tmp_path / "craft"
    craft.mkdir()
    write_craft_slice(data_dir, craft, _articles(data_dir, 3), 30, 12)
    assert main(["tune-parser", "--craft-dir", str(craft), "--max-steps", "3",
                 "--eval-every", "1", "--output-dir", str(tmp_path / "o"), "--quiet"]) == 0
    res = json.loads((tmp_path / "o" / "results.json").read_text())
    assert (tmp_path / "o" / "results.md").read_text().startswith("# spaCy's parser")
    assert res["train"] == {"articles": 2, "sentences": 24}
    assert res["held_out"]["sentences"] == 12
    # raw text of several sentences is split into them (trained on multi-sentence documents)
    assert len(list(load_spacy(res["pipeline"], cached=False)(
        "The protein binds DNA. It was purified from yeast cells.").sents)) == 2
    tuned = load_spacy(res["pipeline"], cached=False)
    assert {"tok2vec", "tagger", "parser"} <= set(tuned.pipe_names)
    _, held = craft_split(craft)
    write_docbin(craft_docs(held, spacy.blank("en").vocab), tmp_path / "held.spacy")
    for key, pipe in (("after", tuned), ("before", load_spacy("en_core_web_sm",
                                                              cached=False))):
        got = evaluate_pipeline(pipe, tmp_path / "held.spacy")
        for k in ("tag_acc", "uas", "las", "sents_f"):
            assert got[k] == pytest.approx(res[key][k], abs=1e-9)
    again = tune_parser(craft, tmp_path / "o2", max_steps=3, eval_every=1, progress=False)
    assert again["after"] == pytest.approx(res["after"], abs=1e-9)


def test_bad_step_counts_are_refused(tmp_path):
    from ppi.parsing.parser_tuning import tune_parser
    with pytest.raises(InvalidParameterError, match="positive"):
        tune_parser(tmp_path, tmp_path / "o", max_steps=0)
