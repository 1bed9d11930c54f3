"""spaCy pipeline component ``kernelrank_ppi``: protein–protein interaction scores of the
entity pairs of a spaCy ``Doc`` with a saved all-paths model (the kernel
is Paper V's all-paths graph kernel, the model is :mod:`ppi.models.classes`).

For text-mining pipelines that already find their gene / protein mentions (an NER model, an
``entity_ruler`` or ``span_ruler``, a linker that sets ``kb_id``)::

    import spacy
    nlp = spacy.load("en_core_web_sm")
    nlp.add_pipe("kernelrank_ppi", config={"model": "models/ppi", "labels": ["GENE"]})
    doc = nlp(text)
    for r in doc._.interactions:
        print(r["e1"]["text"], r["e2"]["text"], r["score"], r["interaction"])

The factory is registered by importing this module, and for installed kernelrank through
the package's ``spacy_factories`` entry point (``pyproject.toml``), which spaCy loads when it
builds a pipeline — so ``nlp.add_pipe("kernelrank_ppi", ...)`` works without an import.

What it does, per document
--------------------------
1. **Mentions**: the spans of ``doc.ents`` (default) or of ``doc.spans[spans_key]``, kept
   when their label is in ``labels`` (all when ``labels`` is None).  Spans with the same
   start and end are one mention (the first is kept), as ``ppi extract`` merges identical
   mentions (:mod:`corpora.standoff`); overlapping spans (``doc.spans``) are all kept.
2. **Candidate pairs**: every two mentions of one sentence, exactly as ``ppi extract``:
   the same code (:func:`ppi.parsing.spacy_parse.doc_sentences`) turns the parsed ``Doc`` into
   sentences with entities, pairs and the analysis (Penn tags, dependencies rewritten
   towards collapsed Stanford ones when ``collapse``), and two sentences are merged where a
   mention crosses their boundary.
3. **Scores**: :func:`ppi.extraction.scoring.score_sentences` — the one featurize-and-score
   step of ``ppi extract`` — with the saved model; ``interaction`` is ``score > threshold`` of the
   model (the rule of :meth:`ppi.models.classes.PPIModel.predict` and ``ppi extract``).

So for the same text and mentions the scores are those of ``ppi extract`` (the tests check
it to 1e-12), provided the tokens and the parse are the same: the pipeline must tag and
parse (``en_core_web_sm``'s ``tagger`` and ``parser``) before this component.  A model that
reads several parses (a ``multiview`` model, :attr:`ppi.models.classes.PPIModel.parses`) gets the
pipeline's one analysis under each of their names, as in ``ppi extract``.

``doc._.interactions`` (registered once, idempotently) is a list of plain dicts, one per
candidate pair in text order (msgpack-serializable, so ``doc.to_bytes()``, ``DocBin`` and
``nlp.pipe(n_process=...)`` keep them)::

    {"e1": {"index", "text", "label", "start", "end", "kb_id"}, "e2": {...},
     "sentence_start", "sentence_end", "score", "interaction"}

``index`` is the span's position in ``doc.ents`` (or ``doc.spans[spans_key]``), so
``doc.ents[r["e1"]["index"]]`` is the span; ``start``/``end`` are character offsets into
``doc.text`` (exclusive end), ``kb_id`` is the span's ``kb_id_`` or None; ``sentence_start``
/ ``sentence_end`` delimit the sentence the pair was scored in.  ``e1`` is the earlier
mention.

Errors
------
:class:`~kernelrank.errors.PipelineError` when the pipeline has no dependency parser or
tagger at ``add_pipe``, when a document reaches the component untagged or unparsed (the
parser placed after it, or disabled), or when ``doc.spans`` has no group ``spans_key``;
:class:`~kernelrank.errors.InvalidParameterError` for a bad config value;
:class:`~kernelrank.errors.DataNotFoundError` naming the path when ``model`` does not exist
(and :meth:`ppi.models.classes.PPIModel.load`'s errors for a damaged model).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from kernelrank.errors import DataNotFoundError, InvalidParameterError, PipelineError

log = logging.getLogger(__name__)

__all__ = ["PPIComponent", "make_ppi_component", "register_extension", "pipeline_names", "FACTORY",
           "EXTENSION"]

FACTORY = "kernelrank_ppi"
EXTENSION = "interactions"
#: what a component before this one must assign: spaCy's attribute names, the annotation
#: :meth:`spacy.tokens.Doc.has_annotation` checks, and the component that usually does it
_NEEDS = (("token.dep", "DEP", "dependency parser (`parser`)"),
          ("token.tag", "TAG", "part-of-speech tagger (`tagger`)"))


def register_extension():
    """Register ``Doc._.interactions`` (default None) unless it is registered already."""
    if not Doc.has_extension(EXTENSION):
        Doc.set_extension(EXTENSION, default=None)


@Language.factory(FACTORY, default_config={"model": None, "spans_key": None, "labels": None,
                                           "collapse": True},
                  assigns=[f"doc._.{EXTENSION}"], requires=[a for a, _, _ in _NEEDS])
def make_ppi_component(nlp, name, model, spans_key, labels, collapse):
    """The factory of ``nlp.add_pipe("kernelrank_ppi", config={...})``.

    Parameters
    ----------
    nlp : spacy.language.Language
        The pipeline; it must already tag and parse (checked here).
    name : str
        The component's name in the pipeline.
    model : str
        Directory of a model saved by ``python -m ppi train``.
    spans_key : str or None
        Read the mentions from ``doc.spans[spans_key]``; None reads ``doc.ents``.
    labels : list of str or None
        Keep only mentions with these labels (``span.label_``); None keeps all.
    collapse : bool
        Rewrite spaCy's dependencies towards collapsed Stanford dependencies, with the
        conversion the model was trained on (:attr:`ppi.models.classes.PPIModel.spacy_conversion`),
        as ``ppi extract`` does by default (:mod:`ppi.parsing.spacy_parse`, step 3).

    Returns
    -------
    PPIComponent
    """
    return PPIComponent(nlp, name, model=model, spans_key=spans_key, labels=labels,
                        collapse=collapse)


class PPIComponent:
    """Sets ``doc._.interactions``: the scored candidate pairs of the document's mentions.

    Parameters are those of :func:`make_ppi_component` (the module docstring says what the
    component does).  The model is loaded once, here.

    Attributes
    ----------
    model_ : ppi.models.classes.PPIModel
        The loaded model (its ``threshold`` decides ``interaction``).
    """

    #: ``labels`` is the mention-label filter, not labels the component predicts: spaCy's
    #: ``Language.meta`` (``pipe_labels``) must not list it (it failed on ``None``)
    hide_labels = True

    def __init__(self, nlp, name=FACTORY, *, model=None, spans_key=None, labels=None,
                 collapse=True):
        self.name = name
        self.spans_key = _check_spans_key(name, spans_key)
        self.labels = _check_labels(name, labels)
        if not isinstance(collapse, bool):
            raise InvalidParameterError(f"{name}: config 'collapse' must be true or false, "
                                        f"got {collapse!r}")
        _check_pipeline(nlp, name)
        self.model_ = _load_model(name, model)
        #: the conversion of spaCy's analysis: the model's own (ppi.parsing.spacy_parse.CONVERSIONS)
        self.collapse = self.model_.spacy_conversion if collapse else False
        _warn_parser_shift(nlp, name, self.model_, model)
        register_extension()

    def __call__(self, doc):
        """Score the candidate pairs of ``doc``; returns ``doc`` with ``doc._.interactions``
        set."""
        from ppi.extraction.scoring import score_sentences
        from ppi.parsing.spacy_parse import doc_sentences

        if len(doc):
            _check_doc(doc, self.name)
        spans, mentions = self._mentions(doc)
        # spaCy's analysis under every parse name the model reads (ppi.extraction.extract's docstring)
        parsed = [p for p in doc_sentences("doc", doc, mentions, self.model_.parses,
                                           self.collapse, analyse_pairless=False)
                  if p.sentence.pairs]
        scores = score_sentences(self.model_, parsed)
        doc._.set(EXTENSION, _records(parsed, scores, spans, self.model_.pair_threshold))
        return doc

    def _mentions(self, doc):
        """``({(start, end): (index, span)}, [Mention])``: one mention per distinct span
        (the first span of a start and end), labels filtered."""
        from corpora.text_input import Mention

        if self.spans_key is None:
            source = doc.ents
        elif self.spans_key in doc.spans:
            source = doc.spans[self.spans_key]
        else:
            raise PipelineError(f"{self.name}: doc.spans has no group {self.spans_key!r} "
                                f"(groups: {sorted(doc.spans) or 'none'}); set config "
                                "'spans_key' to the key the span component before "
                                f"{self.name} writes (e.g. span_ruler's 'ruler')")
        spans = {}
        for i, span in enumerate(source):
            if self.labels is None or span.label_ in self.labels:
                spans.setdefault((span.start_char, span.end_char), (i, span))
        mentions = [Mention(a, b, span.text, span.label_, span.kb_id_ or None)
                    for (a, b), (_, span) in spans.items()]
        return spans, mentions


# ----------------------------------------------------------------------------- records
def _records(parsed, scores, spans, threshold):
    """The ``doc._.interactions`` dicts of the pairs of ``parsed``, in order (``scores``:
    one per pair, in the same order)."""
    out = []
    k = 0
    for p in parsed:
        s = p.sentence
        position = {e.id: j for j, e in enumerate(s.entities)}
        end = p.doc_start + len(s.text)
        for pair in s.pairs:
            m1, m2 = p.mentions[position[pair.e1]], p.mentions[position[pair.e2]]
            score = float(scores[k])
            k += 1
            out.append({"e1": _mention_record(spans[m1.start, m1.end]),
                        "e2": _mention_record(spans[m2.start, m2.end]),
                        "sentence_start": p.doc_start, "sentence_end": end,
                        "score": score, "interaction": bool(score > threshold)})
    return out


def _mention_record(entry):
    index, span = entry
    return {"index": index, "text": span.text, "label": span.label_,
            "start": span.start_char, "end": span.end_char, "kb_id": span.kb_id_ or None}


# ----------------------------------------------------------------------------- checks
def _check_spans_key(name, spans_key):
    if spans_key is not None and (not isinstance(spans_key, str) or not spans_key):
        raise InvalidParameterError(f"{name}: config 'spans_key' must be the key of a "
                                    f"doc.spans group (a non-empty string) or null for "
                                    f"doc.ents, got {spans_key!r}")
    return spans_key


def _check_labels(name, labels):
    if labels is None:
        return None
    if (isinstance(labels, (str, bytes)) or not isinstance(labels, (list, tuple))
            or not labels or not all(isinstance(x, str) for x in labels)):
        raise InvalidParameterError(f"{name}: config 'labels' must be a non-empty list of "
                                    f"span labels (e.g. [\"GENE\"]) or null for every label, "
                                    f"got {labels!r}")
    return frozenset(labels)


def _load_model(name, model):
    from ppi.models.classes import PPIModel

    if model is None:
        raise InvalidParameterError(f"{name}: config 'model' is required: the directory of "
                                    "a model saved by `python -m ppi train`, e.g. "
                                    f"nlp.add_pipe({name!r}, config={{\"model\": "
                                    "\"models/ppi\"})")
    if not isinstance(model, (str, os.PathLike)):
        raise InvalidParameterError(f"{name}: config 'model' must be a directory path, got "
                                    f"{model!r}")
    path = Path(model)
    if not path.exists():
        raise DataNotFoundError(f"{name}: the model directory {path} (config 'model') does "
                                f"not exist; train one with `python -m ppi train --corpus "
                                f"AIMed --model {path}`")
    return PPIModel.load(path)


def pipeline_names(nlp):
    """The names a model may have recorded for the pipeline ``nlp``
    (:attr:`ppi.models.classes.PPIModel.spacy_model`): its package name, the name it was loaded
    under and the names it stands in for (:data:`ppi.parsing.spacy_parse.MODEL_ALIASES`), and its
    folder."""
    from ppi.parsing.spacy_parse import MODEL_ALIASES

    names = {f"{nlp.lang}_{nlp.meta.get('name', '')}", nlp.meta.get("kernelrank_loaded_as")}
    names |= {alias for alias, stand_ins in MODEL_ALIASES.items() if names & set(stand_ins)}
    if nlp.path is not None:
        names.add(str(Path(nlp.path).resolve()))
    return names - {None}


def _warn_parser_shift(nlp, name, m, model):
    """A warning when the model was trained on another spaCy pipeline's parse than
    ``nlp``'s (its scores are then those of a parser shift)."""
    if "spacy_model" in m.training and m.spacy_model not in pipeline_names(nlp):
        log.warning("%s: the model %s was trained on the parse of the spaCy pipeline %s, "
                    "not this pipeline's (%s): a parser shift; load that pipeline instead",
                    name, model, m.spacy_model, f"{nlp.lang}_{nlp.meta.get('name', '')}")


