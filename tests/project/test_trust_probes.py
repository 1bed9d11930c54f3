"""The probe suite of trust under misuse: every command tried as a careless or unlucky user
would, by class, on generated inputs; each probe must end in a typed error (``error: …``,
exit code 2, the input untouched) or in the correct result — never a traceback, a destroyed
input, a model that does not load, stale work or JSON that strict readers refuse.

Classes (``pytest --collect-only -q tests/project/test_trust_probes.py`` lists their
cases):

* **declarations** — every subcommand of the five commands declares what it reads and
  writes and bounds every number it takes (a new option cannot slip through);
* **one rule for -** — no command streams: ``-`` given for any file or folder option of
  any subcommand, input or output, is refused alike (naming the option and the stream),
  never read or written as a file named ``-``;
* **input = output** — for every writing command, every (input option, output option) pair:
  the same path, a symbolic link, a hard link, an output inside an input folder, a
  replaced folder holding an input, an input named as a report file of the output folder;
* **absurd numbers** — every number option: beyond 64 bits, NaN, ±Infinity, below and
  above its bounds; every grid option: 2^-100000..2^100000, overflowing and dividing
  powers, 1e999, NaN, 2,001 values, negative values;
* **absurd widths and ids in files** — every reader of numbers: indices, ids and offsets
  beyond int64, far beyond the rows, malformed digits; saved models claiming huge widths;
* **degenerate training sets** — every ``train`` (PPI systems, homology learners and
  kernels, parse rankers) on no pair, one class, one document, two documents, identical
  sequences, sequences shorter than the k-mers, one sentence, equal scores: a model that
  ``predict`` loads or exit 2 with the reason, and strict JSON;
* **degenerate learning** — every learner of the library (the specifications of
  ``test_contract.py``): numeric strings in an object array refused as in a string array;
  every ranker on no preference pair (one sample, equal scores, one row per query, equal
  scores inside every query): a typed error, or a ``NoPreferenceWarning`` and one score;
* **networks of any size** — ``ppi network`` on an aggregate file without a record, with
  none interacting, with self-pairs only, one pair, 1,500 genes: exit 0 and one consistent
  network in the TSV, the GraphML and the report (an empty one said to be empty);
* **TERM like Ctrl-C** — SIGTERM to every command's exit, and to ``ppi extract`` (a local
  Dask cluster, or in process) and ``parse_ranking build`` (worker processes) after their
  first parts, to the process or its group: Ctrl-C's line and exit code, no leaked
  semaphore, no lock left, and the rerun resumes to the uninterrupted output;
* **edited inputs between a kill and the resume** — ``ppi extract`` (text folder and
  PubTator file edited in place keeping size and time, lexicon and model replaced),
  ``homology benchmark --reuse`` on edited data: refused (or redone), never resumed;
* **relations and caches** — every edit of a file's document-level relations (ids with
  ``|``, ids no mention carries, ``-``, an empty BioC role, a concept twice, another entity
  type), read as training and ``evaluate-documents`` read them: an error naming the file
  and the line or relation, or every relation counted (used or left out, and why); every
  cache (spaCy's analyses and parses, the source models, the Gram matrices) in a folder
  that cannot be written: the result computed all the same, one warning naming the folder
  and what moves it, never a temporary file.

Real data come from ``$KERNELRANK_DATA`` (the PPI probes skip without it); everything else is
generated here.
"""

import argparse
import gzip
import importlib
import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from kernelrank.atomic import loads_strict
from kernelrank.cli import COMMON_BOUNDS, subcommand_parsers

PROGRAMS = ("ppi", "homology", "parse_ranking", "corpora", "learners")

#: string options that are not paths (names, lists, grids, free text)
NOT_PATHS = {"views", "mention_types", "entity_types", "pairs", "relation_types", "scheduler", "note",
             "sentence", "alphas", "Cs",
             "groups", "families", "configs", "rankers", "basis", "coreg_views",
             "coreg_alphas", "coreg_mus", "weight"}
#: options parsed with kernelrank.cli.parse_grid that do not say GRID in their help
GRID_OPTIONS = {("parse_ranking", "--basis"), ("homology", "--weight")}


def _checks(prog):
    if prog == "learners":
        from letor.cli import _checks
        return _checks()
    return importlib.import_module(f"{prog}.cli_checks").CHECKS


def _commands():
    """``[(prog, name, subparser)]`` of every subcommand of the five commands."""
    out = []
    for prog in PROGRAMS:
        parser = importlib.import_module(f"{prog}.__main__").build_parser()
        out += [(prog, name, sub) for name, sub in subcommand_parsers(parser).items()]
    return out


COMMANDS = _commands()


def _main(prog):
    return importlib.import_module(f"{prog}.__main__").main


def _options(sub):
    return [a for a in sub._actions if a.option_strings and a.dest != "help"]


def _string_options(sub):
    return [a for a in _options(sub) if isinstance(a, argparse._StoreAction)
            and a.type is None and a.choices is None]


def _markers(sub, root, only=None):
    """A namespace of ``sub``'s defaults with every string option (or, besides the
    required ones, the one named ``only``) a distinct existing file ``root/m_<dest>``
    (lists: one such file)."""
    ns = argparse.Namespace(**{a.dest: a.default for a in sub._actions})
    for a in _string_options(sub):
        if only is not None and a.dest != only and not a.required:
            continue
        path = root / f"m_{a.dest}"
        path.write_text("x")
        setattr(ns, a.dest, [str(path)] if a.nargs in ("*", "+") else str(path))
    return ns


def _spec(prog, name, sub, root):
    """``(inputs, outputs, spec)``: ``{dest: sub-path}`` of the options whose value (or a
    folder below it: ``--data-dir`` → ``<dir>/ppi``) is a declared input — with every path
    option given or with it alone — ``{dest: kind}`` of the options whose value is a
    declared output, and the spec of all options given."""
    spec = _checks(prog)[name].paths(_markers(sub, root))
    inputs = {}
    for a in _string_options(sub):
        marker = str(root / f"m_{a.dest}")
        for only in (None, a.dest):
            for _, p in _checks(prog)[name].paths(_markers(sub, root, only)).inputs:
                if str(p) == marker or str(p).startswith(marker + "/"):
                    inputs.setdefault(a.dest, os.path.relpath(p, marker))
    by_path = {str(root / f"m_{a.dest}"): a.dest for a in _string_options(sub)}
    outputs = {by_path[str(p)]: kind for _, p, kind in spec.outputs if str(p) in by_path}
    return inputs, outputs, spec


def _option(sub, dest):
    return next(a for a in _options(sub) if a.dest == dest)


def _base_argv(sub, root, use=()):
    """The required options of ``sub`` with harmless values (``root/m_<dest>``, paths that
    do not exist: the names of :func:`_markers`, so derived names agree); of a required
    group of alternatives, one in ``use`` if any."""
    argv = []
    for a in _options(sub):
        if a.required:
            argv += [a.option_strings[-1],
                     a.choices[0] if a.choices else str(root / f"m_{a.dest}")]
    for group in sub._mutually_exclusive_groups:
        if group.required:
            pick = next((a for a in group._group_actions if a.dest in use),
                        next((a for a in group._group_actions if a.choices), None))
            pick = pick or group._group_actions[0]
            argv += [pick.option_strings[-1],
                     pick.choices[0] if pick.choices else str(root / f"m_{pick.dest}")]
    return argv


def _set(argv, option, value):
    """``argv`` with ``option`` set to ``value`` (replaced if present; ``--opt=-inf`` form for
    a value argparse would take for an option)."""
    argv = list(argv)
    if option in argv:
        del argv[argv.index(option):argv.index(option) + 2]
    value = str(value)
    return argv + ([f"{option}={value}"] if value.startswith("-") else [option, value])


def _snapshot(path):
    """Every file below ``path`` (or ``path`` itself) with its bytes, every link target."""
    path = Path(path)
    if path.is_file():
        return {".": path.read_bytes()}
    return {str(p.relative_to(path)): (os.readlink(p) if p.is_symlink() else
                                       p.read_bytes() if p.is_file() else None)
            for p in sorted(path.rglob("*"))}


def strict_json_files(*folders):
    """Every ``*.json`` / ``*.jsonl`` file below ``folders`` parses as strict JSON (no NaN,
    no Infinity); returns how many were checked."""
    n = 0
    for folder in folders:
        folder = Path(folder)
        files = [folder] if folder.is_file() else [*folder.rglob("*.json"),
                                                   *folder.rglob("*.jsonl")]
        for f in files:
            if f.suffix not in (".json", ".jsonl"):
                continue
            text = f.read_text(encoding="utf-8")
            for line in (text.splitlines() if f.suffix == ".jsonl" else [text]):
                if line.strip():
                    loads_strict(line)
            n += 1
    return n


def _trained(code, err, *outputs):
    """Whether a ``train`` saved a model (exit 0); otherwise it must have exited 2 with an
    ``error:`` line and written none of ``outputs``."""
    if code == 2:
        _refused(code, err)
        assert not any(Path(p).exists() for p in outputs), outputs
        return False
    assert code == 0, err
    return True


