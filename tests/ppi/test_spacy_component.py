"""The spaCy component ``kernelrank_ppi`` in a real pipeline: the pinned ``en_core_web_sm``
(tagger + parser), a model trained on LLL, real LLL abstracts whose gold mentions are set as
``doc.ents`` or ``doc.spans[...]`` by a component before it.  Its scores must be those of
``ppi extract`` on the same text and mentions (PubTator input); bad pipelines and configs
are typed errors; the factory is declared as a package entry point."""

import importlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from tests.conftest import lll_abstracts, write_pubtator_file

from corpora.text_input import Mention, TextDocument
from kernelrank.errors import DataNotFoundError, InvalidParameterError, PipelineError

spacy = pytest.importorskip("spacy", reason="spaCy not installed (pip install 'kernelrank[text]')")
from spacy.language import Language  # noqa: E402

# registers the factory (an installed kernelrank does it through its entry point, tested below)
import ppi.extraction.spacy_component  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[2]
GROUP, TARGET = "spacy_factories", "ppi.extraction.spacy_component:make_ppi_component"


@Language.factory("kernelrank_test_mentions", default_config={"mentions": {},
                                                               "spans_key": None})
def _test_mentions(nlp, name, mentions, spans_key):
    """Sets each document's mentions (``{text: [[start, end, label, kb_id], ...]}``) as
    ``doc.ents`` (``spans_key`` null) or ``doc.spans[spans_key]``: the NER of the tests."""
    def set_mentions(doc):
        spans = [doc.char_span(a, b, label=label, kb_id=kb or "")
                 for a, b, label, kb in mentions.get(doc.text, [])]
        assert None not in spans, "a test mention is not a run of whole tokens"
        if spans_key is None:
            doc.ents = spans
        else:
            doc.spans[spans_key] = spans
        return doc
    return set_mentions


def _fresh_nlp():
    """A new pinned en_core_web_sm pipeline (tagger + parser), not the cached one that
    ``ppi extract`` parses with."""
    from ppi.parsing.spacy_parse import SpacyModelError, load_spacy
    try:
        return load_spacy(cached=False)
    except SpacyModelError as exc:
        pytest.skip(str(exc))


def _pipeline(model, docs, spans_key=None, **config):
    nlp = _fresh_nlp()
    gold = {d.text: [[m.start, m.end, m.type, m.id] for m in d.mentions] for d in docs}
    nlp.add_pipe("kernelrank_test_mentions", config={"mentions": gold, "spans_key": spans_key})
    nlp.add_pipe("kernelrank_ppi", config={"model": str(model), "spans_key": spans_key,
                                           **config})
    return nlp


@pytest.fixture(scope="module")
def documents(data_dir):
    """Real LLL abstracts with their gold mentions that are whole spaCy tokens, each given a
    concept id; ``(non-overlapping, with overlaps and mentions of another label)``."""
    make_doc = _fresh_nlp().make_doc
    plain, extended = [], []
    for d in lll_abstracts(data_dir, n_docs=10):
        tokens = make_doc(d.text)
        ms = [Mention(m.start, m.end, m.text, "GENE", f"{1000 + k}")
              for k, m in enumerate(d.mentions)
              if tokens.char_span(m.start, m.end) is not None]
        kept, end = [], -1
        for m in ms:                       # doc.ents: no overlaps
            if m.start >= end:
                kept.append(m)
                end = m.end
        plain.append(TextDocument(d.id, d.text, kept, title_end=d.title_end))
        extra = []
        for m in kept[:3]:                 # a span overlapping each of the first mentions
            nxt = tokens.char_span(m.start, m.end)[-1].i + 1
            if nxt < len(tokens) and not tokens[nxt].is_space:
                extra.append(Mention(m.start, tokens[nxt].idx + len(tokens[nxt]),
                                     d.text[m.start:tokens[nxt].idx + len(tokens[nxt])],
                                     "GENE", None))
        words = [t for t in tokens if t.is_alpha and len(t) > 5][:2]
        other = [Mention(t.idx, t.idx + len(t), t.text, "OTHER", "MESH:D1") for t in words
                 if not any(m.start < t.idx + len(t) and t.idx < m.end for m in kept + extra)]
        extended.append(TextDocument(d.id, d.text, sorted(kept + extra + other,
                                                          key=lambda m: (m.start, m.end)),
                                     title_end=d.title_end))
    return plain, extended


def _extract_records(docs, model, tmp_path, **options):
    """``ppi extract``'s records of ``docs`` (PubTator input, in this process), per
    document, as comparable tuples."""
    from ppi.extraction.extract import extract
    src = write_pubtator_file(docs, tmp_path / "in.pubtator")
    out = tmp_path / "out.jsonl"
    extract(src, model, out, "pubtator", workers=0, progress=False, **options)
    by_doc = {d.id: [] for d in docs}
    for line in out.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        by_doc[r["doc_id"]].append(
            ((r["e1"]["doc_start"], r["e1"]["doc_end"], r["e1"]["concept_id"]),
             (r["e2"]["doc_start"], r["e2"]["doc_end"], r["e2"]["concept_id"]),
             r["score"], r["interaction"]))
    return [by_doc[d.id] for d in docs]


