"""Trust under misuse: each failure a careless or unlucky user can meet, as a test that it
is guarded against. The classes these cases belong to are probed in ``test_trust_probes.py``.

1. an input destroyed: ``ppi extract --input F --output F --overwrite`` must not delete F,
   nor ``homology predict --input F.fa --output F.fa`` overwrite the FASTA with its TSV;
2. a model saved that nothing loads: ``ppi train`` on 12 LLL documents (bow view) must not
   save a threshold of −∞ nor ``results.json`` hold ``-Infinity``; ``PPIModel.load(M).save(X)``
   must not raise an ``AttributeError``;
3. stale work resumed: a ``--format text`` folder edited in place between a kill and the
   resume must not keep its old chunks;
4. a mention dropped without a word: a PubTator offset ``21a`` / `` 21`` must not be taken
   for a relation line;
5. memory sized by the file: one LETOR feature index of 10,000 (or 10^9) in a few dozen
   rows must not form a d × d matrix (or end in a ``MemoryError``);
6. tracebacks: qid / feature index beyond int64, a grid 2^-100000..2^100000, a non-UTF-8 or
   gzipped lexicon are located errors instead;
7. late and misleading: a repeated CoNLL-U sentence id is reported when the file is read,
   not after the parsing as concurrent builds; a model read while it is replaced does not
   fail with a raw ``FileNotFoundError``.
"""

import gzip
import json
import shutil

import numpy as np
import pytest
from tests.conftest import lll_abstracts, write_pubtator_file
from tests.project.test_trust_probes import (_letor_folder, _lll_slice,
                                             _same_size_and_time_edit, read_while_replaced,
                                             strict_json_files)

from kernelrank.atomic import loads_strict
from kernelrank.errors import CorpusFormatError


