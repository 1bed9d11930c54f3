"""kernelrank.ppi — protein–protein interaction extraction with the all-paths graph kernel
(Airola et al. 2008, Paper V of the thesis, with its errata), and relations learned from
document-level annotations.

The package, one concept per sub-package:

* :mod:`ppi.representation` — a candidate pair as feature rows: the pair graph, its
  all-paths rows, the featurizer of one view and of several views summed;
* :mod:`ppi.parsing` — spaCy's parse of raw text, spaCy's analyses of a benchmark corpus,
  the parser tuned on the corpora's trees;
* :mod:`ppi.learning` — what both roads share: the learner, its input, exact
  leave-one-document-out selection and the evaluation protocols; transfer and its cache;
* :mod:`ppi.systems` — the registry of systems (``--system``), their parts and inputs,
  training a model (``ppi train``), λ chosen on development abstracts;
* :mod:`ppi.documents` — the ``documents`` system: relations of PubTator / BioC documents,
  the mention-pair and document stages, training and CV end to end;
* :mod:`ppi.experiments` — Paper V's CV, cross-corpus, learning-curve and benchmark runs,
  the ablation, view weights, and their reports;
* :mod:`ppi.extraction` — mentions, the scoring of raw text (``ppi extract``), its records,
  the spaCy component (the ``kernelrank_ppi`` factory);
* :mod:`ppi.aggregation` — concept pairs per document, the network, the document-level
  evaluation;
* :mod:`ppi.models` — the saved model classes and their format.

Beside them: :mod:`ppi.names` (the names a user chooses, no NumPy), :mod:`ppi.cli_checks`
(what the command line checks before any work) and the command line itself
(``python -m ppi --help``).  The names below are imported on first use.
"""

from kernelrank.lazy import lazy_exports

# imported on first use (PEP 562): `python -m ppi --help` loads no NumPy / scikit-learn
_LAZY = {"cross_corpus": "ppi.learning.evaluation", "cross_validate": "ppi.learning.evaluation",
         "learning_curve": "ppi.learning.evaluation",
         "select_parameters": "ppi.learning.evaluation",
         "PairFeaturizer": "ppi.representation.features",
         "PairSet": "ppi.representation.features",
         "GraphSettings": "ppi.representation.graphs",
         "pair_graphs": "ppi.representation.graphs",
         "sentence_graphs": "ppi.representation.graphs",
         "PPIModel": "ppi.models.classes", "load_model": "ppi.models.classes"}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
