"""Shared test fixtures: the real data folder (skipped with a reason when absent), seeded RNGs,
broken gzip files, a PPI model trained on LLL and LLL abstracts as raw-text input; and the
markers ``needs_data`` / ``needs_spacy`` set from the fixtures a test uses."""

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config, items):
    """The markers that follow from a test's fixtures (their closure, so also through another
    fixture): ``needs_data`` on every test that uses ``data_dir``, ``needs_spacy`` on every
    test that uses ``nlp``, ``slow`` on every test that uses ``lll_model`` (a whole ``ppi
    train`` on real data, then a command with the model). ``pytest -m "not needs_data"`` runs
    what needs no data folder."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "data_dir" in names:
            item.add_marker(pytest.mark.needs_data)
        if "nlp" in names:
            item.add_marker(pytest.mark.needs_spacy)
        if "lll_model" in names:
            item.add_marker(pytest.mark.slow)


def _shared_data_dir():
    env = os.environ.get("KERNELRANK_DATA")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(autouse=True, scope="session")
def _no_source_model_cache():
    """Tests never write into the data folder: the transfer's source-model cache
    (``<data dir>/cache``, :mod:`ppi.learning.source_cache`) is off for the whole session (before any
    module-scoped fixture trains a model) unless a test turns it on."""
    saved = os.environ.get("KERNELRANK_NO_SOURCE_CACHE")
    os.environ["KERNELRANK_NO_SOURCE_CACHE"] = "1"
    yield
    if saved is None:
        os.environ.pop("KERNELRANK_NO_SOURCE_CACHE", None)
    else:
        os.environ["KERNELRANK_NO_SOURCE_CACHE"] = saved


@pytest.fixture(scope="session")
def data_dir():
    """The real data folder (``$KERNELRANK_DATA`` or ``../shared/data``); skip if absent."""
    path = _shared_data_dir()
    if not path.is_dir():
        pytest.skip(f"real data folder {path} is absent; set KERNELRANK_DATA or place "
                    "the shared data beside the repository")
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def broken_gzip(tmp_path):
    """``make(payload, kind)``: a gzip file of ``payload`` (bytes) cut in half
    (``kind="truncated"``) or with one byte flipped a third of the way in (``"damaged"``)."""
    def make(payload, kind):
        packed = bytearray(gzip.compress(payload, mtime=0))
        if kind == "truncated":
            packed = packed[:len(packed) // 2]
        else:
            packed[len(packed) // 3] ^= 0xFF
        path = tmp_path / f"{kind}.gz"
        path.write_bytes(bytes(packed))
        return path
    return make


def write_craft_slice(data_dir, out, articles, max_length, per_article):
    """Write ``out/<article>.conllu.gz`` for each of ``articles``: its first ``per_article``
    real CRAFT sentences of 8 to ``max_length`` words (a small treebank for build tests);
    skip the test when an article is absent from the shared data."""
    import gzip

    from corpora.conllu import iter_conllu

    src = data_dir / "craft" / "conllu"
    for art in articles:
        path = src / f"{art}.conllu.gz"
        if not path.exists():
            pytest.skip(f"{path} absent")
        keep = [s for s in iter_conllu(path) if 8 <= len(s.tokens) <= max_length][:per_article]
        lines = []
        for s in keep:
            lines += [f"# sent_id = {s.sent_id}", f"# text = {s.text}"]
            lines += ["\t".join([str(t.id), t.form, t.lemma, t.upos, t.xpos, t.feats,
                                 str(t.head), t.deprel, t.deps, t.misc]) for t in s.tokens]
            lines.append("")
        with gzip.open(out / f"{art}.conllu.gz", "wt", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    return out


def lll_path(data_dir):
    """The LLL corpus file; skip the test when it is absent."""
    path = data_dir / "ppi" / "LLL-learning-format.xml.gz"
    if not path.exists():
        pytest.skip(f"{path} absent")
    return path


@pytest.fixture(scope="session")
def lll_model(data_dir, tmp_path_factory):
    """A PPI model trained on LLL by ``python -m ppi train --system multiview`` (its
    directory): a linear multi-view model (version 4), quick to train and to score with;
    the default system's model (Gaussian, with transfer) is tested in test_ppi_transfer."""
    from ppi.__main__ import main
    lll_path(data_dir)
    d = tmp_path_factory.mktemp("model")
    assert main(["train", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--model",
                 str(d / "m"), "--output-dir", str(d / "report"), "--quiet"]) == 0
    return d / "m"


