"""The parts a PPI system (:mod:`ppi.systems.base`) is composed of: how a candidate pair
becomes a feature row (its *representation*), the kernel the learner sees on those rows
(its *top kernel*) and whether the learner fits towards the other corpora's models (its
*source*, :mod:`ppi.systems.sources`).  Each part is chosen once, when the system is built
from its settings; the code that runs a system asks the part and never tests a flag.

* representations — :class:`AllPaths` (Paper V, Airola et al. 2008 §"Methods": the
  all-paths graph kernel on one parse; saved as model format version 3) and
  :class:`MultiView` (the sum of normalized view kernels,
  :class:`ppi.representation.views.MultiViewFeaturizer`; version 4, Gaussian version 5);
* top kernels — :class:`Linear` (``k`` itself) and :class:`Gaussian`
  (``exp(−γ‖φ(x) − φ(z)‖²)`` of the rows, :func:`learners.kernels.gaussian_of`);
* sources — :class:`~ppi.systems.sources.NoTransfer` and
  :class:`~ppi.systems.sources.Transfer` (``f = β g + h``, Tommasi et al. 2010 §3).

Importing this module imports no NumPy (``python -m ppi --help`` stays instant): every
method imports what it uses.
"""

from __future__ import annotations

__all__ = ["AllPaths", "MultiView", "Linear", "Gaussian"]

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


