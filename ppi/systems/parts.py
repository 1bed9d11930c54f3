"""The parts a PPI system (:mod:`ppi.systems.base`) is composed of: how a candidate pair
becomes a feature row (its *representation*), the kernel the learner sees on those rows
(its *top kernel*) and whether the learner fits towards the other corpora's models (its
*source*).  Each part is chosen once, when the system is built from its settings; the
code that runs a system asks the part and never tests a flag.

* representations — :class:`AllPaths` (Paper V, Airola et al. 2008 §"Methods": the
  all-paths graph kernel on one parse; saved as model format version 3) and
  :class:`MultiView` (the sum of normalized view kernels,
  :class:`ppi.representation.views.MultiViewFeaturizer`; version 4, Gaussian version 5);
* top kernels — :class:`Linear` (``k`` itself) and :class:`Gaussian`
  (``exp(−γ‖φ(x) − φ(z)‖²)`` of the rows, :func:`learners.kernels.gaussian_of`);
* sources — :class:`NoTransfer` and :class:`Transfer` (``f = β g + h``, Tommasi et al.
  2010 §3, :mod:`ppi.learning.transfer`).

Importing this module imports no NumPy (``python -m ppi --help`` stays instant): every
method imports what it uses.
"""

from __future__ import annotations

__all__ = ["AllPaths", "MultiView", "Linear", "Gaussian", "NoTransfer", "Transfer",
           "TrainingPrior", "NO_PRIOR"]

SPACY = "spacy"


# ----------------------------------------------------------------------------- representations
class AllPaths:
    """Paper V's representation: the all-paths graph kernel on ``settings.parse``
    (:class:`ppi.representation.features.PairFeaturizer`), one view."""

    def __init__(self, settings):
        self.settings = settings

    def featurizer(self):
        """The unfitted :class:`ppi.representation.features.PairFeaturizer`."""
        from ppi.representation.features import PairFeaturizer
        from ppi.representation.graphs import GraphSettings

        s = self.settings
        return PairFeaturizer(parse=s.parse, variant=s.variant, normalize=s.normalize,
                              n_features=s.hash_features,
                              settings=GraphSettings(order=s.order, endpoints=s.endpoints))

    def parses(self):
        """The canonical name of the one parse it reads."""
        from corpora.ppi_xml import resolve_parse_name

        return (resolve_parse_name(self.settings.parse),)

    def reads_spacy(self):
        """Whether a corpus needs spaCy's analyses added (its parse is spaCy's)."""
        return SPACY in self.parses()

    @property
    def linear_model(self):
        """The saved-model class of its linear models (format version 3)."""
        from ppi.models.classes import SingleViewModel

        return SingleViewModel

    #: a saved Gaussian model needs several views (format version 5)
    gaussian_model = None


class MultiView:
    """Several views of a pair, their normalized kernels summed (:mod:`ppi.representation.views`)."""

    def __init__(self, settings):
        self.settings = settings

    def featurizer(self):
        """The unfitted :class:`ppi.representation.views.MultiViewFeaturizer` of ``settings.views``."""
        from kernelrank.errors import InvalidParameterError
        from ppi.representation.graphs import GraphSettings
        from ppi.representation.views import MultiViewFeaturizer

        s = self.settings
        if not s.normalize:
            raise InvalidParameterError("several views are combined as a sum of normalized "
                                        "kernels; --no-normalize applies to one view only")
        return MultiViewFeaturizer(s.views, variant=s.variant,
                                   settings=GraphSettings(order=s.order,
                                                          endpoints=s.endpoints),
                                   n_features=s.hash_features, bow_parse=s.bow_parse)

    def parses(self):
        """The canonical parse names of the views (:func:`ppi.representation.views.view_parses`)."""
        from ppi.representation.views import view_parses

        return view_parses(self.settings.views)

    def reads_spacy(self):
        """Whether a corpus needs spaCy's analyses added: a view's parse, or the tokens of
        ``bow`` / ``local`` (``bow_parse``), is spaCy's."""
        return SPACY in self.parses() or self.settings.bow_parse == SPACY

    @property
    def linear_model(self):
        """Format version 4: the primal weights of every view."""
        from ppi.models.classes import MultiViewModel

        return MultiViewModel

    @property
    def gaussian_model(self):
        """Format version 5: basis rows and dual coefficients."""
        from ppi.models.classes import GaussianModel

        return GaussianModel


