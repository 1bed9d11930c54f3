"""Build and load the parse ranking data set: Link Grammar linkages of CRAFT sentences, each
scored against the gold dependency tree (the setting of Paper I §5.2, Airola 2011, with
CRAFT in place of BioInfer).

For every selected sentence (gold length within ``[min_length, max_length]`` words, a
seeded random subset when ``max_sentences`` is given) the builder

1. parses the ``# text`` line with :class:`parse_ranking.linkgrammar.LinkGrammarParser`
   (up to ``max_parses`` linkages with distinct unlabelled edge sets, in LG's own cost
   order, ``lg_rank`` 0 = LG's first choice);
2. aligns every linkage's words to gold tokens by character offsets
   (:mod:`parse_ranking.alignment`) and scores it (:mod:`parse_ranking.scoring`);
3. writes one JSON line per sentence: ``id`` (``<article>:<sent_id>``), ``article``,
   ``sent_id``, ``text``, ``n_tokens``, ``status``, LG statistics and the parses (words with
   spans, links with labels, LG cost vector, alignment, precision/recall/F).

``status`` is ``"ok"`` when the sentence has at least two distinct F values, else
``"fewer_than_2_scores"`` (kept in the file so a resumed build skips it; the loader drops
and counts it) or ``"no_linkage"``.

Determinism: the sentence selection depends only on ``seed``; LG reseeds its sampler per
sentence (``repeatable_rand``). Resumable: lines are appended in chunks (one ``write`` +
``fsync`` per chunk; a chunk whose write fails, e.g. on a full disk, is cut off again); a
rerun reads the ids already present (dropping a torn last line), checks that the options in
``<output>.meta.json`` match — and so does the hash of the treebank's content
(``treebank_sha256``: trees edited between a kill and the resume are refused, not joined to
records of their old version) — and processes only the rest. One build per output: the build
holds the lock ``<output>.lock`` (:mod:`kernelrank.lock`) while it runs, so a second build
of the same file stops at once with an error naming the first one's PID and start time
instead of appending every record a second time.
Parallel: each chunk is a ``dask.bag`` computed on a process pool of ``jobs`` workers,
each worker holding one LG dictionary (the workers ignore Ctrl-C; the build stops them).

Nothing to build: when no sentence of the treebank is within the length limits, the build
stops with an error before it writes anything. When sentences are selected but none is
usable (each has fewer than two distinct F values or no linkage), the file is complete and
kept — it records every sentence's status, so a rerun does not redo them — and the build
ends with an :class:`~kernelrank.errors.InvalidInputError` saying so, since nothing in it
can be ranked.
"""

import json
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from kernelrank.atomic import named_os_error, write_json
from kernelrank.checksum import files_sha256
from corpora.conllu import iter_conllu, token_offsets
from corpora.lines import open_text, reading
from kernelrank.errors import (CorpusFormatError, DataNotFoundError, InvalidInputError,
                               InvalidParameterError)
from kernelrank.lock import output_lock
from parse_ranking.alignment import align_words, is_punctuation
from parse_ranking.scoring import f_score, gold_edges, linkage_edges

__all__ = ["select_sentences", "process_sentence", "build_dataset", "load_dataset", "subsample",
           "BuildOptions"]

STATUS_OK = "ok"
STATUS_ONE_SCORE = "fewer_than_2_scores"
STATUS_NO_LINKAGE = "no_linkage"


def BuildOptions(max_parses=20, linkage_limit=1000, timeout=1, min_length=8,
                 max_length=30, max_sentences=None, seed=0):
    """The options that determine the content of a built file (stored in ``.meta.json``)."""
    opts = dict(max_parses=int(max_parses), linkage_limit=int(linkage_limit),
                timeout=int(timeout), min_length=int(min_length),
                max_length=int(max_length),
                max_sentences=None if max_sentences is None else int(max_sentences),
                seed=int(seed))
    if opts["min_length"] < 1 or opts["max_length"] < opts["min_length"]:
        raise InvalidParameterError(
            f"need 1 <= min_length <= max_length, got {min_length}, {max_length}")
    if opts["max_sentences"] is not None and opts["max_sentences"] < 1:
        raise InvalidParameterError(f"max_sentences must be >= 1, got {max_sentences}")
    return opts


