"""Train a homology detector on a user's own family and score new sequences with it.

``train``: positives and negatives (FASTA) → normalized kernel between the training
sequences → the class-balanced L2-SVM (default) or RLS on class-balanced targets, as in
:mod:`homology.benchmark` → λ chosen by the leave-one-out ROC area (or ROC50) on the
training data → model file.

Model file format (no pickle): one NumPy ``.npz`` archive (``np.load(allow_pickle=False)``)
with the arrays

* ``meta`` — a 0-d unicode array holding JSON: ``format`` ("kernelrank-homology-model"),
  ``version`` (2), ``kernel`` (CLI name), ``kernel_options`` (the keyword arguments of
  :func:`homology.benchmark.make_kernel`), ``learner`` ("l2svm" or "rls"), ``alpha``,
  ``selection`` ("roc" or "roc50"), ``loo_score`` (its best leave-one-out value),
  ``intercept``, ``n_positive``, ``n_negative``;
* ``train_ids``, ``train_sequences`` — unicode arrays of the training sequences;
* ``dual_coef`` — float64, one coefficient per training sequence: the score of x is
  ``sum_i dual_coef[i] k(x, train_i) + intercept``;
* ``feature_mean``, ``feature_scale`` — the protein-feature standardization (present only
  when the kernel uses protein features).

Version 1 files (RLS only, no intercept, ``loo_roc``) still load.
"""

import json

import numpy as np

from kernelrank.atomic import atomic_open
from homology.benchmark import DEFAULT_ALPHAS, L2SVM_ALPHAS, make_kernel, select_alpha
from homology.features import ProteinFeatures, residue_sequences
from learners.kernels import SumKernel
from kernelrank.errors import CorpusFormatError, InvalidInputError, InvalidParameterError

FORMAT, VERSION = "kernelrank-homology-model", 2


def _feature_part(kernel):
    if isinstance(kernel, ProteinFeatures):
        return kernel
    if isinstance(kernel, SumKernel):
        for _, k in kernel.parts:
            if isinstance(k, ProteinFeatures):
                return k
    return None


def train_model(positives, negatives, kernel_name, kernel_options, alphas=None,
                learner="l2svm", select="roc"):
    """Fit a detector from lists of :class:`corpora.fasta.ProteinRecord`. Returns a dict
    (the content of the model file). ``alphas`` defaults to the learner's grid of
    :mod:`homology.benchmark`."""
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
    y = np.r_[np.ones(len(positives)), -np.ones(len(negatives))]
    kernel = make_kernel(kernel_name, **kernel_options)
    K = kernel.fit_transform(seqs)
    if alphas is None:
        alphas = L2SVM_ALPHAS if learner == "l2svm" else DEFAULT_ALPHAS
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
    arrays = {"meta": np.array(json.dumps(model["meta"])),
              "train_ids": np.array(model["train_ids"], dtype=str),
              "train_sequences": np.array(model["train_sequences"], dtype=str),
              "dual_coef": np.asarray(model["dual_coef"], dtype=np.float64)}
    for key in ("feature_mean", "feature_scale"):
        if key in model:
            arrays[key] = np.asarray(model[key], dtype=np.float64)
    with atomic_open(path, "wb") as handle:
        np.savez(handle, **arrays)


def load_model(path):
    try:
        with np.load(path, allow_pickle=False) as data:
            model = {k: data[k] for k in data.files}
        meta = json.loads(str(model["meta"]))
    except (OSError, ValueError, KeyError) as exc:
        raise CorpusFormatError(f"not a kernelrank homology model ({exc})", path=path) from None
    if meta.get("format") != FORMAT or meta.get("version") not in (1, VERSION):
        raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                f"{meta.get('version')!r}", path=path)
    if meta["version"] == 1:  # RLS without intercept
        meta = {**meta, "learner": "rls", "intercept": 0.0, "selection": "roc",
                "loo_score": meta.get("loo_roc")}
    model["meta"] = meta
    return model


def predict_scores(model, sequences):
    """Scores ``sum_i dual_coef[i] k(x, train_i) + intercept`` of ``sequences`` (higher =
    more likely a family member).

    The kernel is fitted on the stored training sequences again, which reproduces the
    protein-feature standardization kept in the file (``feature_mean``, ``feature_scale``).
    """
    meta = model["meta"]
    kernel = make_kernel(meta["kernel"], **meta["kernel_options"])
    train = [str(s) for s in model["train_sequences"]]
    K = kernel.fit(train).transform(residue_sequences(sequences))
    return K @ model["dual_coef"] + meta["intercept"]
