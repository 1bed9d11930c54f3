"""Fuzz suite of every reader in ``corpora``: damaged real input ends in a typed error or in
a result that keeps the reader's promises — never another exception, never a silently
inconsistent result.

For each reader a small slice of the REAL file in ``$KERNELRANK_DATA`` is cut here into
``tmp_path`` (skipped, with the reason, when the file is absent; nothing is committed):

=================  =========================================================  ==========
reader             slice of                                                   function
=================  =========================================================  ==========
ppi-xml            LLL learning format: 2 documents (with sentence analyses)  read_corpus
learning-xml       the same, through the raw-text input reader               read_learning_xml
pubmed-xml         pubmed20n1015: 3 articles                                  read_pubmed_xml
pubtator           BC6 PPIm PubTator: 3 records that read cleanly             read_pubtator
text               the titles and abstracts of those records, as plain text   read_text
bioc-xml           BC6 PPIm BioC XML: 3 documents                             read_bioc_xml
bioc-json          the same 3 documents as BioC JSON lines (bioc package)     read_bioc_json
fasta              SCOP 1.53 FASTA: 6 records                                 read_fasta
scop-membership    SCOP 1.53 membership table: header + 8 rows                read_membership
svmlight           LETOR OHSUMED Fold1: 12 lines                              load_svmlight
conllu             CRAFT 11319941: 4 sentences (and their token offsets)      read_conllu
=================  =========================================================  ==========

Each case applies one to three seeded mutations to the slice: truncation at a random
point, byte flips, insertions and deletions of random bytes, a change of encoding
(Latin-1, UTF-16 with and without BOM, a UTF-8 BOM), structural edits (duplicate, delete or
swap lines, duplicate a block of lines — a record —, give one id the value of another,
replace a number by NaN, inf, a huge, negative or tiny value), and then possibly gzip of the
mutated bytes (whole or cut short). The text readers are called with ``skip_bad`` True or
False at random. The result must be a :class:`~kernelrank.errors.KernelrankError` or pass
the reader's invariants, written here independently of the readers: entity text equal to
the sentence text at its offsets, ids unique, pairs of two entities of their sentence,
labels in range, finite numbers, valid trees, ...

``CASES`` = 200 cases per reader (11 readers: 2,200 cases), fixed seeds, deterministic;
``KERNELRANK_FUZZ_CASES=N`` runs N per reader instead (long runs). A failure lists the
reader, the case number and the mutations, so ``_mutate(reader, case, slice)`` replays it.
What the suite guards against: entity text off its offsets, duplicate ids, self-pairs,
repeated PMIDs, a UTF-8 BOM read as text, and an unknown encoding escaping the XML readers
as a ``LookupError``.
"""

import gzip
import json
import math
import os
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from corpora.bioc import read_bioc_json, read_bioc_xml
from corpora.conllu import read_conllu, token_offsets
from corpora.fasta import read_fasta
from corpora.ppi_xml import read_corpus
from corpora.scop import read_membership
from corpora.svmlight import load_svmlight
from corpora.text_input import (ReadStats, read_learning_xml, read_pubmed_xml, read_pubtator,
                                read_text)
from kernelrank.errors import KernelrankError

pytestmark = pytest.mark.slow      # fuzz: seeded mutations of slices of the real data files

#: cases per reader; KERNELRANK_FUZZ_CASES raises it for long runs
CASES = int(os.environ.get("KERNELRANK_FUZZ_CASES", "200"))


# ----------------------------------------------------------------------------- slices
def _data_file(data_dir, relative):
    path = Path(data_dir) / relative
    if not path.exists():
        pytest.skip(f"real data file {path} is absent (set KERNELRANK_DATA)")
    return path


def _read_bytes(path):
    raw = path.read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def _xml_slice(data, record, n):
    """The XML ``data`` cut after its ``n``-th ``</record>``, closed by the root's end tag."""
    end = -1
    for _ in range(n):
        end = data.index(f"</{record}>".encode(), end + 1)
    end = data.index(b"\n", end) + 1
    root = re.search(rb"<([A-Za-z]+)[\s>]", data[data.index(b"?>") + 2 if b"?>" in data
                                                 else 0:]).group(1)
    return data[:end] + b"</" + root + b">\n"


