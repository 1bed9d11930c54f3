"""The names a ``ppi`` user chooses on the command line, importable without NumPy (so that
``python -m ppi --help`` is instant), and where the benchmark corpora live.

The learners and their defaults used by :mod:`ppi.evaluation` are defined here.
"""

#: The five benchmark corpora of Paper V, in its table order.
CORPORA = ("AIMed", "BioInfer", "HPRD50", "IEPA", "LLL")
#: ``rls`` (full kernel), ``reduced_set`` (Paper V's sparse RLS) or ``auto`` (full RLS up to
#: :data:`FULL_RLS_MAX` training pairs, reduced-set above), as :mod:`ppi.evaluation`.
LEARNERS = ("auto", "rls", "reduced_set")
#: Basis vectors of the reduced-set learner, as :data:`ppi.evaluation.N_BASIS`.
N_BASIS = 3000
#: The widest hashed all-paths feature space (``--hash-features``, a saved model's
#: ``n_features``): a model's weight vector is dense over it (8 bytes a column: 512 MB).
MAX_HASH_FEATURES = 2 ** 26
#: ``auto``: the exact (full) RLS while its m × m eigendecomposition per fold stays within
#: minutes and ≈ 2 GB on 2 cores (AIMed's 5,834 pairs: 4 min 46 s, 2.11 GB for the CV);
#: the reduced-set approximation above (BioInfer's 9,666: ≈ 5× the time).
FULL_RLS_MAX = 6000
#: Dependency analyses of the learning-format corpora (``spacy``: spaCy's, added beside the
#: files' two by :func:`ppi.spacy_analyses.add_spacy_analyses`).
PARSES = ("split_parse", "split", "Charniak-Lease", "spacy")
#: ``max``: G = max_kl L W Lᵀ terms (errata, published code); ``sum``: G = L W Lᵀ (paper).
VARIANTS = ("max", "sum")
#: Pair orientation: the published code's e1/e2 order, or text order.
ORDERS = ("pair", "text")
#: Shortest-path end points: every token of each protein, or one head token each.
ENDPOINTS = ("all", "head")
#: The inner criterion that chooses λ, as :data:`ppi.evaluation.SELECT_BY`.
SELECT_BY = ("f1", "auc")


#: The systems ``--system`` names: every featurization and selection choice at once
#: (``documents``, learned from document-level relations, is :mod:`ppi.document_system`).
#: ``paper-v`` — Airola et al. 2008 as published (Tables 1–5 reproduce with it);
#: (``views`` None: the all-paths kernel on ``--parse`` alone);
#: ``multiview`` — issue 14's first system: text order, λ by inner AUC, the all-paths kernels
#: of both parses plus bag-of-words and shortest-path views, summed normalized kernels;
#: ``multicorpus`` — the default: ``multiview`` plus the mention-pair view (``pair``), the
#: Gaussian of the summed kernel (γ = 1) and transfer from the other corpora (each corpus
#: learns towards the models of the other benchmark corpora, :mod:`ppi.transfer`).
SYSTEMS = {
    "paper-v": {"order": "pair", "endpoints": "all", "select_by": "f1",
                "learner": "reduced_set",
                "views": None},                 # None: the all-paths kernel on --parse
    "multiview": {"order": "text", "endpoints": "all", "select_by": "auc", "learner": "auto",
                  "views": ("apg:split_parse", "apg:Charniak-Lease", "bow",
                            "path:split_parse", "path:Charniak-Lease")},
    "multicorpus": {"order": "text", "endpoints": "all", "select_by": "auc", "learner": "auto",
                    "views": ("apg:split_parse", "apg:Charniak-Lease", "bow",
                              "path:split_parse", "path:Charniak-Lease", "pair"),
                    "gamma": 1.0, "transfer": True},
    "text": {"order": "text", "endpoints": "all", "select_by": "auc", "learner": "auto",
             "views": ("apg:spacy", "path:spacy", "bow", "pair", "local"),
             "bow_parse": "spacy", "transfer": True},
}
#: ``text`` — the default of ``ppi train``: the model for raw text, trained on the parse raw
#: text gets (spaCy's, added to the corpus sentences and cached; parser-matched), linear
#: (one weight vector: extraction at the parser's speed), with the pair and local views and
#: transfer from the other corpora (their spaCy-parsed models' mean; linear too).
TRAIN_DEFAULT_SYSTEM = "text"
#: The default entity types of both members of a document-level candidate pair (the
#: ``documents`` system, :mod:`ppi.relations`): genes / gene products (PubTator's and BioC's
#: ``Gene``, BioRED's ``GeneOrGeneProduct``), compared ignoring case.
DEFAULT_ENTITY_TYPES = ("Gene", "GeneOrGeneProduct")
#: The weights β of the source hypothesis the transfer CV chooses from (0: none;
#: :mod:`ppi.transfer`).
BETAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
#: The system of the evaluation commands when ``--system`` is not given.
DEFAULT_SYSTEM = "multicorpus"


#: Document-level relation sets of the data directory that ``--relations-from`` and ``ppi
#: evaluate-documents --gold`` accept by name: name → (file below the data directory, the
#: data set ``corpora fetch`` downloads it with).
RELATION_SETS = {"biored": ("biored/Train.PubTator.gz", "biored"),
                 "biored-dev": ("biored/Dev.PubTator.gz", "biored"),
                 "bc6ppim": ("text/PMtask_Relations_TrainingSet.bioc.xml.gz", "bc6ppim")}


def relations_path(data_dir, name_or_path):
    """A relation file given by path, or by a name of :data:`RELATION_SETS` (resolved in
    the data directory, with the fetch hint when absent)."""
    from pathlib import Path

    if name_or_path in RELATION_SETS and not Path(name_or_path).exists():
        from kernelrank.datadir import require_file

        rel, dataset = RELATION_SETS[name_or_path]
        return require_file(data_dir, rel, dataset)
    return Path(name_or_path)


def corpus_path(data_dir, name):
    """``<data-dir>/ppi/<name>-learning-format.xml.gz``, or a DataNotFoundError saying how to
    fetch it."""
    from kernelrank.datadir import require_file

    return require_file(data_dir, f"ppi/{name}-learning-format.xml.gz", "ppi")
