"""spaCy as a third parse of the benchmark corpora: the parse name ``spacy``, its analyses
added beside the file's two, their cache, and the views that read them."""

import gzip

import numpy as np
import pytest

from corpora.ppi_xml import (Corpus, Parse, Tokenization, read_corpus, resolve_parse_name)
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from tests.conftest import lll_path


def small_lll(data_dir, n_docs=8):
    """A fresh copy of LLL's first ``n_docs`` documents (add_spacy_analyses changes its
    input)."""
    c = read_corpus(lll_path(data_dir))
    return Corpus(c.source, c.documents[:n_docs], c.attrs)


def analyses(corpus, name="spacy"):
    return [(s.tokenizations[name], s.parses[name]) for s in corpus.sentences()]


# ------------------------------------------------------------------------- the parse name
def test_spacy_is_a_parse_name_and_a_view_parse():
    from ppi.representation.views import parse_view, view_parses

    assert resolve_parse_name("spacy") == "spacy"
    assert parse_view("apg:spacy") == ("apg", "spacy")
    assert parse_view("path:spacy") == ("path", "spacy")
    assert view_parses(["apg:split", "bow", "path:spacy", "apg:spacy"]) == \
        ("split_parse", "spacy")
    assert view_parses(["bow"]) == ()          # bow names no parse (it reads bow_parse)


@pytest.mark.parametrize("view", ["apg:stanford", "path:SpaCy", "apg:", "bow:spacy"])
def test_unknown_parses_are_rejected_with_a_typed_error(view):
    from ppi.representation.views import parse_view

    with pytest.raises(InvalidParameterError):
        parse_view(view)


def test_a_missing_spacy_analysis_is_a_corpus_format_error(data_dir):
    from ppi.representation.views import MultiViewFeaturizer

    c = small_lll(data_dir, 2)
    s = next(iter(c.sentences()))
    with pytest.raises(CorpusFormatError, match="no parse 'spacy'"):
        s.analysis("spacy")
    with pytest.raises(CorpusFormatError, match="spacy"):
        MultiViewFeaturizer(["apg:spacy"]).fit_transform([c])


def test_settings_add_spacy_only_when_a_view_reads_it(data_dir, monkeypatch):
    import ppi.parsing.spacy_analyses as sa
    from ppi.systems import Settings
    from ppi.systems.inputs import prepare_corpus

    assert Settings.for_system("multiview").parses() == ("split_parse", "Charniak-Lease")
    assert Settings.for_system("paper-v").parses() == ("split_parse",)
    assert Settings.for_system("multiview", views=("bow", "apg:spacy")).parses() == \
        ("spacy",)
    assert Settings.for_system("paper-v", parse="spacy").parses() == ("spacy",)

    def fail(*a, **k):
        raise AssertionError("spaCy must not run")
    monkeypatch.setattr(sa, "_parse", fail)
    c = prepare_corpus(small_lll(data_dir, 2), Settings.for_system("multiview"))
    assert all("spacy" not in s.parses for s in c.sentences())


# ------------------------------------------------------------------- analyses and cache
def test_analyses_are_added_beside_the_files_own(nlp, data_dir, tmp_path):
    from ppi.parsing.spacy_analyses import add_spacy_analyses
    from ppi.parsing.spacy_parse import reparse_sentences

    c = small_lll(data_dir)
    before = [dict(s.parses) for s in c.sentences()]
    assert add_spacy_analyses(c, cache=False) is c
    for s, old in zip(c.sentences(), before):
        assert set(s.parses) == set(old) | {"spacy"}
        assert all(s.parses[k] is v for k, v in old.items())   # the file's analyses untouched
        tokens, deps = s.analysis("spacy")
        assert tokens and all(d.t1 != d.t2 for d in deps)
    # the same analyses as a plain re-parse of the sentences under that name
    fresh = reparse_sentences(nlp, list(small_lll(data_dir).sentences()), "spacy")
    assert analyses(c) == [(s.tokenizations["spacy"], s.parses["spacy"]) for s in fresh]


