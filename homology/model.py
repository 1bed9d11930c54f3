"""Train a homology detector on a user's own family and score new sequences with it.

``train``: positives and negatives (FASTA) → normalized kernel between the training
sequences → the class-balanced L2-SVM (default) or RLS on class-balanced targets, as in
:mod:`homology.benchmark` → λ chosen by the leave-one-out ROC area (or ROC50) on the
training data → model file.

Model file format (no pickle): one NumPy ``.npz`` archive (``np.load(allow_pickle=False)``)
with the arrays

* ``meta`` — a 0-d unicode array holding JSON: ``format`` ("kernelrank-homology-model"),
  ``version`` (3), ``kernel`` (CLI name), ``kernel_options`` (the keyword arguments of
  :func:`homology.benchmark.make_kernel`), ``learner`` ("l2svm" or "rls"), ``alpha``,
  ``selection`` ("roc" or "roc50"), ``loo_score`` (its best leave-one-out value),
  ``intercept``, ``n_positive``, ``n_negative`` and ``sha256``, the seal of the file's
  content (:func:`kernelrank.sealed.content_sha256`: the canonical JSON of the other
  fields, then every other array's name, dtype, shape and bytes);
* ``train_ids``, ``train_sequences`` — unicode arrays of the training sequences;
* ``dual_coef`` — float64, one coefficient per training sequence: the score of x is
  ``sum_i dual_coef[i] k(x, train_i) + intercept``;
* ``feature_mean``, ``feature_scale`` — the protein-feature standardization (present only
  when the kernel uses protein features).

The file is written and read by :mod:`kernelrank.sealed` (one sealed archive,
:func:`kernelrank.sealed.save_archive`), atomically, checked by
:func:`load_model` before it replaces anything (what is saved can be loaded), byte for byte
the same for the same model (:func:`kernelrank.atomic.save_npz`: a loaded model saves to the
same bytes), its JSON strict (no NaN). :func:`load_model` checks it whole before anything is
used: every archive member's CRC (a byte flip or a
truncation), the seal (an edited field or array, a member of another model), every field's
type and value (finite numbers, a known kernel and its options), and the arrays against
the metadata (one id, sequence and finite float64 coefficient per training sequence,
``n_positive + n_negative`` of them); any failure is a
:class:`~kernelrank.errors.CorpusFormatError` naming the file, an object array (which
``allow_pickle=False`` refuses) included. Version 2 files (no seal) and version 1 files (RLS
only, no intercept, ``loo_roc``) still load, with the same field and array checks.
"""

import math
from pathlib import Path

import numpy as np

from homology.benchmark import (DEFAULT_ALPHAS, L2SVM_ALPHAS, WeightGrid, full_gram, make_kernel,
                                select_alpha, select_kernel_alpha)
from homology.features import ProteinFeatures, residue_sequences
from homology.names import (FEATURE_GROUPS, FEATURE_KERNELS, KERNELS, LOCALITY_MODES,
                            PSD_FIXES, SELECTIONS, TRAIN_LEARNERS)
from learners.kernels import SumKernel
from kernelrank.errors import (CorpusFormatError, DataNotFoundError, InvalidInputError,
                               InvalidParameterError, UnsaveableError)
from kernelrank.sealed import NPZ_ERRORS, content_sha256  # noqa: F401 (this module's names too)
from kernelrank.sealed import NUMBER, SealedFormat, save_archive, typed

FORMAT, VERSION = "kernelrank-homology-model", 3
VERSIONS = (1, 2, 3)

def _feature_part(kernel):
    if isinstance(kernel, ProteinFeatures):
        return kernel
    if isinstance(kernel, SumKernel):
        for _, k in kernel.parts:
            if isinstance(k, ProteinFeatures):
                return k
    return None


def _check_informative(K, kernel_name):
    """Refuse a training Gram matrix with one value throughout: nothing to learn from."""
    if np.ptp(K) == 0:
        raise UnsaveableError(
            f"the {kernel_name} kernel is the same ({K.flat[0]:g}) between all {len(K)} "
            "training sequences (sequences shorter than its k-mers?): nothing tells the "
            "members from the others — give longer sequences or another kernel / --k")


