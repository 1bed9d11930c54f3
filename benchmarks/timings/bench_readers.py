"""Our SVMlight and CoNLL-U readers against the peer libraries, on the real data files.

Measures in ONE run on the same machine, the two readers of a pair interleaved (order
alternating between repetitions), and prints the median time of each and their ratio:

1. SVMlight: :func:`corpora.svmlight.load_svmlight` vs scikit-learn's
   ``load_svmlight_file(query_id=True, zero_based=False, n_features=45)`` on the five
   LETOR 3.0 OHSUMED parts (gzip), sparse output (scikit-learn's X then has its explicit
   ``5:0`` entries removed, as ours) and dense output (``dense=True`` vs ``.toarray()``,
   what :mod:`letor.protocol` uses). Ours also returns the ``#docid`` comments, which
   scikit-learn drops.
2. CoNLL-U: :func:`corpora.conllu.iter_conllu` vs the ``conllu`` package
   (``parse_incr`` with FEATS/MISC/DEPS/XPOS kept as raw strings, as ours keeps them,
   then converted to the same :class:`~corpora.conllu.ConlluSentence` records: multiword
   tokens and empty nodes set apart, HEAD range and id order checked) on the CRAFT
   files. Skipped with a message when ``conllu`` is not installed (it is not a project
   dependency: ``pip install conllu`` in a throwaway environment).

Before any timing, the outputs are checked to be identical (X, y, qids; ids, forms,
lemmas, tags, heads, relations, sentence ids, texts). Asserts nothing about times.

Usage::

    python -m benchmarks.timings.bench_readers [--data-dir D] [--repeat 5] [--craft-files N]
"""

import gzip
import io
import statistics
import sys
import time
from importlib.metadata import version

import numpy as np

from benchmarks import harness
from corpora.conllu import ConlluSentence, MultiwordToken, Token, iter_conllu
from corpora.svmlight import load_svmlight
from kernelrank.datadir import resolve_data_dir


def _interleaved(ours, theirs, repeat):
    """Median seconds of ``ours`` and ``theirs``, run alternately ``repeat`` times each."""
    times = {"ours": [], "theirs": []}
    for r in range(repeat):
        pair = [("ours", ours), ("theirs", theirs)]
        for name, fn in (pair if r % 2 == 0 else pair[::-1]):
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return statistics.median(times["ours"]), statistics.median(times["theirs"])


def _report(what, ours_s, theirs_s, peer):
    print(f"{what}: ours {ours_s:.3f} s, {peer} {theirs_s:.3f} s (medians); "
          f"{peer} / ours = {theirs_s / ours_s:.2f}", flush=True)


def bench_svmlight(root, repeat):
    from sklearn.datasets import load_svmlight_file

    paths = [root / "letor" / "OHSUMED" / f"Fold{k}.test.txt.gz" for k in range(1, 6)]
    if not all(p.is_file() for p in paths):
        print(f"[svmlight] skipped: {paths[0].parent}/Fold1..5.test.txt.gz absent "
              "(use --data-dir)", flush=True)
        return

    def sklearn(dense):
        out = []
        for p in paths:
            X, y, q = load_svmlight_file(str(p), query_id=True, zero_based=False,
                                         n_features=45)
            if dense:
                X = X.toarray()
            else:
                X.eliminate_zeros()
            out.append((X, y, q))
        return out

    for dense in (False, True):
        ours = lambda: [load_svmlight(p, n_features=45, dense=dense) for p in paths]
        theirs = lambda: sklearn(dense)
        for a, (X, y, q) in zip(ours(), theirs()):
            same_X = np.array_equal(a.X, X) if dense else (
                a.X.shape == X.shape and np.array_equal(a.X.indptr, X.indptr)
                and np.array_equal(a.X.indices, X.indices) and np.array_equal(a.X.data, X.data))
            if not (same_X and np.array_equal(a.y, y) and np.array_equal(a.qids, q)):
                raise SystemExit("[svmlight] outputs differ: not timed")
        rows = sum(len(a.y) for a in ours())
        ours_s, theirs_s = _interleaved(ours, theirs, repeat)
        _report(f"[svmlight] OHSUMED, 5 parts, {rows} rows, {'dense' if dense else 'sparse'} X",
                ours_s, theirs_s, "scikit-learn")


def _conllu_records(conllu, paths):
    """The CRAFT files read with the ``conllu`` package, as our ConlluSentence records."""
    raw = lambda line, i: line[i]  # noqa: E731 - keep the columns we keep as strings
    keep = {"xpos": raw, "feats": raw, "deps": raw, "misc": raw}
    out = []
    for path in paths:
        doc_id = path.name.split(".")[0]
        with io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8") as handle:
            for index, sent in enumerate(conllu.parse_incr(handle, field_parsers=keep)):
                meta = sent.metadata
                doc_id = meta.get("newdoc id", doc_id)
                tokens, multiword = [], []
                for t in sent:
                    if isinstance(t["id"], tuple):
                        if t["id"][1] == "-":
                            multiword.append(MultiwordToken(t["id"][0], t["id"][2],
                                                            t["form"], t["misc"]))
                        continue
                    tokens.append(Token(t["id"], t["form"], t["lemma"], t["upos"], t["xpos"],
                                        t["feats"], t["head"], t["deprel"], t["deps"],
                                        t["misc"]))
                n = len(tokens)
                for k, t in enumerate(tokens, start=1):
                    if t.id != k or t.head is None or not 0 <= t.head <= n:
                        raise ValueError(f"{path}: sentence {index}: bad id or HEAD")
                text = meta.get("text", " ".join(t.form for t in tokens))
                out.append(ConlluSentence(meta.get("sent_id", str(index)), text, tokens,
                                          multiword, doc_id, dict(meta), str(path)))
    return out


def bench_conllu(root, repeat, n_files):
    folder = root / "craft" / "conllu"
    paths = sorted(folder.glob("*.conllu.gz"))[:n_files]
    if not paths:
        print(f"[conllu] skipped: no *.conllu.gz in {folder} (use --data-dir)", flush=True)
        return
    try:
        import conllu
    except ImportError:
        print("[conllu] skipped: the conllu package is not installed (pip install conllu "
              "in a throwaway environment to compare)", flush=True)
        return
    ours = lambda: [s for p in paths for s in iter_conllu(p)]
    theirs = lambda: _conllu_records(conllu, paths)
    a, b = ours(), theirs()
    fields = lambda s: (s.sent_id, s.text, s.doc_id, s.tokens, s.multiword)
    if len(a) != len(b) or any(fields(x) != fields(y) for x, y in zip(a, b)):
        raise SystemExit("[conllu] outputs differ: not timed")
    words = sum(len(s) for s in a)
    ours_s, theirs_s = _interleaved(ours, theirs, repeat)
    _report(f"[conllu] CRAFT, {len(paths)} files, {len(a)} sentences, {words} words",
            ours_s, theirs_s, f"conllu {version('conllu')}")


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--repeat", type=int, default=5,
                        help="timed runs of each reader (median reported)")
    parser.add_argument("--craft-files", type=int, default=None,
                        help="only the first N CRAFT files (default: all)")
    args = harness.parse_args(parser, argv)
    root = resolve_data_dir(args.data_dir)
    print(f"load average at start: {harness.format_load(harness.load_average())}  (times "
          "measured under this load; compare the ratios)", flush=True)
    bench_svmlight(root, args.repeat)
    bench_conllu(root, args.repeat, args.craft_files)
    harness.print_load("end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