def _pubtator_records(data_dir):
    """The first three BC6 PubTator records that read cleanly (some real ones do not)."""
    path = _data_file(data_dir, "text/PMtask_Relations_TrainingSet.pubtator.gz")
    blocks = _read_bytes(path).split(b"\n\n")
    good = []
    for block in blocks:
        lines = block.decode("utf-8").strip("\n").split("\n")
        title = next(line.split("|", 2)[2] for line in lines if "|t|" in line)
        abstract = next((line.split("|", 2)[2] for line in lines if "|a|" in line), None)
        text = title if abstract is None else f"{title} {abstract}"
        spans = [line.split("\t") for line in lines if "|" not in line.split("\t")[0][:12]
                 and line.count("\t") >= 4]
        if all(text[int(s[1]):int(s[2])] == s[3] for s in spans):
            good.append(block.strip(b"\n"))
        if len(good) == 3:
            return good
    raise AssertionError("fewer than three clean PubTator records")


def _slice_ppi(data_dir):
    data = _read_bytes(_data_file(data_dir, "ppi/LLL-learning-format.xml.gz"))
    return _xml_slice(data, "document", 2)


def _slice_pubmed(data_dir):
    data = _read_bytes(_data_file(data_dir, "text/pubmed20n1015.xml.gz"))
    return _xml_slice(data, "PubmedArticle", 3)


def _slice_pubtator(data_dir):
    return b"\n\n".join(_pubtator_records(data_dir)) + b"\n"


def _slice_text(data_dir):
    blocks = []
    for record in _pubtator_records(data_dir):
        lines = [line.split(b"|", 2)[2] for line in record.split(b"\n")
                 if b"|t|" in line or b"|a|" in line]
        blocks.append(b"\n".join(lines))
    return b"\n\n".join(blocks) + b"\n"


def _slice_bioc_xml(data_dir):
    pytest.importorskip("bioc", reason="the bioc package is not installed")
    data = _read_bytes(_data_file(data_dir, "text/PMtask_Relations_TrainingSet.bioc.xml.gz"))
    return _xml_slice(data, "document", 3)


def _slice_bioc_json(data_dir):
    pytest.importorskip("bioc", reason="the bioc package is not installed")
    import bioc.biocjson
    import bioc.biocxml
    collection = bioc.biocxml.loads(_slice_bioc_xml(data_dir).decode("utf-8"))
    return "".join(json.dumps(bioc.biocjson.toJSON(d)) + "\n"
                   for d in collection.documents).encode("utf-8")


def _slice_fasta(data_dir):
    data = _read_bytes(_data_file(data_dir, "scop153/scop.1.53.1e-25.fasta"))
    starts = [m.start() for m in re.finditer(rb"^>", data, re.M)]
    return data[:starts[6]]


def _slice_scop(data_dir):
    data = _read_bytes(_data_file(data_dir, "scop153/all_seq_fam_membership.txt"))
    return b"\n".join(data.split(b"\n")[:9]) + b"\n"


def _slice_svmlight(data_dir):
    data = _read_bytes(_data_file(data_dir, "letor/OHSUMED/Fold1.test.txt.gz"))
    return b"\n".join(data.split(b"\n")[:12]) + b"\n"


def _slice_conllu(data_dir):
    data = _read_bytes(_data_file(data_dir, "craft/conllu/11319941.conllu.gz"))
    return b"\n\n".join(data.split(b"\n\n")[:4]) + b"\n\n"


# ----------------------------------------------------------------------------- invariants
def _unique(ids, what):
    ids = list(ids)
    assert len(ids) == len(set(ids)), f"duplicate {what} ids"