def train_model(positives, negatives, kernel_name, kernel_options, alphas=None,
                learner="l2svm", select="roc"):
    """Fit a detector from lists of :class:`corpora.fasta.ProteinRecord`. Returns a dict
    (the content of the model file). ``alphas`` defaults to the learner's grid of
    :mod:`homology.benchmark`; a sum kernel with several weights has its weight chosen with
    λ (the file keeps the chosen one)."""
    if learner not in ("l2svm", "rls"):
        raise InvalidParameterError(f"learner must be 'l2svm' or 'rls', got {learner!r}")
    if len(positives) < 2 or len(negatives) < 2:
        raise InvalidInputError(
            f"need at least 2 positive and 2 negative sequences, got {len(positives)} and "
            f"{len(negatives)}")
    records = list(positives) + list(negatives)
    ids = [r.id for r in records]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise InvalidInputError(f"sequence ids occur twice in the training files: {dup[:5]}")
    seqs = residue_sequences([r.seq for r in records])
    negative_of = {s: i for i, s in zip(ids[len(positives):], seqs[len(positives):])}
    both = [(i, negative_of[s]) for i, s in zip(ids, seqs[:len(positives)]) if s in negative_of]
    if both:
        raise InvalidInputError(
            f"{len(both)} sequence(s) are both positives and negatives, e.g. {both[0][0]!r} "
            f"and {both[0][1]!r}: a sequence is a family member or not — remove it from one "
            "of the two files")
    y = np.r_[np.ones(len(positives)), -np.ones(len(negatives))]
    kernel = make_kernel(kernel_name, **kernel_options)
    if alphas is None:
        alphas = L2SVM_ALPHAS if learner == "l2svm" else DEFAULT_ALPHAS
    if isinstance(kernel, WeightGrid):     # the weight with λ, by leave-one-out
        grams = full_gram(kernel, seqs)
        blocks = grams.family_blocks(np.arange(len(seqs)), [])
        candidates = [c for c in blocks if np.ptp(c[1]) > 0]   # a constant sum is no choice
        if not candidates:
            _check_informative(blocks[0][1], kernel_name)      # raises
        k, sel = select_kernel_alpha(candidates, y, alphas, learner, select)
        weight = candidates[k][0]["weight"]
        kernel_options = {**kernel_options, "weight": weight}
        kernel = kernel.kernel(weight)
    else:
        K = kernel.fit_transform(seqs)
        _check_informative(K, kernel_name)
        sel = select_alpha(K, y, alphas, learner, select)
    alpha = sel.best_params["alpha"]
    if learner == "l2svm":
        (coef,), (intercept,) = sel.model.regularization_path([alpha])
    else:
        coef, intercept = sel.model.regularization_path([alpha])[0], 0.0
    out = {"meta": {"format": FORMAT, "version": VERSION, "kernel": kernel_name,
                    "kernel_options": kernel_options, "learner": learner, "alpha": alpha,
                    "selection": select, "loo_score": sel.best_score,
                    "intercept": float(intercept), "n_positive": len(positives),
                    "n_negative": len(negatives)},
           "train_ids": ids, "train_sequences": seqs, "dual_coef": coef}
    feats = _feature_part(kernel)
    if feats is not None:
        out["feature_mean"], out["feature_scale"] = feats.mean_, feats.scale_
    return out


def save_model(path, model):
    """Write ``model`` (as :func:`train_model` returns it) to the ``.npz`` file ``path``
    atomically, sealed by :func:`content_sha256`."""
    arrays = {"train_ids": np.array(model["train_ids"], dtype=str),
              "train_sequences": np.array(model["train_sequences"], dtype=str),
              "dual_coef": np.asarray(model["dual_coef"], dtype=np.float64)}
    for key in ("feature_mean", "feature_scale"):
        if key in model:
            arrays[key] = np.asarray(model[key], dtype=np.float64)
    # checked by the loader before it replaces anything; byte for byte reproducible
    save_archive(path, {**model["meta"], "version": VERSION}, arrays, validate=load_model)


