"""A third parse of the benchmark corpora: spaCy's analysis next to the two the files carry.

The learning-format files carry two analyses per sentence, ``split_parse`` and
``Charniak-Lease`` — both from the Charniak–Lease parser (the split parse is its output on a
finer tokenization).  :func:`add_spacy_analyses` parses every pre-split sentence with the
pinned spaCy pipeline of :mod:`ppi.parsing.spacy_parse` (tokens split at entity boundaries, collapsed
Stanford-like labels, each sentence one unit — :func:`ppi.parsing.spacy_parse.reparse_sentences`) and
stores it under the parse name :data:`SPACY_PARSE` (tokenization of the same name) *beside*
the corpus' own analyses, so that views ``apg:spacy`` and ``path:spacy``
(:mod:`ppi.representation.views`) combine a genuinely different parser with the file's two.

Cache.  Parsing the five corpora costs spaCy's load (and its memory) and a parse of every
sentence with pairs, far more than reading the analyses back (time: docs/results/ppi.md,
"History", the multiview system).  The analyses are therefore cached as gzipped JSON in
``<cache_dir>/<source>-<key>.json.gz`` (default
``platformdirs.user_cache_dir("kernelrank")/ppi-spacy``, ``$KERNELRANK_SPACY_CACHE``
overrides), written atomically (:func:`kernelrank.atomic.write_cache_file`).  The key is the
sha256 of: the corpus checksum (:func:`corpus_checksum`: every sentence's id, text and
entity offsets — all the parse reads), the spaCy version, the model's installed name and
version, ``collapse`` and the cache format.  A hit neither imports nor loads spaCy; a stale
or unreadable file is parsed anew and overwritten; a folder that cannot be written is one
warning naming it and ``$KERNELRANK_SPACY_CACHE``, and the run goes on without the cache.
Read back, the analyses are equal to a fresh parse (token ids, texts, POS, offsets,
dependencies and attributes).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
from pathlib import Path

from corpora.ppi_xml import Dependency, Parse, Token, Tokenization
from kernelrank.atomic import read_cache_file, write_cache_file
from kernelrank.errors import InvalidParameterError
from ppi.names import DEFAULT_SPACY_MODEL

__all__ = ["SPACY_PARSE", "CACHE_ENV_VAR", "corpus_checksum", "spacy_identity",
           "default_cache_dir", "add_spacy_analyses", "encode_analysis", "decode_analysis",
           "read_cache", "write_cache"]

log = logging.getLogger(__name__)

#: The parse (and tokenization) name of spaCy's analysis of the corpus sentences.
SPACY_PARSE = "spacy"
#: Environment variable overriding the default cache folder.
CACHE_ENV_VAR = "KERNELRANK_SPACY_CACHE"
_FORMAT = 1


def corpus_checksum(corpus):
    """sha256 (hex) of what a spaCy parse of ``corpus`` reads: every sentence's id, text and
    entity offsets, in file order.

    Parameters
    ----------
    corpus : corpora.ppi_xml.Corpus

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    for s in corpus.sentences():
        spans = sorted(span for e in s.entities for span in e.offsets)
        h.update(json.dumps([s.id, s.text, spans]).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def _folder_sha256(folder):
    """SHA-256 of every file of ``folder`` and its sub-folders (relative paths and the files'
    SHA-256, in path order)."""
    from kernelrank.checksum import file_sha256

    h = hashlib.sha256()
    for p in sorted(x for x in folder.rglob("*") if x.is_file()):
        h.update(f"{p.relative_to(folder)}\0{file_sha256(p)}\n".encode("utf-8"))
    return h.hexdigest()


def spacy_identity(model):
    """``{"spacy": version, "model": installed name, "model_version": version, "conversion":
    ...}`` of the model :func:`ppi.parsing.spacy_parse.load_spacy` would load for ``model``, from the
    installed package metadata (spaCy is not imported).  A model given as a folder is
    identified by its ``meta.json`` and the SHA-256 of its files (a pipeline re-trained into
    the same folder, e.g. by ``ppi tune-parser``, keeps its name and version); ``conversion``
    is :data:`ppi.parsing.spacy_parse.CONVERSION_VERSION`, the version of what our conversion of
    spaCy's analysis writes.  The caches of analyses, of parsed documents and of source models
    are keyed by this identity.

    Parameters
    ----------
    model : str
        A spaCy model package name or a model folder.

    Returns
    -------
    dict

    Raises
    ------
    ppi.parsing.spacy_parse.SpacyModelError
        When spaCy or the model is not installed.
    """
    from importlib import metadata

    from ppi.parsing.spacy_parse import CONVERSION_VERSION, MODEL_ALIASES, SpacyModelError

    try:
        spacy_version = metadata.version("spacy")
    except metadata.PackageNotFoundError:
        raise SpacyModelError("spaCy is not installed; install it with "
                              "`pip install 'kernelrank[text]'`") from None
    meta = Path(model) / "meta.json"
    if meta.is_file():
        m = json.loads(meta.read_text(encoding="utf-8"))
        return {"spacy": spacy_version, "model": str(Path(model).resolve()),
                "model_version": f"{m.get('lang')}_{m.get('name')}-{m.get('version')}",
                "files_sha256": _folder_sha256(Path(model)), "conversion": CONVERSION_VERSION}
    for candidate in (model,) + MODEL_ALIASES.get(model, ()):
        try:
            return {"spacy": spacy_version, "model": candidate,
                    "model_version": metadata.version(candidate),
                    "conversion": CONVERSION_VERSION}
        except metadata.PackageNotFoundError:
            continue
    from ppi.parsing.spacy_parse import load_spacy

    load_spacy(model)                     # raises SpacyModelError with the install hint
    raise SpacyModelError(f"spaCy model {model!r} loads but has no package metadata; "
                          "install it as a package to cache its analyses")


def default_cache_dir():
    """``$KERNELRANK_SPACY_CACHE`` or ``platformdirs.user_cache_dir("kernelrank")/ppi-spacy``."""
    env = os.environ.get(CACHE_ENV_VAR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("kernelrank")) / "ppi-spacy"


def encode_analysis(tok, par):
    """A JSON-able record of one spaCy analysis (tokenization and parse)."""
    return {"tokens": [[t.id, t.text, t.pos, [list(o) for o in t.offsets]]
                       for t in tok.tokens],
            "deps": [[d.id, d.t1, d.t2, d.type] for d in par.dependencies],
            "attrs": [list(a) for a in par.attrs]}


def decode_analysis(rec):
    """``(Tokenization, Parse)`` named :data:`SPACY_PARSE` from :func:`encode_analysis`'s
    record."""
    tokens = [Token(i, text, pos, tuple(tuple(o) for o in offs))
              for i, text, pos, offs in rec["tokens"]]
    deps = [Dependency(i, t1, t2, typ) for i, t1, t2, typ in rec["deps"]]
    attrs = tuple(tuple(a) for a in rec["attrs"])
    return (Tokenization(SPACY_PARSE, tokens),
            Parse(SPACY_PARSE, SPACY_PARSE, deps, attrs))


def _parse(corpus, model, collapse, batch_size):
    from ppi.parsing.spacy_parse import load_spacy, reparse_sentences

    nlp = load_spacy(model)
    sentences = list(corpus.sentences())
    out = {}
    for s, r in zip(sentences, reparse_sentences(nlp, sentences, SPACY_PARSE, collapse,
                                                 batch_size)):
        out[s.id] = encode_analysis(r.tokenizations[SPACY_PARSE], r.parses[SPACY_PARSE])
    return out


def _load_gzip_json(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def read_cache(path, key, what="spaCy analyses"):
    """The ``records`` of a gzipped JSON cache file written by :func:`write_cache` when its
    key is ``key``; None when it is absent, unreadable or damaged (a warning,
    :func:`kernelrank.atomic.read_cache_file`) or of another key."""
    data = read_cache_file(path, _load_gzip_json, what=f"{what} cache")
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        log.warning("%s cache %s is for another input or model; parsing anew", what, path)
        return None
    return data.get("records", data.get("sentences"))


def write_cache(path, key, records, what="spaCy analyses"):
    """Write ``{"key", "records"}`` as gzipped JSON, atomically (a reproducible gzip
    header: no time stamp).  A cache is an optimisation: a folder that cannot be written is
    one warning naming it and :data:`CACHE_ENV_VAR`, and the run goes on without it
    (:func:`kernelrank.atomic.write_cache_file`).  Returns whether it was written."""
    def write(fh):
        with gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
            gz.write(json.dumps({"key": key, "records": records}).encode("utf-8"))

    return write_cache_file(path, write, what=f"{what} cache", moved_by=f"${CACHE_ENV_VAR}")


def add_spacy_analyses(corpus, model=DEFAULT_SPACY_MODEL, *, collapse=True, cache=True,
                       cache_dir=None, batch_size=64):
    """Add spaCy's analysis of every sentence of ``corpus`` under the parse name
    :data:`SPACY_PARSE`, next to the analyses it has (changed in place).

    Parameters
    ----------
    corpus : corpora.ppi_xml.Corpus
        Pre-split sentences (learning format); ids, entities and pairs are kept.
    model : str
        spaCy model (:func:`ppi.parsing.spacy_parse.load_spacy`; default the pinned
        ``en_core_web_sm``).
    collapse : bool
        Collapsed Stanford-like labels (:mod:`ppi.parsing.spacy_parse`, step 3).
    cache : bool
        Read and write the cache of analyses (module docstring); False parses every time.
    cache_dir : path-like or None
        Cache folder; None: :func:`default_cache_dir`.
    batch_size : int
        Sentences per ``nlp.pipe`` batch.

    Returns
    -------
    corpus : corpora.ppi_xml.Corpus
        The same object, for chaining.

    Raises
    ------
    kernelrank.errors.InvalidParameterError
        When a sentence already holds a parse or tokenization named :data:`SPACY_PARSE`
        that is not spaCy's (a file's own analysis is never replaced).
    ppi.parsing.spacy_parse.SpacyModelError
        When spaCy or the model is not installed (and the analyses are not cached).
    """
    for s in corpus.sentences():
        p = s.parses.get(SPACY_PARSE)
        if (p is not None and ("spacy", "true") not in p.attrs) or \
                (p is None and SPACY_PARSE in s.tokenizations):
            raise InvalidParameterError(
                f"sentence {s.id} of {corpus.source} already has an analysis named "
                f"{SPACY_PARSE!r} that is not spaCy's; rename it in the file")
    from ppi.parsing.spacy_parse import conversion_version

    records = None
    if cache:
        ident = spacy_identity(model)
        key = {"format": _FORMAT, "corpus": corpus_checksum(corpus),
               "collapse": conversion_version(collapse), **ident}
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
        path = Path(cache_dir if cache_dir is not None else default_cache_dir()) / \
            f"{corpus.source or 'corpus'}-{digest}.json.gz"
        records = read_cache(path, key)
        if records is not None:
            log.info("spaCy analyses of %s read from %s", corpus.source, path)
    if records is None:
        records = _parse(corpus, model, collapse, batch_size)
        if cache and write_cache(path, key, records):
            log.info("spaCy analyses of %s cached in %s", corpus.source, path)
    for s in corpus.sentences():
        rec = records.get(s.id)
        if rec is None:
            raise InvalidParameterError(f"spaCy analyses of {corpus.source} have no sentence "
                                        f"{s.id}; delete the cache file and run again")
        tok, par = decode_analysis(rec)
        s.tokenizations[SPACY_PARSE] = tok
        s.parses[SPACY_PARSE] = par
    return corpus