def _check_ppi(corpus):
    _unique((d.id for d in corpus.documents), "document")
    sentences = list(corpus.sentences())
    _unique((s.id for s in sentences), "sentence")
    _unique((e.id for s in sentences for e in s.entities), "entity")
    _unique((p.id for s in sentences for p in s.pairs), "pair")
    for s in sentences:
        _check_sentence(s)


def _check_sentence(s):
    for e in s.entities:
        assert e.offsets, e
        for (a, b), nxt in zip(e.offsets, list(e.offsets[1:]) + [None]):
            assert 0 <= a <= b < len(s.text), (e, len(s.text))
            assert nxt is None or b < nxt[0], e
        fragments = " ".join(s.text[a:b + 1] for a, b in e.offsets)
        assert e.text.split() == fragments.split(), (e.text, fragments)
    names = {e.id for e in s.entities}
    seen = set()
    for p in s.pairs:
        assert p.e1 in names and p.e2 in names and p.e1 != p.e2, p
        assert isinstance(p.interaction, bool)
        assert frozenset((p.e1, p.e2)) not in seen, p
        seen.add(frozenset((p.e1, p.e2)))
    for parse in s.parses.values():
        tok = s.tokenizations.get(parse.tokenizer)
        if tok is not None:
            ids = {t.id for t in tok.tokens}
            assert all(d.t1 in ids and d.t2 in ids for d in parse.dependencies)


def _check_documents(result):
    docs, stats = result
    assert stats.documents == len(docs)
    _unique((d.id for d in docs), "document")
    for d in docs:
        assert d.id and isinstance(d.text, str)
        assert not d.id.startswith("\ufeff") and not d.text.startswith("\ufeff"), "BOM read"
        if d.title_end is not None:
            assert 0 <= d.title_end <= len(d.text)
        for m in d.mentions or ():
            assert 0 <= m.start < m.end <= len(d.text) and d.text[m.start:m.end] == m.text, m
            assert m.text.strip()
        for s in d.sentences or ():
            _check_sentence(s)


def _check_fasta(records):
    assert records
    _unique((r.id for r in records), "record")
    for r in records:
        assert r.id and r.seq and set(r.seq) <= set("ACDEFGHIKLMNPQRSTVWYBZJUOX"), r


def _check_scop(result):
    families, ids, codes = result
    _unique(families, "family")
    _unique(ids, "sequence")
    assert codes.shape == (len(ids), len(families))
    assert codes.size == 0 or (codes.min() >= 0 and codes.max() <= 4)


def _check_svmlight(data):
    X, y, qids, comments = data
    assert X.shape[0] == len(y) == len(comments)
    assert np.all(np.isfinite(y)) and np.all(np.isfinite(X.data))
    assert X.indices.size == 0 or (X.indices.min() >= 0 and X.indices.max() < X.shape[1])
    assert qids is None or (len(qids) == len(y) and qids.dtype == np.int64)


def _check_conllu(sentences):
    for s in sentences:
        n = len(s.tokens)
        assert [t.id for t in s.tokens] == list(range(1, n + 1))
        heads = [t.head for t in s.tokens]
        assert heads.count(0) == 1 and all(0 <= h <= n for h in heads)
        for i in range(1, n + 1):               # every word reaches the root: no cycle
            seen, j = set(), i
            while j:
                assert j not in seen, f"cycle through word {j}"
                seen.add(j)
                j = heads[j - 1]
        assert all(t.form for t in s.tokens)
        for mwt in s.multiword:
            assert 1 <= mwt.first < mwt.last <= n
        try:
            spans = token_offsets(s)
        except KernelrankError:
            continue
        covered = {i for m in s.multiword for i in range(m.first, m.last + 1)}
        for t, (a, b) in zip(s.tokens, spans):
            assert 0 <= a < b <= len(s.text)
            if t.id not in covered:
                assert s.text[a:b] == t.form


def _documents(reader):
    def read(path, rng):
        stats = ReadStats()
        docs = list(reader(path, skip_bad=rng.random() < 0.5, stats=stats))
        return docs, stats
    return read