# ----------------------------------------------------------------------------- top kernels
class Linear:
    """The (summed views') kernel itself: ``k(x, z) = φ(x)·φ(z)``."""

    gamma = None
    #: what the saved-model class' ``from_fit`` takes besides the fit
    model_options = {}

    def learner_input(self, data, settings):
        """:func:`ppi.learning.evaluation.learner_input` of ``data``."""
        from ppi.learning.evaluation import learner_input

        return learner_input(data, settings.learner, settings.n_basis)

    def kernel(self, a, b):
        """The kernel matrix between the pairs of ``a`` and ``b``."""
        from ppi.representation.features import kernel

        return kernel(a, b)

    def of_gram(self, K):
        """The top kernel of the Gram matrix ``K`` of unit-norm rows: ``K`` itself."""
        return K

    def model_class(self, representation):
        """The saved-model class of a model of ``representation``."""
        return representation.linear_model


class Gaussian:
    """The Gaussian of the (summed views') kernel, ``exp(−γ‖φ(x) − φ(z)‖²)``."""

    def __init__(self, gamma):
        self.gamma = gamma
        self.model_options = {"gamma": gamma}

    def learner_input(self, data, settings, max_gram_bytes=None):
        """The dense Gaussian kernel matrix of ``data`` (:func:`ppi.representation.features.
        gaussian_kernel`): never the feature rows, so a corpus whose m × m matrix would
        exceed ``max_gram_bytes`` (default :data:`ppi.learning.evaluation.MAX_GRAM_BYTES`) with the
        reduced-set learner is refused."""
        from kernelrank.errors import InvalidParameterError
        from ppi.learning.evaluation import (MAX_GRAM_BYTES, check_full_rls_memory, resolve_learner,
                                    uses_feature_rows)
        from ppi.representation.features import gaussian_kernel

        limit = MAX_GRAM_BYTES if max_gram_bytes is None else max_gram_bytes
        if uses_feature_rows(data, settings.learner, settings.n_basis, limit):
            raise InvalidParameterError(
                f"the Gaussian top kernel (gamma={self.gamma}) needs the dense {len(data)} x "
                f"{len(data)} kernel matrix, larger than {limit / 2 ** 30:.0f} GiB; "
                "run without --gamma (the linear sum of the views) on a corpus this large")
        if resolve_learner(settings.learner, len(data)) == "rls":
            check_full_rls_memory(len(data))
        return gaussian_kernel(data, gamma=self.gamma)

    def kernel(self, a, b):
        """The Gaussian kernel matrix between the pairs of ``a`` and ``b``."""
        from ppi.representation.features import gaussian_kernel

        return gaussian_kernel(a, b, gamma=self.gamma)

    def of_gram(self, K):
        """The Gaussian of the Gram matrix ``K`` of unit-norm rows (in place)."""
        from learners.kernels import gaussian_of

        gaussian_of(K, self.gamma)
        return K

    def model_class(self, representation):
        """The saved-model class of a Gaussian model (format version 5)."""
        from kernelrank.errors import InvalidParameterError

        if representation.gaussian_model is None:
            raise InvalidParameterError(
                f"--gamma {self.gamma}: saved Gaussian models are multi-view models (model "
                "format version 5); use --system multicorpus or several --views")
        return representation.gaussian_model


# ----------------------------------------------------------------------------- sources
class TrainingPrior:
    """The transfer prior of a model being trained (:meth:`Transfer.training_inputs`):
    ``g``, the mean of the source models' scores of the training pairs; ``parts``, each
    source model's ``(rows, coefficients)``; ``info``, what they were (for the report)."""

    def __init__(self, g=None, parts=(), info=None):
        self.g, self.parts, self.info = g, list(parts), info

    def expand(self, Xb, coef, choice):
        """The saved model's rows and coefficients from the fit's ``(Xb, coef)`` at
        ``choice``: ``f = h_y − β h_g + β g`` with ``g`` the sources' mean — the source
        models' rows appended (weights ``β/|S| c_s``) when β > 0."""
        import numpy as np
        import scipy.sparse as sp

        beta = choice["beta"]
        coef = coef[:, 0] - beta * coef[:, 1]
        if beta:
            Xb = sp.vstack([Xb] + [X for X, _ in self.parts], format="csr")
            coef = np.concatenate([coef] + [beta / len(self.parts) * c for _, c in self.parts])
        self.info["beta"] = beta
        return Xb, coef

    def markdown(self):
        """The report's sentence on the transfer."""
        return (f"\nTransfer: f = β g + h with β = {self.info['beta']:g}, g the mean of the "
                f"models of {', '.join(self.info['sources'])} (trained without the sentences "
                "they share with another corpus).\n")


