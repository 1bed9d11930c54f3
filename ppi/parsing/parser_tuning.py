"""A biomedical parser for raw text: spaCy's tagger and dependency parser fine-tuned on the
CRAFT gold trees.

The pinned pipeline (``en_core_web_sm``) is trained on newswire and web text (OntoNotes); on
biomedical text its tags and trees are much worse.  CRAFT (Bada et al. 2012, "Concept
annotation in the CRAFT corpus", BMC Bioinformatics 13:161; Verspoor et al. 2012, "A corpus
of full-text journal articles is a robust evaluation tool for revealing differences in
performance of biomedical natural language processing tools", BMC Bioinformatics 13:207)
gives gold dependency trees of 81 full-text biomedical articles in the label set spaCy's
English parser itself uses (ClearNLP-style: ``nsubj``, ``dobj``, ``prep``, ``pobj``,
``compound``, …, every CRAFT label is one of the parser's) and Penn Treebank tags (every CRAFT
tag is one of the tagger's).  So the pipeline's ``tok2vec``, ``tagger`` and ``parser`` are
*sourced* and trained further on CRAFT — the domain adaptation scispaCy's models do from
GENIA (Neumann et al. 2019, "ScispaCy: Fast and robust models for biomedical natural
language processing", BioNLP §3), with CRAFT because it is in the data directory
(``python -m corpora fetch craft``).  The result is an ordinary spaCy pipeline folder, of the
same architecture (so the same parse speed), that every command takes as ``--spacy-model
FOLDER``; a model trained with it records it and ``ppi extract`` parses with it.

Protocol: every 10th article in PMID order is held out (9 of 81, 3,092 sentences) and the
others train (72, 22,399 sentences); spaCy's training loop (Adam, batches of 100 → 1,000
words, dropout 0.1) runs ``max_steps`` updates and keeps the checkpoint with the best
held-out score (0.2 tag accuracy + 0.4 UAS + 0.4 LAS, on gold tokens, the sentence boundaries
the parser's own; spaCy's ``nlp.evaluate``), which is measured against the base pipeline on the
same documents.
Training documents are 10 consecutive sentences of an article: the parser also splits raw
text into sentences, and trained on one sentence per document it learns never to split (a
whole abstract then becomes one sentence).  Cost: ``max_steps`` updates of the three
sourced components, O(steps × batch size); the time and peak memory of the default 2,000
steps are on the results page (docs/results/ppi.md, "A biomedical parser: spaCy tuned on
CRAFT").
"""

from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path

from kernelrank.atomic import atomic_directory
from kernelrank.errors import DataNotFoundError, InvalidParameterError
from ppi.names import DEFAULT_SPACY_MODEL

__all__ = ["craft_split", "craft_docs", "write_docbin", "evaluate_pipeline", "tune_parser",
           "tuning_markdown", "HELD_OUT_EVERY"]

log = logging.getLogger(__name__)

#: every this many-th CRAFT article (in file-name, i.e. PMID, order) is held out
HELD_OUT_EVERY = 10
#: what the training keeps of the base pipeline: the shared token vectors and the two
#: components ppi reads (:mod:`ppi.parsing.spacy_parse` excludes the others)
COMPONENTS = ("tok2vec", "tagger", "parser")
#: consecutive sentences per training document (as ``spacy convert -n 10``)
SENTENCES_PER_DOC = 10


def craft_split(craft_dir):
    """``(train files, held-out files)`` of the CRAFT CoNLL-U folder: every
    :data:`HELD_OUT_EVERY`-th article in name order held out.

    Raises
    ------
    DataNotFoundError
        When the folder holds no ``*.conllu.gz`` / ``*.conllu`` file.
    """
    folder = Path(craft_dir)
    files = sorted(folder.glob("*.conllu.gz")) + sorted(folder.glob("*.conllu"))
    if not files:
        raise DataNotFoundError(f"no CRAFT CoNLL-U files in {folder}; get them with "
                                "`python -m corpora fetch craft` (into the data directory's "
                                "craft/conllu)")
    files.sort(key=lambda p: p.name)
    held = files[::HELD_OUT_EVERY]
    return [f for f in files if f not in held], held


def craft_docs(files, vocab, sentences_per_doc=SENTENCES_PER_DOC):
    """spaCy ``Doc`` objects of the CoNLL-U ``files``: up to ``sentences_per_doc``
    consecutive sentences of one article each, with their gold words, whitespace
    (``SpaceAfter=No``; one space between sentences), Penn tags, heads, labels (the root's
    ``ROOT``, as spaCy names it; CRAFT writes ``root``) and sentence starts — several
    sentences per document so that the parser, which also splits raw text into sentences,
    learns where they end (trained on one sentence per document it learns never to split,
    and an abstract becomes one sentence).  Read by :func:`corpora.conllu.iter_conllu`,
    whose checks name the file and line of a malformed tree."""
    from corpora.conllu import iter_conllu

    for path in files:
        group = []
        for s in iter_conllu(path):
            group.append(s)
            if len(group) == sentences_per_doc:
                yield _gold_doc(vocab, group)
                group = []
        if group:
            yield _gold_doc(vocab, group)