def load_model(path):
    """The model saved at ``path`` (a dict as :func:`train_model` returns, ``meta`` a dict),
    checked whole (see the module docstring).

    Raises
    ------
    DataNotFoundError
        ``path`` does not exist.
    CorpusFormatError
        ``path`` is a directory, not a readable ``.npz`` archive, not a homology model, or
        damaged, altered or inconsistent (the message names the file and what is wrong).
    """
    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"homology model file {path} does not exist; train one with "
                                "`python -m homology train`")
    if path.is_dir():
        raise CorpusFormatError("is a directory, not a homology model file (.npz)", path=path)
    meta, arrays = SEALED.read_archive(path)     # every member's CRC: flips, truncation
    meta = _read_meta(path, meta, arrays)
    if meta["version"] == 1:  # RLS without intercept
        meta = {**meta, "learner": "rls", "intercept": 0.0, "selection": "roc",
                "loo_score": meta.get("loo_roc")}
    _check_arrays(path, meta, arrays)
    model = {k: v for k, v in arrays.items() if k != "meta"}
    model["meta"] = meta
    return model


# ------------------------------------------------------------------ checks on load
#: the sealed-file reader of the format (:mod:`kernelrank.sealed`)
SEALED = SealedFormat("kernelrank homology model", "python -m homology train")
_bad = SEALED.bad        # the error of a damaged or altered file: _bad(path, what)

_NUMBER = NUMBER
_FIELDS = {"kernel": str, "kernel_options": dict, "alpha": _NUMBER, "n_positive": int,
           "n_negative": int}
_FIELDS_V2 = {"learner": str, "selection": str, "intercept": _NUMBER}
#: kernel option → (type, test of the value, what it must be)
#: (the bounds of ``homology train``'s options: the kernel's work and memory grow with k, m
#: and the half-width, so a file claiming more is refused, not computed)
_OPTIONS = {
    "k": (int, lambda v: 1 <= v <= 14, "null or an integer in 1..14"),
    "m": (int, lambda v: 0 <= v <= 4, "null or an integer in 0..4"),
    "mode": (str, lambda v: v in LOCALITY_MODES, f"one of {LOCALITY_MODES}"),
    "half_width": (int, lambda v: 0 <= v <= 1000, "an integer in 0..1000"),
    "theta": (_NUMBER, lambda v: v > 0, "a positive number"),
    "groups": (list, lambda v: bool(v) and all(isinstance(g, str) and g in FEATURE_GROUPS
                                               for g in v) and len(set(v)) == len(v),
               f"a list of distinct groups from {FEATURE_GROUPS}"),
    "feature_kernel": (str, lambda v: v in FEATURE_KERNELS, f"one of {FEATURE_KERNELS}"),
    "gamma": (_NUMBER, lambda v: v > 0, "null or a positive number"),
    "weight": (_NUMBER, lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "beta": (_NUMBER, lambda v: v > 0, "a positive number"),
    "gap_open": (_NUMBER, lambda v: v >= 0, "a non-negative number"),
    "gap_extend": (_NUMBER, lambda v: v >= 0, "a non-negative number"),
    "psd": (str, lambda v: v in PSD_FIXES, f"one of {PSD_FIXES}"),
}


#: options whose null means the kernel's default (spectrum k=3, mismatch (5, 1), gamma 1/d)
_MAY_BE_NULL = ("k", "m", "gamma")


def _read_meta(path, meta, arrays):
    """The ``meta`` member with checked fields (the seal of version 3 too)."""
    version = meta.get("version")
    if meta.get("format") != FORMAT or isinstance(version, bool) or version not in VERSIONS:
        raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                f"{version!r} (expected {FORMAT} version 1, 2 or {VERSION})",
                                path=path)
    if version >= 3:
        SEALED.check_archive_seal(path, meta, arrays)
    SEALED.check_fields(path, meta, {**_FIELDS, **(_FIELDS_V2 if version >= 2 else {})})
    if meta["kernel"] not in KERNELS:
        raise _bad(path, f"unknown kernel {meta['kernel']!r}")
    if version >= 2 and meta["learner"] not in TRAIN_LEARNERS:
        raise _bad(path, f"unknown learner {meta['learner']!r}")
    if version >= 2 and meta["selection"] not in SELECTIONS:
        raise _bad(path, f"unknown selection {meta['selection']!r}")
    if meta["alpha"] <= 0 or meta["n_positive"] < 1 or meta["n_negative"] < 1:
        raise _bad(path, "alpha must be positive and n_positive, n_negative at least 1")
    if version >= 3:      # exactly the options the kernel takes (a default never stands in)
        from homology.runs import kernel_options
        expected = set(kernel_options(meta["kernel"]))
        if set(meta["kernel_options"]) != expected:
            raise _bad(path, f"kernel options {sorted(meta['kernel_options'])}, but kernel "
                             f"{meta['kernel']!r} takes {sorted(expected)}")
    for key, value in meta["kernel_options"].items():
        if key not in _OPTIONS:
            raise _bad(path, f"unknown kernel option {key!r}")
        kind, ok, what = _OPTIONS[key]
        if key in _MAY_BE_NULL and value is None:      # the kernel's default
            continue
        if not typed(value, kind) or not ok(value):
            raise _bad(path, f"kernel option {key!r} is {value!r}, not {what}")
    return meta