@dataclass(frozen=True)
class Reader:
    make_slice: Callable
    read: Callable                  # (path, rng) -> result
    check: Callable                 # result -> None (AssertionError when broken)
    suffix: str
    id_pattern: bytes               # one group: an id value, for the "duplicate id" edit
    number_pattern: bytes = None    # one group: where half of the "odd number" edits look


#: document, sentence, entity and pair ids and the entity references of pairs (not the
#: token ids, which far outnumber them); numbers: half of the edits hit entity offsets
PPI_IDS = rb'\b(?:id|e1|e2)="([^"]+\.[dsep]\d+)"'
PPI_NUMBERS = rb'<entity\s[^>]*?charOffset="([\d,-]+)"'

READERS = {
    "ppi-xml": Reader(_slice_ppi, lambda p, r: read_corpus(p), _check_ppi, ".xml",
                      PPI_IDS, PPI_NUMBERS),
    "learning-xml": Reader(_slice_ppi, _documents(read_learning_xml), _check_documents,
                           ".xml", PPI_IDS, PPI_NUMBERS),
    "pubmed-xml": Reader(_slice_pubmed, _documents(read_pubmed_xml), _check_documents,
                         ".xml", rb"<PMID[^>]*>(\d+)</PMID>"),
    "pubtator": Reader(_slice_pubtator, _documents(read_pubtator), _check_documents,
                       ".pubtator", rb"^(\d+)[|\t]"),
    "text": Reader(_slice_text, _documents(read_text), _check_documents, ".txt",
                   rb"(\w+)"),
    "bioc-xml": Reader(_slice_bioc_xml, _documents(read_bioc_xml), _check_documents, ".xml",
                       rb"<id>(\d+)</id>", rb'offset="(\d+)"'),
    "bioc-json": Reader(_slice_bioc_json, _documents(read_bioc_json), _check_documents,
                        ".jsonl", rb'"id": "(\d+)"', rb'"offset": (\d+)'),
    "fasta": Reader(_slice_fasta, lambda p, r: read_fasta(p), _check_fasta, ".fasta",
                    rb"^>(\S+)"),
    "scop-membership": Reader(_slice_scop, lambda p, r: read_membership(p), _check_scop,
                              ".txt", rb"^(\S+)"),
    "svmlight": Reader(_slice_svmlight, lambda p, r: load_svmlight(p), _check_svmlight,
                       ".txt", rb"qid:(\d+)"),
    "conllu": Reader(_slice_conllu, lambda p, r: read_conllu(p), _check_conllu, ".conllu",
                     rb"sent_id = (\S+)"),
}


# ----------------------------------------------------------------------------- mutations
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
ODD_NUMBERS = [b"nan", b"NaN", b"inf", b"-inf", b"1e999", b"-1", b"-0", b"0",
               b"99999999999999999999999", b"1e-320", b"+5", b"1_0", b"\xd9\xa1"]


def _truncate(rng, data, name):
    return data[:rng.randrange(len(data) + 1)], "truncate"


def _flip(rng, data, name):
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out), "flip"


def _insert(rng, data, name):
    at = rng.randrange(len(data) + 1)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return data[:at] + junk + data[at:], f"insert {junk!r}"


def _delete(rng, data, name):
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[at + rng.randint(1, 16):], "delete"


def _encoding(rng, data, name):
    text = data.decode("utf-8", errors="replace")
    kind = rng.choice(["latin-1", "utf-16", "utf-16-le", "utf-8-sig", "cp1252"])
    return text.encode(kind, errors="replace"), f"encode {kind}"


def _lines_edit(rng, data, name):
    lines = data.split(b"\n")
    kind = rng.choice(["duplicate", "delete", "swap", "block"])
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "delete":
        del lines[i]
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    else:                                       # duplicate a record: a block of lines
        i, j = min(i, j), max(i, j) + 1
        lines[j:j] = lines[i:j]
    return b"\n".join(lines), f"lines {kind}"


def _duplicate_id(rng, data, name):
    matches = list(re.finditer(READERS[name].id_pattern, data, re.M))
    if len(matches) < 2:
        return data, "duplicate id (none)"
    a, b = rng.sample(matches, 2)
    return data[:b.start(1)] + a.group(1) + data[b.end(1):], f"id {b.group(1)!r} -> {a.group(1)!r}"


