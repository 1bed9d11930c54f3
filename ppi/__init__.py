"""kernelrank.ppi — protein–protein interaction extraction with the all-paths graph kernel
(Airola et al. 2008, Paper V of the thesis, with its errata).

Pipeline: :mod:`corpora.ppi_xml` (learning-format XML) → :mod:`ppi.graphs` (pair graph:
dependency + linear-order subgraphs) → :mod:`learners.kernels.all_paths` via :mod:`ppi.features`
(sparse explicit all-paths features; linear kernel = the graph kernel) → :mod:`learners`
RLS / reduced-set RLS with exact leave-one-document-out selection (:mod:`ppi.evaluation`,
:mod:`ppi.folds`) → reports (:mod:`ppi.report`) and saved models (:mod:`ppi.model`).
Command line: ``python -m ppi --help``.
"""

from ppi.evaluation import cross_corpus, cross_validate, learning_curve, select_parameters
from ppi.features import PairFeaturizer, PairSet
from ppi.folds import document_folds, pair_folds
from ppi.graphs import GraphSettings, pair_graphs, sentence_graphs

__all__ = ["GraphSettings", "PairFeaturizer", "PairSet", "cross_corpus", "cross_validate",
           "document_folds", "learning_curve", "pair_folds", "pair_graphs", "select_parameters",
           "sentence_graphs"]
