"""What a PPI system is: :class:`Settings`, the options of a run (what the command line
says), and :class:`System`, the object that owns every behaviour the options decide —
its featurizer, the learner's input, the selection path and the saved-model class.

A system is composed of three parts (:mod:`ppi.systems.parts`), chosen once from its
settings in :meth:`System.__init__`: a representation (Paper V's all-paths view, or several
views summed), a top kernel (linear or Gaussian) and a source (none, or transfer from the
other benchmark corpora).  The code that runs a system (:mod:`ppi.experiments.runs`,
:mod:`ppi.systems.training`, :mod:`ppi.experiments.ablation`) asks the system and never tests a flag; a new
system is one module of :mod:`ppi.systems` — a subclass of :class:`System` with its name,
its option defaults and, where it differs, its own parts or methods.

Importing this module imports no NumPy (the command line's ``--help`` stays instant).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kernelrank.errors import InvalidParameterError
from ppi.names import DEFAULT_SPACY_MODEL, N_BASIS
from ppi.systems.parts import AllPaths, Gaussian, Linear, MultiView
from ppi.systems.sources import NoTransfer, Transfer

__all__ = ["Settings", "System"]


@dataclass(frozen=True)
class Settings:
    """Featurization and learner of a run (the command line's model options).

    ``config()`` is the configuration recorded in every report; :attr:`strategy` the
    :class:`System` that runs them.
    """

    variant: str = "max"
    parse: str = "split_parse"
    order: str = "pair"
    endpoints: str = "all"
    select_by: str = "f1"
    learner: str = "reduced_set"
    n_basis: int = N_BASIS
    seed: int = 0
    hash_features: int | None = None
    normalize: bool = True
    jobs: int = 1
    progress: bool = True

    views: tuple | None = None
    system: str | None = None
    #: None: the (sum of the views') kernel itself; γ > 0: its Gaussian
    #: (:func:`learners.kernels.gaussian_of`)
    gamma: float | None = None
    #: the λ grid of the nested selection; None: :data:`ppi.learning.evaluation.ALPHAS`
    alphas: tuple | None = None
    #: CV towards a source hypothesis trained on the other benchmark corpora
    #: (:mod:`ppi.learning.transfer`)
    transfer: bool = False
    #: whose tokens the ``bow`` and ``local`` views read (``spacy`` for the ``text`` system)
    bow_parse: str = "split_parse"
    #: the spaCy pipeline (installed name or folder) whose analyses the ``spacy`` parse
    #: holds; recorded in the model, whose extraction parses with it
    spacy_model: str = DEFAULT_SPACY_MODEL

    def __post_init__(self):
        if self.alphas is not None:
            import numpy as np

            a = np.asarray(self.alphas, dtype=float).ravel()
            if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
                raise InvalidParameterError(f"alphas {list(self.alphas)}: give one or more "
                                            "positive, finite regularization parameters")
            object.__setattr__(self, "alphas", tuple(float(x) for x in np.unique(a)))

    @property
    def alpha_grid(self):
        """The λ grid as an array (:data:`ppi.learning.evaluation.ALPHAS` when ``alphas`` is None)."""
        import numpy as np

        from ppi.learning.evaluation import ALPHAS

        return ALPHAS if self.alphas is None else np.asarray(self.alphas)

    @classmethod
    def for_system(cls, system=None, **options):
        """The settings of a named system (:data:`ppi.systems.SYSTEMS`; default
        :data:`ppi.names.DEFAULT_SYSTEM`), with every option that is not None overriding its
        defaults. The dataclass' own defaults are Paper V's."""
        from ppi.names import DEFAULT_SYSTEM
        from ppi.systems.registry import SYSTEMS

        system = system or DEFAULT_SYSTEM
        named = sorted(n for n, c in SYSTEMS.items() if c.chosen_by == "--system")
        if system not in named:
            raise InvalidParameterError(f"system={system!r}; choose one of {named}")
        values = dict(SYSTEMS[system].defaults)
        values.update({k: v for k, v in options.items() if v is not None})
        if values.get("views") is not None:
            values["views"] = tuple(values["views"])
        if values.get("gamma") == 0:
            values["gamma"] = None          # --gamma 0: the linear kernel itself
        return cls(system=system, **values)

    @functools.cached_property
    def strategy(self):
        """The :class:`System` of these settings (the registered class of ``system``;
        :class:`System` itself for settings without a name)."""
        from ppi.systems.registry import SYSTEMS

        return SYSTEMS.get(self.system, System)(self)

    def featurizer(self):
        """The system's unfitted featurizer (:meth:`System.featurizer`)."""
        return self.strategy.featurizer()

    def parses(self):
        """The canonical parse names the system's featurizer reads."""
        return self.strategy.parses()

    def config(self):
        """The configuration recorded in every report."""
        return {"system": self.system, "variant": self.variant, "parse": self.parse,
                "order": self.order,
                "endpoints": self.endpoints, "select_by": self.select_by,
                "views": list(self.views or (f"apg:{self.parse}",)),
                "learner": self.learner, "n_basis": self.n_basis, "seed": self.seed,
                "hash_features": self.hash_features, "gamma": self.gamma,
                "alphas": self.alpha_grid.tolist(), "transfer": self.transfer,
                "bow_parse": self.bow_parse, "spacy_model": self.spacy_model}


class System:
    """A PPI system: the behaviours its :class:`Settings` decide, owned by one object.

    Subclasses (one module each in :mod:`ppi.systems`) set :attr:`name`, :attr:`defaults`
    (the options the system fixes; :meth:`Settings.for_system` lets the command line
    override each) and :attr:`summary`, and may replace a part (:meth:`make_parts`) or a
    method.

    Parameters
    ----------
    settings : Settings
        The resolved options.

    Attributes
    ----------
    representation : AllPaths or MultiView
        The featurizer, the parses it reads, the saved-model classes
        (:mod:`ppi.systems.parts`).
    top : Linear or Gaussian
        The learner's input and the kernel between corpora.
    source : NoTransfer or Transfer
        What the learner fits towards.
    """

    #: the ``--system`` name (None: settings without a named system)
    name = None
    #: the options the system fixes, over :class:`Settings`' defaults (Paper V's)
    defaults = {}
    #: the abstracts with document-level relations ``ppi train`` chooses λ (and β) on by
    #: default (:mod:`ppi.systems.development`; a name of :data:`ppi.names.RELATION_SETS`), None:
    #: the inner leave-one-document-out criterion
    development_set = None
    #: whether half of the development abstracts (by document id) joins the training data —
    #: their document-level relations as single-instance mention-pair labels — and only the
    #: other half chooses λ and β (:func:`ppi.systems.development.development_halves`)
    trains_on_development = False
    #: one line on what the system is
    summary = ""
    #: the option that chooses the system on the command line
    chosen_by = "--system"
    #: the command-line options (argparse destinations) the system reads
    #: (:mod:`ppi.systems.options`); the others are refused when it is chosen
    options = ("system", "variant", "parse", "views", "order", "endpoints", "select_by",
               "learner", "n_basis", "gamma", "alphas", "spacy_model", "hash_features",
               "no_normalize", "select_on", "leaky", "transfer", "sources", "jobs")

    @classmethod
    def from_options(cls, args, default_system=None):
        """The :class:`Settings` of the command line's parsed ``args`` (the options of
        :attr:`options`): the system ``--system`` names, else ``default_system`` (e.g.
        ``ppi train``'s :data:`ppi.names.TRAIN_DEFAULT_SYSTEM`)."""
        return Settings.for_system(
            args.system or default_system, views=args.views, order=args.order,
            endpoints=args.endpoints, select_by=args.select_by, variant=args.variant,
            parse=args.parse, learner=args.learner, n_basis=N_BASIS if args.n_basis is None else args.n_basis, seed=args.seed,
            hash_features=args.hash_features, normalize=not args.no_normalize,
            gamma=args.gamma, alphas=args.alphas, jobs=getattr(args, "jobs", 1),
            progress=not args.quiet, transfer=getattr(args, "transfer", None),
            spacy_model=args.spacy_model)

    def __init__(self, settings):
        self.settings = settings
        self.representation, self.top, self.source = self.make_parts(settings)

    @property
    def cv_note(self):
        """What ``ppi cv`` (one corpus, inner selection per fold) does not do of what ``ppi
        train`` does with this system, for its reports; None when they are the same."""
        if self.development_set is None:
            return None
        return (f"Cross-validated on the corpus alone, λ chosen per fold by the inner "
                f"criterion: `ppi train --system {self.name}` also "
                + ("learns from half of the development abstracts "
                   f"({self.development_set}) and chooses λ and β on the other half"
                   if self.trains_on_development else
                   f"chooses λ and β on the development abstracts ({self.development_set})")
                + ", so its model is measured on other corpora instead (the results page, "
                  "'parser match': `python -m benchmarks.timings.bench_ppi_extract "
                  "model-shift`).")

    @staticmethod
    def make_parts(s):
        """``(representation, top kernel, source)`` of the settings ``s`` — the one place
        the options choose behaviour: Paper V's all-paths view when ``views`` is None or
        that one view, several views otherwise; the Gaussian top kernel with ``gamma``;
        transfer with ``transfer``."""
        single = s.views is None or tuple(s.views) == (f"apg:{s.parse}",)
        return ((AllPaths if single else MultiView)(s),
                Linear() if s.gamma is None else Gaussian(s.gamma),
                Transfer() if s.transfer else NoTransfer())

    @property
    def progress(self):
        """Whether progress bars are shown (passed to every call that draws one)."""
        return self.settings.progress

    # ------------------------------------------------------------------ representation
    def featurizer(self):
        """The unfitted featurizer of the pairs."""
        return self.representation.featurizer()

    def parses(self):
        """The canonical parse names the featurizer reads."""
        return self.representation.parses()

    def prepare_corpus(self, corpus):
        """``corpus`` with every analysis the system reads: the analyses of its spaCy
        pipeline (``settings.spacy_model``; :func:`ppi.parsing.spacy_analyses.add_spacy_analyses`,
        cached) added when it reads spaCy's parse or tokens; the corpus itself otherwise."""
        if self.representation.reads_spacy():
            from ppi.parsing.spacy_analyses import add_spacy_analyses

            add_spacy_analyses(corpus, self.settings.spacy_model)
        return corpus

    def spacy_identity(self):
        """The spaCy version and model the system's features depend on (None when it reads
        no spaCy analysis) — part of the source cache's key."""
        from ppi.parsing.spacy_analyses import spacy_identity

        if self.representation.reads_spacy():
            return spacy_identity(self.settings.spacy_model)
        return None

    # ------------------------------------------------------------------ learner input
    def learner_input(self, data):
        """What the learner trained on ``data`` takes (:func:`ppi.learning.evaluation.
        learner_input`): its kernel matrix (top kernel included), or its feature rows."""
        return self.top.learner_input(data, self.settings)

    def cross_input(self, data, train):
        """The input, for the pairs of ``data``, of the learner trained on ``train``:
        their kernel, or ``data``'s feature rows when ``train``'s learner takes rows."""
        from ppi.learning.evaluation import uses_feature_rows

        s = self.settings
        if uses_feature_rows(train, s.learner, s.n_basis):
            return data.X
        return self.top.kernel(data, train)

    def kernel_function(self, datasets, train_sets=None):
        """``kernel_fn(a, b)``: the input, for the pairs of ``datasets[a]``, of the learner
        trained on ``train_sets[b]`` (default ``datasets[b]``; :func:`ppi.learning.evaluation.
        learner_input`): the kernel between the two, or ``a``'s sparse feature rows when
        ``b``'s Gram matrix would be too large; for ``a == b`` the training set's own input.
        Nothing is cached: a corpus' own Gram matrix lives as long as its users (the
        cross-corpus selection; the CV and then the learning curve) and is recomputed by the
        next one, rather than held, O(m²), through the rest of the run."""
        train_sets = datasets if train_sets is None else train_sets

        def kernel_fn(a, b):
            if a == b:
                return self.learner_input(train_sets[b])
            return self.cross_input(datasets[a], train_sets[b])

        return kernel_fn

    def of_gram(self, K):
        """The top kernel of a Gram matrix of unit-norm rows (:mod:`ppi.experiments.ablation`)."""
        return self.top.of_gram(K)

    # ------------------------------------------------------------------ selection
    def select(self, K, data, prior=None):
        """(λ[, β], threshold) by leave-one-document-out on ``data`` (learner input ``K``;
        ``prior``: the transfer's source scores), :func:`ppi.learning.evaluation.select_parameters`.
        Returns ``(selection, choice)``."""
        from ppi.learning.evaluation import select_parameters

        s = self.settings
        return select_parameters(K, data.y, data.document_ids, s.alpha_grid, s.learner,
                                 s.n_basis, s.seed, s.select_by, prior=prior)

    def cross_validate(self, data, K, *, folds=10, leaky=False, prior=None, seed=None):
        """Document-level CV with nested selection (:func:`ppi.learning.evaluation.
        cross_validate`; ``seed``: the fold seed, default the settings')."""
        from ppi.learning.evaluation import cross_validate

        s = self.settings
        return cross_validate(data, K, n_folds=folds, alphas=s.alpha_grid,
                              learner=s.learner, n_basis=s.n_basis,
                              seed=s.seed if seed is None else seed, leaky=leaky,
                              jobs=s.jobs, select_by=s.select_by, prior=prior,
                              progress=self.progress)

    def cross_corpus(self, datasets, kernel_fn, **options):
        """Train on each corpus, test on the others (:func:`ppi.learning.evaluation.cross_corpus`;
        ``options``: its ``train_sets``, ``trains``, ``tests``, ``keep_scores``)."""
        from ppi.learning.evaluation import cross_corpus

        s = self.settings
        return cross_corpus(datasets, kernel_fn, alphas=s.alpha_grid, learner=s.learner,
                            n_basis=s.n_basis, seed=s.seed, jobs=s.jobs,
                            select_by=s.select_by, progress=self.progress, **options)

    def learning_curve(self, data, K, points):
        """AUC against training size (:func:`ppi.learning.evaluation.learning_curve`)."""
        from ppi.learning.evaluation import learning_curve

        s = self.settings
        return learning_curve(data, K, n_points=points, alphas=s.alpha_grid,
                              learner=s.learner, n_basis=s.n_basis, seed=s.seed,
                              select_by=s.select_by, progress=self.progress)

    # ------------------------------------------------------------------ saved model
    @property
    def model_class(self):
        """The :class:`ppi.models.classes.PPIModel` subclass ``ppi train`` saves (raises
        :class:`~kernelrank.errors.InvalidParameterError` when the system has none)."""
        return self.top.model_class(self.representation)