def _check_arrays(path, meta, arrays):
    """The arrays agree with ``meta``: one id, sequence and coefficient per training
    sequence, finite float64 coefficients, the feature standardization when present."""
    n = meta["n_positive"] + meta["n_negative"]
    for key in ("train_ids", "train_sequences", "dual_coef"):
        if key not in arrays:
            raise _bad(path, f"no array {key!r}")
    for key in ("train_ids", "train_sequences"):
        a = arrays[key]
        if a.dtype.kind != "U" or a.shape != (n,):
            raise _bad(path, f"array {key!r} is {a.dtype}{a.shape}, not {n} strings "
                             "(n_positive + n_negative)")
    if len(set(arrays["train_ids"].tolist())) != n:
        raise _bad(path, "array 'train_ids' holds an id twice")
    try:
        residue_sequences(arrays["train_sequences"].tolist())
    except InvalidInputError as exc:
        raise _bad(path, f"array 'train_sequences': {exc}") from None
    coef = arrays["dual_coef"]
    if coef.dtype != np.float64 or coef.shape != (n,):
        raise _bad(path, f"array 'dual_coef' is {coef.dtype}{coef.shape}, not {n} float64")
    if not np.isfinite(coef).all():
        raise _bad(path, "array 'dual_coef' holds non-finite values")
    if not math.isfinite(meta["intercept"]):
        raise _bad(path, "field 'intercept' is not finite")
    present = [k for k in ("feature_mean", "feature_scale") if k in arrays]
    if present:
        if len(present) != 2:
            raise _bad(path, "only one of 'feature_mean' and 'feature_scale'")
        m, sc = arrays["feature_mean"], arrays["feature_scale"]
        if (m.dtype != np.float64 or sc.dtype != np.float64 or m.ndim != 1
                or sc.shape != m.shape or not (np.isfinite(m).all() and np.isfinite(sc).all())):
            raise _bad(path, f"feature standardization arrays {m.dtype}{m.shape}, "
                             f"{sc.dtype}{sc.shape} are not two finite float64 vectors of "
                             "one length")
    if bool(present) != ("features" in meta["kernel"]):
        raise _bad(path, f"kernel {meta['kernel']!r} "
                         f"{'has no' if present else 'needs the'} feature standardization")
    extra = set(arrays) - {"meta", "train_ids", "train_sequences", "dual_coef",
                           "feature_mean", "feature_scale"}
    if extra:
        raise _bad(path, f"unknown arrays {sorted(extra)}")


def predict_scores(model, sequences):
    """Scores ``sum_i dual_coef[i] k(x, train_i) + intercept`` of ``sequences`` (higher =
    more likely a family member).

    The kernel is fitted on the stored training sequences again, which reproduces the
    protein-feature standardization kept in the file (``feature_mean``, ``feature_scale``).

    Cost per query sequence x: one kernel value per training sequence t — for the
    local-alignment kernel a dynamic programme of ``|x|·Σ|t|`` cells in all, plus, once per
    call, the training sequences' self-alignments (``Σ|t|²`` cells) — and with ``psd="ekm"``
    the whole training Gram matrix (m² alignments).
    """
    meta = model["meta"]
    try:
        kernel = make_kernel(meta["kernel"], **meta["kernel_options"])
    except TypeError as exc:                  # an option the kernel does not take
        raise CorpusFormatError(f"kernel options {meta['kernel_options']} do not fit kernel "
                                f"{meta['kernel']!r} ({exc})") from None
    train = [str(s) for s in model["train_sequences"]]
    K = kernel.fit(train).transform(residue_sequences(sequences))
    return K @ model["dual_coef"] + meta["intercept"]