def _refused(code, err, *words):
    assert code == 2, err
    assert err.startswith("error: ") and "Traceback" not in err, err
    for w in words:
        assert w in err, err


# ======================================================================== declarations
@pytest.mark.parametrize("prog, name", [(p, n) for p, n, _ in COMMANDS])
def test_every_subcommand_declares_what_it_reads_and_writes(prog, name):
    assert name in _checks(prog) and _checks(prog)[name].paths is not None, \
        f"{prog} {name}: add a Checks(paths=...) entry to {prog}'s cli_checks"


@pytest.mark.parametrize("prog, name, sub", COMMANDS, ids=[f"{p}-{n}" for p, n, _ in COMMANDS])
def test_every_path_option_is_declared(prog, name, sub, tmp_path):
    """Each string option is an input, an output, or listed here as not a path — with every
    path option given, or with it alone (``--data-dir`` is read only without ``--data``)."""
    declared = []
    for only in [None] + [a.dest for a in _string_options(sub)]:
        spec = _checks(prog)[name].paths(_markers(sub, tmp_path, only))
        declared += [str(p) for _, p in spec.inputs] + [str(p) for _, p, _ in spec.outputs]
    missing = [a.option_strings[-1] for a in _string_options(sub)
               if a.dest not in NOT_PATHS
               and not any(d.startswith(str(tmp_path / f"m_{a.dest}")) for d in declared)]
    assert not missing, (f"{prog} {name}: declare {missing} as inputs or outputs in its "
                         "cli_checks (or add them to NOT_PATHS here if they are no paths)")


@pytest.mark.parametrize("prog, name, sub", COMMANDS, ids=[f"{p}-{n}" for p, n, _ in COMMANDS])
def test_every_number_option_is_bounded(prog, name, sub):
    bounds = _checks(prog)[name].bounds
    loose = [a.option_strings[-1] for a in _options(sub) if a.type in (int, float)
             and a.dest not in bounds and a.dest not in COMMON_BOUNDS]
    assert not loose, f"{prog} {name}: give {loose} bounds in its cli_checks"
    for a in _options(sub):           # the defaults are within them
        if a.type in (int, float) and a.default is not None:
            low, high = (bounds.get(a.dest) or COMMON_BOUNDS[a.dest])[:2]
            for v in (a.default if isinstance(a.default, list) else [a.default]):
                assert (low is None or v >= low) and (high is None or v <= high), a.dest


# ======================================================================== input = output
def _io_cases():
    import tempfile
    cases = []
    for prog, name, sub in COMMANDS:
        # which options are inputs / outputs: from the declaration, on marker files
        with tempfile.TemporaryDirectory() as tmp:
            inputs, outputs, spec = _spec(prog, name, sub, Path(tmp))
            named = {o: [str(Path(p).relative_to(Path(tmp) / f"m_{o}"))
                         for _, p, kind in spec.outputs if kind == "file"
                         and str(p).startswith(str(Path(tmp) / f"m_{o}") + "/")]
                     for o in outputs}
        for i, below in inputs.items():
            for o, kind in outputs.items():
                if below != ".":          # the input is a folder below the option's value
                    scenarios = ["inside"] + (["same"] if kind != "file" else [])
                else:
                    scenarios = ["same", "symlink", "inside"]
                    scenarios += ["hardlink"] if kind == "file" else []
                    scenarios += ["holds"] if kind == "tree" else []
                    scenarios += [f"named:{r}" for r in named[o]]
                cases += [(prog, name, i, below, o, kind, s) for s in scenarios]
    return cases


IO_CASES = _io_cases()


def _precious(path, directory):
    if directory:
        path.mkdir(parents=True)
        (path / "precious.txt").write_text("precious\n")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("precious\n")
    return path


@pytest.mark.parametrize("prog, name, inp, below, out, kind, scenario", IO_CASES,
                         ids=[f"{p}-{n}-{i}-{o}-{s}" for p, n, i, _, o, _, s in IO_CASES])
def test_output_naming_an_input_is_refused_before_any_work(prog, name, inp, below, out, kind,
                                                          scenario, tmp_path, capsys):
    sub = dict(((p, n), s) for p, n, s in COMMANDS)[(prog, name)]
    i_opt, o_opt = _option(sub, inp), _option(sub, out)
    directory = kind != "file"
    if below != ".":                   # the input read is a folder below the option's value
        _precious(tmp_path / "data" / below, True)
        guarded, i_val = tmp_path / "data", tmp_path / "data"
        o_val = tmp_path / "data" / below
        if scenario == "inside":
            o_val = o_val / ("out.txt" if kind == "file" else "o")
    elif scenario == "same":
        guarded = _precious(tmp_path / "shared", directory)
        i_val = o_val = guarded
    elif scenario == "symlink":
        guarded = _precious(tmp_path / "shared", directory)
        (tmp_path / "link").symlink_to(guarded, target_is_directory=directory)
        i_val, o_val = guarded, tmp_path / "link"
    elif scenario == "hardlink":
        guarded = _precious(tmp_path / "shared", False)
        os.link(guarded, tmp_path / "hard")
        i_val, o_val = guarded, tmp_path / "hard"
    elif scenario == "inside":
        guarded = _precious(tmp_path / "input_dir", True)
        i_val, o_val = guarded, guarded / "sub" / ("out.txt" if kind == "file" else "o")
    elif scenario == "holds":
        guarded = _precious(tmp_path / "tree", True)
        i_val, o_val = guarded / "precious.txt", guarded
    else:                                             # named:<file the folder gets>
        guarded = tmp_path / "folder"
        _precious(guarded / scenario.split(":", 1)[1], False)
        i_val, o_val = guarded / scenario.split(":", 1)[1], guarded
    before = _snapshot(guarded)
    argv = [name, *_base_argv(sub, tmp_path, use=(inp,))]
    argv = _set(_set(argv, i_opt.option_strings[-1], i_val), o_opt.option_strings[-1], o_val)
    code = _main(prog)(argv)
    _refused(code, capsys.readouterr().err, "overwrite", o_opt.option_strings[-1])
    assert _snapshot(guarded) == before


# ======================================================================== one rule for -
def _dash_cases():
    """``(prog, name, dest)`` of every path option of every subcommand (the string options
    that are no :data:`NOT_PATHS`: what :func:`test_every_path_option_is_declared` checks is
    declared)."""
    return [(prog, name, a.dest) for prog, name, sub in COMMANDS
            for a in _string_options(sub) if a.dest not in NOT_PATHS]


DASH_CASES = _dash_cases()


@pytest.mark.parametrize("prog, name, dest", DASH_CASES,
                         ids=[f"{p}-{n}-{d}" for p, n, d in DASH_CASES])
def test_dash_is_refused_alike_for_every_input_and_output(prog, name, dest, tmp_path,
                                                         monkeypatch, capsys):
    """No command streams standard input or output, so ``-`` for any file or folder option —
    input or output — is refused before any work, naming the option and the stream; no file
    named ``-`` (nor ``-.summary.json``, …) appears in the current folder."""
    sub = {(p, n): s for p, n, s in COMMANDS}[(prog, name)]
    option = _option(sub, dest).option_strings[-1]
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = _set([name, *_base_argv(sub, tmp_path, use=(dest,))], option, "-")
    code = _main(prog)(argv)
    err = capsys.readouterr().err
    _refused(code, err, f"{option} -: nothing is ")
    assert re.search(r"(read from standard input|written to standard output) here", err), err
    assert not any(work.iterdir()) and not any(p.name.startswith("-")
                                               for p in tmp_path.rglob("*"))


# ======================================================================== absurd numbers
def _number_cases():
    cases = []
    for prog, name, sub in COMMANDS:
        bounds = _checks(prog)[name].bounds
        for a in _options(sub):
            if a.type not in (int, float):
                continue
            low, high = (bounds.get(a.dest) or COMMON_BOUNDS.get(a.dest) or (None, None))[:2]
            values = [str(2 ** 63), str(-10 ** 30)] if a.type is int else \
                ["nan", "inf", "-inf"]
            if low is not None and low > -10 ** 30:
                values.append(str(low - 1) if a.type is int else repr(float(low) - 1))
            if high is not None:
                values.append(str(high + 1) if a.type is int else repr(float(high) * 2 + 1))
            cases += [(prog, name, a.option_strings[-1], v) for v in dict.fromkeys(values)]
    return cases


NUMBER_CASES = _number_cases()


@pytest.mark.parametrize("prog, name, option, value", NUMBER_CASES,
                         ids=[f"{p}-{n}{o}={v}" for p, n, o, v in NUMBER_CASES])
def test_absurd_number_option_is_refused_before_any_work(prog, name, option, value, tmp_path,
                                                        capsys):
    sub = dict(((p, n), s) for p, n, s in COMMANDS)[(prog, name)]
    argv = _set([name, *_base_argv(sub, tmp_path)], option, value)
    _refused(_main(prog)(argv), capsys.readouterr().err, option)
    assert not any(tmp_path.iterdir())            # nothing written


ABSURD_GRIDS = ["2^-100000..2^100000", "2^99999999999", "2^100000", "0^-1", "1e999", "nan",
                "inf", ",".join(["1"] * 2001), "-1", "2^-10..2^10:0", "", "1,abc"]


