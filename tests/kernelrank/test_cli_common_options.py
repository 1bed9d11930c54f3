"""Every subcommand of every command accepts the common options.

``--data-dir --output-dir --seed --quiet --threads --jobs`` mean something on some
subcommands and nothing on others; where they mean nothing they are accepted as documented
no-ops (:func:`kernelrank.cli.complete_common`), so ``ppi predict --quiet`` does not fail
with "unrecognized arguments". The test walks every parser of the five commands, all
subparsers at any depth, as :func:`kernelrank.cli.run_subcommand` builds them.
"""

import contextlib
import importlib
import io

import pytest

from kernelrank.cli import COMMON_OPTIONS, NO_EFFECT, command_parser, subcommand_parsers

COMMANDS = ("ppi", "homology", "parse_ranking", "learners", "corpora")
#: one value of each common option (a flag takes none)
VALUES = {"--data-dir": ["/tmp/kr-data"], "--output-dir": ["/tmp/kr-out"], "--seed": ["3"],
          "--quiet": [], "--threads": ["1"], "--jobs": ["1"]}


def _parser(command):
    return command_parser(importlib.import_module(f"{command}.__main__").build_parser())


def _walk(parser, path=()):
    """``(path of subcommand names, parser)`` of every subcommand, depth first."""
    for name, sub in subcommand_parsers(parser).items():
        yield (*path, name), sub
        yield from _walk(sub, (*path, name))


def _every_subcommand():
    for command in COMMANDS:
        for path, _ in _walk(_parser(command)):
            yield command, path


@pytest.mark.parametrize(("command", "path"), list(_every_subcommand()),
                         ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_every_subcommand_accepts_the_common_options_and_has_help(command, path):
    parser = _parser(command)
    sub = parser
    for name in path:
        sub = subcommand_parsers(sub)[name]
    for option in COMMON_OPTIONS:
        assert option in sub._option_string_actions, f"{command} {' '.join(path)}: {option}"
    # required arguments are beside the point here: parse with the six options alone
    for p in [parser, *(sp for _, sp in _walk(parser))]:
        for action in p._actions:
            action.required = False
        for group in p._mutually_exclusive_groups:
            group.required = False
    argv = [*path, *(x for option in COMMON_OPTIONS for x in [option, *VALUES[option]])]
    args = parser.parse_args(argv)
    assert args.seed == 3 and args.quiet is True and args.threads == 1 and args.jobs == 1
    assert str(args.data_dir) == "/tmp/kr-data" and str(args.output_dir) == "/tmp/kr-out"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        parser.parse_args([*path, "--help"])
    assert exit_.value.code == 0
    text = " ".join(out.getvalue().split())
    for option in COMMON_OPTIONS:
        assert option in text


def test_a_no_op_option_says_so_in_the_help():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        _parser("ppi").parse_args(["predict", "--help"])
    assert " ".join(NO_EFFECT.split()) in " ".join(out.getvalue().split())


def test_ppi_predict_quiet_reaches_the_handler_checks_not_an_unknown_option(capsys):
    """Through the console entry point (``main``): ``--quiet`` is not refused; the missing
    ``--model`` is what argparse reports."""
    from ppi.__main__ import main

    with pytest.raises(SystemExit) as exit_:
        main(["predict", "--quiet", "--jobs", "1", "--data-dir", "/tmp/kr-data"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "unrecognized arguments" not in err and "--model" in err


def test_complete_common_is_idempotent_and_keeps_the_meaningful_options():
    parser = _parser("ppi")
    before = {name: sub.format_help() for name, sub in subcommand_parsers(parser).items()}
    command_parser(parser)
    assert {name: sub.format_help()
            for name, sub in subcommand_parsers(parser).items()} == before
    cv = subcommand_parsers(parser)["cv"]
    assert NO_EFFECT not in " ".join(cv.format_help().split())     # every option means something
