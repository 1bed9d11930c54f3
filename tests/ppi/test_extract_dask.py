"""``ppi extract --scheduler`` against a cluster of separate processes: an external ``dask
scheduler`` and two ``dask worker`` processes on 127.0.0.1, started here the way a user
starts them, import this checkout (``PYTHONPATH``) and must write byte for byte the output
of the in-process run, on a slice of the real BioCreative VI PPIm PubTator file."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelrank.errors import ClusterError

pytestmark = pytest.mark.slow      # Dask: a scheduler and workers started as separate processes

ROOT = Path(__file__).resolve().parents[2]


def _env():
    """This process's environment with this checkout first on ``PYTHONPATH`` (so workers
    and child runs import this code, not another install)."""
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys(paths)))


@pytest.fixture(scope="module")
def external_cluster(tmp_path_factory):
    """One ``dask scheduler`` + two ``dask worker --nworkers 1 --nthreads 1`` processes on
    loopback; stopped (process groups SIGTERM, then SIGKILL) when the module's tests end,
    also after a failure.  Skipped with the reason when Dask cannot start them."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    from kernelrank.parallel import process_cluster
    cm = process_cluster(2, tmp_path_factory.mktemp("dask"), env=_env())
    try:
        cluster = cm.__enter__()
    except ClusterError as exc:
        pytest.skip(f"cannot start a local dask scheduler and workers: {exc}")
    try:
        yield cluster
    finally:
        cm.__exit__(None, None, None)


@pytest.fixture(scope="module")
def bc6_slice(data_dir, tmp_path_factory):
    """The first 8 abstracts of the BC6 PPIm PubTator file (PubTator documents end with a
    blank line)."""
    path = data_dir / "text" / "PMtask_Relations_TrainingSet.pubtator.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        docs = handle.read().strip().split("\n\n")[:8]
    out = tmp_path_factory.mktemp("bc6") / "bc6-8.pubtator"
    out.write_text("\n\n".join(docs) + "\n\n", encoding="utf-8")
    return out


def _extract_cli(model, src, out, *options):
    """``python -m ppi extract`` in a child process (this checkout)."""
    proc = subprocess.run([sys.executable, "-m", "ppi", "extract", "--quiet", "--model",
                           str(model), "--input", str(src), "--output", str(out),
                           "--chunk-size", "1", *map(str, options)],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.mark.needs_spacy
def test_external_scheduler_two_workers_equal_in_process(external_cluster, lll_model,
                                                         bc6_slice, tmp_path):
    from distributed import Client
    pytest.importorskip("spacy")
    here, there = tmp_path / "in-process.jsonl", tmp_path / "cluster.jsonl"
    _extract_cli(lll_model, bc6_slice, here, "--jobs", "0")
    _extract_cli(lll_model, bc6_slice, there, "--scheduler", external_cluster.address)
    assert there.read_bytes() == here.read_bytes()
    assert len(here.read_text(encoding="utf-8").splitlines()) >= 20
    with Client(external_cluster.address, timeout="30s") as client:
        # on each worker: has it loaded spaCy to parse? (a lambda travels by value; this
        # test module is not importable on the workers)
        workers = client.run(lambda: bool(__import__("ppi.parsing.spacy_parse").parsing.spacy_parse._CACHE))
    # both workers parsed chunks (8 chunks of one abstract, at most 4 in flight)
    assert len(workers) == 2 and all(workers.values()), workers
    assert external_cluster.address.startswith("tcp://127.0.0.1:")


def _dask_children():
    import psutil
    return [p for p in psutil.Process().children(recursive=True)
            if "dask" in " ".join(p.cmdline())]


def test_process_cluster_stops_its_processes_after_an_error(tmp_path):
    """An error inside the block, or a cluster that does not start in time: every process
    it started is gone afterwards (the latter is a ClusterError)."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    pytest.importorskip("psutil")
    from kernelrank.parallel import process_cluster
    # a module-scoped cluster fixture of another test may be running: only new processes count
    before = {p.pid for p in _dask_children()}
    with pytest.raises(ClusterError, match="did not start: no scheduler address"):
        with process_cluster(1, tmp_path / "slow", env=_env(), timeout=0.01):
            pass
    assert [p for p in _dask_children() if p.pid not in before] == []
    try:
        with process_cluster(1, tmp_path / "ok", env=_env()) as cluster:
            pids = [cluster.scheduler.pid, cluster.workers[0].pid]
            assert len([p for p in _dask_children() if p.pid not in before]) >= 2
            raise RuntimeError("a failing test")
    except ClusterError as exc:
        pytest.skip(f"cannot start a local dask scheduler and workers: {exc}")
    except RuntimeError:
        pass
    assert [p for p in _dask_children() if p.pid not in before] == [] and all(
        p.poll() is not None for p in (cluster.scheduler, *cluster.workers)), pids