def select_sentences(treebank, min_length=8, max_length=30, max_sentences=None, seed=0):
    """Sentences of ``treebank`` (a folder of ``*.conllu[.gz]``) within the length limits.

    Files are read in sorted order; with ``max_sentences`` a seeded random subset is kept,
    returned in corpus order. Returns a list of :class:`corpora.conllu.ConlluSentence`.
    """
    treebank = Path(treebank)
    files = sorted(treebank.glob("*.conllu.gz")) + sorted(treebank.glob("*.conllu"))
    if not files:
        raise DataNotFoundError(f"no *.conllu or *.conllu.gz files in {treebank}; pass the "
                                "CRAFT folder, e.g. ../shared/data/craft/conllu")
    eligible, seen = [], {}
    for f in files:
        for s in iter_conllu(f):
            key = sentence_key(s)          # unique in a file by the reader; across files here
            if key in seen:
                raise CorpusFormatError(
                    f"sentence {key} again: it is already the sentence at {seen[key]}; the "
                    "build keys its records by document and sentence id — rename one",
                    path=s.path, line=s.line, record=s.sent_id)
            seen[key] = f"{s.path}, line {s.line}"
            if min_length <= len(s.tokens) <= max_length:
                eligible.append(s)
    if max_sentences is not None and max_sentences < len(eligible):
        keep = np.sort(np.random.default_rng(seed).permutation(len(eligible))[:max_sentences])
        eligible = [eligible[i] for i in keep]
    return eligible


def sentence_key(sentence):
    return f"{sentence.doc_id}:{sentence.sent_id}"


def process_sentence(sentence, parser):
    """Parse, align and score one gold sentence; return its JSON record (a dict)."""
    spans = token_offsets(sentence)
    heads = [t.head for t in sentence.tokens]
    punct = is_punctuation(sentence.tokens)
    result = parser.parse(sentence.text)
    gold = gold_edges(heads, punct)
    parses = []
    for rank, lk in enumerate(result.linkages):
        alignment = align_words(lk.words, spans, heads)
        edges = linkage_edges(lk.links, alignment, punct)
        sc = f_score(edges, gold)
        parses.append({
            "lg_rank": rank, "lg_index": lk.index, "cost": list(lk.cost),
            "words": [list(w) for w in lk.words],
            "links": [list(link) for link in lk.links],
            "alignment": alignment, "edges": sorted(list(e) for e in edges),
            "precision": sc.precision, "recall": sc.recall, "f": sc.f,
            "n_correct": sc.n_correct, "n_predicted": sc.n_predicted, "n_gold": sc.n_gold,
        })
    n_distinct = len({p["f"] for p in parses})
    status = (STATUS_NO_LINKAGE if not parses else
              STATUS_OK if n_distinct >= 2 else STATUS_ONE_SCORE)
    return {
        "id": sentence_key(sentence), "article": sentence.doc_id,
        "sent_id": sentence.sent_id, "text": sentence.text,
        "n_tokens": len(sentence.tokens), "status": status,
        "n_distinct_scores": n_distinct,
        "lg": {"found": result.found, "examined": result.examined,
               "null_count": result.null_count, "timed_out": result.timed_out},
        "parses": parses,
    }


_WORKER_PARSER = {}


def _worker_parser(opts):
    from parse_ranking.linkgrammar import LinkGrammarParser
    key = (opts["max_parses"], opts["linkage_limit"], opts["timeout"])
    if key not in _WORKER_PARSER:
        _WORKER_PARSER[key] = LinkGrammarParser(max_parses=opts["max_parses"],
                                                linkage_limit=opts["linkage_limit"],
                                                timeout=opts["timeout"])
    return _WORKER_PARSER[key]