def _grid_cases():
    cases = []
    for prog, name, sub in COMMANDS:
        for a in _options(sub):
            if a.metavar == "GRID" or (prog, a.option_strings[-1]) in GRID_OPTIONS:
                cases += [(prog, name, a.option_strings[-1], g) for g in ABSURD_GRIDS]
    return cases


GRID_CASES = _grid_cases()


@pytest.mark.parametrize("prog, name, option, grid", GRID_CASES,
                         ids=[f"{p}-{n}{o}-{k}" for k, (p, n, o, _) in enumerate(GRID_CASES)])
def test_absurd_grid_is_refused_before_any_work(prog, name, option, grid, tmp_path, capsys):
    sub = dict(((p, n), s) for p, n, s in COMMANDS)[(prog, name)]
    argv = _set([name, *_base_argv(sub, tmp_path)], option, grid)
    _refused(_main(prog)(argv), capsys.readouterr().err, option)


# ============================================================== absurd widths and ids
def _typed_or_consistent(read, check=None):
    """``read()`` raises a typed error or returns something ``check`` accepts."""
    from kernelrank.errors import KernelrankError
    try:
        result = read()
    except KernelrankError as exc:
        return exc
    if check is not None:
        check(result)
    return result


SVMLIGHT_LINES = {
    "index 10^9": ("2 qid:1 1:0.5 1000000000:1\n", (1, 10 ** 9)),
    "index 2^63-1": ("2 qid:1 1:0.5 9223372036854775807:1\n", (1, 2 ** 63 - 1)),
    "index 2^63": ("2 qid:1 1:0.5 9223372036854775808:1\n", None),
    "index 10^30": ("2 qid:1 1:0.5 1000000000000000000000000000000:1\n", None),
    "qid 2^63": ("2 qid:9223372036854775808 1:0.5\n", None),
    "qid -10^30": ("2 qid:-1000000000000000000000000000000 1:0.5\n", None),
    "qid 2^63-1": ("2 qid:9223372036854775807 1:0.5\n", (1, 1)),
    "index 0": ("2 qid:1 0:0.5\n", None),
    "index 1_0": ("2 qid:1 1_0:0.5\n", None),
    "label 1e999": ("1e999 qid:1 1:0.5\n", None),
    "value 1e999": ("1 qid:1 1:1e999\n", None),
}


@pytest.mark.parametrize("case", SVMLIGHT_LINES)
def test_svmlight_absurd_index_or_qid(case, tmp_path):
    from corpora.svmlight import load_svmlight
    from kernelrank.errors import CorpusFormatError
    line, shape = SVMLIGHT_LINES[case]
    path = tmp_path / "f.txt"
    path.write_text(line)
    if shape is None:
        with pytest.raises(CorpusFormatError, match="line 1"):
            load_svmlight(path)
    else:
        assert load_svmlight(path).X.shape == shape          # sparse: O(entries)
        if shape[1] > 2 ** 27:
            assert isinstance(_typed_or_consistent(lambda: load_svmlight(path, dense=True)),
                              Exception)


def _letor_folder(root, extra="", qid=None, rows=12):
    """S1..S5 parts of 3 queries × ``rows`` documents, 5 features; ``extra`` appended to
    the first line of S1 (a wide feature), ``qid`` replacing its first qid."""
    rng = np.random.default_rng(0)
    root.mkdir()
    for k in range(1, 6):
        lines = []
        for q in range(3):
            for d in range(rows):
                feats = " ".join(f"{j}:{rng.random():.3f}" for j in range(1, 6))
                first = k == 1 and q == 0 and d == 0
                lines.append(f"{rng.integers(0, 3)} qid:{qid if first and qid else k * 10 + q} "
                             f"{feats}{extra if first else ''} #docid = {d}")
        (root / f"S{k}.txt").write_text("\n".join(lines) + "\n")
    return root


LETOR_CASES = {"index 10^4": (" 10000:0.5", None, True), "index 2*10^6": (" 2000000:0.5", None, True),
               "index 10^9": (" 1000000000:0.5", None, True),
               "index 2^63": (" 9223372036854775808:0.5", None, False),
               "qid 2^63": ("", 2 ** 63, False)}


@pytest.mark.parametrize("case", LETOR_CASES)
def test_letor_absurd_width_or_qid_runs_bounded_or_is_refused(case, tmp_path, capsys):
    """37 training rows and one feature index far beyond them: the fold is cut to the
    columns in use (RankRLS / RLS in the dual when wider than the rows), so it runs like
    the narrow data set; an index or qid beyond int64 is a located error."""
    from learners.__main__ import main
    extra, qid, runs = LETOR_CASES[case]
    data = _letor_folder(tmp_path / "data", extra, qid)
    argv = ["letor", "--data", str(data), "--output-dir", str(tmp_path / "out"), "--quiet",
            "--learner", "rankrls", "--folds", "1", "--alphas", "1,8"]
    if extra and runs:
        argv += ["--n-features", extra.split(":")[0].strip()]
    code = main(argv)
    err = capsys.readouterr().err
    if runs:
        assert code == 0, err
        assert strict_json_files(tmp_path / "out") == 1
    else:
        _refused(code, err, "line 1", "64-bit")


def test_letor_fold_width_is_the_columns_in_use():
    import scipy.sparse as sp

    from kernelrank.errors import InvalidInputError
    from letor.layouts import used_columns
    X = sp.csr_matrix((np.ones(3), [0, 5, 10 ** 12], [0, 2, 3]), shape=(2, 10 ** 12 + 1))
    a, b = used_columns([X, X[:1]])
    assert a.shape == (2, 3) and b.shape == (1, 3) and a[1, 2] == 1
    cols = np.random.default_rng(0).choice(10 ** 6, 300_000, replace=False)
    wide = sp.csr_matrix((np.ones(300_000), cols, np.arange(0, 300_001, 10)),
                         shape=(30_000, 10 ** 6))  # 30,000 rows, 300,000 distinct features
    with pytest.raises(InvalidInputError, match="rows × .* features in use"):
        used_columns([wide])


PUBTATOR_OFFSETS = ["21a", " 21", "2_1", "٢١", "1e3", str(2 ** 63), "-5", "99999999",
                    "", "+3"]


@pytest.mark.parametrize("start", PUBTATOR_OFFSETS)
@pytest.mark.parametrize("skip_bad", [False, True])
def test_pubtator_absurd_offset_is_an_error_or_counted_never_silent(start, skip_bad,
                                                                    tmp_path):
    from corpora.text_input import ReadStats, read_pubtator
    path = tmp_path / "f.pubtator"
    path.write_text("1|t|Alpha binds Beta.\n1|a|Text.\n"
                    f"1\t{start}\t16\tBeta\tGene\t22\n\n2|t|Gamma.\n")
    stats = ReadStats()
    result = _typed_or_consistent(lambda: list(read_pubtator(path, skip_bad=skip_bad,
                                                             stats=stats)))
    if isinstance(result, Exception):
        assert not skip_bad and "line 3" in str(result)
        return
    docs = {d.id: d for d in result}
    if "1" in docs:                # read: the mention is placed (repaired) or counted
        placed = len(docs["1"].mentions) == 1
        assert placed or stats.mentions_dropped == 1, (start, docs["1"].mentions)
    else:
        assert skip_bad and stats.skipped == 1


LEARNING_OFFSETS = ["2_1-5", "1e9-2e9", "99999999999999999999-1", "٢-٣", " 0-3", "3-1",
                    "0-99999999999"]


@pytest.mark.parametrize("offset", LEARNING_OFFSETS)
def test_learning_format_absurd_char_offset(offset, tmp_path):
    from corpora.ppi_xml import read_corpus
    path = tmp_path / "c.xml"
    path.write_text('<corpus source="X"><document id="X.d0"><sentence id="X.d0.s0" '
                    'text="Alpha binds Beta."><entity id="X.d0.s0.e0" '
                    f'charOffset="{offset}" text="Alph" type="protein"/></sentence>'
                    '</document></corpus>')
    result = _typed_or_consistent(lambda: read_corpus(path))
    assert isinstance(result, Exception) or offset == " 0-3", offset


BIOC_OFFSETS = ["21a", "2_1", str(2 ** 63), "٢١", "1e3"]


@pytest.mark.parametrize("offset", BIOC_OFFSETS)
def test_bioc_xml_absurd_offset(offset, tmp_path):
    pytest.importorskip("bioc")
    from corpora.bioc import read_bioc_xml
    path = tmp_path / "c.xml"
    path.write_text('<?xml version="1.0"?><collection><source>x</source><date/><key/>'
                    '<document><id>1</id><passage><offset>0</offset><text>Alpha binds Beta.'
                    '</text><annotation id="a"><infon key="type">Gene</infon>'
                    f'<location offset="{offset}" length="5"/><text>Alpha</text></annotation>'
                    '</passage></document></collection>')
    result = _typed_or_consistent(lambda: list(read_bioc_xml(path)))
    assert isinstance(result, Exception), offset


CONLLU_IDS = [("99999999999999999999", "0"), ("1", "99999999999999999999"), ("1", "-1"),
              ("٢", "0"), ("1", "1_0")]


