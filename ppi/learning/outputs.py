"""The per-pair outputs of an evaluation, for any system: the predictions table
(``predictions.tsv``) and the pooled out-of-fold ROC curve (``roc.png``), both written
atomically (:mod:`kernelrank.atomic`).

Cost: O(pairs) for the table; O(pairs log pairs) per curve for the ROC.
"""

from __future__ import annotations

from kernelrank.atomic import save_figure, write_text
from kernelrank.report import pyplot
from learners.measures import roc_curve

__all__ = ["write_predictions", "plot_roc"]


def write_predictions(path, data, scores, fold=None):
    """``predictions.tsv``: pair id, document id, fold, gold label, score (atomically)."""
    lines = ["pair_id\tdocument_id\tfold\tlabel\tscore"]
    for i in range(len(data)):
        f = "" if fold is None else str(int(fold[i]))
        lines.append(f"{data.pair_ids[i]}\t{data.document_ids[i]}\t{f}\t"
                     f"{int(data.y[i] > 0)}\t{scores[i]:.6g}")
    write_text(path, "\n".join(lines) + "\n")


def plot_roc(results, path):
    """Pooled out-of-fold ROC curve per corpus (the AUC we report is the fold mean)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 5))
    for r in results:
        fpr, tpr = roc_curve(r["y"], r["scores"])[:2]
        ax.plot(fpr, tpr, label=f"{r['corpus']} (mean AUC {100 * r['auc']:.1f})")
    ax.plot([0, 1], [0, 1], ":", color="grey")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("All-paths kernel, out-of-fold ROC (pooled)")
    ax.legend(loc="lower right", fontsize=8)
    save_figure(fig, path, dpi=110, bbox_inches="tight")
    plt.close(fig)


