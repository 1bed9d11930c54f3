"""Reports of the PPI experiments: our numbers beside Paper V's (Tables 1–5, Figure 3), as
JSON + Markdown + PNG plots (written atomically via :mod:`kernelrank.report`/:mod:`kernelrank.atomic`).
"""

from __future__ import annotations

import numpy as np

from kernelrank.atomic import save_figure
from kernelrank.report import markdown_images, markdown_table, pyplot, write_report
from ppi.names import CORPORA

#: Paper V Table 1 (fractions): graph kernel P, R, F, σF, AUC, σAUC; co-occurrence P, F.
PUBLISHED_CV = {
    "AIMed": dict(precision=.529, recall=.618, f1=.564, f1_std=.050, auc=.848, auc_std=.023,
                  cooc_precision=.178, cooc_f1=.301),
    "BioInfer": dict(precision=.567, recall=.672, f1=.613, f1_std=.052, auc=.819, auc_std=.049,
                     cooc_precision=.266, cooc_f1=.417),
    "HPRD50": dict(precision=.643, recall=.658, f1=.634, f1_std=.114, auc=.797, auc_std=.063,
                   cooc_precision=.389, cooc_f1=.554),
    "IEPA": dict(precision=.696, recall=.827, f1=.751, f1_std=.070, auc=.851, auc_std=.051,
                 cooc_precision=.408, cooc_f1=.576),
    "LLL": dict(precision=.725, recall=.872, f1=.768, f1_std=.178, auc=.834, auc_std=.122,
                cooc_precision=.559, cooc_f1=.703),
}


def _table(rows):
    """rows: train → [values in CORPORA order, None on the diagonal]."""
    return {tr: {te: v for te, v in zip(CORPORA, vals) if v is not None}
            for tr, vals in rows.items()}


#: Paper V Tables 2–5 (rows: training corpus, columns: test corpus).
PUBLISHED_CROSS = {
    "auc": _table({
        "AIMed": [None, .677, .824, .761, .778], "BioInfer": [.778, None, .752, .793, .833],
        "HPRD50": [.725, .618, None, .749, .640], "IEPA": [.702, .722, .800, None, .825],
        "LLL": [.618, .610, .694, .748, None]}),
    "f1_train_threshold": _table({
        "AIMed": [None, .249, .646, .229, .177], "BioInfer": [.442, None, .636, .645, .764],
        "HPRD50": [.409, .272, None, .563, .455], "IEPA": [.384, .470, .656, None, .770],
        "LLL": [.326, .422, .583, .639, None]}),
    "f1_oracle": _table({
        "AIMed": [None, .471, .690, .674, .745], "BioInfer": [.472, None, .639, .680, .780],
        "HPRD50": [.422, .425, None, .651, .679], "IEPA": [.391, .517, .675, None, .776],
        "LLL": [.333, .425, .598, .649, None]}),
    "f1_test_distribution": _table({
        "AIMed": [None, .447, .656, .639, .701], "BioInfer": [.426, None, .620, .669, .756],
        "HPRD50": [.391, .400, None, .633, .585], "IEPA": [.335, .484, .663, None, .774],
        "LLL": [.265, .387, .540, .630, None]}),
}

CROSS_TITLES = {
    "auc": "AUC (Table 2)",
    "f1_train_threshold": "F, threshold chosen on the training corpus (Table 3)",
    "f1_oracle": "F, oracle threshold (Table 4)",
    "f1_test_distribution": "F, threshold from the test corpus' positive fraction (Table 5)",
}


def _pct(x):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else 100.0 * float(x)


def cv_line(r):
    """``AIMed: F 56.3 AUC 85.3`` — the headline of a :func:`ppi.learning.evaluation.cross_validate`
    result."""
    return f"{r['corpus']}: F {100 * r['f1']:.1f} AUC {100 * r['auc']:.1f}"


def cross_line(res):
    """``cross-corpus: mean AUC 74.2 over 20 train/test pairs``."""
    aucs = [v for row in res["auc"].values() for v in row.values()]
    return f"cross-corpus: mean AUC {100 * np.mean(aucs):.1f} over {len(aucs)} train/test pairs"


def curve_line(curve):
    """``learning curve LLL: AUC 76.0 with 160 training pairs`` (the largest size)."""
    if not curve["points"]:
        return f"learning curve {curve['corpus']}: no point"
    p = curve["points"][-1]
    return (f"learning curve {curve['corpus']}: AUC {100 * p['auc']:.1f} with "
            f"{p['n_train']} training pairs")


