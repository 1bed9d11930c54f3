"""The documents system on BioRED: its parts on dev, and dev F / AUC against the number of
training abstracts with and without transfer.

    python -m benchmarks.experiments.ppi.exp_ppi_documents --output-dir results/exp_documents
    python -m benchmarks.experiments.ppi.exp_ppi_documents --sizes 25 50 100 200 400 \\
        --seeds 0 1 2

Trains on ``biored/Train.PubTator.gz`` (or ``--train``) and scores ``biored/Dev.PubTator.gz``
(``--dev``) with the measure of ``ppi evaluate-documents`` (every candidate gene pair of a
dev abstract; a pair never scored ranks last).  Everything is featurized once (one joint
vocabulary with the five benchmark corpora, spaCy-parsed, for the transfer prior, which is
trained once); each row then fits :meth:`ppi.documents.system.DocumentSystem.fit` on a subset of
the training documents.

Rows:

* ``variants``: sentence co-occurrence; stage 1 alone (the maximum over mention pairs) with
  single-instance labels (``sil``) and with mi-RLS (``mi``); + the document stage; + transfer
  (the default system).
* ``curve``: for each size n and seed, n training abstracts drawn at random (the same for
  both arms), the default system with and without transfer.

Writes ``results.json``, ``results.md`` and ``learning_curve.png``; prints wall time and
peak RSS at the end (``resource.getrusage``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._biored import add_stage_search, prepare, subset_documents


def _measures(fit, X, rc):
    from ppi.documents.mention_stage import candidate_measures, predict_documents

    s, _ = predict_documents(fit, X, rc.candidates)
    return candidate_measures(rc.candidates.y, s, fit.threshold)


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    p.add_argument("--train", default=None, help="default <data>/biored/Train.PubTator.gz")
    p.add_argument("--dev", default=None, help="default <data>/biored/Dev.PubTator.gz")
    harness.add_output_dir(p, "results/exp_ppi_documents")
    p.add_argument("--sizes", type=int, nargs="*", default=[25, 50, 100, 200, 400])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--no-variants", action="store_true")
    add_stage_search(p)
    args = harness.parse_args(p, argv)
    t0 = time.perf_counter()
    load0 = harness.load_1min()

    from ppi.documents.system import DocumentSystem
    from ppi.documents.mention_stage import candidate_measures
    from ppi.documents.relations import bag_max

    train, dev, tr, dv, Xtr, Xdv, w_src, info = prepare(args.data_dir, args.train, args.dev)
    out = {"train": str(train), "dev": str(dev), "source": {k: v for k, v in info.items()
                                                            if k != "dropped_pairs"},
           "variants": [], "curve": []}
    c = dv.candidates
    cooc = (c.bag_sizes > 0).astype(float)
    out["variants"].append({"system": "sentence co-occurrence",
                            **candidate_measures(c.y, cooc, 0.5)})
    prior = np.asarray(Xdv @ w_src).ravel()
    out["variants"].append({"system": "five corpora's mean model (the prior) alone",
                            **candidate_measures(c.y, bag_max(prior, c), 0.0),
                            "note": "threshold 0, not tuned"})
    if not args.no_variants:
        for name, kw in (("mention pairs, sil", dict(document_stage=False, transfer=False)),
                         ("mention pairs, mi", dict(document_stage=False, transfer=False,
                                                    instances="mi")),
                         ("+ document stage (sil)", dict(transfer=False)),
                         ("+ document stage (mi)", dict(transfer=False, instances="mi")),
                         ("+ document stage + transfer (default)", {})):
            system = DocumentSystem(progress=False, stage_search=args.stage_search, **kw)
            t1 = time.perf_counter()
            fit = system.fit(tr, Xtr, w_src if system.transfer else None, info)
            row = {"system": name, **_measures(fit, Xdv, dv), "alpha": fit.info["alpha"],
                   "beta": fit.info["beta"], "seconds": time.perf_counter() - t1}
            if fit.stage is None:
                row["inner_auc"] = fit.info["instance_auc"]
            else:
                row["inner_auc"] = fit.info["stage_auc"]
            out["variants"].append(row)
            harness.log.info("%s: %s", name, {k: row[k] for k in ("auc", "f1")})
            if system.document_stage and system.transfer:
                # the same model with the cross-sentence candidates left unscored
                from ppi.documents.mention_stage import predict_documents
                full, decided = predict_documents(fit, Xdv, dv.candidates)
                within = np.where(c.bag_sizes > 0, full, -np.inf)
                out["variants"].append({
                    "system": name.replace("(default)", "") + "without cross-sentence pairs",
                    **candidate_measures(c.y, within, fit.threshold)})
                cross = c.bag_sizes == 0
                out["cross_sentence"] = {
                    "candidates": int(cross.sum()), "related": int((cross & (c.y > 0)).sum()),
                    "related_found": int((cross & (c.y > 0) & decided).sum()),
                    "predicted": int((cross & decided).sum())}
    n_docs = len(tr.corpus.documents)
    for n in args.sizes:
        for seed in args.seeds if n < n_docs else args.seeds[:1]:
            docs = np.random.default_rng(seed).permutation(n_docs)[:n]
            sub, Xs = subset_documents(tr, Xtr, docs)
            for transfer in (False, True):
                system = DocumentSystem(progress=False, transfer=transfer, seed=seed,
                                        stage_search=args.stage_search)
                try:
                    fit = system.fit(sub, Xs, w_src if transfer else None, info)
                except Exception as exc:          # a tiny subset may hold one class
                    out["curve"].append({"abstracts": n, "seed": seed, "transfer": transfer,
                                         "error": str(exc)})
                    continue
                row = {**_measures(fit, Xdv, dv), "abstracts": n, "seed": seed,
                       "transfer": transfer, "beta": fit.info["beta"]}
                out["curve"].append(row)
                harness.log.info("n=%d seed=%d transfer=%s: AUC %.3f F %.3f", n, seed, transfer,
                             row["auc"], row["f1"])
    out["seconds"] = time.perf_counter() - t0
    out["peak_rss_gb"] = harness.peak_rss("GiB")
    out["load_average"] = [load0, harness.load_1min()]
    _write(out, Path(args.output_dir))
    print(f"wall {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB, load "
          f"{load0:.1f} → {harness.load_1min():.1f}")
    return 0


def _write(out, d):
    from kernelrank.atomic import save_figure
    from kernelrank.report import markdown_table, pyplot, write_report

    plt = pyplot()
    d.mkdir(parents=True, exist_ok=True)
    curve = {}
    for r in out["curve"]:
        if "error" not in r:
            curve.setdefault((r["abstracts"], r["transfer"]), []).append(r)
    rows = []
    for (n, transfer), rs in sorted(curve.items()):
        rows.append({"abstracts": n, "transfer": transfer, "runs": len(rs),
                     "auc": float(np.mean([r["auc"] for r in rs])),
                     "auc_sd": float(np.std([r["auc"] for r in rs])),
                     "f1": float(np.mean([r["f1"] for r in rs])),
                     "f1_sd": float(np.std([r["f1"] for r in rs]))})
    fig, ax = plt.subplots(figsize=(6, 4))
    for transfer, style in ((False, "o-"), (True, "s-")):
        xs = [r for r in rows if r["transfer"] == transfer]
        if xs:
            lab = "with" if transfer else "without"
            ax.errorbar([r["abstracts"] for r in xs], [r["f1"] for r in xs],
                        [r["f1_sd"] for r in xs], fmt=style, label=f"F, {lab} transfer")
            ax.errorbar([r["abstracts"] for r in xs], [r["auc"] for r in xs],
                        [r["auc_sd"] for r in xs], fmt=style, alpha=0.5,
                        label=f"AUC, {lab} transfer")
    ax.set_xscale("log")
    ax.set_xlabel("training abstracts")
    ax.set_ylabel("BioRED dev (gene pairs)")
    ax.legend(fontsize=8)
    save_figure(fig, d / "learning_curve.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    md = ["# The documents system on BioRED dev", "",
          markdown_table(out["variants"], ["system", "precision", "recall", "f1", "auc"]),
          "", "## Learning curve (mean ± sd over seeds)", "",
          markdown_table(rows, ["abstracts", "transfer", "runs", "f1", "f1_sd", "auc",
                                "auc_sd"]),
          "", "![learning curve](learning_curve.png)", "",
          f"Wall time {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB, load "
          f"average {out['load_average'][0]:.1f} → {out['load_average'][1]:.1f}.", ""]
    write_report(d, "results", out, "\n".join(md))
    print(json.dumps({"variants": [{k: r.get(k) for k in ("system", "f1", "auc")}
                                   for r in out["variants"]], "curve": rows}, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