def _process_partition(sentences, opts):
    parser = _worker_parser(opts)
    return [json.dumps(process_sentence(s, parser), separators=(",", ":"))
            for s in sentences]


def _read_done(output):
    """Ids already in ``output``; a torn last line (crash mid-append) is cut off."""
    done = set()
    if not output.exists():
        return done
    with open(output, "rb+") as handle:
        data = handle.read()
        good_end = 0
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if nl < 0:
                break
            line = data[pos:nl]
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise CorpusFormatError("not a JSON line (file corrupted? remove it to "
                                        "rebuild)", path=output,
                                        line=data.count(b"\n", 0, pos) + 1) from None
            done.add(rec["id"])
            pos = good_end = nl + 1
        if good_end < len(data):
            handle.truncate(good_end)
    return done


def _ignore_interrupts():
    """Pool workers ignore Ctrl-C (the terminal sends it to the whole process group) and
    SIGTERM (``kill -TERM -PGID``, which the build takes as Ctrl-C: :mod:`kernelrank.exits`):
    the build stops them, and each would print its own traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _read_meta(meta_path, output):
    """The ``.meta.json`` of a partly built ``output``; a CorpusFormatError naming it when
    it is not a JSON object."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        meta = exc
    if not isinstance(meta, dict):
        problem = (f"not JSON ({meta})" if isinstance(meta, Exception) else
                   f"a JSON {type(meta).__name__}, not an object")
        raise CorpusFormatError(f"unreadable build record: {problem}; delete it and {output} "
                                "to build afresh", path=meta_path)
    return meta


def _append(handle, data, output):
    """Append ``data`` (bytes) to the binary ``handle`` and ``fsync``; on failure (disk
    full, Ctrl-C) cut the file back to where the chunk began, so it never keeps a part of
    a chunk, and name ``output`` in the error."""
    start = handle.seek(0, os.SEEK_END)
    try:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    except BaseException as exc:
        try:
            handle.truncate(start)
        except OSError:
            pass             # the rerun drops a torn last line anyway (_read_done)
        if isinstance(exc, OSError) and named_os_error(exc, output) is not exc:
            raise named_os_error(exc, output) from exc
        raise


def build_dataset(treebank, output, *, max_parses=20, linkage_limit=1000, timeout=1,
                  min_length=8, max_length=30, max_sentences=None, seed=0, jobs=1,
                  chunk_size=100, progress=True, command=None):
    """Build (or resume) the JSONL data set; return a summary dict (also in ``.meta.json``).

    See the module docstring for what is written. ``jobs`` worker processes parse in
    parallel through ``dask.bag``; ``chunk_size`` sentences are appended per chunk.
    ``command``: the command line recorded in the lock ``<output>.lock`` (default
    ``sys.argv``).

    Raises
    ------
    OutputLockedError
        Another build writes ``output``.
    InvalidInputError
        No sentence is selected (nothing written), or none of them is usable (the complete
        file is kept).
    """
    from parse_ranking.linkgrammar import LinkGrammarParser  # fail early if LG is absent

    LinkGrammarParser(max_parses=max_parses, linkage_limit=linkage_limit, timeout=timeout)
    opts = BuildOptions(max_parses, linkage_limit, timeout, min_length, max_length,
                        max_sentences, seed)
    jobs, chunk_size = int(jobs), int(chunk_size)
    if jobs < 1:
        raise InvalidParameterError(f"--jobs {jobs}; give the number of worker processes "
                                    "(≥ 1)")
    if chunk_size < 1:
        raise InvalidParameterError(f"--chunk-size {chunk_size}; must be ≥ 1")
    output = Path(output)
    if output.is_dir():
        raise InvalidParameterError(f"--output {output} is a directory; give the JSONL file "
                                    f"to write, e.g. {output / 'craft.jsonl'}")
    with output_lock(output, command):
        return _build(treebank, output, opts, jobs, chunk_size, progress)


