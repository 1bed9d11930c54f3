"""kernelrank.ppi — protein–protein interaction extraction with the all-paths graph kernel
(Airola et al. 2008, Paper V of the thesis, with its errata).

Pipeline: :mod:`corpora.ppi_xml` (learning-format XML) → :mod:`ppi.graphs` (pair graph:
dependency + linear-order subgraphs) → :mod:`learners.kernels.all_paths` via :mod:`ppi.features`
(sparse explicit all-paths features; linear kernel = the graph kernel) → :mod:`learners`
RLS / reduced-set RLS with exact leave-one-document-out selection (:mod:`ppi.evaluation`
on the engine's :mod:`learners.selection` and :mod:`learners.splits`) → reports (:mod:`ppi.report`) and saved models (:mod:`ppi.model`).
A system (``--system``) is one object of :mod:`ppi.systems` (its featurizer, learner input,
selection and saved-model class). The experiments end to end: :mod:`ppi.runs` (CV,
cross-corpus, learning curves, benchmark)
and :mod:`ppi.training` (train / apply a saved model); raw text: :mod:`ppi.extract`,
:mod:`ppi.mentions`, and in a spaCy pipeline :mod:`ppi.spacy_component` (the
``kernelrank_ppi`` factory); document and corpus level: :mod:`ppi.aggregate` (gene-id pairs per
document), :mod:`ppi.network` (interaction network), :mod:`ppi.document_evaluation`
(against BioC gold relations). Command line: ``python -m ppi --help``.
"""

from kernelrank.lazy import lazy_exports

# imported on first use (PEP 562): `python -m ppi --help` loads no NumPy / scikit-learn
_LAZY = {"cross_corpus": "ppi.evaluation", "cross_validate": "ppi.evaluation",
         "learning_curve": "ppi.evaluation", "select_parameters": "ppi.evaluation",
         "PairFeaturizer": "ppi.features", "PairSet": "ppi.features",
         "GraphSettings": "ppi.graphs", "pair_graphs": "ppi.graphs",
         "sentence_graphs": "ppi.graphs"}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