@pytest.mark.parametrize("ident, head", CONLLU_IDS)
def test_conllu_absurd_id_or_head(ident, head, tmp_path):
    from corpora.conllu import read_conllu
    from kernelrank.errors import CorpusFormatError
    path = tmp_path / "t.conllu"
    path.write_text(f"# sent_id = s\n# text = Hi\n{ident}\tHi\thi\tX\tX\t_\t{head}\troot\t_\t_\n\n")
    with pytest.raises(CorpusFormatError, match="line 3"):
        read_conllu(path)


@pytest.fixture(scope="module")
def small_ppi_model(data_dir, tmp_path_factory):
    """A Paper V model of 12 LLL documents (its directory)."""
    from ppi.__main__ import main
    root = tmp_path_factory.mktemp("small")
    corpus = _lll_slice(data_dir, root / "lll12.xml", 12)
    assert main(["train", "--input", str(corpus), "--system", "paper-v", "--model",
                 str(root / "m"), "--output-dir", str(root / "r"), "--quiet"]) == 0
    return root / "m"


def _reseal(model_dir, edit):
    from ppi.models.classes import meta_sha256
    meta = json.loads((model_dir / "model.json").read_text())
    edit(meta)
    meta["meta_sha256"] = meta_sha256(meta)
    (model_dir / "model.json").write_text(json.dumps(meta))


@pytest.mark.slow
@pytest.mark.parametrize("n_features", [2 ** 40, 10 ** 30, 0, -1, True])
def test_ppi_model_claiming_an_absurd_width_is_refused(small_ppi_model, n_features, tmp_path):
    """The hashing width sizes the dense weights: a (resealed) model.json claiming 2^40
    columns is refused, not allocated."""
    from kernelrank.errors import CorpusFormatError
    from ppi.models.classes import PPIModel
    m = shutil.copytree(small_ppi_model, tmp_path / "m")
    _reseal(m, lambda meta: meta["featurizer"].update(n_features=n_features))
    with pytest.raises(CorpusFormatError, match="n_features"):
        PPIModel.load(m)


@pytest.mark.parametrize("option, value", [("k", 10 ** 6), ("m", 10 ** 6),
                                           ("half_width", 10 ** 9)])
def test_homology_model_claiming_absurd_kernel_options_is_refused(option, value, tmp_path):
    from homology.model import content_sha256, load_model
    from kernelrank.errors import CorpusFormatError
    model = _homology_model(tmp_path, "mismatch" if option != "half_width" else "locality")
    with np.load(model) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["kernel_options"][option] = value
    meta["sha256"] = content_sha256(meta, arrays)
    arrays["meta"] = np.array(json.dumps(meta))
    with open(model, "wb") as handle:
        np.savez(handle, **arrays)
    with pytest.raises(CorpusFormatError, match=option):
        load_model(model)


# ====================================================================== degenerate training
def _lll_slice(data_dir, path, n_docs, edit=None):
    """The first ``n_docs`` documents of the real LLL corpus (``edit``: bytes → bytes)."""
    from tests.conftest import lll_path
    data = gzip.decompress(lll_path(data_dir).read_bytes())
    end = -1
    for _ in range(n_docs):
        end = data.index(b"</document>", end + 1)
    out = data[:data.index(b"\n", end) + 1] + b"</corpus>\n"
    path.write_bytes(edit(out) if edit else out)
    return path


PPI_DEGENERATE = {
    "no pairs": (3, lambda b: re.sub(rb"<pair [^>]*/>\n?", b"", b)),
    "one class": (12, lambda b: b.replace(b'interaction="True"', b'interaction="False"')),
    "only interacting": (12, lambda b: b.replace(b'interaction="False"', b'interaction="True"')),
    "one document": (1, None),
    "two documents": (2, None),
    "twelve documents": (12, None),
}
PPI_SYSTEMS = {"paper-v": ["--system", "paper-v"], "multiview": ["--system", "multiview"],
               "multiview bow": ["--system", "multiview", "--views", "bow"],
               "multicorpus": ["--system", "multicorpus", "--no-transfer"],
               "text": ["--system", "text", "--no-transfer"]}


@pytest.mark.slow
@pytest.mark.parametrize("system", PPI_SYSTEMS)
@pytest.mark.parametrize("case", PPI_DEGENERATE)
def test_ppi_train_saves_what_predict_loads_or_exits_2(case, system, data_dir, tmp_path,
                                                       capsys):
    """(The transfer of the multicorpus system trains the other benchmark corpora — minutes —
    and does not change what is checked here: the target's degenerate set.)"""
    from ppi.__main__ import main
    n_docs, edit = PPI_DEGENERATE[case]
    corpus = _lll_slice(data_dir, tmp_path / "c.xml", n_docs, edit)
    code = main(["train", "--input", str(corpus), *PPI_SYSTEMS[system], "--model",
                 str(tmp_path / "m"), "--output-dir", str(tmp_path / "r"), "--quiet"])
    if not _trained(code, capsys.readouterr().err, tmp_path / "m"):
        return
    assert main(["predict", "--input", str(corpus), "--model", str(tmp_path / "m"),
                 "--output-dir", str(tmp_path / "p")]) == 0, capsys.readouterr().err
    assert strict_json_files(tmp_path / "r", tmp_path / "p", tmp_path / "m") == 3


def _biored_slice(data_dir, path, n_docs, edit=None):
    """The first ``n_docs`` records of the real BioRED training file (PubTator with
    relations); ``edit``: record text → record text."""
    src = Path(data_dir) / "biored" / "Train.PubTator.gz"
    if not src.exists():
        pytest.skip(f"{src} absent")
    records = gzip.decompress(src.read_bytes()).decode("utf-8").strip().split("\n\n")
    path.write_text("\n\n".join(map(edit or (lambda r: r), records[:n_docs])) + "\n")
    return path


def _no_relations(record):
    return "\n".join(line for line in record.split("\n")
                     if not re.match(r"\d+\t[A-Za-z]", line))


def _unknown_ids(record):
    """Every relation of ``record`` naming an id no mention carries."""
    return re.sub(r"^(\d+\t[A-Za-z_]+\t)\S+\t", r"\g<1>77777777\t", record, flags=re.MULTILINE)


DOCUMENT_CASES = {"one document": (1, None), "no relations": (6, _no_relations),
                  "relations naming no mention": (6, _unknown_ids),
                  "twenty documents": (20, None)}


@pytest.mark.slow
@pytest.mark.parametrize("case", DOCUMENT_CASES)
def test_ppi_train_documents_saves_what_loads_or_exits_2(case, data_dir, tmp_path, capsys):
    """``ppi train --relations-from`` (the documents system, on spaCy's parse; without the
    transfer's source corpora): a model :class:`ppi.models.classes.PPIModel` loads (what ``ppi
    extract`` reads), strict JSON, or exit 2 with the reason."""
    pytest.importorskip("spacy")
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    n_docs, edit = DOCUMENT_CASES[case]
    src = _biored_slice(data_dir, tmp_path / "train.pubtator", n_docs, edit)
    code = main(["train", "--relations-from", str(src), "--no-transfer", "--model",
                 str(tmp_path / "m"), "--output-dir", str(tmp_path / "r"), "--quiet"])
    if not _trained(code, capsys.readouterr().err, tmp_path / "m"):
        return
    PPIModel.load(tmp_path / "m")
    assert strict_json_files(tmp_path / "r", tmp_path / "m") == 2


HOMOLOGY_SETS = {
    "same sequences": (["ACDEFGHIKLMNPQ"] * 2, ["ACDEFGHIKLMNPQ"] * 2),
    "a sequence in both": (["ACDEFGHIKLMNPQRS", "WWYYVVTTSSRRQQ"], ["WWYYVVTTSSRRQQ", "YYYYVVVWWWTTTS"]),
    "shorter than k": (["A", "C"], ["D", "E"]),
    "unknown residues": (["XXXXXXXX", "XXXXXXXX"], ["WWWWYYYYVVVTTT", "YYYYVVVWWWTTTS"]),
    "two and two": (["ACDEFGHIKLMNPQRS", "ACDEFGHIKLWWPQRS"], ["WWWWYYYYVVVTTT", "YYYYVVVWWWTTTS"]),
    "one positive": (["ACDEFGHIKLMNPQRS"], ["WWWWYYYYVVVTTT", "YYYYVVVWWWTTTS"]),
}
HOMOLOGY_TRAINS = {"mismatch l2svm": ["--kernel", "mismatch"],
                   "spectrum rls": ["--kernel", "spectrum", "--learner", "rls"],
                   "locality l2svm": ["--kernel", "locality"],
                   "mismatch+features rls": ["--kernel", "mismatch+features", "--learner", "rls"]}


def _fasta(path, prefix, seqs):
    path.write_text("".join(f">{prefix}{i}\n{s}\n" for i, s in enumerate(seqs)))
    return path


def _homology_model(tmp_path, kernel="mismatch"):
    from homology.__main__ import main
    pos, neg = HOMOLOGY_SETS["two and two"]
    assert main(["train", "--positives", str(_fasta(tmp_path / "p.fa", "p", pos)),
                 "--negatives", str(_fasta(tmp_path / "n.fa", "n", neg)), "--kernel", kernel,
                 "--model", str(tmp_path / "h.npz")]) == 0
    return tmp_path / "h.npz"


