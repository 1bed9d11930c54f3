"""Your own PPI extractor: train one on a corpus and save it (:mod:`ppi.models.classes` format), and
score the candidate pairs of a learning-format file with a saved one.

* :func:`train` — featurize the corpus (:class:`ppi.systems.Settings` and its system,
  :class:`ppi.systems.base.System`; default the ``text`` system,
  :data:`ppi.names.TRAIN_DEFAULT_SYSTEM`: spaCy's parse, linear, transfer), choose
  λ (by the system's inner criterion; with transfer (λ, β) towards the mean of the other
  benchmark corpora's models, :mod:`ppi.learning.transfer`) and the decision threshold by
  leave-one-document-out (:func:`ppi.learning.evaluation.select_parameters`), save the model as the
  system's saved-model class (:attr:`ppi.systems.base.System.model_class`,
  :mod:`ppi.models.classes`: version 4 for several views — the primal weights, with transfer
  ``w = X_bᵀ(c_y − β c_g) + β/|S| Σ_s w_s``; version 5 with the Gaussian top kernel — the
  basis rows of the corpus and of every source model with their coefficients, one
  expansion; 3 for Paper V's one view),
  write ``results.json`` + ``results.md``;
* :func:`predict` — score every candidate pair, write ``predictions.tsv`` and
  ``results.json`` + ``results.md`` (with P / R / F / AUC when the file has both labels).

Both return ``(results, written)``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kernelrank.errors import InvalidParameterError
from ppi.learning.fit_checks import check_fit, check_training_set
from ppi.names import corpus_path
from ppi.systems import Settings

__all__ = ["train", "predict"]


def _check_outputs(model_dir=None, output_dir=None):
    """Refuse at once outputs of the wrong kind (they would fail only after the work, with
    a ``FileExistsError`` / ``NotADirectoryError``): ``--model`` and ``--output-dir`` are
    directories and may not name an existing file."""
    for option, path in (("--model", model_dir), ("--output-dir", output_dir)):
        if path is not None and Path(path).exists() and not Path(path).is_dir():
            raise InvalidParameterError(f"{option} {path} is a file; a directory is written "
                                        "there — choose another path")


def train(model_dir, output_dir, settings=None, *, corpus=None, input=None, data_dir=None,
          sources=None, select_on=None):
    """Train on a benchmark ``corpus`` (read from ``data_dir``) or on a learning-format file
    ``input``, save the model to ``model_dir`` and a report to ``output_dir``.

    Parameters
    ----------
    model_dir, output_dir : path
    settings : ppi.systems.Settings or None
        The system (None: :data:`ppi.names.TRAIN_DEFAULT_SYSTEM`, the model for raw
        text): Paper V's single all-paths view is saved as a version 3 model, several views
        (``multiview``, ``text``) as version 4, and with ``settings.gamma`` (the Gaussian top
        kernel) as version 5: its basis rows and dual coefficients (:mod:`ppi.models.classes`).
    corpus, input, data_dir
        A benchmark corpus name and the data folder, or a learning-format file.
    sources : sequence of benchmark corpus names, optional
        With ``settings.transfer``: the corpora whose models are the prior (default every
        benchmark corpus but ``corpus``).
    select_on : path, name of :data:`ppi.names.RELATION_SETS`, or ``"inner"``, optional
        Abstracts with document-level relations: λ (and β) chosen by the document-level
        AUC of their gene-pair candidates instead of the inner criterion
        (:mod:`ppi.systems.development`); ``"inner"``: the inner criterion; None: the system's
        :attr:`~ppi.systems.base.System.development_set` (``text``: BioRED's training
        abstracts; the others: the inner criterion).  A system that
        :attr:`~ppi.systems.base.System.trains_on_development` (``text``) trains on half of
        the file's abstracts (:func:`ppi.systems.development.development_halves`) and chooses on
        the other half.

    Returns
    -------
    (dict, list of Path)
        The results (λ, threshold, inner F, training data, configuration, the parses the
        model reads) and the written paths.
    """
    from corpora.ppi_xml import read_corpus
    from kernelrank.report import write_report
    from ppi.systems.development import development_path
    from ppi.learning.evaluation import expansion, resolve_learner
    from ppi.parsing.spacy_parse import CONVERSION_VERSION, pipeline_reference

    _check_outputs(model_dir, output_dir)
    if settings is None:
        from ppi.names import TRAIN_DEFAULT_SYSTEM

        settings = Settings.for_system(TRAIN_DEFAULT_SYSTEM)
    system = settings.strategy
    f = system.featurizer()
    model_class = system.model_class       # refused before any work if there is none
    path = corpus_path(data_dir, corpus) if corpus else Path(input)
    dev_path = development_path(select_on, system, data_dir)
    # spaCy's parse when a view reads it
    source = system.prepare_corpus(read_corpus(path))
    dev = taught = None
    if dev_path is not None:
        from ppi.systems.development import check_disjoint, development_corpus, development_halves

        dev = development_corpus(dev_path, settings.spacy_model, progress=settings.progress)
        check_disjoint(source.documents, dev, path)
        if system.trains_on_development:      # half teaches, the other half chooses
            taught, dev = development_halves(dev)
            source = replace(source, documents=source.documents + taught.corpus.documents)
    data, prior = system.source.training_inputs(system, f, source, corpus, data_dir, sources)
    check_training_set(data.y, data.document_ids, path)
    K = system.learner_input(data)
    sel, choice = system.select(K, data, prior.g)
    del K
    development = None
    if dev is not None:
        from ppi.systems.development import development_choice

        choice = development_choice(system, f, sel, choice, data, prior, dev)
        development = {**choice.pop("development"), "auc": choice["development_auc"]}
        if taught is not None:
            development["trained_on"] = {"documents": len(taught.corpus.documents),
                                         "candidates": len(taught.candidates),
                                         "mention_pairs": taught.n_pairs}
    check_fit(choice, data.y, path)
    Xb, coef = prior.expand(*expansion(sel.model, data.X, choice["alpha"]), choice)
    training = {"corpus": source.source, "file": str(path), "n_pairs": len(data),
                "inner_f1": choice["f1"], **({"transfer": prior.info} if prior.info else {}),
                # how λ was chosen, when not by the inner criterion
                **({"development": development} if development else {}),
                **({"spacy_model": pipeline_reference(settings.spacy_model),
                     "spacy_conversion": CONVERSION_VERSION}
                   if system.representation.reads_spacy() else {})}
    learner = resolve_learner(settings.learner, len(data))      # auto: the one it chose
    m = model_class.from_fit(f, Xb, coef, choice["alpha"], choice["threshold"], learner,
                             training, **system.top.model_options)
    m.save(model_dir)
    res = {"model": str(model_dir), "alpha": choice["alpha"], "threshold": choice["threshold"],
           "inner_loo_document_f1": choice["f1"],
           # the criterion λ was chosen by, when it is not the F
           **({"inner_loo_document_auc": choice.get("inner_score", choice["score"])}
              if settings.select_by == "auc" else {}),
           **({"development": development} if development else {}),
           # every candidate (λ[, β]) with its inner F, threshold and criterion ``score``
           # (and ``development_auc``)
           "grid": choice["grid"],
           "training": training,
           "parses": list(m.parses), "config": settings.config()}
    inner = choice.get("inner_score", choice["score"])
    auc = ("" if settings.select_by != "auc" else f", AUC = {100 * inner:.1f}" + (
        "" if development else ", the criterion λ was chosen by"))
    if development:
        half = development.get("trained_on")
        auc += (f"; chosen by the document-level AUC on {development['file']}"
                + (f"'s development half ({development['documents']} abstracts; the other "
                   f"{half['documents']} trained too, {half['mention_pairs']} mention pairs)"
                   if half else "") + f", {100 * development['auc']:.1f}")
    md = (f"# PPI model trained on {source.source}\n\nλ = {choice['alpha']:g}, threshold = "
          f"{choice['threshold']:.4g} (leave-one-document-out F = {100 * choice['f1']:.1f}"
          f"{auc}).\nSaved to `{model_dir}`.\n") + prior.markdown()
    return res, [Path(model_dir), *write_report(output_dir, "results", res, md)]


def predict(input, model_dir, output_dir):
    """Score the candidate pairs of the learning-format file ``input`` with the model in
    ``model_dir``; ``predictions.tsv`` and the report go to ``output_dir``."""
    import numpy as np

    from corpora.ppi_xml import read_corpus
    from learners.measures import auc, precision_recall_f1
    from ppi.models.classes import PPIModel
    from kernelrank.report import write_report
    from ppi.learning.outputs import write_predictions
    from ppi.parsing.spacy_analyses import SPACY_PARSE, add_spacy_analyses

    _check_outputs(output_dir=output_dir)
    m = PPIModel.load(model_dir)
    corpus = read_corpus(input)
    if SPACY_PARSE in m.parses:              # a model reading spaCy's parse: add it (cached)
        add_spacy_analyses(corpus, m.spacy_model, collapse=m.spacy_conversion)
    data, s, pred = m.predict(corpus)
    out = Path(output_dir)
    write_predictions(out / "predictions.tsv", data, s)
    res = {"model": str(model_dir), "input": str(input), "n_pairs": len(data),
           "n_predicted_positive": int(pred.sum()), "threshold": m.threshold}
    if len(np.unique(data.y)) == 2:
        prf = precision_recall_f1(data.y, s, m.threshold)
        res.update(precision=prf.precision, recall=prf.recall, f1=prf.f1, auc=auc(data.y, s))
    md = "# PPI predictions\n\n" + "\n".join(f"- {k}: {v}" for k, v in res.items()) + "\n"
    return res, [out / "predictions.tsv", *write_report(out, "results", res, md)]