def _build(treebank, output, opts, jobs, chunk_size, progress):
    """:func:`build_dataset` while holding the output's lock."""
    import dask
    import dask.bag as db

    meta_path = output.with_name(output.name + ".meta.json")
    # the treebank's content is part of the build's identity: trees edited between a kill
    # and the resume must not be joined to records of their old version
    source = files_sha256(treebank, "*.conllu*") if Path(treebank).is_dir() else None
    if output.exists() and meta_path.exists():
        old = _read_meta(meta_path, output)
        if old.get("options") != opts:
            raise InvalidParameterError(
                f"{output} was built with other options {old.get('options')}; use a new "
                f"--output or the same options to resume")
        if old.get("treebank_sha256") != source:
            raise InvalidParameterError(
                f"{output} was begun on other trees: the content of {treebank} has changed "
                "since (or the build record predates content checks), so its records would "
                f"mix two versions; use a new --output, or delete {output} and "
                f"{meta_path.name} to build afresh")
    elif output.exists() and output.stat().st_size > 0:
        raise InvalidParameterError(f"{output} exists without {meta_path.name}; refusing "
                                    "to append to a file of unknown origin")
    sentences = select_sentences(treebank, opts["min_length"], opts["max_length"],
                                 opts["max_sentences"], opts["seed"])
    if not sentences:
        raise InvalidInputError(
            f"no sentence of {treebank} has between {opts['min_length']} and "
            f"{opts['max_length']} words; nothing to build (nothing written) — widen "
            "--min-length / --max-length")
    output.parent.mkdir(parents=True, exist_ok=True)
    write_json(meta_path, {"options": opts, "treebank_sha256": source, "complete": False})
    done = _read_done(output)
    todo = [s for s in sentences if sentence_key(s) not in done]
    t0 = time.time()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(sentences), initial=len(sentences) - len(todo), unit="sent",
                   desc="parse_ranking build")
    pool = ProcessPoolExecutor(jobs, initializer=_ignore_interrupts) if jobs > 1 else None
    finished = False
    try:
        with open(output, "ab") as handle:
            for start in range(0, len(todo), chunk_size):
                chunk = todo[start:start + chunk_size]
                if pool is None:
                    lines = _process_partition(chunk, opts)
                else:
                    bag = db.from_sequence(chunk, npartitions=min(len(chunk), 4 * jobs))
                    with dask.config.set(pool=pool):
                        lines = bag.map_partitions(_process_partition, opts).compute(
                            scheduler="processes", num_workers=jobs)
                _append(handle, "".join(line + "\n" for line in lines).encode("utf-8"),
                        output)
                if bar is not None:
                    bar.update(len(chunk))
        finished = True
    finally:
        if pool is not None:
            pool.shutdown(wait=finished, cancel_futures=not finished)
        if bar is not None:
            bar.close()
    records, status = _read_records(output)
    counts = _counts(records, status)
    summary = {"options": opts, "treebank_sha256": source, "complete": True,
               "treebank": str(treebank),
               "selected_sentences": len(sentences), "processed_this_run": len(todo),
               "wall_seconds_this_run": round(time.time() - t0, 2), "jobs": jobs,
               **counts}
    write_json(meta_path, summary)
    if not records:
        raise InvalidInputError(
            f"{output}: none of the {counts['sentences_in_file']} selected sentences can be "
            f"ranked ({counts['dropped_fewer_than_2_scores']} with fewer than 2 distinct "
            f"scores, {counts['dropped_no_linkage']} without a linkage); the file is complete "
            "but holds nothing to train on — select more sentences (--max-sentences, "
            "--min-length, --max-length) or allow more parses (--max-parses, --timeout)")
    return summary