def _component_records(nlp, docs):
    return [[((r["e1"]["start"], r["e1"]["end"], r["e1"]["kb_id"]),
              (r["e2"]["start"], r["e2"]["end"], r["e2"]["kb_id"]), r["score"],
              r["interaction"]) for r in doc._.interactions]
            for doc in nlp.pipe(d.text for d in docs)]


def _assert_same(got, expected):
    assert [[(a, b, i) for a, b, _, i in recs] for recs in got] == \
        [[(a, b, i) for a, b, _, i in recs] for recs in expected]
    worst = max(abs(x[2] - y[2]) for g, e in zip(got, expected) for x, y in zip(g, e))
    assert worst <= 1e-12


# ----------------------------------------------------------------------------- scores
@pytest.mark.slow
@pytest.mark.needs_spacy
def test_doc_ents_scores_equal_ppi_extract(documents, lll_model, tmp_path):
    plain, _ = documents
    expected = _extract_records(plain, lll_model, tmp_path)
    nlp = _pipeline(lll_model, plain)
    assert nlp.pipe_names[-2:] == ["kernelrank_test_mentions", "kernelrank_ppi"]
    got = _component_records(nlp, plain)
    assert sum(map(len, got)) >= 20 and any(r[3] for recs in got for r in recs)
    _assert_same(got, expected)
    # every record names its spans: index into doc.ents, text, label, offsets, kb_id
    doc = nlp(plain[0].text)
    for r in doc._.interactions:
        for e in (r["e1"], r["e2"]):
            span = doc.ents[e["index"]]
            assert (span.text, span.label_, span.start_char, span.end_char, span.kb_id_) == \
                (e["text"], e["label"], e["start"], e["end"], e["kb_id"])
        assert r["e1"]["start"] <= r["e2"]["start"]
        assert r["sentence_start"] <= r["e1"]["start"] and r["e2"]["end"] <= r["sentence_end"]


@pytest.mark.slow
@pytest.mark.needs_spacy
def test_doc_spans_with_overlaps_and_label_filter_equal_ppi_extract(documents, lll_model,
                                                                    tmp_path):
    """``doc.spans`` may overlap (kept, as in ``ppi extract``); ``labels`` keeps only those
    labels, as ``--mention-types`` does."""
    _, extended = documents
    assert any(m.type == "OTHER" for d in extended for m in d.mentions)
    expected = _extract_records(extended, lll_model, tmp_path, mention_types=["GENE"])
    nlp = _pipeline(lll_model, extended, spans_key="genes", labels=["GENE"])
    got = _component_records(nlp, extended)
    _assert_same(got, expected)
    overlapping = [r for recs in got for r in recs if r[1][0] < r[0][1]]
    assert overlapping, "no pair of overlapping spans was scored"
    # without the filter the OTHER mentions are paired too
    everything = _component_records(_pipeline(lll_model, extended, spans_key="genes"),
                                    extended)
    assert sum(map(len, everything)) > sum(map(len, got))


@pytest.mark.slow
@pytest.mark.needs_spacy
def test_entity_ruler_pipeline_and_serialization(lll_model):
    """The README example: an entity_ruler finds the genes; the records survive
    ``doc.to_bytes()`` (plain, msgpack-serializable values)."""
    from spacy.tokens import Doc
    nlp = _fresh_nlp()
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "GENE", "pattern": p} for p in
                        ("KinC", "KinD", "Spo0A", "SpoIIAB", "sigmaF")] +
                       [{"label": "CELL", "pattern": "cell"}])
    nlp.add_pipe("kernelrank_ppi", config={"model": str(lll_model), "labels": ["GENE"]})
    doc = nlp("KinC and KinD phosphorylate Spo0A in the cell. SpoIIAB binds sigmaF in vitro.")
    pairs = [(r["e1"]["text"], r["e2"]["text"]) for r in doc._.interactions]
    assert pairs == [("KinC", "KinD"), ("KinC", "Spo0A"), ("KinD", "Spo0A"),
                     ("SpoIIAB", "sigmaF")]
    assert all(isinstance(r["score"], float) and isinstance(r["interaction"], bool)
               for r in doc._.interactions)
    back = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert back._.interactions == doc._.interactions
    assert nlp("No genes here.")._.interactions == []
    assert nlp("")._.interactions == []


@pytest.mark.slow
@pytest.mark.needs_spacy
def test_extension_is_registered_idempotently(lll_model):
    from spacy.tokens import Doc

    from ppi.extraction.spacy_component import EXTENSION, register_extension
    register_extension()
    register_extension()
    assert Doc.has_extension(EXTENSION)
    a = _pipeline(lll_model, [])
    b = _pipeline(lll_model, [])           # a second component registers nothing again
    assert a("KinC binds KinD.")._.interactions == b("KinC binds KinD.")._.interactions == []