def _odd_number(rng, data, name):
    focus = READERS[name].number_pattern
    regions = [m.span(1) for m in re.finditer(focus, data)] if focus else []
    focused = bool(regions) and rng.random() < 0.5
    lo, hi = rng.choice(regions) if focused else (0, len(data))
    matches = list(NUMBER.finditer(data, lo, hi))
    if not matches:
        return data, "number (none)"
    m = rng.choice(matches)
    if focused and m.group().isdigit() and rng.random() < 0.6:     # a plausible slip
        new = str(int(m.group()) + rng.choice([-2, -1, 1, 2])).encode()
    else:
        new = rng.choice(ODD_NUMBERS)
    return data[:m.start()] + new + data[m.end():], f"number {m.group()!r} -> {new!r}"


MUTATIONS = [_truncate, _flip, _insert, _delete, _encoding, _lines_edit, _duplicate_id,
             _duplicate_id, _odd_number, _odd_number]


def _mutate(name, case, data):
    """The bytes of case ``case`` of reader ``name`` and the mutations applied (replayable)."""
    rng = random.Random(f"{name}:{case}")
    done = []
    for _ in range(rng.randint(1, 3)):
        data, what = rng.choice(MUTATIONS)(rng, data, name)
        done.append(what)
    roll = rng.random()
    if roll < 0.25:
        data, done = gzip.compress(data, mtime=0), done + ["gzip"]
    elif roll < 0.32:
        packed = gzip.compress(data, mtime=0)
        data, done = packed[:rng.randrange(len(packed) + 1)], done + ["gzip cut"]
    return data, done, rng


@lru_cache(maxsize=None)
def _slice(name, data_dir):
    return READERS[name].make_slice(data_dir)


@pytest.mark.parametrize("name", READERS)
def test_real_slice_reads_and_keeps_the_invariants(data_dir, tmp_path, name):
    # the base of the mutations is valid: what goes wrong below comes from the mutation
    reader = READERS[name]
    path = tmp_path / f"slice{reader.suffix}"
    path.write_bytes(_slice(name, str(data_dir)))
    result = reader.read(path, random.Random(0))
    reader.check(result)
    records = {"ppi-xml": lambda r: len(r.documents), "scop-membership": lambda r: len(r[1]),
               "svmlight": lambda r: len(r.y), "fasta": len, "conllu": len}
    assert records.get(name, lambda r: len(r[0]))(result) > 1


@pytest.mark.parametrize("name", READERS)
def test_mutated_real_input_is_typed_error_or_consistent(data_dir, tmp_path, name):
    reader = READERS[name]
    base = _slice(name, str(data_dir))
    path = tmp_path / f"case{reader.suffix}"
    failures, outcomes = [], {"error": 0, "read": 0}
    for case in range(CASES):
        data, done, rng = _mutate(name, case, base)
        path.write_bytes(data)
        try:
            result = reader.read(path, rng)
        except KernelrankError as exc:
            outcomes["error"] += 1
            assert str(path) in str(exc) or "does not exist" in str(exc), (case, done, exc)
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the suite
            failures.append(f"case {case} {done}: {type(exc).__name__}: {exc}")
            continue
        outcomes["read"] += 1
        try:
            reader.check(result)
        except AssertionError as exc:
            failures.append(f"case {case} {done}: inconsistent result: {exc}")
    assert not failures, f"{len(failures)} of {CASES} cases:\n" + "\n".join(failures[:15])
    # the mutations reach both outcomes (a suite where everything fails early tests little)
    assert outcomes["error"] and outcomes["read"], outcomes


def test_mutations_are_deterministic(data_dir):
    base = _slice("svmlight", str(data_dir))
    assert _mutate("svmlight", 7, base)[:2] == _mutate("svmlight", 7, base)[:2]
    assert math.isfinite(CASES) and CASES >= 1