def _gold_doc(vocab, sentences):
    from spacy.tokens import Doc

    words, spaces, tags, heads, deps, starts = [], [], [], [], [], []
    for k, s in enumerate(sentences):
        base = len(words)
        toks = s.tokens
        words += [t.form for t in toks]
        spaces += ["SpaceAfter=No" not in t.misc for t in toks]
        if k + 1 < len(sentences):
            spaces[-1] = True
        tags += [t.xpos for t in toks]
        heads += [base + (t.head - 1 if t.head else i) for i, t in enumerate(toks)]
        deps += ["ROOT" if t.head == 0 else t.deprel for t in toks]
        starts += [True] + [False] * (len(toks) - 1)
    return Doc(vocab, words=words, spaces=spaces, tags=tags, heads=heads, deps=deps,
               sent_starts=starts)


def write_docbin(docs, path):
    """Write the gold ``docs`` to the spaCy training file ``path``; returns the number of
    sentences they hold."""
    from spacy.tokens import DocBin

    db = DocBin(attrs=["ORTH", "TAG", "HEAD", "DEP", "SENT_START"])
    n = 0
    for d in docs:
        db.add(d)
        n += sum(1 for _ in d.sents)
    db.to_disk(path)
    return n


def evaluate_pipeline(nlp, docbin_path):
    """Tag accuracy, unlabelled and labelled attachment score and the F of the sentence
    boundaries (%) of ``nlp`` on the gold documents of ``docbin_path`` (gold tokens; spaCy's
    ``Language.evaluate``)."""
    from spacy.training import Corpus

    scores = nlp.evaluate(list(Corpus(str(docbin_path))(nlp)))
    return {"tag_acc": 100 * scores["tag_acc"], "uas": 100 * scores["dep_uas"],
            "las": 100 * scores["dep_las"], "sents_f": 100 * (scores.get("sents_f") or 0.0)}


_CONFIG = """
[paths]
train = null
dev = null
[system]
gpu_allocator = null
seed = 0
[nlp]
lang = "en"
pipeline = ["tok2vec","tagger","parser"]
batch_size = 256
disabled = []
before_creation = null
after_creation = null
after_pipeline_creation = null
tokenizer = {{"@tokenizers":"spacy.Tokenizer.v1"}}
[components]
[components.tok2vec]
source = "{base}"
[components.tagger]
source = "{base}"
[components.parser]
source = "{base}"
[corpora]
{corpora}[training]
dev_corpus = "corpora.dev"
train_corpus = "corpora.train"
seed = ${{system.seed}}
gpu_allocator = ${{system.gpu_allocator}}
dropout = 0.1
accumulate_gradient = 1
patience = 0
max_epochs = 0
max_steps = {max_steps}
eval_frequency = {eval_every}
frozen_components = []
annotating_components = []
before_to_disk = null
before_update = null
[training.batcher]
@batchers = "spacy.batch_by_words.v1"
discard_oversize = false
tolerance = 0.2
get_length = null
[training.batcher.size]
@schedules = "compounding.v1"
start = 100
stop = 1000
compound = 1.001
t = 0.0
[training.logger]
@loggers = "spacy.ConsoleLogger.v1"
progress_bar = {progress}
[training.optimizer]
@optimizers = "Adam.v1"
beta1 = 0.9
beta2 = 0.999
L2_is_weight_decay = true
L2 = 0.01
grad_clip = 1.0
use_averages = false
eps = 0.00000001
learn_rate = 0.001
[training.score_weights]
tag_acc = 0.2
dep_uas = 0.4
dep_las = 0.4
dep_las_per_type = null
[pretraining]
[initialize]
vectors = null
init_tok2vec = null
vocab_data = null
lookups = null
before_init = null
after_init = null
[initialize.components]
[initialize.tokenizer]
"""


#: one corpus section of :data:`_CONFIG` (``train`` and ``dev``: the files spaCy reads)
_CORPUS = """[corpora.{part}]
@readers = "spacy.Corpus.v1"
path = ${{paths.{part}}}
max_length = 0
gold_preproc = false
limit = 0
augmenter = null
"""


