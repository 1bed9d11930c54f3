"""SCOP 1.53 benchmark runs with reports: one kernel (:func:`run_scop`) or several
configurations compared (:func:`run_benchmark`, :data:`homology.names.BENCHMARK_CONFIGS`).

Each run loads the benchmark (:func:`corpora.scop.load_scop`), evaluates every family with
:func:`homology.benchmark.scop_experiment` (λ chosen on each family's training part only)
and writes ``results.json`` + ``results.md`` (embedding the cumulative ROC / ROC50 plots).
Gram matrices of the local-alignment kernel are cached in ``<data dir>/cache``
(:func:`gram_cache`): computed once, resumed when interrupted.
Both return ``(results, written)``; each finished configuration is logged on the
``homology`` logger (the command line prints it).
"""

import json
import logging
import time
from pathlib import Path

from homology.names import BENCHMARK_CONFIGS
from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration

__all__ = ["kernel_options", "default_alphas", "check_families", "run_scop", "run_benchmark",
           "reusable", "gram_cache"]

log = logging.getLogger(__name__)


#: the options of each kernel of a name (a sum ``a+b`` takes both parts' and ``weight``)
_KERNEL_OPTIONS = {"spectrum": ("k",), "mismatch": ("k", "m"),
                   "locality": ("mode", "half_width", "theta"),
                   "features": ("groups", "feature_kernel", "gamma"),
                   "la": ("beta", "gap_open", "gap_extend", "psd")}


def kernel_options(kernel, *, k=None, m=None, mode="sensitive", half_width=3, theta=2.0,
                   groups=("aa", "dipeptide", "physchem"), feature_kernel="linear",
                   gamma=None, weight=0.2, beta=0.5, gap_open=11.0, gap_extend=1.0,
                   psd="shift"):
    """The keyword arguments of :func:`homology.benchmark.make_kernel` that ``kernel`` uses,
    from all of them (the command line's kernel options). ``weight`` of a sum: a number,
    or a list of several (chosen per training part)."""
    opts = {"k": k, "m": m, "mode": mode, "half_width": half_width, "theta": theta,
            "groups": tuple(groups), "feature_kernel": feature_kernel, "gamma": gamma,
            "beta": beta, "gap_open": gap_open, "gap_extend": gap_extend, "psd": psd,
            "weight": list(weight) if isinstance(weight, (list, tuple)) else weight}
    keep = {key for part in kernel.split("+") for key in _KERNEL_OPTIONS.get(part, ())}
    if "+" in kernel:
        keep.add("weight")
    out = {key: v for key, v in opts.items() if key in keep}
    if "groups" in out:
        out["groups"] = list(out["groups"])
    if isinstance(out.get("weight"), list) and len(out["weight"]) == 1:
        out["weight"] = out["weight"][0]
    return out


def gram_cache(data_dir=None):
    """Where the SCOP commands cache Gram matrices: ``<data dir>/cache``."""
    from kernelrank.datadir import resolve_data_dir

    return resolve_data_dir(data_dir) / "cache"


def default_alphas(learner, alphas=None):
    """``alphas``, or the learner's default grid of :mod:`homology.benchmark`."""
    from homology.benchmark import DEFAULT_ALPHAS, L2SVM_ALPHAS

    if alphas is not None:
        return tuple(alphas)
    return L2SVM_ALPHAS if learner == "l2svm" else DEFAULT_ALPHAS


def check_families(bench, families):
    """``families`` (None = all) after checking that ``bench`` has them."""
    if families is None:
        return None
    unknown = [f for f in families if f not in bench.families]
    if unknown:
        raise InvalidParameterError(f"unknown SCOP families {unknown}")
    return list(families)


def _write_scop(out, results):
    from homology.report import cumulative_plot, scop_markdown
    from kernelrank.report import write_report

    plots = [cumulative_plot([results], out / "roc50_families.png", "roc50"),
             cumulative_plot([results], out / "roc_families.png", "roc")]
    return [*write_report(out, "results", results, scop_markdown(results, plots)), *plots]


def run_scop(kernel, options, output_dir, *, data_dir=None, learner="l2svm",
             targets="balanced", alphas=None, select="roc", families=None, jobs=1,
             progress=True, scheduler=None):
    """One kernel (``kernel`` name, ``options`` from :func:`kernel_options`) on the SCOP 1.53
    benchmark (all 54 families, or ``families``); ``scheduler``: a Dask cluster that computes
    the local-alignment Gram matrix. Returns ``(results, written)``."""
    from corpora.scop import load_scop
    from homology.benchmark import make_kernel, scop_experiment, with_cache

    bench = load_scop(data_dir)
    kernel_object = with_cache(make_kernel(kernel, **options), gram_cache(data_dir), scheduler)
    results = scop_experiment(bench, kernel_object, kernel, learner,
                              default_alphas(learner, alphas), jobs,
                              check_families(bench, families), progress, targets,
                              select=select)
    results["kernel_options"] = options
    return results, _write_scop(Path(output_dir), results)