def test_cached_analyses_read_back_identical_without_spacy(nlp, data_dir, tmp_path,
                                                           monkeypatch):
    import ppi.parsing.spacy_analyses as sa

    parsed = sa.add_spacy_analyses(small_lll(data_dir), cache=False)
    first = sa.add_spacy_analyses(small_lll(data_dir), cache_dir=tmp_path)
    files = list(tmp_path.glob("LLL-*.json.gz"))
    assert len(files) == 1 and not list(tmp_path.glob(".*.tmp"))
    assert analyses(first) == analyses(parsed)

    def fail(*a, **k):
        raise AssertionError("a cache hit must not parse")
    monkeypatch.setattr(sa, "_parse", fail)
    again = sa.add_spacy_analyses(small_lll(data_dir), cache_dir=tmp_path)
    assert analyses(again) == analyses(parsed)
    # and the views read the cached analyses exactly as the fresh ones
    from ppi.representation.views import MultiViewFeaturizer

    views = ["apg:spacy", "path:spacy"]
    (a,) = MultiViewFeaturizer(views).fit_transform([parsed])
    (b,) = MultiViewFeaturizer(views).fit_transform([again])
    assert (a.X != b.X).nnz == 0


def test_another_corpus_or_a_damaged_cache_is_parsed_anew(nlp, data_dir, tmp_path, caplog):
    import ppi.parsing.spacy_analyses as sa

    sa.add_spacy_analyses(small_lll(data_dir, 4), cache_dir=tmp_path)
    sa.add_spacy_analyses(small_lll(data_dir, 6), cache_dir=tmp_path)
    files = sorted(tmp_path.glob("LLL-*.json.gz"))
    assert len(files) == 2                      # the corpus checksum is part of the key
    for f in files:
        f.write_bytes(gzip.compress(b"{not json")[:20])
    c = sa.add_spacy_analyses(small_lll(data_dir, 6), cache_dir=tmp_path)
    assert "unreadable" in caplog.text
    assert analyses(c) == analyses(sa.add_spacy_analyses(small_lll(data_dir, 6), cache=False))


def test_an_unwritable_cache_folder_is_one_warning_and_the_analyses_are_added(
        nlp, data_dir, tmp_path, caplog, monkeypatch):
    """The cache is an optimisation: its folder unwritable (here a regular file in the place
    of its parent: the tests run as root, whom no permission stops) is one warning naming
    the folder and $KERNELRANK_SPACY_CACHE, no temporary file, and the analyses are those
    of a run without a cache."""
    import logging

    import ppi.parsing.spacy_analyses as sa

    (tmp_path / "home").write_text("")
    monkeypatch.setenv(sa.CACHE_ENV_VAR, str(tmp_path / "home" / "cache"))
    with caplog.at_level(logging.WARNING):
        c = sa.add_spacy_analyses(small_lll(data_dir, 4))
        sa.add_spacy_analyses(small_lll(data_dir, 5))
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [(f"spaCy analyses cache folder {tmp_path / 'home' / 'cache'} not "
                         "writable (Not a directory): going on without it; set "
                         "$KERNELRANK_SPACY_CACHE to move it")]
    assert analyses(c) == analyses(sa.add_spacy_analyses(small_lll(data_dir, 4), cache=False))


def test_checksum_follows_what_the_parse_reads(data_dir):
    from ppi.parsing.spacy_analyses import corpus_checksum

    a, b = small_lll(data_dir, 3), small_lll(data_dir, 3)
    assert corpus_checksum(a) == corpus_checksum(b)
    s = next(iter(b.sentences()))
    s.text = s.text.replace(" ", "  ", 1)
    assert corpus_checksum(a) != corpus_checksum(b)


def test_a_foreign_analysis_named_spacy_is_refused(data_dir, tmp_path):
    from ppi.parsing.spacy_analyses import add_spacy_analyses

    c = small_lll(data_dir, 2)
    s = next(iter(c.sentences()))
    s.tokenizations["spacy"] = Tokenization("spacy", [])
    s.parses["spacy"] = Parse("spacy", "spacy", [])
    with pytest.raises(InvalidParameterError, match="not spaCy's"):
        add_spacy_analyses(c, cache_dir=tmp_path)


def test_missing_model_is_a_typed_error():
    pytest.importorskip("spacy")
    from ppi.parsing.spacy_analyses import spacy_identity
    from ppi.parsing.spacy_parse import SpacyModelError

    with pytest.raises(SpacyModelError):
        spacy_identity("no_such_model_xyz")


