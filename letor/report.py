"""The LETOR report: our learners' test measures beside the published LETOR 3.0 baselines
(``results.json`` + ``results.md``, written atomically by :mod:`kernelrank.report`)."""

from pathlib import Path

from kernelrank.report import markdown_table, write_report
from letor.protocol import MEASURES

__all__ = ["PUBLISHED", "letor_markdown", "write_letor_report"]

# Published numbers for comparison (means over the five folds). LETOR 3.0 OHSUMED
# baselines ("Regression" and "RankSVM", linear, QueryLevelNorm, model selection by
# validation MAP): only the MAP and NDCG@10 cells are given here. Paper I Table 3 reports
# the disagreement error on the LETOR OHSUMED data of its time (25 features, labels 0 and 1
# merged), so it is indicative only.
PUBLISHED = [
    {"method": "LETOR 3.0 RankSVM", "MAP": 0.4334, "NDCG@10": 0.4140},
    {"method": "LETOR 3.0 Regression", "MAP": 0.4220, "NDCG@10": 0.4110},
    {"method": "Paper I RankRLS (older LETOR)", "disagreement_2v01": 0.340},
    {"method": "Paper I RLS regressor (older LETOR)", "disagreement_2v01": 0.346},
    {"method": "Paper I RankSVM (older LETOR)", "disagreement_2v01": 0.336},
]


_HEADERS = {"MAP": "MAP", "disagreement": "disagr.", "disagreement_2v01": "disagr. 2 vs 0/1"}


def letor_markdown(results_by_learner, dataset="OHSUMED", command=None):
    """Markdown: the comparison table (ours + published) and per-fold tables."""
    cols = ["method"] + MEASURES
    headers = ["method"] + [_HEADERS.get(m, m) for m in MEASURES]
    rows = [{"method": f"ours: {name}", **res["mean"]} for name, res in results_by_learner.items()]
    lines = [f"# LETOR 3.0 {dataset}: linear learners on the standard 5 folds\n",
             "Mean over the test folds (each fold: train on 3 parts, choose the regularization "
             "parameter by validation MAP, test on the held-out part). MAP, NDCG@k, P@k with "
             "the conventions of the LETOR tool `Eval-Score-3.0.pl`; *disagr.* = mean per-query "
             "disagreement error (Paper I eq. 1; graded labels, lower is better); *disagr. 2 vs 0/1* = the "
             "same with labels 0 and 1 merged, Paper I's bipartite setting.\n",
             markdown_table(rows + PUBLISHED, cols, headers, digits=4),
             "Published rows: LETOR 3.0 baselines (MAP, NDCG@10) and Paper I Table 3 "
             "(disagreement on the older 25-feature LETOR OHSUMED with labels 0 and 1 merged; "
             "indicative only). Empty cells: not given here.\n"]
    for name, res in results_by_learner.items():
        pname = res["param_name"]
        fold_cols = ["fold", pname, "validation_MAP"] + MEASURES + ["train_seconds"]
        fold_headers = ["fold", pname, "val. MAP"] + [_HEADERS.get(m, m) for m in MEASURES] \
            + ["train s"]
        mean_row = {"fold": "mean", **res["mean"]}
        fold_rows = [{**f, pname: f"{f[pname]:.3g}"} for f in res["folds"]]
        lines.append(f"## {name}: per fold\n")
        lines.append(f"Grid of {pname}: {len(res['grid'])} values from {res['grid'][0]:.3g} "
                     f"to {res['grid'][-1]:.3g}; {res['selection']}.\n")
        lines.append(markdown_table(fold_rows + [mean_row], fold_cols, fold_headers,
                                    digits=4))
    if command:
        lines.append(f"Command: `{command}`\n")
    return "\n".join(lines)


def write_letor_report(output_dir, results_by_learner, dataset="OHSUMED", command=None):
    """Write ``results.json`` and ``results.md`` (one learner: its own result dictionary;
    several: ``{"learner": "all", "learners": {...}}`` plus ``<learner>/results.*``).
    Returns the paths written."""
    markdown = letor_markdown(results_by_learner, dataset, command)
    if len(results_by_learner) == 1:
        (result,) = results_by_learner.values()
        return list(write_report(output_dir, "results", result, markdown))
    written = []
    for name, res in results_by_learner.items():
        written += write_report(Path(output_dir) / name, "results", res,
                                letor_markdown({name: res}, dataset, command))
    combined = {"learner": "all", "dataset": dataset, "learners": results_by_learner,
                "mean": {name: res["mean"] for name, res in results_by_learner.items()}}
    return [*write_report(output_dir, "results", combined, markdown), *written]