def cv_markdown(results, config, plots=(), start=None):
    """Markdown for one or more :func:`ppi.learning.evaluation.cross_validate` results; ``plots``
    (PNG paths) are embedded, relative to ``start`` (the Markdown file's folder; default:
    the same folder)."""
    rows = []
    for r in results:
        pub = PUBLISHED_CV.get(r["corpus"], {})
        rows.append({"corpus": r["corpus"], "pairs": r["n_pairs"], "pos": r["n_positive"],
                     "P": _pct(r["precision"]), "R": _pct(r["recall"]), "F": _pct(r["f1"]),
                     "sF": _pct(r["f1_std"]), "AUC": _pct(r["auc"]), "sAUC": _pct(r["auc_std"]),
                     "pubF": _pct(pub.get("f1")), "pubAUC": _pct(pub.get("auc")),
                     "dF": _pct(r["f1"] - pub["f1"]) if pub else None,
                     "dAUC": _pct(r["auc"] - pub["auc"]) if pub else None,
                     "cP": _pct(r["cooccurrence"]["precision"]),
                     "cF": _pct(r["cooccurrence"]["f1"]), "pubcF": _pct(pub.get("cooc_f1")),
                     "s": r["seconds"]})
    cols = ["corpus", "pairs", "pos", "P", "R", "F", "sF", "AUC", "sAUC", "pubF", "pubAUC",
            "dF", "dAUC", "cP", "cF", "pubcF", "s"]
    heads = ["corpus", "pairs", "pos", "P %", "R %", "F %", "σF", "AUC %", "σAUC",
             "Paper V F", "Paper V AUC", "ΔF", "ΔAUC", "co-occ P", "co-occ F",
             "Paper V co-occ F", "seconds"]
    protocol = results[0]["protocol"] if results else ""
    md = ["# PPI extraction with the all-paths graph kernel: cross-validation", "",
          f"Protocol: {protocol}; {results[0]['n_folds'] if results else 10} folds; "
          "fold means, σ = population standard deviation over folds.", "",
          _config_line(config), "", markdown_table(rows, cols, heads, digits=1), "",
          "Paper V numbers: Table 1 (Airola et al. 2008). Fold assignment, chosen λ and "
          "thresholds per fold are in the JSON file.", "", *_transfer_lines(results),
          *markdown_images(plots, start)]
    return "\n".join(md)


def _transfer_lines(results):
    """What the source hypothesis of each transferred CV was (:mod:`ppi.learning.transfer`)."""
    lines = []
    for r in results:
        t = r.get("transfer")
        if t:
            betas = [f["beta"] for f in r["folds"]]
            sources = ", ".join(f"{s} ({t['source_pairs'][s]} pairs, λ {t['source_alpha'][s]:g}, "
                                f"AUC here {100 * t['source_auc'][s]:.1f})" for s in t["sources"])
            lines.append(f"- {r['corpus']}: towards the mean of the models of {sources}; "
                         f"β chosen per fold: {', '.join(f'{b:g}' for b in betas)}")
    return ["Transfer (f = β g + h, g the mean of the other corpora's models, each trained "
            "without the sentences it shares with another corpus; (λ, β) by inner "
            "leave-one-document-out AUC):", "", *lines, ""] if lines else []


def _config_line(config):
    return "Configuration: " + ", ".join(f"`{k}={v}`" for k, v in config.items())