def lll_abstracts(data_dir, n_docs=6, copies=1):
    """Real LLL documents as abstracts: sentences joined by one space, the first sentence
    as the title, gold entities as mentions (LLL has no discontinuous entity)."""
    from corpora.ppi_xml import iter_documents
    from corpora.text_input import TextDocument, learning_to_text_document
    docs = []
    for _, _, doc in iter_documents(lll_path(data_dir)):
        if len(docs) == n_docs:
            break
        docs.append(learning_to_text_document(doc))
    return [TextDocument(f"{d.id}.{c}" if copies > 1 else d.id, d.text, d.mentions,
                         title_end=d.title_end) for c in range(copies) for d in docs]


def write_pubtator_file(docs, path):
    """Write ``docs`` (:class:`corpora.text_input.TextDocument`) as a PubTator file."""
    import io

    from corpora.text_input import write_pubtator
    buf = io.StringIO()
    write_pubtator(docs, buf)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def nlp():
    """The pinned spaCy pipeline of ppi.parsing.spacy_parse (skips when spaCy or the model is
    absent)."""
    pytest.importorskip("spacy", reason="spaCy not installed (pip install 'kernelrank[text]')")
    from ppi.parsing.spacy_parse import SpacyModelError, load_spacy
    try:
        return load_spacy()
    except SpacyModelError as exc:
        pytest.skip(str(exc))


#: gene names and NCBI ids of the generated documents with relations
RELATION_GENES = (("IL2", "3558"), ("CD25", "3559"), ("TNF", "7124"), ("IL6", "3569"),
                  ("p53", "7157"), ("MDM2", "4193"), ("EGFR", "1956"), ("KRAS", "3845"))


def relation_documents(n_docs=8, seed=0):
    """Generated abstracts with gene mentions and document-level relations
    (:class:`corpora.documents.TextDocument`): a title naming two genes, then three
    sentences "A verb B in cells."; a relation ``Bind`` for each sentence whose verb is an
    interaction (``binds``, ``activates``, …), none for the others (``precedes``), so that a
    file has related and unrelated candidates and every mention pair shares a sentence with
    another gene."""
    from corpora.documents import Mention, Relation, TextDocument

    related_verbs = ("binds", "activates", "phosphorylates", "inhibits")
    verbs = related_verbs + ("is unrelated to", "precedes")
    rng = np.random.default_rng(seed)
    docs = []
    for d in range(n_docs):
        genes = [RELATION_GENES[k] for k in rng.choice(len(RELATION_GENES), 4, replace=False)]
        text = f"Study {d} of {genes[0][0]} and {genes[1][0]}."
        title_end = len(text)
        first = text.index(genes[0][0])
        second = text.index(" and ") + 5
        mentions = [Mention(first, first + len(genes[0][0]), genes[0][0], "Gene", genes[0][1]),
                    Mention(second, second + len(genes[1][0]), genes[1][0], "Gene",
                            genes[1][1])]
        relations = []
        for a, b in ((0, 1), (2, 3), (1, 2)):
            verb = verbs[rng.integers(len(verbs))]
            start = len(text) + 1
            end_a = start + len(genes[a][0])
            start_b = end_a + len(verb) + 2
            mentions += [Mention(start, end_a, genes[a][0], "Gene", genes[a][1]),
                         Mention(start_b, start_b + len(genes[b][0]), genes[b][0], "Gene",
                                 genes[b][1])]
            text += f" {genes[a][0]} {verb} {genes[b][0]} in cells."
            if verb in related_verbs:
                relations.append(Relation("Bind", genes[a][1], genes[b][1]))
        docs.append(TextDocument(str(100 + d), text, mentions, title_end=title_end,
                                 relations=relations))
    return docs