@pytest.mark.parametrize("train", HOMOLOGY_TRAINS)
@pytest.mark.parametrize("case", HOMOLOGY_SETS)
def test_homology_train_saves_what_predict_loads_or_exits_2(case, train, tmp_path, capsys):
    from homology.__main__ import main
    pos, neg = HOMOLOGY_SETS[case]
    p, n = _fasta(tmp_path / "p.fa", "p", pos), _fasta(tmp_path / "n.fa", "n", neg)
    code = main(["train", "--positives", str(p), "--negatives", str(n), *HOMOLOGY_TRAINS[train],
                 "--model", str(tmp_path / "h.npz")])
    if not _trained(code, capsys.readouterr().err, tmp_path / "h.npz"):
        return
    assert main(["predict", "--model", str(tmp_path / "h.npz"), "--input", str(p),
                 "--output", str(tmp_path / "s.tsv")]) == 0, capsys.readouterr().err
    scores = [float(line.split("\t")[1]) for line in
              (tmp_path / "s.tsv").read_text().splitlines()[1:]]
    assert len(scores) == len(pos) and all(map(math.isfinite, scores))


def _parse_records(case):
    from tests.parse_ranking.test_coreg import synthetic_records
    base = synthetic_records(np.random.default_rng(1), n_articles=3, per_article=3, n_parses=5)
    if case == "one sentence":
        return base[:1]
    if case == "one article":
        return base[:3]
    if case == "two sentences":
        return base[:2]
    if case == "equal scores":
        return [dict(r, parses=[dict(p, f=0.5) for p in r["parses"]]) for r in base]
    if case == "one parse each":
        return [dict(r, parses=r["parses"][:1]) for r in base]
    return []


PARSE_CASES = ("one sentence", "one article", "two sentences", "equal scores",
               "one parse each", "empty file")


def _saveable_rankers():
    from parse_ranking.names import SAVEABLE_RANKERS
    return SAVEABLE_RANKERS


@pytest.mark.parametrize("ranker", _saveable_rankers())
@pytest.mark.parametrize("case", PARSE_CASES)
def test_parse_ranking_train_saves_what_loads_or_exits_2(case, ranker, tmp_path, capsys):
    from parse_ranking.__main__ import main
    from parse_ranking.model import load_model
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _parse_records(case)))
    code = main(["train", "--data", str(data), "--output-model", str(tmp_path / "m"),
                 "--ranker", ranker, "--alphas", "1"])
    if not _trained(code, capsys.readouterr().err, *tmp_path.glob("m.*")):
        return
    load_model(tmp_path / "m")          # what `rank` loads (which also needs Link Grammar)
    assert strict_json_files(tmp_path / "m.json") == 1


# ==================================================================== degenerate learning
def _contract():
    """The learners' specifications of ``tests/project/test_contract.py`` (every exported
    estimator, how it is fitted, its test inputs)."""
    from tests.project import test_contract
    return test_contract


C = _contract()
SPECS, FLAT, QUERY, D, ESTIMATORS, RANKERS, views = (C.SPECS, C.FLAT, C.QUERY, C.D,
                                                    C.ESTIMATORS, C.RANKERS, C.views)
#: the learners fitted on (X, y) or (X, y, qids) rows, and how
ROW_FITS = {n: ("query" if SPECS[n][2] is QUERY[0] else "flat") for n in ESTIMATORS
            if SPECS[n][2] in (FLAT[0], QUERY[0])}


def _fit_rows(name, X, y):
    est = SPECS[name][1]()
    return est.fit(X, y, D.q) if ROW_FITS[name] == "query" else est.fit(X, y)


@pytest.mark.parametrize("name", sorted(ROW_FITS))
def test_numeric_strings_in_an_object_array_are_refused_as_in_a_string_array(name):
    """``np.array(["1.5", ...], dtype=object)`` is refused like ``np.array(["1.5", ...])``
    (both ``TypeError`` and typed, naming X or y); an object array of numbers is data."""
    from learners._validation import InvalidInputTypeError
    y = D.labels if name == "L2SVM" else D.y
    text = D.X.astype(str)
    for X in (text, text.astype(object)):
        with pytest.raises(InvalidInputTypeError, match=f"{name}: X .*strings"):
            _fit_rows(name, X, y)
    with pytest.raises(InvalidInputTypeError, match="y is an object array holding strings"):
        _fit_rows(name, D.X, y.astype(str).astype(object))
    np.testing.assert_allclose(_fit_rows(name, D.X.astype(object), y).predict(D.Xt),
                               _fit_rows(name, D.X, y).predict(D.Xt), rtol=1e-12, atol=1e-12)


def _degenerate_fit(name, case):
    """Fit ranker ``name`` (a small configuration that accepts 12 rows) on the degenerate
    data set ``case``; returns the model and test inputs for predict."""
    ones, rows = np.repeat([1.0, 2.0, 3.0], 4), np.arange(12)
    X, y, q = {"one sample": (D.X[:1], D.y[:1], D.q[:1]),
               "equal scores": (D.X[:12], np.ones(12), D.q[:12]),
               "one row per query": (D.X[:12], D.y[:12], rows),
               "equal scores inside every query": (D.X[:12], ones, rows // 4)}[case]
    small = {"ReducedSetGlobalRankRLS": {"n_basis": 1}, "ReducedSetQueryRankRLS":
             {"n_basis": 1}, "NystroemQueryRankRLS": {"n_basis": 1},
             "KPCRank": {"n_components": 1}, "GlobalRankRLSCV": {"cv": 2}}
    from sklearn.base import clone
    est = clone(SPECS[name][1]()).set_params(**small.get(name, {}))
    if name == "KronRankRLS":
        k = 1 if case == "one sample" else 4
        return est.fit(D.nodes[:k], np.ones((k, k))), D.nodes_t
    if name == "CoRankRLS":
        return est.fit(views(X), y, q, views(D.Xt)), views(D.Xt)
    if SPECS[name][2] is FLAT[0]:
        return est.fit(X, y), D.Xt
    return est.fit(X, y, q), D.Xt


NO_PAIR_CASES = [(n, c) for n in RANKERS for c in ("one sample", "equal scores",
                                                     "one row per query",
                                                     "equal scores inside every query")
                 if SPECS[n][2] is QUERY[0] or n == "CoRankRLS" or c in ("one sample",
                                                                         "equal scores")]


@pytest.mark.parametrize("name, case", NO_PAIR_CASES)
def test_a_ranker_without_a_preference_pair_says_nothing_can_be_learnt(name, case):
    """Never a silent constant model: a typed error with the reason, or a
    :class:`~kernelrank.errors.NoPreferenceWarning` naming the estimator at the caller's
    line, and one score for every input."""
    import warnings

    from kernelrank.errors import KernelrankError, NoPreferenceWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model, Xt = _degenerate_fit(name, case)
        except KernelrankError:
            return                                           # refused, with its reason
    said = [w for w in caught if issubclass(w.category, NoPreferenceWarning)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert str(said[0].message).startswith(f"{name}: no preference pair")
    assert said[0].filename == __file__                       # points at the caller's fit
    p = np.ravel(model.predict(Xt))
    np.testing.assert_allclose(p, p[0], atol=1e-9)           # one score for every input


# ================================================================= networks of any size
def _aggregate_records(case):
    """``ppi aggregate`` records (JSONL lines) of a network of ``case``."""
    def rec(doc, g1, g2, score, interaction):
        return {"doc_id": doc, "gene1": g1, "gene2": g2, "gene1_text": f"G{g1}",
                "gene2_text": f"G{g2}", "score": score, "interaction": interaction,
                "positive_mention_pairs": int(interaction)}
    if case == "no record":
        return []
    if case == "none interacting":
        return [rec(f"d{k}", str(k), str(k + 1), -1.0, False) for k in range(5)]
    if case == "only self-pairs":
        return [rec("d0", "7", "7", 1.0, True), rec("d1", "7", "7", 0.5, True)]
    if case == "one pair":
        return [rec("d0", "1", "2", 1.0, True)]
    import networkx as nx
    graph = nx.barabasi_albert_graph(1500, 2, seed=1)              # "large": one component
    return [rec(f"d{k}", str(u), str(v), 0.1 + k % 7, True)
            for k, (u, v) in enumerate(graph.edges)]


NETWORK_CASES = ["no record", "none interacting", "only self-pairs", "one pair",
                 pytest.param("large", marks=pytest.mark.slow)]


@pytest.mark.parametrize("case", NETWORK_CASES)
def test_ppi_network_of_any_size_writes_one_consistent_network(case, tmp_path, capsys):
    """``ppi network`` on an empty network, one of self-loops only, one pair and 1,500 genes
    (800 drawn): exit 0, the five files, and the TSV, the GraphML and the report telling the
    same network; an empty one is said to be empty."""
    import networkx as nx

    from ppi.__main__ import main
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(r) + "\n" for r in _aggregate_records(case)))
    net = tmp_path / "net"
    argv = ["network", "--input", str(docs), "--output-dir", str(net), "--quiet"]
    assert main(argv + (["--top-edges", "800"] if case == "large" else [])) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert sorted(p.name for p in net.iterdir()) == ["network.graphml", "network.png",
                                                     "network.tsv", "results.json",
                                                     "results.md"]
    graph = nx.read_graphml(net / "network.graphml")
    rows = (net / "network.tsv").read_text().splitlines()[1:]
    results = json.loads((net / "results.json").read_text())
    assert strict_json_files(net) == 1
    assert len(rows) == graph.number_of_edges() == results["edges"]
    assert graph.number_of_nodes() == results["nodes"]
    picture = results["picture"]
    assert picture["genes"] <= results["nodes"] and picture["edges"] <= min(
        results["edges"], results["top_edges"])
    assert picture["labelled"] <= picture["genes"]
    if not results["edges"]:
        assert "**No interaction**" in (net / "results.md").read_text()
        assert "no interaction in the" in out
    if case == "large":
        assert picture["edges"] == 800 and 0 < picture["labelled"] < picture["genes"]


# ======================================================================= TERM like Ctrl-C
ROOT = Path(__file__).resolve().parents[2]


def _default_signals():
    """The child's SIGINT and SIGTERM at their defaults, as in a terminal (a run started by
    a non-interactive shell inherits SIGINT ignored; the probe must test the code)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _signalled_run(cmd, ready, sig, target):
    """Start ``cmd`` in a session of its own, wait until ``ready()`` (the first parts are
    written), send ``sig`` to its first process (``kill PID``) or to its process group
    (``kill -TERM -PGID``: a service manager, the terminal for Ctrl-C); return its exit code
    and stderr."""
    import signal
    import subprocess
    import sys
    import time
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, *cmd], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=_default_signals)  # noqa: PLW1509
    while proc.poll() is None and not ready():
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be stopped"
    (os.kill if target == "process" else os.killpg)(proc.pid, getattr(signal, sig))
    _, err = proc.communicate(timeout=180)
    return proc.returncode, err


def _rerun(cmd):
    import subprocess
    import sys
    return subprocess.run([sys.executable, *cmd], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)


@pytest.mark.slow
def test_sigterm_ends_a_command_as_ctrl_c_does(tmp_path):
    """In every command's exit (:func:`kernelrank.cli.exit_code`): SIGTERM in the middle of
    the work gives Ctrl-C's line and exit code, not a silent death (exit -15)."""
    script = tmp_path / "run.py"
    script.write_text("import os, signal, sys, time\n"
                      "from kernelrank.cli import exit_code\n"
                      "def work():\n"
                      "    os.kill(os.getpid(), signal.SIGTERM)\n"
                      "    time.sleep(30)\n"
                      "sys.exit(exit_code(work, resumes=True))\n")
    import subprocess
    import sys
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60,
                          preexec_fn=_default_signals,
                          check=False)
    from kernelrank.exits import INTERRUPTED_RESUMABLE
    assert (done.returncode, done.stderr) == (130, INTERRUPTED_RESUMABLE + "\n")


