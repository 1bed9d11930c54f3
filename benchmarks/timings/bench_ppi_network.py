"""``ppi network`` on a large generated network: the whole command, and its layout against
networkx's Kamada–Kawai.

A literature-like network is generated (preferential attachment, ``--genes`` genes, two
partners per new gene, 1 to 3 documents per interaction, one connected component), written
as a ``ppi aggregate`` JSONL file in a temporary folder, and:

1. ``python -m ppi network --top-edges N`` runs on it in a child process: wall time and the
   child's peak RSS, the picture's size in pixels, the genes drawn and labelled;
2. in this process, on the component the picture draws: the layout of the picture
   (:func:`ppi.aggregation.picture.stress_layout`, stress majorization) against
   :func:`networkx.kamada_kawai_layout` (the layout it replaced; both minimise Kamada and
   Kawai's energy), both in one BLAS thread: seconds of each, their ratio, and the energy
   each reaches (at its best scale; lower is better) — ``--no-reference`` skips networkx's,
   which takes about a minute on 1,000 genes;
3. the label boxes of the picture (matplotlib's own extents): how many pairs overlap
   (0 expected).

Asserts nothing about times.

Usage::

    python -m benchmarks.timings.bench_ppi_network [--genes 5000] [--top-edges 1000]
        [--no-reference] [--output FILE]
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness


def write_aggregate(path, genes, seed):
    """A ``ppi aggregate`` JSONL file of a preferential-attachment network of ``genes``
    genes; returns the number of records."""
    import networkx as nx
    import numpy as np

    rng = np.random.default_rng(seed)
    graph = nx.barabasi_albert_graph(genes, 2, seed=seed)
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for k, (u, v) in enumerate(graph.edges):
            for d in range(1 + int(rng.integers(0, 3))):
                out.write(json.dumps({"doc_id": f"d{k}-{d}", "gene1": str(1000 + u),
                                      "gene2": str(1000 + v), "gene1_text": f"GENE{u}",
                                      "gene2_text": f"GENE{v}",
                                      "score": float(rng.normal()), "interaction": True,
                                      "positive_mention_pairs": 1}) + "\n")
                n += 1
    return n


def run_command(docs, out, top_edges):
    """``python -m ppi network`` in a child process: wall seconds, the child's peak RSS in
    MiB (``RUSAGE_CHILDREN``: this is the only child so far) and its report."""
    env = {**os.environ, "PYTHONPATH": str(harness.REPOSITORY), "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "ppi", "network", "--input", str(docs), "--output-dir",
           str(out), "--top-edges", str(top_edges), "--quiet"]
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"ppi network failed ({done.returncode}):\n{done.stderr}")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, rss, json.loads((out / "results.json").read_text(encoding="utf-8"))


def energy(graph, pos):
    """Kamada and Kawai's energy ``Σ_{i<j} d⁻² (‖x_i − x_j‖ − d)²`` of ``pos`` at its best
    scale (the layouts are scaled to the unit square)."""
    import networkx as nx
    import numpy as np
    from scipy.sparse.csgraph import shortest_path

    nodes = list(graph)
    d = shortest_path(nx.to_scipy_sparse_array(graph, nodelist=nodes, weight=None),
                      directed=False, unweighted=True)
    x = np.array([pos[n] for n in nodes], dtype=float)
    upper = np.triu_indices(len(nodes), 1)
    r = np.hypot(*(x[upper[0]] - x[upper[1]]).T) / d[upper]
    scale = r.sum() / (r * r).sum()
    return float(((scale * r - 1) ** 2).sum())


def compare_layouts(docs, top_edges, reference):
    """Seconds and energies of the picture's layout and of networkx's on the component the
    picture draws."""
    import networkx as nx
    import scipy.linalg  # noqa: F401 - loaded before the limit, which binds loaded BLAS
    from threadpoolctl import threadpool_limits

    from ppi.aggregation.network import build_network, picture_edges
    from ppi.aggregation.picture import stress_layout

    graph, _ = build_network(docs)
    parts, counts = picture_edges(graph, top_edges)
    sub = nx.Graph(parts[0])
    out = {"component_genes": sub.number_of_nodes(), "component_edges": sub.number_of_edges()}
    pos, out["ours_seconds"] = harness.timed(stress_layout, sub)
    out["ours_energy"] = energy(sub, pos)
    if reference:
        with threadpool_limits(1):
            pos, out["networkx_seconds"] = harness.timed(nx.kamada_kawai_layout, sub)
        out["networkx_energy"] = energy(sub, pos)
        out["networkx_over_ours_seconds"] = out["networkx_seconds"] / out["ours_seconds"]
        out["ours_over_networkx_energy"] = out["ours_energy"] / out["networkx_energy"]
    return graph, (parts, counts), out


def label_overlaps(graph, drawn):
    """Labels drawn and pairs of them whose boxes overlap in the picture of ``drawn``
    (:func:`ppi.aggregation.network.picture_edges`' parts and counts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ppi.aggregation.picture import draw_network

    fig, labels = draw_network(graph, *drawn)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in labels]
    pairs = sum(boxes[i].overlaps(boxes[j]) for i in range(len(boxes))
                for j in range(i + 1, len(boxes)))
    plt.close(fig)
    return len(labels), int(pairs)