def tune_parser(craft_dir, output_dir, *, base=DEFAULT_SPACY_MODEL, max_steps=2000,
                eval_every=500, seed=0, progress=True):
    """Fine-tune ``base``'s tagger and parser on CRAFT (module docstring) and write the
    pipeline to ``output_dir/pipeline``.

    Parameters
    ----------
    craft_dir : path-like
        The CRAFT CoNLL-U folder (``<data dir>/craft/conllu``).
    output_dir : path-like
        ``pipeline/`` (the tuned spaCy pipeline: the best held-out checkpoint) is written
        here.
    base : str
        The spaCy pipeline to start from (installed name or folder;
        :func:`ppi.parsing.spacy_parse.load_spacy`).
    max_steps, eval_every : int
        Update steps, and steps between held-out evaluations (each may keep a new best).
    seed : int
        spaCy's training seed (batches, dropout, initialization): the same seed, data and
        versions give the same pipeline.
    progress : bool
        spaCy's progress bar between evaluations.

    Returns
    -------
    dict
        Sentences and articles of each part, the base and tuned pipelines' tag accuracy,
        UAS and LAS on the held-out articles, the steps and the seconds.

    Complexity: O(max_steps · batch words) for training; the evaluations read the held-out
    sentences ``max_steps / eval_every + 2`` times.
    """
    import spacy
    from spacy.cli.train import train as spacy_train

    from ppi.parsing.spacy_parse import load_spacy

    if max_steps < 1 or eval_every < 1:
        raise InvalidParameterError(f"max_steps={max_steps}, eval_every={eval_every}: give "
                                    "positive numbers of update steps")
    t0 = time.perf_counter()
    train_files, held_files = craft_split(craft_dir)
    base_nlp = load_spacy(base, cached=False)
    missing = [c for c in COMPONENTS if c not in base_nlp.pipe_names]
    if missing:
        raise InvalidParameterError(f"spaCy pipeline {base!r} has no {missing}; tune a "
                                    "pipeline with tok2vec, tagger and parser")
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    vocab = spacy.blank("en").vocab
    with tempfile.TemporaryDirectory(prefix="craft-", dir=out) as tmp:
        tmp = Path(tmp)
        n_train = write_docbin(craft_docs(train_files, vocab), tmp / "train.spacy")
        n_held = write_docbin(craft_docs(held_files, vocab), tmp / "dev.spacy")
        before = evaluate_pipeline(base_nlp, tmp / "dev.spacy")
        config = tmp / "config.cfg"
        config.write_text(_CONFIG.format(base=str(base_nlp.path), max_steps=int(max_steps),
                                         corpora="".join(_CORPUS.format(part=p)
                                                         for p in ("train", "dev")),
                                         eval_every=int(eval_every),
                                         progress="true" if progress else "false"))
        spacy_train(config, tmp / "trained", use_gpu=-1,
                    overrides={"paths.train": str(tmp / "train.spacy"),
                               "paths.dev": str(tmp / "dev.spacy"), "system.seed": int(seed)})
        tuned = spacy.load(tmp / "trained" / "model-best")
        after = evaluate_pipeline(tuned, tmp / "dev.spacy")
        tuned.meta.update(name="craft_tuned", version="1.0.0",
                          description=f"{base} (tok2vec, tagger, parser) fine-tuned on "
                                      f"CRAFT ({len(train_files)} articles) by kernelrank")
        with atomic_directory(out / "pipeline") as folder:   # replaced as a unit
            tuned.to_disk(folder)
    return {"base": base, "pipeline": str((out / "pipeline").resolve()),
            "train": {"articles": len(train_files), "sentences": n_train},
            "held_out": {"articles": [f.name.split(".")[0] for f in held_files],
                         "sentences": n_held},
            "before": before, "after": after, "max_steps": int(max_steps),
            "eval_every": int(eval_every), "seed": int(seed),
            "seconds": time.perf_counter() - t0}


def tuning_markdown(res):
    """The Markdown report of :func:`tune_parser`'s results."""
    b, a = res["before"], res["after"]
    rows = "\n".join(f"| {name} | {b[k]:.2f} | {a[k]:.2f} |" for name, k in
                     (("tag accuracy", "tag_acc"), ("UAS", "uas"), ("LAS", "las"),
                      ("sentence boundaries F", "sents_f")))
    return (f"# spaCy's parser fine-tuned on CRAFT\n\n"
            f"Base pipeline `{res['base']}`; {res['train']['articles']} CRAFT articles "
            f"({res['train']['sentences']} sentences) trained, {res['max_steps']} steps "
            f"(seed {res['seed']}); held out: {len(res['held_out']['articles'])} articles "
            f"({res['held_out']['sentences']} sentences, gold tokens).\n\n"
            f"| held-out CRAFT (%) | base | tuned |\n|---|---|---|\n{rows}\n\n"
            f"The pipeline: `{res['pipeline']}` — pass it as `--spacy-model` to `ppi train` "
            f"(the model records it; `ppi extract` then parses with it). "
            f"{res['seconds']:.0f} s.\n")
