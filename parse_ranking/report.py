"""Reports of parse ranking cross-validation: ``results.json``, ``results.md`` (embedding
``results.png``); and of the timing benchmark.

The Markdown table has one row per ranker (Kendall τ_b, disagreement error, F of the
top-ranked parse, oracle F, λ per fold) and states the published pattern being checked
(Paper I Table 2: RankRLS below RLS and below the parser's order in disagreement error;
Tsivtsivadze et al. 2005: τ_b 0.18 → 0.42 over the LG heuristics on BioInfer).
"""

import os
from pathlib import Path

from kernelrank.atomic import save_figure
from kernelrank.report import markdown_image, markdown_table, pyplot, write_report

__all__ = ["results_rows", "ranker_lines", "write_cv_report", "write_benchmark_report"]


def results_rows(results):
    """One table row per ranker, sorted by decreasing Kendall τ_b (skipped ones last)."""
    rows = []
    for name, res in results["rankers"].items():
        if "skipped" in res:
            rows.append({"ranker": name, "note": "skipped: " + "; ".join(
                s for s in res["skipped"] if s)})
            continue
        info = res.get("fold_info") or []
        params = [str(i.get("alpha", i.get("n_components", ""))) +
                  (f"/μ {i['mu']:g}" if "mu" in i else "") for i in info]
        rows.append({"ranker": name, "kendall_tau_b": res["kendall_tau_b"],
                     "disagreement": res["disagreement"], "top1_f": res["top1_f"],
                     "oracle_f": res["oracle_f"], "lg_first_f": res["lg_first_f"],
                     "note": ("λ/p per fold: " + ", ".join(params)) if params else ""})
    rows.sort(key=lambda r: -r.get("kendall_tau_b", float("-inf")))
    return rows


def _claims(results):
    """Checks of the published pattern on these numbers (strings)."""
    rk = results["rankers"]
    out = []
    lg = rk.get("lg", {})
    for name, res in rk.items():
        if name == "lg" or "skipped" in res or res.get("noise"):
            continue
        if lg:
            out.append(f"- {name}: τ_b {res['kendall_tau_b']:.3f} vs LG {lg['kendall_tau_b']:.3f}"
                       f" ({'above' if res['kendall_tau_b'] > lg['kendall_tau_b'] else 'NOT above'}"
                       " the parser's order)")
    for kernel in {res.get("kernel") for res in rk.values() if res.get("kernel")}:
        a, b = rk.get(f"rankrls[{kernel}]"), rk.get(f"rls[{kernel}]")
        if a and b and "skipped" not in a and "skipped" not in b:
            ok = a["disagreement"] <= b["disagreement"]
            out.append(f"- RankRLS vs RLS [{kernel}]: disagreement {a['disagreement']:.3f} vs "
                       f"{b['disagreement']:.3f} ({'RankRLS ≤ RLS' if ok else 'RankRLS > RLS'})")
    for name, res in rk.items():
        if res.get("ranker") != "corankrls" or "skipped" in res or res.get("noise"):
            continue
        for view in res["kernel"].split("+"):
            b = rk.get(f"rankrls[{view}]")
            if b and "skipped" not in b:
                out.append(f"- {name} vs rankrls[{view}]: τ_b {res['kendall_tau_b']:.3f} vs "
                           f"{b['kendall_tau_b']:.3f}, disagreement {res['disagreement']:.3f}"
                           f" vs {b['disagreement']:.3f}")
    a, b = rk.get("rankrls[locality]"), rk.get("rankrls[bag_of_links]")
    if a and b and "skipped" not in a and "skipped" not in b:
        out.append(f"- locality vs bag of links (RankRLS): τ_b {a['kendall_tau_b']:.3f} vs "
                   f"{b['kendall_tau_b']:.3f}")
    return out