# ----------------------------------------------------------------------- 1. input destroyed
@pytest.mark.slow
def test_extract_with_its_input_as_output_and_overwrite_keeps_the_input(nlp, data_dir,
                                                                        lll_model, tmp_path,
                                                                        capsys):
    from ppi.__main__ import main
    src = write_pubtator_file(lll_abstracts(data_dir, n_docs=2), tmp_path / "docs.pubtator")
    before = src.read_bytes()
    code = main(["extract", "--model", str(lll_model), "--input", str(src), "--output",
                 str(src), "--overwrite", "--jobs", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "--output" in err and "--input" in err, err
    assert src.read_bytes() == before


def test_homology_predict_with_its_fasta_as_output_keeps_the_fasta(tmp_path, capsys):
    from homology.__main__ import main
    pos, neg = tmp_path / "p.fa", tmp_path / "n.fa"
    pos.write_text(">p1\nACDEFGHIKLMNPQRS\n>p2\nACDEFGHIKLWWPQRS\n")
    neg.write_text(">n1\nWWWWYYYYVVVTTT\n>n2\nYYYYVVVWWWTTTS\n")
    assert main(["train", "--positives", str(pos), "--negatives", str(neg), "--model",
                 str(tmp_path / "m.npz")]) == 0
    before = pos.read_bytes()
    code = main(["predict", "--model", str(tmp_path / "m.npz"), "--input", str(pos),
                 "--output", str(pos)])
    assert code == 2 and "overwrite" in capsys.readouterr().err
    assert pos.read_bytes() == before


# ------------------------------------------------------------- 2. a model that nothing loads
@pytest.mark.slow
def test_train_on_twelve_lll_documents_saves_a_loadable_model_or_exits_2(data_dir, tmp_path,
                                                                        capsys):
    """The bow view alone on 12 documents: the best leave-one-document-out F predicts every
    pair to interact (threshold below every score) — refused at training time with the
    reason; nothing saved, no JSON with -Infinity."""
    from ppi.__main__ import main
    corpus = _lll_slice(data_dir, tmp_path / "lll12.xml", 12)
    code = main(["train", "--input", str(corpus), "--system", "multiview", "--no-transfer",
                 "--views", "bow", "--model", str(tmp_path / "m"), "--output-dir",
                 str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err
    if code == 0:             # a model: predict must load it, every JSON strict
        assert main(["predict", "--input", str(corpus), "--model", str(tmp_path / "m"),
                     "--output-dir", str(tmp_path / "p")]) == 0
        strict_json_files(tmp_path)
    else:
        assert code == 2 and "predicts every pair to interact" in err, err
        assert not (tmp_path / "m").exists() and not (tmp_path / "r").exists()


def test_results_json_is_strict_json(tmp_path):
    """NaN / ±Infinity (an undefined measure, a threshold below every score) are written as
    null and listed under "non_finite" with what they were."""
    from kernelrank.report import write_report
    path, _ = write_report(tmp_path, "results", {
        "threshold": float("-inf"), "folds": [{"auc": float("nan")}], "f1": np.float64(0.5),
        "n": np.int64(3)}, "# report\n")
    got = loads_strict(path.read_text())
    assert got["threshold"] is None and got["folds"][0]["auc"] is None
    assert got["non_finite"] == {"threshold": "-Infinity", "folds[0].auc": "NaN"}
    assert got["f1"] == 0.5 and got["n"] == 3


@pytest.mark.slow
def test_a_loaded_model_saves_again_to_the_same_bytes(lll_model, tmp_path):
    from ppi.models.classes import PPIModel
    PPIModel.load(lll_model).save(tmp_path / "again")
    for name in ("model.json", "weights.npz"):
        assert (tmp_path / "again" / name).read_bytes() == (lll_model / name).read_bytes()


# ----------------------------------------------------------------- 3. stale work resumed
@pytest.mark.slow
def test_text_folder_edited_in_place_between_kill_and_resume_is_not_resumed(
        nlp, data_dir, lll_model, tmp_path, capsys):
    from ppi.__main__ import main
    from ppi.extraction.extract import extract
    docs = lll_abstracts(data_dir, n_docs=2)
    src, out, lexicon = tmp_path / "texts", tmp_path / "out.jsonl", tmp_path / "lex.txt"
    src.mkdir()
    for d in docs:
        (src / f"{d.id}.txt").write_text(d.text + "\n")
    lexicon.write_text("\n".join(sorted({d.text[m.start:m.end] for d in docs
                                         for m in d.mentions})) + "\n")
    extract(src, lll_model, out, "text", lexicon=lexicon, workers=0, chunk_size=1,
            progress=False, max_chunks=1)                   # killed after its first chunk
    first = sorted(src.glob("*.txt"))[0]
    text = first.read_bytes()
    _same_size_and_time_edit(first, text[:12], text[:12][::-1])
    code = main(["extract", "--model", str(lll_model), "--input", str(src), "--format",
                 "text", "--lexicon", str(lexicon), "--output", str(out), "--jobs", "0",
                 "--chunk-size", "1", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "input_sha256" in err and "--overwrite" in err, err


# -------------------------------------------------------------- 4. a mention dropped silently
@pytest.mark.parametrize("offset", ["21a", " 21"])
def test_pubtator_malformed_offset_is_an_error_or_a_counted_skip(offset, tmp_path):
    from corpora.text_input import ReadStats, read_pubtator
    path = tmp_path / "f.pubtator"
    path.write_text(f"1|t|Alpha binds Beta here.\n1\t0\t5\tAlpha\tGene\n1\t{offset}\t16\tBeta"
                    "\tGene\n\n2|t|Other.\n")
    with pytest.raises(CorpusFormatError, match="line 3.*neither an annotation"):
        list(read_pubtator(path))
    stats = ReadStats()
    assert [d.id for d in read_pubtator(path, skip_bad=True, stats=stats)] == ["2"]
    assert stats.skipped == 1


def test_pubtator_relation_lines_are_still_relations(tmp_path):
    from corpora.text_input import read_pubtator
    path = tmp_path / "f.pubtator"
    path.write_text("1|t|Alpha binds Beta.\n1\t0\t5\tAlpha\tGene\t11\n1\t12\t16\tBeta\tGene"
                    "\t22\n1\tBind\t11\t22\n1\tPositive_Correlation\t11\t22\tNovel\n")
    (doc,) = read_pubtator(path)
    assert len(doc.mentions) == 2


# ----------------------------------------------------------------- 5. memory sized by a file
@pytest.mark.parametrize("index", [10_000, 1_000_000_000])
def test_letor_one_wide_feature_index_costs_its_columns_not_its_index(index, tmp_path,
                                                                      capsys):
    from learners.__main__ import main
    from letor.layouts import open_letor
    data = _letor_folder(tmp_path / "d", f" {index}:0.5", rows=4)
    letor = open_letor(data, n_features=index)
    (X, _, _), (Xv, _, _), (Xt, _, _) = letor.load(letor.folds[0])
    assert X.shape == (36, 6) and Xv.shape[1] == Xt.shape[1] == 6   # 5 features + the wide one
    assert main(["letor", "--data", str(data), "--n-features", str(index), "--output-dir",
                 str(tmp_path / "out"), "--quiet", "--folds", "1"]) == 0, \
        capsys.readouterr().err
    assert strict_json_files(tmp_path / "out") >= 1


# ------------------------------------------------------------------------- 6. tracebacks
def test_letor_qid_beyond_int64_is_a_located_error(tmp_path, capsys):
    from learners.__main__ import main
    data = _letor_folder(tmp_path / "d")
    part = data / "S2.txt"
    first, rest = part.read_text().split("\n", 1)
    part.write_text(f"{first}\n1 qid:99999999999999999999 1:0.5 2:0.5 3:0.5 4:0.5 5:0.5\n"
                    f"{rest}")
    assert main(["letor", "--data", str(data), "--output-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "S2.txt, line 2" in err and "64-bit" in err and "Traceback" not in err


def test_svmlight_feature_index_beyond_int64_is_a_located_error(tmp_path):
    from corpora.svmlight import load_svmlight
    path = tmp_path / "f.txt"
    path.write_text("1 qid:1 1:0.5\n1 qid:1 1:0.5 99999999999999999999:1\n")
    with pytest.raises(CorpusFormatError, match="line 2.*64-bit"):
        load_svmlight(path)


def test_grid_of_two_hundred_thousand_overflowing_powers_is_refused(tmp_path, capsys):
    from homology.__main__ import main
    assert main(["scop", "--alphas", "2^-100000..2^100000", "--output-dir",
                 str(tmp_path)]) == 2
    assert "--alphas" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["gzip", "latin-1"])
def test_lexicon_goes_through_the_shared_opener(kind, tmp_path):
    from ppi.extraction.mentions import read_lexicon
    path = tmp_path / "lexicon"
    if kind == "gzip":
        path.write_bytes(gzip.compress("KinA\nSpo0A\n".encode()))
        assert read_lexicon(path) == ["KinA", "Spo0A"]
    else:
        path.write_bytes("KinA\nProt\xe9ine\n".encode("latin-1"))
        with pytest.raises(CorpusFormatError, match="line 2.*not UTF-8"):
            read_lexicon(path)


# --------------------------------------------------------------- 7. late and misleading
def test_repeated_conllu_sentence_id_is_reported_when_read_with_both_lines(tmp_path):
    from corpora.conllu import read_conllu
    sentence = "# sent_id = s1\n# text = Hi\n1\tHi\thi\tX\tX\t_\t0\troot\t_\t_\n\n"
    path = tmp_path / "a.conllu"
    path.write_text(sentence + sentence.replace("s1", "s2") + sentence)
    with pytest.raises(CorpusFormatError, match=r"line 9.*'s1' again.*line 1"):
        read_conllu(path)


def test_repeated_sentence_across_a_treebank_is_refused_before_parsing(tmp_path):
    from parse_ranking.dataset import select_sentences
    sentence = ("# newdoc id = d\n# sent_id = s1\n# text = Hi\n"
                "1\tHi\thi\tX\tX\t_\t0\troot\t_\t_\n\n")
    (tmp_path / "a.conllu").write_text(sentence)
    (tmp_path / "b.conllu").write_text(sentence)
    with pytest.raises(CorpusFormatError, match=r"b.conllu, line 1.*d:s1 again.*a.conllu"):
        select_sentences(tmp_path, min_length=1)


@pytest.mark.slow
@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_a_model_read_while_it_is_replaced_is_old_new_or_a_retryable_error(
        exchange, data_dir, tmp_path, monkeypatch):
    """A writer replaces the model 12 times while a reader loads it in a loop: every load
    gives one of the two models whole, or ConcurrentChangeError — never a raw OSError or a
    'damaged' model (with the atomic exchange of Linux, and with the two-rename fallback,
    whose window without a directory the reader waits out)."""
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    if not exchange:
        monkeypatch.setattr("kernelrank.atomic.exchange_paths", lambda a, b: False,
                            raising=False)
    corpus = _lll_slice(data_dir, tmp_path / "lll12.xml", 12)
    assert main(["train", "--input", str(corpus), "--system", "paper-v", "--model",
                 str(tmp_path / "a"), "--output-dir", str(tmp_path / "r"), "--quiet"]) == 0
    a = PPIModel.load(tmp_path / "a")
    b = PPIModel.load(tmp_path / "a")
    b.threshold += 1.0
    target = shutil.copytree(tmp_path / "a", tmp_path / "m")
    seen, errors = read_while_replaced(
        [lambda m=m: m.save(target) for m in [b, a] * 6],
        lambda: PPIModel.load(target).threshold)
    assert not errors, errors[:3]
    assert seen <= {a.threshold, b.threshold} and seen
    assert json.loads((target / "model.json").read_text())["threshold"] == a.threshold
