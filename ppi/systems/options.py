"""The command-line options the systems read, each declared once, and the per-system groups
``ppi train --help`` and ``ppi cv --help`` show.

Every option a system may read is one :class:`Option` of :data:`OPTIONS` (its flags, its
argparse keywords, the commands that have it).  A registered system declares the options it
reads (``options``, argparse destinations: :class:`ppi.systems.base.System` for the
mention-level systems, :class:`ppi.documents.system.DocumentSystem` for ``documents``); from
those declarations alone

* :func:`add_system_options` groups a command's options by the systems that read them —
  one group for what every system reads, one per set of systems that read the rest;
* :func:`system_class` is the system a parsed command line chose, and
  :func:`unread_options` lists the options it was given that the chosen system does not
  read (refused before any work, so nothing is silently left unread).

No hand table names again which system reads what.  Importing this module imports no NumPy.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from ppi.names import (CORPORA, DEFAULT_ENTITY_TYPES, DEFAULT_SPACY_MODEL, DEFAULT_SYSTEM,
                       DOCUMENT_N_BASIS, ENDPOINTS, LEARNERS, MIN_RELATIONS, N_BASIS, ORDERS,
                       PAIR_MODELS, PARSES, SELECT_BY, TRAIN_DEFAULT_SYSTEM, VARIANTS)
from ppi.systems.registry import SYSTEMS

__all__ = ["Option", "OPTIONS", "SYSTEM_COMMANDS", "systems_of", "selectable_systems",
           "add_system_options", "system_class", "unread_options"]


@dataclass(frozen=True)
class Option:
    """One command-line option a system may read.

    Parameters
    ----------
    flags : tuple of str
        Its flags; the first names it in messages.
    kwargs : dict
        ``argparse.add_argument`` keywords; a ``help`` that is a dict gives the help per
        command (key None: the others).
    commands : tuple of str or None
        The commands that have it (None: every command of :data:`SYSTEM_COMMANDS`).
    """

    flags: tuple
    kwargs: dict = field(default_factory=dict)
    commands: tuple | None = None

    @property
    def flag(self):
        """The flag that names the option in messages."""
        return self.flags[0]

    def help(self, command):
        """The help text on ``command``."""
        text = self.kwargs.get("help")
        if isinstance(text, dict):
            return text.get(command, text.get(None))
        return text


#: The commands that run a system: name → whether the documents system is one of their
#: roads (``--relations-from``).
SYSTEM_COMMANDS = {"cv": True, "train": True, "cross-corpus": False, "learning-curve": False,
                   "benchmark": False, "ablation": False}


def _transfer_help(what):
    return (f"{what} towards the models of the other benchmark corpora (each trained "
            "without the sentences it shares with another corpus; their mean g is the "
            "prior): f = beta g + h, lambda and beta chosen together inside each training "
            "part (beta = 0 refuses the sources). Default: the system's (multicorpus: on; "
            "--no-transfer turns it off)")


def _system_help():
    mention = selectable_systems("--system")
    others = [cls for cls in SYSTEMS.values() if cls.chosen_by != "--system"]
    return (f"every choice of this group at once (default {DEFAULT_SYSTEM}; `ppi train`: "
            f"{TRAIN_DEFAULT_SYSTEM}): "
            + "; ".join(f"{name} — {cls.summary}" for name, cls in mention.items())
            + ". The options of this group override it."
            + "".join(f" ({cls.name} — {cls.summary})" for cls in others))


#: Every option a system may read, argparse destination → :class:`Option`, in help order.
OPTIONS = {
    "system": Option(("--system",), {"default": None, "help": _system_help}),
    "variant": Option(("--variant",), {
        "choices": VARIANTS, "default": None,
        "help": "G = max_kl L W Lᵀ terms (errata, published; the default) or G = L W Lᵀ "
                "(paper)"}),
    "parse": Option(("--parse",), {
        "choices": PARSES, "default": None,
        "help": "dependency analysis to use (default split_parse; spacy: spaCy's parse of "
                "the sentences, added beside the file's two and cached)"}),
    "views": Option(("--views",), {
        "nargs": "+", "default": None, "metavar": "VIEW",
        "help": "views combined as a sum of normalized kernels: apg:PARSE (all-paths "
                "graph), bow (words before/between/after), path:PARSE (shortest-path "
                "walks), local (words, POS and shapes around each protein), pair (the two "
                "names: same, nested, overlapping); PARSE is split_parse, Charniak-Lease "
                "(the file's) or spacy (spaCy's parse, added and cached on first use)"}),
    "order": Option(("--order",), {
        "choices": ORDERS, "default": None,
        "help": "pair (paper-v; the published code): PROT1 = the pair's e1, position tags "
                "relative to e1/e2; text (multiview): PROT1 = first protein in the "
                "sentence, tokens between the proteins tagged 'middle'"}),
    "endpoints": Option(("--endpoints",), {
        "choices": ENDPOINTS, "default": None,
        "help": "shortest-path end points: all (both systems; the published code): every "
                "token of each protein; head: one head token per protein"}),
    "select_by": Option(("--select-by",), {
        "choices": SELECT_BY, "default": None,
        "help": "inner leave-one-document-out criterion of lambda: f1 (paper-v) or auc "
                "(multiview); the threshold is the best-F one at the chosen lambda"}),
    "learner": Option(("--learner",), {
        "choices": LEARNERS, "default": None,
        "help": "reduced_set (paper-v; Paper V's sparse RLS: ≤ --n-basis random basis "
                "vectors, identical to full RLS when the training set is not larger), rls "
                "(full-kernel RLS: one m×m eigendecomposition per fold) or auto (multiview: "
                "full RLS up to 6000 training pairs, reduced_set above)"}),
    "n_basis": Option(("--n-basis",), {
        "type": int, "default": None,
        "help": f"basis vectors of the reduced-set learner (default {N_BASIS} for the "
                f"--system systems — Paper V used at most 4000, same results within fold "
                f"noise at twice the cost; {DOCUMENT_N_BASIS} for --relations-from)"}),
    "gamma": Option(("--gamma",), {
        "type": float, "default": None, "metavar": "G",
        "help": "the Gaussian of the (summed views') kernel, exp(-G ||phi(x) - "
                "phi(z)||^2) on the unit-norm rows; 0: the linear kernel itself (paper-v's "
                "and multiview's default; multicorpus: 1). `ppi train` then saves a "
                "Gaussian multi-view model (format version 5: basis rows + coefficients)"}),
    "alphas": Option(("--alphas",), {
        "type": float, "nargs": "+", "default": None, "metavar": "A",
        "help": "the grid of the regularization parameter lambda the nested "
                "leave-one-document-out selection chooses from (default: 2^-10 … 2^10, "
                "powers of 2)"}),
    "spacy_model": Option(("--spacy-model",), {
        "default": DEFAULT_SPACY_MODEL, "metavar": "NAME_OR_DIR",
        "help": "spaCy pipeline (installed name or folder) whose parse of the corpus "
                "sentences the spacy views read (text system; --relations-from: of the "
                f"abstracts too); default {DEFAULT_SPACY_MODEL}. Recorded in the model: "
                "`ppi extract` parses raw text with the same pipeline"}),
    "hash_features": Option(("--hash-features",), {
        "type": int, "default": None, "metavar": "N",
        "help": "feature hashing into N columns instead of a fitted vocabulary"}),
    "no_normalize": Option(("--no-normalize",), {"action": "store_true",
                                                  "help": "do not unit-normalize"}),
    "select_on": Option(("--select-on",), {
        "metavar": "FILE", "default": None,
        "help": "choose lambda (and beta) by the document-level AUC of gene-pair candidates "
                "in FILE, abstracts with document-level relations (PubTator / BioC, or "
                "biored / biored-dev / bc6ppim in the data directory), instead of by the "
                "inner leave-one-document-out criterion on the training corpus: the choice "
                "for a model that scores other literature (module "
                "ppi.systems.development); the threshold stays the inner best-F one. The "
                "text system splits FILE's abstracts in two by document id: one half joins "
                "the training data (every mention pair of a related gene pair positive), "
                "the other chooses. inner: the inner criterion. Default: biored for the "
                "text system, inner for the others"}, commands=("train",)),
    "leaky": Option(("--leaky",), {
        "action": "store_true",
        "help": "LEAKY pair-level random folds (for comparison only, thesis §5.5)"},
        commands=("cv",)),
    "transfer": Option(("--transfer",), {
        "action": argparse.BooleanOptionalAction, "default": None,
        "help": {"train": _transfer_help("train"),
                 "cross-corpus": "train each corpus without the sentences it shares with "
                                 "another corpus (the transfer's source models; default: "
                                 "the system's — multicorpus: on)",
                 None: _transfer_help("cross-validate")}},
        commands=("cv", "train", "cross-corpus", "benchmark")),
    "sources": Option(("--sources",), {
        "nargs": "+", "choices": CORPORA, "default": None, "metavar": "NAME",
        "help": "with transfer: the corpora whose models are the prior (default: every "
                "other benchmark corpus)"}, commands=("cv", "train")),
    "relations_format": Option(("--relations-format",), {
        "choices": ("pubtator", "bioc-xml", "bioc-json"), "default": None,
        "help": "format of --relations-from (default: from the file name or root "
                "element)"}),
    "pairs": Option(("--pairs",), {
        "nargs": "+", "default": None, "metavar": "A:B",
        "help": "the entity-pair types to relate, each two mention types joined by ':' "
                "(e.g. ChemicalEntity:GeneOrGeneProduct GeneOrGeneProduct:GeneOrGeneProduct), "
                "or all — every pair type the training file relates (at least "
                f"{MIN_RELATIONS} relations; the default unless --entity-types is given). The "
                "model scores every pair of those types with a relation type and, where the "
                "file marks it (BioRED's Novel / No), novelty"}),
    "pair_model": Option(("--pair-model",), {
        "choices": PAIR_MODELS, "default": None,
        "help": "with --pairs: one mention-pair model per pair type (separate; default) or "
                "one over all pair types with shared and pair-type specific weights (shared, "
                "feature augmentation)"}),
    "entity_types": Option(("--entity-types",), {
        "nargs": "+", "default": None, "metavar": "TYPE",
        "help": "instead of --pairs: one set of mention types whose concepts are paired "
                "with each other as one untyped task (e.g. "
                f"{' '.join(DEFAULT_ENTITY_TYPES)} — genes and gene products)"}),
    "relation_types": Option(("--relation-types",), {
        "nargs": "+", "default": None, "metavar": "TYPE",
        "help": "relation types that make a pair related, e.g. Bind (default: any type of "
                "the file; ignoring case)"}),
    "instances": Option(("--instances",), {
        "choices": ("sil", "mi"), "default": None,
        "help": "labels of a related pair's mention pairs: sil — all positive "
                "(single-instance learning, default); mi — re-assigned by the model (mi-RLS, "
                "Andrews et al. 2003; not with --transfer)"}),
    "no_document_stage": Option(("--no-document-stage",), {
        "action": "store_true",
        "help": "score a gene pair by the maximum of its mention pairs only (no "
                "document-level features; pairs that never share a sentence stay "
                "unscored)"}),
    "stage_search": Option(("--stage-search",), {
        "action": "store_true",
        "help": "choose the document stage's λ and γ by leave-one-document-out AUC over a "
                "grid (default: the pair chosen that way on BioRED's training abstracts, "
                "better below a few hundred abstracts)"}),
    "skip_bad": Option(("--skip-bad",), {
        "action": "store_true",
        "help": "skip malformed records of --relations-from (counted)"}),
}


def selectable_systems(option):
    """The registered systems chosen by ``option`` (``"--system"``, ``"--relations-from"``),
    name → class, in registry order."""
    return {name: cls for name, cls in SYSTEMS.items() if cls.chosen_by == option}


def systems_of(command):
    """The registered systems ``command`` can run, name → class: every one on a command with
    the documents road (:data:`SYSTEM_COMMANDS`), else those ``--system`` chooses."""
    return dict(SYSTEMS) if SYSTEM_COMMANDS[command] else selectable_systems("--system")


def _group_title(readers, systems):
    if set(readers) == set(systems):
        return "features and learner" + (" (every system)" if len(systems) > 1 and
                                         len({c.chosen_by for c in systems.values()}) > 1
                                         else "")
    chosen = {systems[name].chosen_by for name in readers}
    if len(readers) == 1:
        (name,) = readers
        return f"{name} system (with {systems[name].chosen_by})"
    return f"{', '.join(readers)} systems" + (f" (with {chosen.pop()})" if len(chosen) == 1
                                               else "")


def add_system_options(parser, command):
    """Add to ``parser`` the options the systems of ``command`` read (:func:`systems_of`),
    one argument group per set of systems that read them (the group of what every system
    reads first); returns the groups, title → group."""
    systems = systems_of(command)
    by_readers = {}
    for dest, option in OPTIONS.items():
        if option.commands is not None and command not in option.commands:
            continue
        readers = tuple(name for name, cls in systems.items() if dest in cls.options)
        if readers:
            by_readers.setdefault(readers, []).append((dest, option))
    order = sorted(by_readers, key=lambda r: -len(r))       # the widest group first
    groups = {}
    for readers in order:
        title = _group_title(readers, systems)
        g = groups[title] = parser.add_argument_group(title)
        for dest, option in by_readers[readers]:
            kwargs = dict(option.kwargs, help=option.help(command))
            if callable(kwargs["help"]):
                kwargs["help"] = kwargs["help"]()
            if dest == "system":
                kwargs["choices"] = sorted(selectable_systems("--system"))
            g.add_argument(*option.flags, dest=dest, **kwargs)
    return groups


def system_class(args, default_system=None):
    """The registered class of the system the parsed ``args`` chose: the one whose choosing
    option (``chosen_by``) other than ``--system`` was given (``--relations-from`` →
    ``documents``), else ``--system`` (default ``default_system``, else
    :data:`ppi.names.DEFAULT_SYSTEM`)."""
    for cls in SYSTEMS.values():
        if cls.chosen_by != "--system" and \
                getattr(args, cls.chosen_by.lstrip("-").replace("-", "_"), None):
            return cls
    return SYSTEMS[getattr(args, "system", None) or default_system or DEFAULT_SYSTEM]


def unread_options(args, cls):
    """The flags of the options in ``args`` that the system class ``cls`` does not read
    (given: not None and not False; ``--n-basis`` and ``--spacy-model`` have defaults, so
    they count as given only when they differ from them), in :data:`OPTIONS` order."""
    given = []
    for dest, option in OPTIONS.items():
        if dest in cls.options or not hasattr(args, dest):
            continue
        value = getattr(args, dest)
        if value not in (None, False) and value != option.kwargs.get("default"):
            given.append(option.flag)
    return given
