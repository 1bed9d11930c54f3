"""The LETOR report: our learners' test measures beside the data set's own published
baselines (``results.json`` + ``results.md``, written atomically by :mod:`kernelrank.report`).

The heading names the data set, its version (LETOR 3.0, LETOR 4.0, MSLR-WEB or unknown) and
the evaluation conventions used; published rows are shown only for the data set they were
published on and only beside a run of all its folds — a partial run says so and shows none.
"""

from pathlib import Path

from kernelrank.report import markdown_table, write_report
from letor.names import SCRIPT_OF_CONVENTION
from letor.protocol import MEASURES

__all__ = ["PUBLISHED", "letor_markdown", "write_letor_report"]

# Published numbers for comparison (means over the five folds), by data set. LETOR 3.0
# OHSUMED baselines ("Regression" and "RankSVM", linear, QueryLevelNorm, model selection by
# validation MAP): only the MAP and NDCG@10 cells are given here. Paper I Table 3 reports
# the disagreement error on the LETOR OHSUMED data of its time (25 features, labels 0 and 1
# merged), so it is indicative only. No other data set's baselines are recorded here yet.
PUBLISHED = {
    "OHSUMED": {
        "rows": [
            {"method": "LETOR 3.0 RankSVM", "MAP": 0.4334, "NDCG@10": 0.4140},
            {"method": "LETOR 3.0 Regression", "MAP": 0.4220, "NDCG@10": 0.4110},
            {"method": "Paper I RankRLS (older LETOR)", "disagreement_2v01": 0.340},
            {"method": "Paper I RLS regressor (older LETOR)", "disagreement_2v01": 0.346},
            {"method": "Paper I RankSVM (older LETOR)", "disagreement_2v01": 0.336},
        ],
        "note": "Published rows: LETOR 3.0 baselines (MAP, NDCG@10) and Paper I Table 3 "
                "(disagreement on the older 25-feature LETOR OHSUMED with labels 0 and 1 "
                "merged; indicative only). Empty cells: not given here.",
    },
}

_HEADERS = {"MAP": "MAP", "disagreement": "disagr.", "disagreement_2v01": "disagr. 2 vs 0/1",
            "train_seconds": "fit s (all folds)"}


def _heading(res, dataset):
    version = res.get("version", "LETOR 3.0")
    convention = res.get("convention", "letor3")
    n_folds, run = res.get("n_folds", 5), res.get("folds_run") or [f["fold"] for f in
                                                                     res["folds"]]
    what = (f"the standard {n_folds} folds" if len(run) == n_folds else
            f"**partial run: fold{'s' if len(run) > 1 else ''} {', '.join(map(str, run))} of "
            f"{n_folds}**")
    lines = [f"# {dataset} ({version}): learners on {what}\n",
             f"Data set version: {version} (told by {res.get('version_source', 'its name')}); "
             f"{res.get('n_features', '?')} features; layout: {res.get('layout', 'parts')}. "
             f"Evaluation: the conventions of `{SCRIPT_OF_CONVENTION[convention]}` "
             f"(`{convention}`, see `learners.measures.LETOR_CONVENTIONS`).\n"]
    return lines, len(run) == n_folds


def letor_markdown(results_by_learner, dataset="OHSUMED", command=None):
    """Markdown: the comparison table (ours + the data set's published rows on a full run)
    and per-fold tables."""
    first = next(iter(results_by_learner.values()))
    lines, full = _heading(first, dataset)
    cols = ["method"] + MEASURES + ["train_seconds"]
    headers = ["method"] + [_HEADERS.get(m, m) for m in cols[1:]]
    rows = [{"method": f"ours: {name}", **res["mean"],
             "train_seconds": sum(f["train_seconds"] for f in res["folds"])}
            for name, res in results_by_learner.items()]
    published = PUBLISHED.get(dataset)
    lines.append(
        "Mean over the test folds (each fold: train on 3 parts, choose the regularization "
        "parameter — or LambdaMART's number of trees — on the validation part, test on the "
        "held-out part). *disagr.* = mean per-query disagreement error (Paper I eq. 1; graded "
        "labels, lower is better); *disagr. 2 vs 0/1* = the same with labels 0 and 1 merged, "
        "Paper I's bipartite setting; *fit s* = fit and selection time summed over the "
        "folds.\n")
    if published and full:
        lines += [markdown_table(rows + published["rows"], cols, headers, digits=4),
                  published["note"] + "\n"]
    else:
        lines.append(markdown_table(rows, cols, headers, digits=4))
        if published:
            lines.append("The published five-fold baselines of this data set are not shown: "
                         "this run does not cover every fold, so its means are not "
                         "comparable with them.\n")
        else:
            lines.append(f"No published baselines are recorded for {dataset}.\n")
    for name, res in results_by_learner.items():
        pname = res["param_name"]
        fold_cols = ["fold", pname, "validation_MAP"] + MEASURES + ["train_seconds"]
        fold_headers = ["fold", pname, "val. MAP"] + [_HEADERS.get(m, m) for m in MEASURES] \
            + ["train s"]
        mean_row = {"fold": "mean", **res["mean"]}
        fold_rows = [{**f, pname: f"{f[pname]:.3g}"} for f in res["folds"]]
        lines.append(f"## {name}: per fold\n")
        if res.get("grid"):
            lines.append(f"Grid of {pname}: {len(res['grid'])} values from "
                         f"{res['grid'][0]:.3g} to {res['grid'][-1]:.3g}; "
                         f"{res['selection']}.\n")
        else:
            lines.append(f"{pname}: {res['selection']}.\n")
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
    first = next(iter(results_by_learner.values()))
    combined = {"learner": "all", "dataset": dataset,
                **{k: first[k] for k in ("version", "convention", "n_folds", "folds_run",
                                         "partial") if k in first},
                "learners": results_by_learner,
                "mean": {name: res["mean"] for name, res in results_by_learner.items()}}
    return [*write_report(output_dir, "results", combined, markdown), *written]