class _NoPrior(TrainingPrior):
    """No transfer: the fit is the model."""

    def expand(self, Xb, coef, choice):
        return Xb, coef

    def markdown(self):
        return ""


#: the prior of a system without transfer
NO_PRIOR = _NoPrior()


class NoTransfer:
    """Each corpus learns from its own pairs only."""

    def texts(self):
        """The sentence texts a run collects for the leak guard: none."""
        return None

    def cv_inputs(self, system, corpus, data_dir, sources, leaky):
        """``(data, None)``: the corpus featurized alone."""
        from ppi.systems.inputs import read_corpora

        (data,) = system.featurizer().fit_transform(
            read_corpora([corpus], system.settings, data_dir), progress=system.progress)
        return data, None

    def cross(self, system, datasets, kernel_fn, texts):
        """The cross-corpus evaluation (:func:`ppi.learning.evaluation.cross_corpus`)."""
        return system.cross_corpus(datasets, kernel_fn)

    def benchmark_source(self, sources, name):
        """The source hypothesis of ``name`` in a benchmark: none."""
        return None

    def training_inputs(self, system, featurizer, target, corpus, data_dir, sources):
        """``(data, NO_PRIOR)``: the training corpus featurized alone."""
        (data,) = featurizer.fit_transform([target], progress=system.progress)
        return data, NO_PRIOR


class Transfer:
    """Each corpus learns towards the mean of the other corpora's models
    (:mod:`ppi.learning.transfer`)."""

    def texts(self):
        """The sentence texts a run collects for the leak guard (filled by
        :func:`ppi.systems.inputs.featurize_corpora`)."""
        return {}

    def cv_inputs(self, system, corpus, data_dir, sources, leaky):
        """``(data, (g, info))``: the corpus featurized with the source corpora (default
        the other benchmark corpora) in one vocabulary, and the mean of their models'
        scores of its pairs (:func:`ppi.systems.inputs.source_models`)."""
        import logging
        import time

        from kernelrank.report import format_duration
        from ppi.names import CORPORA
        from ppi.systems.inputs import (check_no_leaky_transfer, featurize_corpora,
                                        source_models, transfer_source)

        check_no_leaky_transfer(leaky)
        names = [corpus] + [n for n in (sources or CORPORA) if n != corpus]
        texts = {}
        datasets, _ = featurize_corpora(names, system.settings, data_dir, texts)
        data = datasets[corpus]
        t1 = time.perf_counter()
        models = source_models(datasets, texts, system.settings, trains=names[1:],
                               tests=[corpus])
        source = transfer_source(models, corpus)
        source[1]["seconds"] = time.perf_counter() - t1
        logging.getLogger("ppi.experiments.runs").info(
            "source models for %s: %s (%s)", corpus, ", ".join(names[1:]),
            format_duration(source[1]["seconds"]))
        return data, source

    def cross(self, system, datasets, kernel_fn, texts):
        """The cross-corpus evaluation of the leak-guarded source models, with their
        scores (:func:`ppi.systems.inputs.source_models`)."""
        from ppi.systems.inputs import source_models

        return source_models(datasets, texts, system.settings)

    def benchmark_source(self, sources, name):
        """``(g, info)`` of ``name`` from the benchmark's cross-corpus models."""
        from ppi.systems.inputs import transfer_source

        return transfer_source(sources, name)

    def training_inputs(self, system, featurizer, target, corpus, data_dir, sources):
        """``(data, prior)``: the training corpus featurized with the sources
        (:func:`ppi.systems.inputs.source_prior`) and the :class:`TrainingPrior`."""
        from ppi.systems.inputs import source_prior

        data, g, parts, info = source_prior(system, featurizer, target, corpus, data_dir,
                                            sources)
        return data, TrainingPrior(g, parts, info)
