"""The installed distribution: every advertised name resolves, every CLI answers --help."""

import subprocess
import sys

import pytest
from sklearn.base import clone

import learners

#: every console command, each run as a subprocess (slow)
EVERY_COMMAND = [pytest.param(name, marks=pytest.mark.slow)
                 for name in ("learners", "corpora", "ppi", "homology", "parse_ranking")]


def test_every_exported_learner_resolves_and_clones():
    for name in learners.__all__:
        obj = getattr(learners, name)
        if isinstance(obj, type) and hasattr(obj, "get_params"):
            assert clone(obj()).get_params() == obj().get_params(), name
    with pytest.raises(AttributeError):
        learners.NoSuchLearner  # noqa: B018


@pytest.mark.parametrize("door", ["ppi", "ppi.models"])
def test_the_documented_doors_of_ppi_resolve(door):
    """The names ``ppi`` and ``ppi.models`` export — the documented library API, imported on
    first use — all resolve, to objects defined in the sub-packages; the saved-model
    classes are reached there by name, whatever module holds them."""
    import importlib

    module = importlib.import_module(door)
    for name in module.__all__:
        obj = getattr(module, name)
        assert obj.__module__.startswith("ppi."), (door, name, obj.__module__)
    assert {"PPIModel", "load_model"} <= set(importlib.import_module("ppi").__all__)
    with pytest.raises(AttributeError):
        module.NoSuchName  # noqa: B018


@pytest.mark.parametrize("package", EVERY_COMMAND)
def test_cli_help(package):
    out = subprocess.run([sys.executable, "-m", package, "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "usage:" in out.stdout and "--version" in out.stdout


@pytest.mark.parametrize("package", EVERY_COMMAND)
def test_cli_version(package):
    """Every command prints the distribution's version (the one ``pyproject.toml`` reads)."""
    import kernelrank

    out = subprocess.run([sys.executable, "-m", package, "--version"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{package} (kernelrank) {kernelrank.__version__}"


def test_version_is_the_distributions():
    from importlib.metadata import version

    import kernelrank

    assert kernelrank.__version__ == version("kernelrank")


@pytest.mark.slow
def test_readme_quickstart_runs():
    """The library quickstart a new user pastes must run as written."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    code = re.search(r"## Quickstart \(library\)\n\n```python\n(.*?)```", readme, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