def _check_pipeline(nlp, name):
    """A pipeline with spaCy's own tokenizer must have a tagger and a parser by the time
    this component is added (a tokenizer of another library, e.g. spacy-stanza's, may tag
    and parse itself: then only the documents are checked, :func:`_check_doc`)."""
    from spacy.tokenizer import Tokenizer

    if not isinstance(nlp.tokenizer, Tokenizer):
        return
    assigned = {a for n in nlp.pipe_names for a in nlp.get_pipe_meta(n).assigns}
    missing = [what for attr, _, what in _NEEDS if attr not in assigned]
    if missing:
        raise PipelineError(f"{name} needs a {' and a '.join(missing)} before it, and the "
                            f"pipeline has {nlp.pipe_names or 'no components'}; load a "
                            "pipeline that has them (e.g. spacy.load(\"en_core_web_sm\")) "
                            f"before nlp.add_pipe({name!r}, ...)")


def _check_doc(doc, name):
    """Every document must be tagged and parsed when it reaches the component."""
    missing = [what for _, annotation, what in _NEEDS if not doc.has_annotation(annotation)]
    if missing:
        raise PipelineError(f"{name} got a document without {' and '.join(missing)} "
                            "annotation: run a tagger and a dependency parser before it "
                            f"(nlp.add_pipe({name!r}, after=\"parser\"), and do not "
                            "disable them)")