TERM_CASES = {"extract kill PID local cluster": ("extract", "process", 1),
              "extract kill -PGID local cluster": ("extract", "group", 1),
              "extract kill PID in process": ("extract", "process", 0),
              "build kill -PGID two workers": ("build", "group", 2)}


@pytest.mark.slow
@pytest.mark.parametrize("case", TERM_CASES)
def test_sigterm_of_a_resumable_run_is_ctrl_c_then_resume(case, data_dir, lll_model,
                                                          tmp_path):
    """``ppi extract`` (a local Dask cluster, or in this process) and ``parse_ranking
    build`` (a pool of worker processes) stopped by SIGTERM after their first parts: the
    line and the exit code of Ctrl-C, no leaked-semaphore warning of worker processes
    killed with the run, no lock left for the next run to take over, no temporary part —
    and the rerun resumes to the output of an uninterrupted run."""
    from kernelrank.exits import INTERRUPTED_RESUMABLE
    command, target, jobs = TERM_CASES[case]
    out, ref = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    if command == "extract":
        from ppi.extraction.extract import extract
        from tests.conftest import lll_path
        src = lll_path(data_dir)
        extract(src, lll_model, ref, "learning-xml", chunk_size=2, workers=0, progress=False)
        cmd = ["-m", "ppi", "extract", "--quiet", "--model", str(lll_model), "--input",
               str(src), "--format", "learning-xml", "--output", str(out), "--jobs",
               str(jobs), "--chunk-size", "2"]
        parts = Path(f"{out}.parts")

        def ready():
            return len(list(parts.glob("chunk-*.jsonl"))) >= 2
    else:
        from parse_ranking.dataset import build_dataset
        from parse_ranking.linkgrammar import is_available
        from tests.conftest import write_craft_slice
        if not is_available():
            pytest.skip("Link Grammar C library absent")
        (tmp_path / "bank").mkdir()
        bank = write_craft_slice(data_dir, tmp_path / "bank", ("11319941", "11532192"),
                                 max_length=14, per_article=3)
        build_dataset(bank, ref, max_parses=6, max_length=14, jobs=1, chunk_size=1,
                      progress=False)
        cmd = ["-m", "parse_ranking", "build", "--treebank", str(bank), "--output", str(out),
               "--quiet", "--max-parses", "6", "--max-length", "14", "--jobs", str(jobs),
               "--chunk-size", "1"]
        parts = None

        def ready():
            return out.exists() and out.stat().st_size > 0
    code, err = _signalled_run(cmd, ready, "SIGTERM", target)
    assert (code, err) == (130, INTERRUPTED_RESUMABLE + "\n")
    assert "leaked semaphore" not in err
    assert not Path(f"{out}.lock").exists()
    assert parts is None or not list(parts.glob(".*.tmp"))
    again = _rerun(cmd)
    assert again.returncode == 0, again.stderr
    assert "lock" not in again.stdout + again.stderr        # nothing to take over
    assert out.read_bytes() == ref.read_bytes()


# ============================================================== edited inputs and resume
def _extract_run(model, src, out, fmt, *extra, max_chunks=None):
    from ppi.extraction.extract import extract
    return extract(src, model, out, fmt, workers=0, chunk_size=1, progress=False,
                   max_chunks=max_chunks, **dict(extra))


def _same_size_and_time_edit(path, old, new):
    """Replace ``old`` by ``new`` (same length) in ``path`` in place, keeping its size and
    modification time (an editor restoring it, ``cp -p``, a second-granularity file
    system)."""
    assert len(old) == len(new)
    st = path.stat()
    data = path.read_bytes()
    assert old in data
    with open(path, "r+b") as handle:
        handle.write(data.replace(old, new, 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size


RESUME_EDITS = ("text file edited", "pubtator edited", "lexicon replaced", "model replaced")


@pytest.mark.slow
@pytest.mark.parametrize("edit", RESUME_EDITS)
def test_extract_killed_then_input_edited_is_refused_not_resumed(edit, nlp, data_dir,
                                                                 small_ppi_model, tmp_path,
                                                                 capsys):
    from tests.conftest import lll_abstracts, write_pubtator_file
    from ppi.__main__ import main
    docs = lll_abstracts(data_dir, n_docs=3)
    out, lexicon = tmp_path / "out.jsonl", tmp_path / "lex.txt"
    names = sorted({d.text[m.start:m.end] for d in docs for m in d.mentions})
    lexicon.write_text("\n".join(names) + "\n")
    model = shutil.copytree(small_ppi_model, tmp_path / "model")
    if edit == "pubtator edited":
        src, fmt, extra = write_pubtator_file(docs, tmp_path / "in.pubtator"), "pubtator", ()
    else:
        src, fmt, extra = tmp_path / "texts", "text", (("lexicon", lexicon),)
        src.mkdir()
        for d in docs:
            (src / f"{d.id}.txt").write_text(d.text + "\n")
    _extract_run(model, src, out, fmt, *extra, max_chunks=1)       # killed after a chunk
    assert (tmp_path / "out.jsonl.parts").is_dir()
    if edit == "text file edited":
        first = sorted(src.glob("*.txt"))[0]
        word = re.search(rb"[a-z]{6,}", first.read_bytes()).group(0)
        _same_size_and_time_edit(first, word, word[::-1])
    elif edit == "pubtator edited":
        word = re.search(rb"\|[ta]\|.*?\b([a-z]{6,})\b", src.read_bytes()).group(1)
        _same_size_and_time_edit(src, word, word[::-1])
    elif edit == "lexicon replaced":
        lexicon.write_text("\n".join(names[:-1]) + "\n")
    else:
        _reseal(model, lambda meta: meta.update(threshold=meta["threshold"] + 1.0))
    argv = ["extract", "--model", str(model), "--input", str(src), "--format", fmt,
            "--output", str(out), "--jobs", "0", "--chunk-size", "1", "--quiet"]
    if fmt == "text":
        argv += ["--lexicon", str(lexicon)]
    _refused(main(argv), capsys.readouterr().err, "different run")
    assert not out.exists()


@pytest.mark.slow
def test_build_killed_then_treebank_edited_is_refused_not_resumed(data_dir, tmp_path,
                                                                   capsys):
    """``parse_ranking build`` stopped after its first chunk; one gold tree edited (its
    time kept); the rerun refuses instead of joining the old records to the new trees."""
    from tests.conftest import write_craft_slice
    from parse_ranking.__main__ import main
    from parse_ranking.linkgrammar import is_available
    if not is_available():
        pytest.skip("Link Grammar C library absent")
    (tmp_path / "bank").mkdir()
    bank = write_craft_slice(data_dir, tmp_path / "bank", ("11319941",), max_length=14,
                             per_article=2)
    out = tmp_path / "d.jsonl"
    argv = ["build", "--treebank", str(bank), "--output", str(out), "--quiet",
            "--max-parses", "3", "--max-length", "14", "--jobs", "1", "--chunk-size", "1"]
    assert main(argv) == 0
    meta = Path(f"{out}.meta.json")                # as a build killed after one chunk
    out.write_text(out.read_text().split("\n", 1)[0] + "\n")
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "complete": False}))
    tree = bank / "11319941.conllu.gz"
    st = tree.stat()
    text = gzip.decompress(tree.read_bytes()).decode()
    head = re.search(r"\n1\t[^\n]*\t(\d+)\t", text)
    edited = text[:head.start(1)] + ("2" if head.group(1) != "2" else "3") + text[head.end(1):]
    tree.write_bytes(gzip.compress(edited.encode(), mtime=0))
    os.utime(tree, ns=(st.st_atime_ns, st.st_mtime_ns))
    _refused(main(argv), capsys.readouterr().err, "other trees")