def main(argv=None):
    p = harness.parser(__doc__)
    p.add_argument("--genes", type=int, default=5000, help="genes of the network (5000)")
    p.add_argument("--top-edges", type=int, default=1000,
                   help="`ppi network --top-edges` (1000)")
    p.add_argument("--no-reference", action="store_true",
                   help="skip networkx's Kamada-Kawai layout (about a minute)")
    harness.add_seed(p)
    harness.add_output(p)
    args = harness.parse_args(p, argv)
    start = harness.print_load("start")
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs.jsonl"
        records = write_aggregate(docs, args.genes, args.seed)
        wall, rss, report = run_command(docs, Path(tmp) / "net", args.top_edges)
        from PIL import Image
        with Image.open(Path(tmp) / "net" / "network.png") as image:
            size = image.size
        print(f"ppi network --top-edges {args.top_edges} on {args.genes:,} genes "
              f"({records:,} records, {report['edges']:,} interactions): {wall:.1f} s, peak "
              f"RSS {rss:.0f} MiB; picture {size[0]} x {size[1]} px, "
              f"{report['picture']['genes']} genes drawn, {report['picture']['labelled']} "
              "labelled", flush=True)
        graph, drawn, layouts = compare_layouts(docs, args.top_edges, not args.no_reference)
    line = (f"layout of the drawn component ({layouts['component_genes']} genes): ours "
            f"{layouts['ours_seconds']:.2f} s, energy {layouts['ours_energy']:.0f}")
    if "networkx_seconds" in layouts:
        line += (f"; networkx Kamada-Kawai {layouts['networkx_seconds']:.1f} s, energy "
                 f"{layouts['networkx_energy']:.0f}; networkx / ours time "
                 f"{layouts['networkx_over_ours_seconds']:.1f}, ours / networkx energy "
                 f"{layouts['ours_over_networkx_energy']:.3f}")
    print(line, flush=True)
    labelled, overlapping = label_overlaps(graph, drawn)
    print(f"labels: {labelled}, overlapping pairs: {overlapping}", flush=True)
    end = harness.print_load("end")
    harness.save_json(args.output, {
        "genes": args.genes, "top_edges": args.top_edges, "records": records,
        "command_seconds": wall, "command_peak_rss_mib": rss, "picture_pixels": list(size),
        "picture": report["picture"], "layouts": layouts, "labels": labelled,
        "overlapping_label_pairs": overlapping, "load_start": start, "load_end": end})


if __name__ == "__main__":
    main()
