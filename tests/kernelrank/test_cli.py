"""The one command-line convention of the five commands (kernelrank.cli): shared options,
the grid syntax, the final summary, stage lines, and parsers that import nothing heavy."""

import argparse
import json
import logging
import subprocess
import sys

import numpy as np
import pytest

from kernelrank.cli import Summary, exit_code, parse_grid, print_summary
from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration, markdown_image

COMMANDS = ["learners", "corpora", "ppi", "homology", "parse_ranking"]
HEAVY = ["numpy", "scipy", "sklearn", "spacy", "dask", "matplotlib"]


def _subparsers(package):
    import importlib

    parser = importlib.import_module(f"{package}.__main__").build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def _options(parser):
    return {s for a in parser._actions for s in a.option_strings}


@pytest.mark.parametrize("package", COMMANDS)
@pytest.mark.slow
def test_building_a_parser_imports_nothing_heavy(package):
    """Structural, not a timing: importing a command and building its parser (and every
    subcommand's help) loads none of the heavy packages, so `--help` answers at once."""
    code = (f"import argparse, sys\nimport {package}.__main__ as m\np = m.build_parser()\n"
            "p.format_help()\n"
            "for a in p._actions:\n"
            "    if isinstance(a, argparse._SubParsersAction):\n"
            "        for sp in a.choices.values():\n"
            "            sp.format_help()\n"
            f"print(sorted(h for h in {HEAVY!r} if h in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", f"{package}: {out.stdout}"


@pytest.mark.parametrize("package", COMMANDS)
def test_shared_option_names(package):
    """--seed everywhere; none of the old spellings; one name per concept."""
    for name, sub in _subparsers(package).items():
        opts = _options(sub)
        assert "--seed" in opts, f"{package} {name}"
        assert not opts & {"--no-progress", "--blas-threads", "--workers"}, f"{package} {name}"


def test_where_the_shared_options_are():
    evaluating = {"learners": ["letor"], "ppi": ["cv", "cross-corpus", "learning-curve",
                                                 "benchmark", "train", "predict"],
                  "homology": ["scop", "benchmark"], "parse_ranking": ["cv", "benchmark"]}
    reading_data = {"learners": ["letor"], "corpora": ["list", "fetch", "verify"],
                    "ppi": ["cv", "cross-corpus", "learning-curve", "benchmark", "train",
                            "mentions"], "homology": ["scop", "benchmark"],
                    "parse_ranking": ["build"]}
    for package in COMMANDS:
        subs = _subparsers(package)
        for name in evaluating.get(package, []):
            assert "--output-dir" in _options(subs[name]), f"{package} {name}"
            default = subs[name].get_default("output_dir")
            assert default == f"results/{package}-{name}", default
        for name in reading_data.get(package, []):
            assert "--data-dir" in _options(subs[name]), f"{package} {name}"
    for package, name in [("ppi", "cv"), ("homology", "scop"), ("parse_ranking", "build")]:
        assert {"--jobs", "--quiet"} <= _options(_subparsers(package)[name])


def test_parse_grid_syntax():
    assert parse_grid("0.5, 1e-3,2") == (0.5, 1e-3, 2.0)
    assert parse_grid("2^-2,10^3") == (0.25, 1000.0)
    assert parse_grid("2^-10..2^10") == tuple(2.0 ** np.arange(-10, 11))
    assert parse_grid("2^-8..2^16:2") == tuple(2.0 ** np.arange(-8, 17, 2))
    # powers of ten are not exact binary numbers: NumPy's vectorized power may differ from
    # Python's correctly rounded one by an ulp on some machines, so compare to 1e-15
    np.testing.assert_allclose(parse_grid("10^-7..10^0"), 10.0 ** np.arange(-7, 1),
                               rtol=1e-15, atol=0)
    assert parse_grid("0,0.1", allow_zero=True) == (0.0, 0.1)
    for bad in ("", "1,-2", "0", "a", "2^x", "2^3..4^5", "2^5..2^3", "2^1..2^3:0", "inf",
                "nan", "2^-1..2^1:x"):
        with pytest.raises(InvalidParameterError, match="--alphas"):
            parse_grid(bad)
    with pytest.raises(InvalidParameterError, match="--Cs"):
        parse_grid("0", "--Cs")


def test_help_grids_and_choices_equal_the_library_constants():
    """The light name modules restate a few constants of modules that import NumPy; they
    must not drift apart."""
    import homology.benchmark as hb
    import homology.features as hf
    import homology.names as hn
    import letor.names as ln
    import letor.protocol as lp
    import parse_ranking.coreg as pc
    import parse_ranking.names as pn
    import parse_ranking.ranking as pr
    import ppi.learning.evaluation as pe
    import ppi.names as ppn

    assert (ppn.LEARNERS, ppn.N_BASIS) == (pe.LEARNERS, pe.N_BASIS)
    assert (hn.KERNELS, hn.LEARNERS, hn.SELECTIONS, hn.TARGETS) == \
        (hb.KERNELS, hb.LEARNERS, hb.SELECTIONS, hb.TARGETS)
    assert hn.FEATURE_GROUPS == hf.GROUPS and set(hn.TRAIN_LEARNERS) < set(hn.LEARNERS)
    from learners.kernels.alignment import PSD_FIXES
    from learners.kernels.locality import MATCHING
    assert set(pn.MATCHING) == set(hn.LOCALITY_MODES) == set(MATCHING)
    assert hn.PSD_FIXES == PSD_FIXES
    assert parse_grid(hn.ALPHAS_TEXT) == hb.DEFAULT_ALPHAS
    assert parse_grid(hn.L2SVM_ALPHAS_TEXT) == hb.L2SVM_ALPHAS
    assert pn.RANKERS == pr.RANKERS and set(pn.CV_RANKERS) <= set(pn.RANKERS)
    assert parse_grid(pn.ALPHAS_TEXT) == pr.DEFAULT_ALPHAS
    assert (pn.COREG_VIEWS, pn.COREG_N_BASIS) == (pc.DEFAULT_VIEWS, pc.DEFAULT_N_BASIS)
    assert parse_grid(pn.COREG_ALPHAS_TEXT) == pc.DEFAULT_CO_ALPHAS
    assert parse_grid(pn.COREG_MUS_TEXT, allow_zero=True) == pc.DEFAULT_MUS
    assert lp.LEARNERS is ln.LEARNERS
    assert parse_grid(ln.RLS_ALPHAS_TEXT) == tuple(lp.DEFAULT_ALPHAS["rls"])
    assert parse_grid(ln.RANKRLS_ALPHAS_TEXT) == tuple(lp.DEFAULT_ALPHAS["rankrls"])
    assert ln.RLS_ALPHAS_TEXT in ln.ALPHAS_TEXT and ln.RANKRLS_ALPHAS_TEXT in ln.ALPHAS_TEXT
    assert parse_grid(ln.CS_TEXT) == tuple(lp.DEFAULT_CS)


def test_summary_lists_files_numbers_time_and_memory(tmp_path, capsys):
    log = logging.getLogger("ppi.some_run")

    def run(path):
        log.info("stage one (0:01)")
        path.write_text("x")
        return Summary([path], ["F 56.3 AUC 85.3"])

    assert exit_code(run, tmp_path / "a.txt", name="ppi cv") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "stage one (0:01)"
    assert lines[1] == f"wrote {tmp_path / 'a.txt'}" and lines[2] == "F 56.3 AUC 85.3"
    assert lines[3].startswith("ppi cv: done in ") and "peak memory" in lines[3]
    assert "child processes" in lines[3]
    log.info("not printed outside a command")
    assert capsys.readouterr().out == ""
    print_summary("x y", Summary(headline=["h"], code=1, stream="stderr"), 75.0)
    err = capsys.readouterr().err
    assert "x y: finished with exit code 1 in 1:15" in err


def test_typed_errors_exit_2(capsys):
    def run():
        raise InvalidParameterError("bad --alphas")

    assert exit_code(run) == 2
    assert capsys.readouterr().err == "error: bad --alphas\n"


def test_report_helpers(tmp_path):
    assert markdown_image(tmp_path / "roc.png") == "![roc](roc.png)"
    assert markdown_image(tmp_path / "a" / "b.png", "B", start=tmp_path) == "![B](a/b.png)"
    assert [format_duration(s) for s in (4.25, 93, 3725)] == ["4.2 s", "1:33", "1:02:05"]


@pytest.mark.slow
def test_ppi_learning_curves_as_a_library_call(data_dir, tmp_path):
    from ppi.systems import Settings
    from ppi.experiments.runs import run_learning_curves

    res, written = run_learning_curves(["LLL"], tmp_path, Settings(progress=False),
                                       data_dir=data_dir, points=2)
    assert [p.name for p in written] == ["results.json", "results.md", "learning_curves.png"]
    assert "![learning_curves](learning_curves.png)" in (tmp_path / "results.md").read_text()
    assert res["curves"][0]["corpus"] == "LLL" and res["curves"][0]["points"]
    assert json.loads(written[0].read_text())["curves"] == res["curves"]


@pytest.mark.slow
def test_ppi_cross_corpus_as_a_library_call(data_dir, tmp_path):
    from ppi.systems import Settings
    from ppi.experiments.runs import run_cross_corpus

    res, written = run_cross_corpus(["LLL", "HPRD50"], tmp_path, Settings(progress=False),
                                    data_dir=data_dir)
    assert set(res["auc"]) == {"LLL", "HPRD50"} and 0.5 < res["auc"]["LLL"]["HPRD50"] < 1
    assert json.loads(written[0].read_text())["auc"] == res["auc"]
    assert all(p.exists() for p in written)
    assert "![cross_corpus_auc](cross_corpus_auc.png)" in (tmp_path / "results.md").read_text()


@pytest.mark.parametrize("where", ["summary", "run"])
def test_a_reader_closing_the_pipe_ends_the_command_quietly(where):
    """``cmd | head -1``: the write to the closed pipe is no traceback, the exit code is
    the shell's for SIGPIPE (141), whether the summary or the command's own lines hit it."""
    code = ("import sys\n"
            "from kernelrank.cli import Summary, exit_code\n"
            "def run():\n"
            "    if %r == 'run':\n"
            "        for k in range(100000):\n"
            "            print('line', k)\n"
            "    return Summary([], ['headline %%d' %% k for k in range(100000)])\n"
            "sys.exit(exit_code(run))\n" % where)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()                       # the reader goes away, as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert first.startswith(b"line" if where == "run" else b"headline")
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
