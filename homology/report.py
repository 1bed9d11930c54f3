"""Markdown reports and PNG plots for the SCOP benchmark (per-family table, published means,
cumulative "number of families with ROC50 >= x" curves)."""

from pathlib import Path

import numpy as np

from kernelrank.atomic import save_figure
from homology.benchmark import PUBLISHED
from kernelrank.report import markdown_images, markdown_table, pyplot


def describe(results):
    """Short label such as ``mismatch k=5 m=1 / rls`` (``results["label"]`` when given)."""
    if "label" in results:
        return results["label"]
    params = results.get("params", {})
    if "weights" in params:
        first, second = (p["kernel"] for p in params["parts"])
        grid = ",".join(f"{w:g}" for w in params["weights"])
        return (f"{results['kernel']} ((1-w)·{first} + w·{second}, w∈{{{grid}}} per family) "
                f"/ {results['learner']}")
    if "parts" in params:
        inner = " + ".join(f"{p['weight']:g}·{p['kernel']}" for p in params["parts"])
        return f"{results['kernel']} ({inner}) / {results['learner']}"
    keys = [k for k in ("k", "m", "mode", "half_width", "theta", "kernel", "beta", "psd")
            if k in params]
    extra = " ".join(f"{k}={params[k]}" for k in keys)
    return f"{results['kernel']} {extra} / {results['learner']}".replace("  ", " ")


def comparison_rows(results_list):
    """One table row per kernel run (mean ROC / ROC50, families, seconds), then the published
    systems' rows, for the benchmark's comparison table."""
    rows = [{"method": f"{describe(r)} (ours)", "roc": r["mean_roc"], "roc50": r["mean_roc50"],
             "n": r["n_families"],
             "seconds": (None if r["seconds"]["gram"] is None
                         else r["seconds"]["gram"] + r["seconds"]["families"])}
            for r in results_list]
    rows += [{"method": f"{name} (published)", "roc": v["roc"], "roc50": v["roc50"], "n": 54}
             for name, v in PUBLISHED.items()]
    return rows


def cumulative_plot(results_list, path, measure="roc50"):
    """Number of families with ``measure >= x`` against x, one curve per result."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for r in results_list:
        values = np.sort([f[measure] for f in r["families"]])
        # just above values[i], len - 1 - i families have measure >= x
        xs = np.concatenate([[0.0], values, [1.0]])
        ys = np.concatenate([[len(values)], len(values) - 1 - np.arange(len(values)), [0]])
        ax.step(xs, ys, where="post", label=describe(r))
    ax.set_xlabel(measure.upper() if measure == "roc" else "ROC50")
    ax.set_ylabel(f"number of families with {measure.upper()} ≥ x")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, max(len(r["families"]) for r in results_list) + 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
    return Path(path)


def scop_markdown(results, plots=()):
    """Markdown report of one kernel: means next to the published ones, per-family table."""
    roc50_sel = "loo_roc50" in results["families"][0]
    loo_key = "loo_roc50" if roc50_sel else "loo_roc"
    loo_title = "LOO ROC50 (train)" if roc50_sel else "LOO ROC (train)"
    weighted = "weight" in results["families"][0]           # chosen per family
    lines = [f"# SCOP 1.53 remote homology: {describe(results)}", "",
             f"Families: {results['n_families']}. Learner: `{results['learner']}` "
             f"(targets: {results.get('targets')}). λ grid: {len(results['alphas'])} values "
             f"2^{np.log2(results['alphas'][0]):.0f}..2^{np.log2(results['alphas'][-1]):.0f}, "
             f"selected by {results['selection']}.",
             f"Time: Gram matrix {results['seconds']['gram']} s, families "
             f"{results['seconds']['families']} s (wall clock on a shared machine).", "",
             "## Means over families", "",
             markdown_table(comparison_rows([results]), ["method", "roc", "roc50", "n"],
                            ["method", "mean ROC", "mean ROC50", "families"]), ""]
    lines += markdown_images(plots)
    lines += ["## Per family", "",
              "Published per-family values are not reproduced here (only the means above).",
              "",
              markdown_table(results["families"],
                             ["family", "roc", "roc50", "alpha", *(["weight"] * weighted),
                              loo_key, "n_train", "n_test"],
                             ["family", "ROC", "ROC50", "λ", *(["w"] * weighted), loo_title,
                              "train +/-", "test +/-"])]
    return "\n".join(lines) + "\n"


def paired_rows(results_list, baseline=0):
    """Per-family paired comparison of each result with ``results_list[baseline]`` on their
    common families: wins/losses in ROC and ROC50 and the two-sided Wilcoxon signed-rank
    p-value (``scipy.stats.wilcoxon``; None when all differences are zero)."""
    from scipy.stats import wilcoxon

    base = {f["family"]: f for f in results_list[baseline]["families"]}
    rows = []
    for i, r in enumerate(results_list):
        if i == baseline:
            continue
        common = [f for f in r["families"] if f["family"] in base]
        row = {"method": describe(r), "baseline": describe(results_list[baseline]),
               "n": len(common)}
        for key in ("roc", "roc50"):
            d = np.array([f[key] - base[f["family"]][key] for f in common])
            row[f"{key}_mean_diff"] = float(d.mean()) if len(d) else None
            row[f"{key}_wins"] = f"{int((d > 0).sum())}/{int((d < 0).sum())}"
            row[f"{key}_p"] = (f"{wilcoxon(d).pvalue:.2g}" if np.any(d != 0) and len(d) > 1
                               else None)
        rows.append(row)
    return rows


def benchmark_markdown(results_list, plots=()):
    """The Markdown report of ``homology benchmark``: the comparison table of every kernel
    with the published systems, paired wins / losses per family, and the plots."""
    lines = ["# SCOP 1.53 remote homology: kernel comparison", "",
             "Mean ROC area and ROC50 over the families; λ chosen on each family's training "
             "part only (" + "; ".join(sorted({r["selection"] for r in results_list}))
             + "). Published rows: SVM results from the literature on the same 54 "
             "families.", "",
             markdown_table(comparison_rows(results_list),
                            ["method", "roc", "roc50", "n", "seconds"],
                            ["method", "mean ROC", "mean ROC50", "families", "time (s)"]), ""]
    if len(results_list) > 1:
        lines += [f"Paired per-family comparison with {describe(results_list[0])} "
                  "(wins/losses; two-sided Wilcoxon signed-rank p-value):", "",
                  markdown_table(paired_rows(results_list),
                                 ["method", "n", "roc_mean_diff", "roc_wins", "roc_p",
                                  "roc50_mean_diff", "roc50_wins", "roc50_p"],
                                 ["method", "families", "Δ ROC", "ROC wins/losses", "p",
                                  "Δ ROC50", "ROC50 wins/losses", "p"]), ""]
    lines += markdown_images(plots)
    return "\n".join(lines) + "\n"