@pytest.mark.slow
def test_homology_reuse_of_results_on_edited_data_recomputes(data_dir, tmp_path,
                                                            monkeypatch):
    """``benchmark --reuse`` takes stored results only when they were made on data of the
    same content: one sequence edited (same length) and the results are recomputed."""
    from dataclasses import replace

    from corpora.scop import load_scop
    from homology.__main__ import main
    from tests.homology.test_benchmark import _reduced
    small = _reduced(load_scop(data_dir), "7.3.5.2", n_neg=20)
    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: small)
    args = ["benchmark", "--configs", "spectrum-k3", "--output-dir", str(tmp_path), "--quiet",
            "--alphas", "1", "--reuse"]
    assert main(args) == 0
    seq = small.sequences[0]
    edited = replace(small, sequences=(seq[::-1],) + small.sequences[1:])
    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: edited)
    computed = []
    import homology.benchmark as benchmark
    real = benchmark.scop_experiment
    monkeypatch.setattr(benchmark, "scop_experiment",
                        lambda *a, **k: computed.append(1) or real(*a, **k))
    assert main(args) == 0 and computed == [1]           # not the stale results
    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: edited)
    computed.clear()
    assert main(args) == 0 and computed == []            # now the same data: reused
    assert strict_json_files(tmp_path) >= 2


def test_every_reading_open_goes_through_the_shared_opener():
    """Every input file the project reads goes through :mod:`corpora.lines` (gzip by
    content, located UTF-8 and gzip errors, typed missing / directory errors). The reading
    calls elsewhere are listed here with the reason they may bypass it: files the project
    writes itself (run records, caches, sealed models it checks field by field), package
    data, binary digests."""
    import ast
    allowed = {
        ("corpora/lines.py", "open_binary"): "the shared opener itself",
        ("kernelrank/checksum.py", "file_sha256"): "binary digest: nothing decoded",
        ("kernelrank/atomic.py", "_umask"): "/proc/self/status",
        ("kernelrank/atomic.py", "atomic_files"): "fsync of its own temporary file",
        ("kernelrank/lock.py", "read_holder"): "its own lock record (informative)",
        ("kernelrank/sealed.py", "read_json"): "a sealed model file, checked field by field",
        ("kernelrank/sealed.py", "read_arrays"): "a sealed model archive (allow_pickle=False)",
        ("kernelrank/sealed.py", "read_archive"): "a sealed model archive (allow_pickle=False)",
        ("kernelrank/parallel.py", "process_cluster"): "Dask's own scheduler file",
        ("kernelrank/parallel.py", "failed"): "Dask's own logs, for the error message",
        ("corpora/fetch.py", "load_manifest"): "package data (the manifest)",
        ("corpora/fetch.py", "_download_verified"): "a download, its checksum verified",
        ("kernelrank/chunks.py", "_read_run"): "its own run record",
        ("kernelrank/chunks.py", "assemble"): "its own chunk files",
        ("ppi/extraction/records.py", "recorded_definition"):
            "its own run summary (informative; a damaged one is said)",
        ("ppi/parsing/spacy_analyses.py", "spacy_identity"): "spaCy's own model metadata",
        ("ppi/parsing/spacy_analyses.py", "_load_gzip_json"):
            "its own cache of spaCy's analyses",
        ("ppi/learning/source_cache.py", "_load"): "its own cache of source models, keyed",
        ("homology/runs.py", "reusable"): "its own stored results",
        ("learners/kernels/gram_blocks.py", "load"):
            "its own Gram matrix cache (key, shape and sha256 checked)",
        ("learners/kernels/gram_blocks.py", "load_block"):
            "its own finished blocks, resumed (shape and finiteness checked)",
        ("parse_ranking/dataset.py", "_read_done"): "its own output, resumed",
        ("parse_ranking/dataset.py", "_read_meta"): "its own build record",
        ("parse_ranking/representations.py", "parked"): "its own temporary arrays",
    }
    readers = {"open", "read_text", "read_bytes", "load"}
    root = Path(__file__).resolve().parents[2]
    found = {}
    for package in ("kernelrank", "corpora", "ppi", "homology", "parse_ranking", "letor",
                    "learners"):
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for func in ast.walk(tree):
                if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for call in ast.walk(func):
                    if not isinstance(call, ast.Call):
                        continue
                    f = call.func
                    name = f.id if isinstance(f, ast.Name) else \
                        f.attr if isinstance(f, ast.Attribute) else None
                    if name not in readers:
                        continue
                    if name == "load" and not (isinstance(f, ast.Attribute) and isinstance(
                            f.value, ast.Name) and f.value.id in ("np", "json", "numpy")):
                        continue
                    if name == "open" and isinstance(f, ast.Attribute) and isinstance(
                            f.value, ast.Name) and f.value.id == "os":
                        continue                 # os.open: the lock's descriptor
                    mode = next((a.value for a in call.args[1:2] if isinstance(a, ast.Constant)),
                                next((k.value.value for k in call.keywords if k.arg == "mode"
                                      and isinstance(k.value, ast.Constant)), "r"))
                    if name == "open" and isinstance(mode, str) and any(c in mode for c in "wax"):
                        continue                 # writing
                    key = (path.relative_to(root).as_posix(), func.name)
                    found.setdefault(key, []).append(call.lineno)
    unlisted = {k: v for k, v in found.items() if k not in allowed}
    assert not unlisted, ("files read outside corpora.lines (use open_text / open_binary and "
                          f"reading(), or list the call here with its reason): {unlisted}")


# ==================================================================== relations and caches
#: edits of the relation lines of a generated PubTator file: (pattern, replacement)
RELATION_EDITS = {
    "an id with a bar": (r"\tBind\t(\d+)\t", r"\tBind\t\1|77777777\t"),
    "a tmVar-like id no mention carries": (r"\tBind\t(\d+)\t", "\tBind\tc|SUB|C|1|T\t"),
    "an id no mention carries": (r"\tBind\t(\d+)\t", "\tBind\t77777777\t"),
    "a dash": (r"\tBind\t(\d+)\t", "\tBind\t-\t"),
    "a list of ids": (r"\tBind\t(\d+)\t", r"\tBind\t\1;77777777\t"),
    "one concept twice": (r"\tBind\t(\d+)\t(\d+)", r"\tBind\t\1\t\1"),
    "a disease": (r"\tBind\t(\d+)\t(\d+)", r"\tBind\t\1\tD000001"),
}


def _relation_file(tmp_path, edit, bioc):
    """A generated file with relations, its first relation of every document edited; the
    relations written."""
    import re as re_
    from dataclasses import replace

    from tests.conftest import relation_documents, write_bioc_file, write_pubtator_file

    docs = relation_documents(6)
    disease = "D000001" if edit == "a disease" else None
    if disease:                 # the disease is mentioned: a concept of another entity type
        docs = [replace(d, text=d.text + " Pain.", mentions=d.mentions + [
            type(d.mentions[0])(len(d.text) + 1, len(d.text) + 5, "Pain", "Disease", disease)])
            for d in docs]
    pattern, repl = RELATION_EDITS[edit]
    pub = write_pubtator_file(docs, tmp_path / "r.pubtator")
    records = pub.read_text().strip().split("\n\n")
    pub.write_text("\n\n".join(re_.sub(pattern, repl, r, count=1) for r in records) + "\n")
    if not bioc:
        return pub, sum(len(d.relations) for d in docs)
    from corpora.text_input import read_documents
    edited = list(read_documents(pub, "pubtator", skip_bad=True))
    raw = [re_.sub(pattern, repl, f"x\tBind\t{r.id1}\t{r.id2}", count=1).split("\t")
           for d in docs for r in d.relations[:1]]
    by_doc = {d.id: (a, b) for d, (_, _, a, b) in zip(docs, raw)}
    path = write_bioc_file([replace(e, relations=o.relations) for e, o in zip(edited, docs)],
                           tmp_path / "r.bioc.xml",
                           lambda d, k, r: {"Gene1": by_doc[d.id][0],
                                            "Gene2": by_doc[d.id][1]} if k == 0 else None)
    return path, sum(len(d.relations) for d in docs)