def run_benchmark(configs, output_dir, *, data_dir=None, learner="l2svm", targets="balanced",
                  alphas=None, select="roc", families=None, jobs=1, progress=True,
                  reuse=False, scheduler=None):
    """Several configurations (names of :data:`homology.names.BENCHMARK_CONFIGS`), each in
    ``<output_dir>/<config>/``, and one comparison report (paired per-family Wilcoxon tests
    against the first). ``reuse``: take a configuration's stored ``results.json`` when it
    was made with the same kernel, learner, targets, λ grid and selection for all requested
    families, on data of the same content (:func:`reusable`, :func:`data_sha256`). Returns
    ``(summary, written)``."""
    from corpora.scop import load_scop
    from homology.benchmark import make_kernel, scop_experiment, with_cache
    from homology.report import benchmark_markdown, cumulative_plot
    from kernelrank.report import write_report

    known = {c[0]: c for c in BENCHMARK_CONFIGS}
    unknown = [n for n in configs if n not in known]
    if unknown:
        raise InvalidParameterError(f"unknown benchmark configs {unknown}; known: {list(known)}")
    bench = load_scop(data_dir)
    families = check_families(bench, families)
    alphas = default_alphas(learner, alphas)
    data = data_sha256(bench)
    out = Path(output_dir)
    all_results, written = [], []
    for name in configs:
        _, kname, opts = known[name]
        t0 = time.perf_counter()
        old = reusable(out / name / "results.json", kname, opts, families, bench,
                       learner=learner, targets=targets, alphas=alphas,
                       select=select, data=data) if reuse else None
        if old is not None:
            old["config"] = name
            all_results.append(old)
            log.info("%s: reused %s", name, out / name / "results.json")
            continue
        res = scop_experiment(bench, with_cache(make_kernel(kname, **opts),
                                                gram_cache(data_dir), scheduler),
                              kname, learner, alphas, jobs, families, progress, targets,
                              select=select)
        res["kernel_options"] = opts
        res["config"] = name
        res["data_sha256"] = data
        written += _write_scop(out / name, res)
        all_results.append(res)
        log.info("%s: mean ROC %.3f, mean ROC50 %.3f (%s)", name, res["mean_roc"],
                 res["mean_roc50"], format_duration(time.perf_counter() - t0))
    plots = [cumulative_plot(all_results, out / "roc50_families.png", "roc50"),
             cumulative_plot(all_results, out / "roc_families.png", "roc")]
    summary = {"configs": [{"config": r["config"], "kernel": r["kernel"],
                            "params": r["params"], "learner": r["learner"],
                            "mean_roc": r["mean_roc"], "mean_roc50": r["mean_roc50"],
                            "seconds": r["seconds"]} for r in all_results]}
    written[:0] = [*write_report(out, "results", summary,
                                 benchmark_markdown(all_results, plots)), *plots]
    return summary, written


def data_sha256(bench):
    """Hash of what a result depends on in the benchmark ``bench`` (its ids, sequences,
    families and membership codes, O(size)): stored with each configuration's results,
    compared by :func:`reusable` — results of an edited data set are not reused."""
    import hashlib

    import numpy as np

    digest = hashlib.sha256()
    for part in (bench.ids, bench.sequences, bench.families):
        digest.update("\0".join(part).encode("utf-8") + b"\1")
    codes = np.ascontiguousarray(bench.codes, dtype=np.int8)
    digest.update(str(codes.shape).encode("ascii") + codes.tobytes())
    return digest.hexdigest()


def reusable(path, kernel, options, families, bench, *, learner="l2svm", targets="balanced",
             alphas=None, select="roc", data=None):
    """The stored results at ``path`` if they were made with this kernel, learner, targets,
    λ grid and selection for all requested ``families`` (None = all of ``bench``; stored
    results of more families are cut down to these) — and, when ``data`` (a
    :func:`data_sha256`) is given, on data of that content — else None. Results that cannot
    be read (not JSON, not an object) are not reused (and are recomputed)."""
    import numpy as np

    from homology.benchmark import kernel_params, make_kernel

    path = Path(path)
    if not path.exists():
        return None
    try:
        res = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("%s cannot be read (%s): recomputed", path, exc)
        return None
    if not isinstance(res, dict) or (data is not None and res.get("data_sha256") != data):
        return None
    wanted = {"kernel": kernel, "learner": learner,
              "params": json.loads(json.dumps(kernel_params(make_kernel(kernel, **options)))),
              "alphas": [float(a) for a in np.sort(default_alphas(learner, alphas))],
              "families": list(bench.families if families is None else families)}
    got = {"kernel": res.get("kernel"), "learner": res.get("learner"),
           "params": res.get("params"), "alphas": res.get("alphas")}
    if learner == "rls" and res.get("targets") != targets:
        return None
    if not res.get("selection", "").startswith(
            "leave-one-out ROC50" if select == "roc50" else "leave-one-out ROC area"):
        return None
    stored = {f["family"]: f for f in res.get("families", [])}
    families = wanted.pop("families")
    if got != wanted or not set(families) <= set(stored):
        return None
    # stored results of more families: keep the requested ones (each family is independent)
    if len(families) < len(stored):  # timings were of the larger run
        res["seconds"] = {"gram": None, "families": None,
                          "note": f"timed on {len(stored)} families, not reported here"}
    res["families"] = [stored[f] for f in families]
    res["n_families"] = len(families)
    res["mean_roc"] = float(np.mean([f["roc"] for f in res["families"]]))
    res["mean_roc50"] = float(np.mean([f["roc50"] for f in res["families"]]))
    return res