# ----------------------------------------------------------------------------- errors
def test_pipeline_without_parser_is_refused_at_add_pipe(lll_model):
    nlp = spacy.blank("en")
    with pytest.raises(PipelineError, match=r"dependency parser .*tagger.*en_core_web_sm"):
        nlp.add_pipe("kernelrank_ppi", config={"model": str(lll_model)})
    assert "kernelrank_ppi" not in nlp.pipe_names


@pytest.mark.slow
@pytest.mark.needs_spacy
def test_document_without_parse_is_refused_at_first_call(lll_model):
    nlp = _pipeline(lll_model, [])
    with nlp.select_pipes(disable=["parser"]):
        with pytest.raises(PipelineError, match=r"without dependency parser.*before it"):
            nlp("KinC binds KinD.")
    nlp = _fresh_nlp()
    nlp.add_pipe("kernelrank_ppi", config={"model": str(lll_model)}, before="parser")
    with pytest.raises(PipelineError, match="dependency parser"):
        nlp("KinC binds KinD.")


@pytest.mark.slow
@pytest.mark.needs_spacy
def test_config_errors_are_typed_and_name_the_problem(lll_model, tmp_path):
    nlp = _fresh_nlp()
    missing = tmp_path / "no-such-model"
    with pytest.raises(DataNotFoundError, match=f"{missing}.*'model'.*ppi train"):
        nlp.add_pipe("kernelrank_ppi", config={"model": str(missing)})
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataNotFoundError, match="not a saved PPI model"):
        nlp.add_pipe("kernelrank_ppi", config={"model": str(tmp_path / "empty")})
    with pytest.raises(InvalidParameterError, match="'model' is required"):
        nlp.add_pipe("kernelrank_ppi")
    for key, value in (("labels", "GENE"), ("labels", []), ("spans_key", ""),
                       ("collapse", "yes")):
        with pytest.raises(InvalidParameterError, match=f"'{key}'"):
            nlp.add_pipe("kernelrank_ppi", config={"model": str(lll_model), key: value})
    assert "kernelrank_ppi" not in nlp.pipe_names
    nlp.add_pipe("kernelrank_ppi", config={"model": str(lll_model), "spans_key": "genes"})
    with pytest.raises(PipelineError, match="no group 'genes'"):
        nlp("KinC binds KinD.")


# ----------------------------------------------------------------------------- entry point
def test_factory_is_declared_as_a_spacy_entry_point():
    """pyproject.toml declares the factory in spaCy's entry-point group, the target is the
    registered factory, and ``nlp.add_pipe`` finds it by name once the module is loaded."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"][GROUP] == {"kernelrank_ppi": TARGET}
    module, attr = TARGET.split(":")
    factory = getattr(importlib.import_module(module), attr)
    assert Language.has_factory("kernelrank_ppi")
    assert spacy.util.registry.factories.get("kernelrank_ppi") is factory


@pytest.mark.slow
def test_installed_entry_point_is_discoverable():
    """After ``pip install`` (CI: ``pip install -e .``) the entry point is in the installed
    metadata and a fresh interpreter's spaCy adds the component without importing
    kernelrank.  Skipped when the installed kernelrank is another checkout's (its
    metadata predates this one)."""
    from importlib.metadata import PackageNotFoundError, distribution, entry_points
    try:
        dist = distribution("kernelrank")
    except PackageNotFoundError:
        pytest.skip("kernelrank is not installed (pip install -e .)")
    source = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    mine = source.removeprefix("file://").rstrip("/") in ("", str(ROOT))
    found = [ep for ep in entry_points(group=GROUP) if ep.name == "kernelrank_ppi"]
    if not found and not mine:
        pytest.skip(f"the installed kernelrank is {source}, not this checkout {ROOT}; "
                    "reinstall with `pip install -e .` to test its entry point")
    assert [ep.value for ep in found] == [TARGET], "reinstall: pip install -e ."
    code = ("import spacy, sys\n"
            "assert 'ppi.extraction.spacy_component' not in sys.modules\n"
            "nlp = spacy.blank('en')     # loads the spacy_factories entry points\n"
            "print(nlp.has_factory('kernelrank_ppi'))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr


@pytest.mark.slow
@pytest.mark.needs_spacy
def test_a_model_of_another_pipelines_parse_is_warned_about(lll_model, tmp_path, caplog):
    """The component scores the parse of the pipeline it is in: a model that recorded
    another pipeline (``training.spacy_model``) is a parser shift, said in a warning; the
    pipeline the model names (under any of its names) is not."""
    import logging

    from ppi.models.classes import PPIModel
    from ppi.extraction.spacy_component import pipeline_names
    m = PPIModel.load(lll_model)
    for recorded, warned in (("/pipelines/bio-parser", True), ("en_core_web_sm", False)):
        m.training = {**m.training, "spacy_model": recorded}
        m.save(tmp_path / "m")
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="ppi.extraction.spacy_component"):
            nlp = _pipeline(tmp_path / "m", [])
        assert ("parser shift" in caplog.text) is warned
    # (nlp.meta, read by pipeline_names, works with the component in the pipeline)
    assert "en_core_web_sm" in pipeline_names(nlp)
    assert str(Path(nlp.path).resolve()) in pipeline_names(nlp)