def load_dataset(path, return_counts=False, max_parses=None):
    """Read a built JSONL file; keep the sentences with status ``ok``.

    Returns the list of records (dicts), and with ``return_counts`` also a dict counting
    every status, the parses and the mean F of LG's first / the oracle parse.
    ``max_parses`` keeps only LG's first k parses of each record as it is read (the counts
    then describe those): all 81 CRAFT articles with k = 5 instead of 20 hold about a
    third of the memory. The records kept and their order do not depend on it.

    Raises
    ------
    DataNotFoundError
        ``path`` does not exist.
    CorpusFormatError
        A line that is not a JSON object or lacks a key; a sentence id twice (from an older
        release's build of a treebank repeating an id, or two builds at once); a build that has not finished
        (its ``.meta.json`` says ``complete: false``).
    """
    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"{path} does not exist; build it with "
                                "`python -m parse_ranking build --output FILE`")
    meta_path = path.with_name(path.name + ".meta.json")
    if meta_path.exists() and _read_meta(meta_path, path).get("complete") is False:
        raise CorpusFormatError(
            "its build has not finished (the .meta.json says complete: false — a build is "
            "running or was stopped); rerun the same `python -m parse_ranking build` command "
            "to finish it", path=path)
    records, status = _read_records(path, max_parses)
    return (records, _counts(records, status)) if return_counts else records


def _read_records(path, max_parses=None):
    """The ``ok`` records of a built file and the number of records of every status."""
    records, status, first_line = [], {}, {}
    with open_text(path, "built parse-ranking data set") as handle, reading(path):
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusFormatError(f"not a JSON line ({exc.msg})", path=path,
                                        line=lineno) from None
            if not isinstance(rec, dict):
                raise CorpusFormatError("not a JSON object", path=path, line=lineno)
            for key in ("id", "article", "status", "parses"):
                if key not in rec:
                    raise CorpusFormatError(f"record lacks {key!r}", path=path, line=lineno)
            if first_line.setdefault(rec["id"], lineno) != lineno:
                raise CorpusFormatError(
                    f"sentence {rec['id']!r} again (first at line {first_line[rec['id']]}); "
                    "the file was built by an older release from a treebank that repeats a "
                    "sentence id, or by two builds at once (a build refuses both) — build "
                    "it afresh into a new file", path=path, line=lineno, record=rec["id"])
            status[rec["status"]] = status.get(rec["status"], 0) + 1
            if rec["status"] == STATUS_OK:
                if max_parses and isinstance(rec["parses"], list):
                    rec["parses"] = rec["parses"][:max_parses]
                records.append(rec)
    return records, status


def _counts(records, status):
    """The counts :func:`load_dataset` returns with ``return_counts``."""
    first = [r["parses"][0]["f"] for r in records]
    best = [max(p["f"] for p in r["parses"]) for r in records]
    counts = {
        "sentences_in_file": sum(status.values()), "status_counts": status,
        "sentences_kept": len(records),
        "dropped_fewer_than_2_scores": status.get(STATUS_ONE_SCORE, 0),
        "dropped_no_linkage": status.get(STATUS_NO_LINKAGE, 0),
        "parses_kept": sum(len(r["parses"]) for r in records),
        "articles_kept": len({r["article"] for r in records}),
        "mean_f_lg_first": float(np.mean(first)) if first else None,
        "mean_f_oracle": float(np.mean(best)) if best else None,
        "timed_out": sum(r["lg"]["timed_out"] for r in records),
    }
    return counts


def subsample(records, max_sentences=None, seed=0):
    """A seeded random subset of ``max_sentences`` records, in file order (all of them when
    ``max_sentences`` is None or not smaller)."""
    if max_sentences is None or max_sentences >= len(records):
        return records
    keep = np.sort(np.random.default_rng(seed).permutation(len(records))[:max_sentences])
    return [records[i] for i in keep]