def write_bioc_file(docs, path, relation_infons=None):
    """Write ``docs`` (:class:`corpora.documents.TextDocument` with mentions and relations) as
    BioC XML: a title and an abstract passage, annotations with their ``identifier``, the
    relations with infons ``Gene1`` / ``Gene2`` — or ``relation_infons(doc, k, relation)``,
    the infons ``{key: value}`` of relation ``k`` (to write a broken one)."""
    from xml.sax.saxutils import escape

    parts = [('<?xml version="1.0" encoding="UTF-8"?><collection><source>t</source>'
              "<date>d</date><key>k</key>")]
    for d in docs:
        title = d.text[:d.title_end]
        anns = "".join(
            f'<annotation id="T{k}"><infon key="type">{m.type}</infon>'
            f'<infon key="identifier">{m.id}</infon><location offset="{m.start}" '
            f'length="{m.end - m.start}"/><text>{escape(m.text)}</text></annotation>'
            for k, m in enumerate(d.mentions))
        rels = ""
        for k, r in enumerate(d.relations or ()):
            infons = (relation_infons(d, k, r) if relation_infons else None) or \
                {"Gene1": r.id1, "Gene2": r.id2, "relation": r.type}
            rels += (f'<relation id="R{k}">' + "".join(
                f'<infon key="{key}">{escape(value)}</infon>' for key, value in infons.items())
                + "</relation>")
        parts.append(f"<document><id>{d.id}</id>"
                     f'<passage><infon key="type">title</infon><offset>0</offset>'
                     f"<text>{escape(title)}</text></passage>"
                     f'<passage><infon key="type">abstract</infon>'
                     f"<offset>{d.title_end + 1}</offset>"
                     f"<text>{escape(d.text[d.title_end + 1:])}</text>{anns}</passage>"
                     f"{rels}</document>")
    parts.append("</collection>")
    path.write_text("".join(parts), encoding="utf-8")
    return path


def parsed_sentence(doc, k, start, mentions):
    """A :class:`ppi.parsing.spacy_parse.ParsedSentence` of ``mentions`` (sentence ``k`` of
    document ``doc``, at ``start``): every two of them a candidate pair, in order, as
    :func:`ppi.parsing.spacy_parse.doc_sentences` pairs them."""
    import itertools

    from corpora.ppi_xml import Entity, Pair, Sentence
    from ppi.parsing.spacy_parse import ParsedSentence

    sid = f"{doc}.s{k}"
    ents = [Entity(f"{sid}.e{j}", ((m.start - start, m.end - 1 - start),), m.text, m.type)
            for j, m in enumerate(mentions)]
    pairs = [Pair(f"{sid}.p{n}", a.id, b.id, False)
             for n, (a, b) in enumerate(itertools.combinations(ents, 2))]
    return ParsedSentence(doc, Sentence(sid, "x" * 50, ents, pairs), start, list(mentions))


def biored_slices(data_dir, out_dir, n_train, n_dev):
    """``(train, dev)``: PubTator files in ``out_dir`` of the first ``n_train`` BioRED training
    and ``n_dev`` dev abstracts (the test is skipped, saying why, when BioRED is absent)."""
    from corpora.text_input import read_pubtator, write_pubtator

    paths = []
    for name, n in (("Train", n_train), ("Dev", n_dev)):
        src = data_dir / "biored" / f"{name}.PubTator.gz"
        if not src.is_file():
            pytest.skip("BioRED (biored/Train.PubTator.gz, Dev.PubTator.gz) is absent")
        out = Path(out_dir) / f"{name.lower()}.pubtator"
        with open(out, "w", encoding="utf-8") as fh:
            write_pubtator(list(read_pubtator(src))[:n], fh)
        paths.append(out)
    return tuple(paths)