#: (edit, format): every edit in both formats; an empty role only in BioC (a PubTator line
#: with an empty field is a malformed line, see test_trust)
RELATION_CASES = [(e, f) for e in [*RELATION_EDITS, "an empty role"]
                  for f in ("pubtator", "bioc") if f == "bioc" or e != "an empty role"]


@pytest.mark.parametrize("skip_bad", [False, True])
@pytest.mark.parametrize("edit, fmt", RELATION_CASES)
def test_an_edited_relation_is_an_error_naming_it_or_every_relation_is_counted(
        edit, fmt, skip_bad, tmp_path):
    """What ``ppi train|cv --relations-from`` reads (:func:`ppi.documents.relations.
    read_relation_documents`, :func:`ppi.documents.relation_counts.account_relations`) and
    the gold of ``ppi evaluate-documents`` (BioC: :func:`corpora.bioc.read_bioc_relations`):
    a typed error naming the file and the line or relation, or every written relation kept
    and counted in one class, or left out and counted."""
    from corpora.documents import ReadStats
    from kernelrank.errors import CorpusFormatError
    from ppi.documents.relation_counts import account_relations
    from ppi.documents.relations import read_relation_documents

    bioc = fmt == "bioc"
    if bioc:
        pytest.importorskip("bioc")
    key = "an id no mention carries" if edit == "an empty role" else edit
    path, written = _relation_file(tmp_path, key, bioc)
    if edit == "an empty role":
        path.write_text(path.read_text().replace(
            '<infon key="Gene1">77777777</infon>', '<infon key="Gene1"></infon>'))
    stats = ReadStats()
    try:
        docs = read_relation_documents(path, skip_bad=skip_bad, stats=stats)
    except CorpusFormatError as exc:
        assert str(path) in str(exc), exc
        assert "line " in str(exc) or "/relation R" in str(exc), exc
        assert not skip_bad or "no document-level relation" in str(exc), exc
        if bioc:
            from corpora.bioc import read_bioc_relations
            with pytest.raises(CorpusFormatError) as gold:
                list(read_bioc_relations(path, skip_bad=skip_bad))
            assert skip_bad or str(gold.value) == str(exc)
        return
    counts = account_relations(docs, dropped=stats.relations_dropped)
    assert counts.read == stats.relations and counts.read + counts.dropped == written
    assert counts.read == (counts.used + counts.other_relation_types + counts.unknown_ids
                           + counts.other_entity_types + counts.one_concept)
    assert counts.used < written or edit == "a list of ids", counts
    assert loads_strict(json.dumps(counts.as_dict(), allow_nan=False)) == counts.as_dict()
    if counts.unknown_ids:
        assert counts.unknown_id_examples and all(
            e.startswith("doc ") for e in counts.unknown_id_examples)


def _cache_runs():
    """``name: run(folder) -> (result, expected)`` of every cache of the project, writing
    into ``folder``."""
    def spacy(folder):
        from ppi.parsing.spacy_analyses import read_cache, write_cache
        path = folder / "corpus-0123.json.gz"
        written = write_cache(path, {"k": 1}, {"s0": [1, 2]}, "spaCy parses")
        return (written, read_cache(path, {"k": 1}, "spaCy parses")), (False, None)

    def sources(folder):
        from ppi.learning.source_cache import source_fit
        from ppi.representation.features import PairSet
        corpus = folder.parent.parent / "corpus.xml"
        corpus.write_text("c")
        data = PairSet("s", np.eye(2), np.ones(2), np.array(["p0", "p1"], dtype=object),
                       None, None)
        fit = source_fit("LLL", corpus, data, {"seed": 0},
                         lambda: (0.5, np.array([1]), np.array([2.0])), folder.parent.parent)
        return (fit[0], list(fit[1]), list(fit[2])), (0.5, [1], [2.0])

    def gram(folder):
        from learners.kernels.gram_blocks import BlockCache, blockwise_gram
        K = blockwise_gram(lambda r, c, upper: np.add.outer(r, c).astype(float), 5,
                           row_costs=np.ones(5), block=2, n_jobs=1,
                           cache=BlockCache(folder, "g", "0" * 64))
        return K.tolist(), np.add.outer(np.arange(5), np.arange(5)).astype(float).tolist()

    return {"spaCy analyses and parses": (spacy, "ppi-spacy"),
            "source models": (sources, "cache/ppi-sources"),
            "Gram matrices": (gram, "cache")}


CACHES = _cache_runs()


@pytest.mark.parametrize("how", ["a file in the place of a folder", "writing refused"])
@pytest.mark.parametrize("cache", CACHES)
def test_an_unwritable_cache_folder_is_one_warning_and_the_run_goes_on(cache, how, tmp_path,
                                                                        caplog, monkeypatch):
    """(The tests run as root, whom no permission stops: a read-only folder is a regular
    file in the place of a parent, or a ``tempfile.mkstemp`` that refuses as it would refuse
    another user.)"""
    import errno
    import logging
    import tempfile

    monkeypatch.delenv("KERNELRANK_NO_SOURCE_CACHE", raising=False)
    run, below = CACHES[cache]
    root = tmp_path / "root"
    root.mkdir()
    folder = root / below
    if how == "a file in the place of a folder":
        (root / below.split("/")[0]).write_text("")
        if "/" not in below:
            folder = root / below / "inner"
    else:
        folder.mkdir(parents=True)

        def refuse(prefix="", suffix="", dir=None):
            raise PermissionError(errno.EACCES, "Permission denied", f"{dir}/{prefix}r4.tmp")

        def refuse_lock(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))

        monkeypatch.setattr(tempfile, "mkstemp", refuse)
        monkeypatch.setattr("kernelrank.lock._acquire", refuse_lock)
    with caplog.at_level(logging.WARNING):
        got, expected = run(folder)
        again, _ = run(folder)
    assert got == expected == again
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "not writable" in warnings[0] and "going on without it" in warnings[0]
    assert re.search(r"set \S+.* to move it", warnings[0]) and ".tmp" not in warnings[0]
    assert str(folder) in warnings[0] or str(folder.parent) in warnings[0], warnings[0]


# ============================================================== saved, loaded, saved again
@pytest.mark.slow
@pytest.mark.parametrize("system", ["paper-v", "multiview", "multicorpus"])
def test_a_loaded_ppi_model_saves_to_the_same_bytes(system, data_dir, tmp_path):
    """Versions 3 (one view), 4 (several) and 5 (Gaussian): load, save, same two files."""
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    corpus = _lll_slice(data_dir, tmp_path / "c.xml", 12)
    assert main(["train", "--input", str(corpus), *PPI_SYSTEMS[system], "--model",
                 str(tmp_path / "m"), "--output-dir", str(tmp_path / "r"), "--quiet"]) == 0
    PPIModel.load(tmp_path / "m").save(tmp_path / "again")
    for name in ("model.json", "weights.npz"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "m" / name).read_bytes()


@pytest.mark.parametrize("kernel", ["mismatch", "locality+features"])
def test_a_loaded_homology_model_saves_to_the_same_bytes(kernel, tmp_path):
    from homology.model import load_model, save_model
    model = _homology_model(tmp_path, kernel)
    save_model(tmp_path / "again.npz", load_model(model))
    assert (tmp_path / "again.npz").read_bytes() == model.read_bytes()


# =============================================================== models read while replaced
def test_parse_ranking_model_pair_read_while_replaced(tmp_path):
    """The ``.json`` + ``.npz`` pair is replaced file by file: a reader meeting it between the
    two renames waits for the second (the writer's temporary folder is beside it), so every
    load gives one model whole, or a retryable ConcurrentChangeError — never 'damaged'."""
    from parse_ranking.model import load_model, train_model
    records = _parse_records("one article")
    train_model(records, tmp_path / "m", alphas=[1.0])
    seen, errors = read_while_replaced(
        [lambda a=a: train_model(records, tmp_path / "m", alphas=[a]) for a in [4.0, 1.0] * 8],
        lambda: str(load_model(tmp_path / "m")[0]["fit_info"].get("alpha")))
    assert not errors, errors[:3]
    assert seen


def read_while_replaced(writes, read):
    """Call the ``writes`` one after another in a thread while ``read()`` is called in a loop:
    ``(set of the values read, unexpected errors)`` — a ConcurrentChangeError is expected
    (retryable), any other error is not."""
    import threading

    from kernelrank.errors import ConcurrentChangeError
    done, errors, seen = threading.Event(), [], set()

    def write():
        try:
            for w in writes:
                w()
        finally:
            done.set()

    writer = threading.Thread(target=write)
    writer.start()
    while not done.is_set():
        try:
            seen.add(read())
        except ConcurrentChangeError:
            pass
        except Exception as exc:          # noqa: BLE001 - what the probe is about
            errors.append(exc)
    writer.join()
    return seen, errors