def cross_markdown(res, config, plots=(), start=None):
    """The Markdown report of a cross-corpus run (Paper V Tables 2–5): AUC per training ×
    test corpus beside the published table, with the run's configuration and plots."""
    md = ["# PPI extraction: cross-corpus evaluation (Paper V Tables 2–5)", "",
          _config_line(config), "",
          "Rows: training corpus (λ and threshold by leave-one-document-out on it); "
          "columns: test corpus. Each cell: ours / Paper V.", ""]
    names = [c for c in CORPORA if c in res["auc"]] or list(res["auc"])
    for key, title in CROSS_TITLES.items():
        md += [f"## {title}", ""]
        rows = []
        for tr in names:
            row = {"train": tr}
            for te in names:
                if te == tr:
                    row[te] = "–"
                    continue
                ours = res[key][tr].get(te)
                pub = PUBLISHED_CROSS[key].get(tr, {}).get(te)
                row[te] = (f"{100 * ours:.1f} / {100 * pub:.1f}" if pub is not None
                           else f"{100 * ours:.1f}")
            rows.append(row)
        md += [markdown_table(rows, ["train"] + names), ""]
    diffs = [abs(res["auc"][tr][te] - PUBLISHED_CROSS["auc"][tr][te])
             for tr in names for te in names
             if te != tr and tr in PUBLISHED_CROSS["auc"] and te in PUBLISHED_CROSS["auc"][tr]]
    if diffs:
        md += [f"AUC: mean |ours − published| = {100 * np.mean(diffs):.1f} points, "
               f"max {100 * np.max(diffs):.1f}; {sum(d <= 0.03 for d in diffs)}/{len(diffs)} "
               "cells within 3 points.", ""]
    md += ["Selected parameters per training corpus:", "",
           markdown_table([{"train": tr, **res["selection"][tr]} for tr in names],
                          ["train", "n_train", "alpha", "threshold", "inner_f1"]), "",
           *_guard_lines(res),
           *markdown_images(plots, start)]
    return "\n".join(md)


def _guard_lines(res):
    """The transfer runs' leak guard: pairs left out of each training corpus."""
    dropped = res.get("dropped_pairs")
    if not dropped:
        return []
    return ["Training corpora without the sentences they share with another corpus (the "
            "source models of the transfer; pairs left out: "
            + ", ".join(f"{k} {v}" for k, v in dropped.items()) + ").", ""]


def curve_markdown(curves, config, plots=(), start=None):
    """The Markdown report of the learning curves (Paper V Figure 3): AUC against the
    number of training pairs per corpus, with the run's configuration and plots."""
    md = ["# PPI extraction: learning curves (Paper V Figure 3)", "", _config_line(config), "",
          "Test set: half of the document folds; training pairs drawn (whole documents, "
          "seeded order) from the other half; λ and threshold by leave-one-document-out on "
          "each training subset.", ""]
    for c in curves:
        md += [f"## {c['corpus']} (test pairs: {c['n_test']})", "",
               markdown_table(c["points"], ["n_train", "n_documents", "auc", "alpha"]), ""]
    return "\n".join(md + markdown_images(plots, start))


# ----------------------------------------------------------------------------- plots
def plot_cross_auc(res, path):
    """Heat map of the cross-corpus AUCs (rows: training corpus, columns: test corpus),
    saved as a PNG at ``path``."""
    plt = pyplot()
    names = [c for c in CORPORA if c in res["auc"]] or list(res["auc"])
    M = np.full((len(names), len(names)), np.nan)
    for i, tr in enumerate(names):
        for j, te in enumerate(names):
            if te != tr:
                M[i, j] = 100 * res["auc"][tr][te]
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    im = ax.imshow(M, cmap="viridis", vmin=50, vmax=90)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(M[i, j]):
                pub = PUBLISHED_CROSS["auc"].get(names[i], {}).get(names[j])
                txt = f"{M[i, j]:.1f}" + (f"\n({100 * pub:.1f})" if pub else "")
                ax.text(j, i, txt, ha="center", va="center", color="white", fontsize=7)
    ax.set_xticks(range(len(names)), names, rotation=30)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("test corpus")
    ax.set_ylabel("training corpus")
    ax.set_title("Cross-corpus AUC % (Paper V in parentheses)")
    fig.colorbar(im, ax=ax)
    save_figure(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_learning_curves(curves, path):
    """AUC against training pairs, one line per corpus, saved as a PNG at ``path``."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for c in curves:
        pts = c["points"]
        ax.plot([p["n_train"] for p in pts], [100 * p["auc"] for p in pts], "o-",
                label=c["corpus"])
    ax.set_xscale("log")
    ax.set_xlabel("training pairs")
    ax.set_ylabel("AUC %")
    ax.set_title("Learning curves (cf. Paper V Fig. 3)")
    ax.legend(fontsize=8)
    save_figure(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)


__all__ = ["PUBLISHED_CV", "PUBLISHED_CROSS", "cv_markdown", "cross_markdown",
           "curve_markdown", "cv_line", "cross_line", "curve_line", "plot_cross_auc",
           "plot_learning_curves", "write_report", "CORPORA"]
