"""The names a ``ppi`` user chooses on the command line, importable without NumPy (so that
``python -m ppi --help`` is instant), and where the benchmark corpora live.

The learners and their defaults used by :mod:`ppi.learning.evaluation` are defined here.
"""

#: The five benchmark corpora of Paper V, in its table order.
CORPORA = ("AIMed", "BioInfer", "HPRD50", "IEPA", "LLL")
#: ``rls`` (full kernel), ``reduced_set`` (Paper V's sparse RLS) or ``auto`` (full RLS up to
#: :data:`FULL_RLS_MAX` training pairs, reduced-set above), as :mod:`ppi.learning.evaluation`.
LEARNERS = ("auto", "rls", "reduced_set")
#: Basis vectors of the reduced-set learner, as :data:`ppi.learning.evaluation.N_BASIS`.
N_BASIS = 3000
#: Basis mention pairs of the ``documents`` system's reduced-set mention stage
#: (:mod:`ppi.documents.mention_stage`): its cost is linear in the mention pairs at a fixed
#: basis; on BioRED the basis of 1,000, 2,000 or 3,000 pairs and the full kernel give the
#: same dev F and AUC within a third of a point (docs/results/ppi.md).
DOCUMENT_N_BASIS = 2000
#: The widest hashed all-paths feature space (``--hash-features``, a saved model's
#: ``n_features``): a model's weight vector is dense over it (8 bytes a column: 512 MB).
MAX_HASH_FEATURES = 2 ** 26
#: The most edges ``ppi network`` draws (``--top-edges``): the layout of a component of n
#: genes holds n × n distances (the TSV and the GraphML hold every edge).
MAX_TOP_EDGES = 2000
#: ``auto``: the exact (full) RLS while its m × m eigendecomposition per fold (O(m³) time,
#: O(m²) memory) stays affordable — AIMed's 5,834 pairs are below, BioInfer's 9,666 above;
#: the reduced-set approximation above (full RLS on AIMed, its time and memory:
#: docs/results/ppi.md, "History", the multiview system).
FULL_RLS_MAX = 6000
#: Dependency analyses of the learning-format corpora (``spacy``: spaCy's, added beside the
#: files' two by :func:`ppi.parsing.spacy_analyses.add_spacy_analyses`).
PARSES = ("split_parse", "split", "Charniak-Lease", "spacy")
#: ``max``: G = max_kl L W Lᵀ terms (errata, published code); ``sum``: G = L W Lᵀ (paper).
VARIANTS = ("max", "sum")
#: Pair orientation: the published code's e1/e2 order, or text order.
ORDERS = ("pair", "text")
#: Shortest-path end points: every token of each protein, or one head token each.
ENDPOINTS = ("all", "head")
#: The inner criterion that chooses λ, as :data:`ppi.learning.evaluation.SELECT_BY`.
SELECT_BY = ("f1", "auc")


#: The views of the ``multiview`` system (:mod:`ppi.systems.multiview`) and the default of
#: :class:`ppi.representation.views.MultiViewFeaturizer`: both parses' all-paths kernels, bag of words,
#: shortest-path features on both parses.
MULTIVIEW_VIEWS = ("apg:split_parse", "apg:Charniak-Lease", "bow", "path:split_parse",
                   "path:Charniak-Lease")
#: ``text`` (:mod:`ppi.systems.text`) — the default of ``ppi train``: the model for raw
#: text. The systems ``--system`` names are the registry :data:`ppi.systems.SYSTEMS`.
TRAIN_DEFAULT_SYSTEM = "text"
#: The default entity types of both members of a document-level candidate pair (the
#: ``documents`` system, :mod:`ppi.documents.relations`): genes / gene products (PubTator's and BioC's
#: ``Gene``, BioRED's ``GeneOrGeneProduct``), compared ignoring case.
DEFAULT_ENTITY_TYPES = ("Gene", "GeneOrGeneProduct")
#: ``--pairs all`` keeps a pair type that at least this many training relations relate
#: (fewer cannot teach a model what the type's relations look like; those left out are
#: counted and named; :mod:`ppi.documents.pair_types`)
MIN_RELATIONS = 5
#: a typed model's mention-pair stage: one model per pair type (``separate``, the default)
#: or one over all pair types (``shared``: feature augmentation, Daumé III 2007)
PAIR_MODELS = ("separate", "shared")
#: The weights β of the source hypothesis the transfer CV chooses from (0: none;
#: :mod:`ppi.learning.transfer`).
BETAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
#: The spaCy pipeline that parses raw text and gives the ``spacy`` analyses unless a run
#: names another (``--spacy-model``; :mod:`ppi.parsing.spacy_parse`).
DEFAULT_SPACY_MODEL = "en_core_web_sm"
#: The system of the evaluation commands when ``--system`` is not given.
DEFAULT_SYSTEM = "multicorpus"
#: What the ``documents`` system is (:class:`ppi.documents.system.DocumentSystem`), for the
#: ``--system`` help: it is chosen by ``--relations-from``, not by ``--system``.
DOCUMENTS_SUMMARY = ("relations learned from document-level annotations (PubTator / BioC: "
                     "'genes A and B are related in this document') on spaCy's parse, "
                     "linear, with transfer and a document stage; chosen by "
                     "--relations-from, its options under 'documents system'")


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