def test_a_pipeline_folder_is_identified_by_its_files(tmp_path):
    """A pipeline re-trained into the same folder (same meta.json name and version) is
    another identity, so nothing cached from the old one is read for it; the conversion's
    version is part of every identity."""
    pytest.importorskip("spacy")
    from ppi.parsing.spacy_analyses import spacy_identity
    from ppi.parsing.spacy_parse import CONVERSION_VERSION

    folder = tmp_path / "pipeline"
    (folder / "parser").mkdir(parents=True)
    (folder / "meta.json").write_text('{"lang": "en", "name": "craft", "version": "1.0.0"}')
    (folder / "parser" / "model").write_bytes(b"weights 1")
    first = spacy_identity(str(folder))
    assert first == spacy_identity(str(folder))
    (folder / "parser" / "model").write_bytes(b"weights 2")
    second = spacy_identity(str(folder))
    assert first["files_sha256"] != second["files_sha256"]
    assert first["model_version"] == second["model_version"] == "en_craft-1.0.0"
    assert first["conversion"] == second["conversion"] == CONVERSION_VERSION


# ----------------------------------------------------------------------- views on spaCy
def test_views_on_the_spacy_parse_featurize(nlp, data_dir, tmp_path):
    from ppi.parsing.spacy_analyses import add_spacy_analyses
    from ppi.representation.views import MultiViewFeaturizer

    c = add_spacy_analyses(small_lll(data_dir, 12), cache_dir=tmp_path)
    n_pairs = sum(len(s.pairs) for s in c.sentences())
    views = ["apg:split_parse", "apg:spacy", "path:spacy"]
    f = MultiViewFeaturizer(views)
    (d,) = f.fit_transform([c])
    assert d.X.shape[0] == n_pairs == len(d.y)
    for v in views:                    # each view's block has squared norm 1/3 (or is empty)
        block = d.X[:, f.view_slices_[v]]
        sq = np.asarray(block.multiply(block).sum(axis=1)).ravel()
        assert np.allclose(sq[sq > 0], 1 / 3)
        assert (sq > 0).mean() > 0.9
    apg_split = d.X[:, f.view_slices_["apg:split_parse"]]
    apg_spacy = d.X[:, f.view_slices_["apg:spacy"]]
    assert apg_split.shape != apg_spacy.shape or (apg_split != apg_spacy).nnz > 0
    # transform in the fitted vocabulary gives the same rows
    (t,) = f.transform([c])
    assert abs(t.X - d.X).max() < 1e-12


@pytest.mark.slow
def test_cv_command_runs_spacy_views(nlp, data_dir, tmp_path, monkeypatch):
    import json

    from ppi.__main__ import main
    from ppi.parsing.spacy_analyses import CACHE_ENV_VAR

    lll_path(data_dir)
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "cache"))
    out = tmp_path / "o"
    assert main(["cv", "--no-transfer", "--corpus", "LLL", "--data-dir", str(data_dir),
                 "--views", "apg:spacy", "path:spacy", "--output-dir", str(out),
                 "--quiet"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["config"]["views"] == ["apg:spacy", "path:spacy"]
    assert 0 < res["f1"] <= 1 and 0.5 < res["auc"] <= 1
    assert list((tmp_path / "cache").glob("LLL-*.json.gz"))


@pytest.mark.slow
def test_a_model_on_the_spacy_parse_trains_and_predicts(nlp, data_dir, tmp_path, monkeypatch):
    import json

    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    from ppi.parsing.spacy_analyses import CACHE_ENV_VAR

    src = lll_path(data_dir)
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "cache"))
    model = tmp_path / "m"
    assert main(["train", "--no-transfer", "--select-on", "inner", "--corpus", "LLL",
                 "--data-dir", str(data_dir), "--views",
                 "apg:split_parse", "apg:spacy", "--model", str(model), "--output-dir",
                 str(tmp_path / "r"), "--quiet"]) == 0
    assert PPIModel.load(model).parses == ("split_parse", "spacy")
    assert main(["predict", "--input", str(src), "--model", str(model), "--output-dir",
                 str(tmp_path / "p")]) == 0
    res = json.loads((tmp_path / "p" / "results.json").read_text())
    assert res["n_pairs"] == sum(len(s.pairs) for s in read_corpus(src).sentences())
    assert 0.5 < res["auc"] <= 1              # scored on its own training corpus