def _plot(results, path):
    plt = pyplot()

    rows = [r for r in results_rows(results) if "kendall_tau_b" in r]
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.35 * len(rows) + 1.8), sharey=True)
    names = [r["ranker"] for r in rows][::-1]
    axes[0].barh(names, [r["kendall_tau_b"] for r in rows][::-1], color="tab:blue")
    axes[0].set_xlabel("Kendall τ_b (mean over sentences)")
    axes[1].barh(names, [r["top1_f"] for r in rows][::-1], color="tab:green",
                 label="top-ranked parse")
    if rows:
        axes[1].axvline(rows[0]["oracle_f"], color="k", ls="--", label="oracle")
        axes[1].axvline(rows[0]["lg_first_f"], color="tab:red", ls=":", label="LG first")
        lo = min(min(r["top1_f"] for r in rows), rows[0]["lg_first_f"]) - 0.02
        axes[1].set_xlim(lo, rows[0]["oracle_f"] + 0.01)
    axes[1].set_xlabel("gold F of the chosen parse")
    axes[1].legend(loc="lower right", fontsize=8)
    fig.suptitle("Parse ranking on CRAFT (article-level CV)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def _coreg_sentence(d):
    parts = []
    if d.get("labelled_fraction", 1.0) < 1.0:
        parts.append(f" Every ranker saw the scores of {d['labelled_fraction']:g} of the "
                     "training sentences (seeded per fold).")
    co = d.get("corankrls")
    if co:
        unl = ["the training sentences' parses beyond the first "
               f"{d['max_parses']}"] if co.get("extra_parses") else []
        if d.get("labelled_fraction", 1.0) < 1.0:
            unl.append("the hidden training sentences' parses")
        parts.append(
            f" corankrls: views {' + '.join(co['views'])} (linear kernels), basis r = "
            f"{co['n_basis']}, unlabelled = {' and '.join(unl) or 'none'} (never the test "
            f"fold); (α, μ) by inner {co['n_inner']}-fold article-level CV over α ∈ "
            f"{{{', '.join(f'{a:g}' for a in co['alphas'])}}}, μ ∈ "
            f"{{{', '.join(f'{m:g}' for m in co['mus'])}}}.")
    return "".join(parts)


def ranker_lines(results):
    """One line per ranker: τ_b, disagreement, top-1 F and oracle F (or "skipped")."""
    lines = []
    for name, res in results["rankers"].items():
        if "kendall_tau_b" not in res:
            lines.append(f"{name:32s} skipped")
            continue
        lines.append(f"{name:32s} tau_b {res['kendall_tau_b']:.3f}  disagreement "
                     f"{res['disagreement']:.3f}  top1 F {res['top1_f']:.3f}  oracle F "
                     f"{res['oracle_f']:.3f}")
    return lines


def write_cv_report(output_dir, results, command=None):
    """Write ``results.json``, ``results.md`` and the ``results.png`` it embeds into
    ``output_dir``; returns the three paths."""
    output_dir = Path(output_dir)
    plot = output_dir / "results.png"
    _plot(results, plot)
    rows = results_rows(results)
    d = results["data"]
    command = command or d.get("command")
    md = ["# Parse ranking: Link Grammar parses of CRAFT sentences", ""]
    if command:
        md += ["Command:", "", "```", command, "```", ""]
    md += [f"{d['sentences']} sentences ({d['parses']} parses, ≤ {d['max_parses']} per "
           f"sentence) from {d['articles']} articles; {d['folds']}-fold article-level CV; "
           f"λ by inner leave-query-out over {len(d['alphas'])} values "
           f"({min(d['alphas']):g}…{max(d['alphas']):g}); seed {d['seed']}."
           + _coreg_sentence(d), "",
           markdown_table(rows, ["ranker", "kendall_tau_b", "disagreement", "top1_f",
                                 "oracle_f", "lg_first_f", "note"],
                          ["ranker", "τ_b", "disagreement", "top-1 F", "oracle F",
                           "LG first F", "notes"]),
           "", "## Published pattern, checked on these numbers", "", *_claims(results), "",
           "## Paired Wilcoxon signed-rank tests on per-sentence τ_b", "",
           markdown_table([{**c, "wilcoxon_p": f"{c['wilcoxon_p']:.2g}"}
                           for c in results.get("comparisons", [])],
                          ["a", "b", "sentences", "mean_tau_difference", "wilcoxon_p"],
                          ["ranker a", "ranker b", "sentences", "mean τ_b(a) − τ_b(b)",
                           "p"], digits=4), "",
           "Timings (s): " + ", ".join(f"{k} {v}" for k, v in
                                       results["timings_seconds"].items()), "",
           markdown_image(plot, "τ_b and top-1 F per ranker"), ""]
    return [*write_report(output_dir, "results", results, "\n".join(md)), plot]


def write_benchmark_report(output_dir, timings, cv_report=()):
    """``results.json`` (the timings of :func:`parse_ranking.benchmark.run_benchmark`) and
    ``results.md`` (one line per step; a link to the CV report ``cv_report`` — the paths
    :func:`write_cv_report` returned — and its plot); returns the two paths."""
    output_dir = Path(output_dir)
    md = ["# Parse ranking: timings", ""]
    for step, t in timings.items():
        md.append(f"- {step}: " + ", ".join(f"{k} {v}" for k, v in t.items()
                                             if not isinstance(v, dict)))
    if cv_report:
        cv_md = Path(os.path.relpath(cv_report[1], output_dir)).as_posix()
        md += ["", f"Measures of the timed cross-validation: [{cv_md}]({cv_md})", "",
               markdown_image(cv_report[2], "τ_b and top-1 F per ranker", start=output_dir)]
    return write_report(output_dir, "results", timings, "\n".join(md) + "\n")
