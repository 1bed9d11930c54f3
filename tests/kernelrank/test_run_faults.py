"""Faults of a run, not of its input: two runs on one output, a corrupt run record, an
output path that is a directory, a full disk, Ctrl-C, an unreachable or malformed Dask
scheduler, the cluster dying mid-run, the dashboard's interface, the permissions of output
files, a build that keeps nothing.

Real data (the LLL corpus, CRAFT trees) come from $KERNELRANK_DATA (skipped when absent);
``parse_ranking build`` needs Link Grammar (skipped with a reason when absent)."""

import errno
import json
import os
import signal
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest
from tests.conftest import lll_path as _lll
from tests.conftest import write_craft_slice

from kernelrank.cli import exit_code
from kernelrank.errors import (ClusterError, CorpusFormatError, InvalidParameterError,
                               OutputLockedError)

pytestmark = pytest.mark.slow      # faults of whole runs: subprocesses killed, Dask clusters lost

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- fixtures
def _needs_lg():
    from parse_ranking.linkgrammar import APT_PACKAGES, is_available
    if not is_available():
        pytest.skip("Link Grammar C library absent: apt-get install " + " ".join(APT_PACKAGES))


@pytest.fixture(scope="module")
def treebank(tmp_path_factory, data_dir):
    """Two small CoNLL-U files of real CRAFT sentences (3 each, 8–14 words)."""
    _needs_lg()
    return write_craft_slice(data_dir, tmp_path_factory.mktemp("treebank"),
                             ("11319941", "11532192"), max_length=14, per_article=3)


BUILD = dict(max_parses=6, max_length=14, jobs=1, chunk_size=2, progress=False)


@pytest.fixture(scope="module")
def built(treebank, tmp_path_factory):
    """The reference build of ``treebank`` (its bytes)."""
    from parse_ranking.dataset import build_dataset
    path = tmp_path_factory.mktemp("ref") / "ref.jsonl"
    build_dataset(treebank, path, **BUILD)
    return path.read_bytes()


def _run_build(treebank, out, *extra):
    from parse_ranking.__main__ import main
    return main(["build", "--treebank", str(treebank), "--output", str(out), "--quiet",
                 "--max-parses", "6", "--max-length", "14", "--jobs", "1", "--chunk-size",
                 "2", *map(str, extra)])


def _extract_cli(*args):
    from ppi.__main__ import main
    return main(["extract", "--quiet", *map(str, args)])


# ------------------------------------------------------------- two builds on one output
def test_second_build_on_the_same_output_refuses_instead_of_doubling(
        treebank, built, tmp_path, monkeypatch):
    """Build A is held inside its first chunk while build B starts on the same output: B
    must refuse at once (not write every record for A to write them all again)."""
    from parse_ranking import dataset

    out = tmp_path / "d.jsonl"
    real = dataset._process_partition
    entered, release = threading.Event(), threading.Event()
    first = []

    def held(sentences, opts):
        if threading.current_thread().name == "build-A" and not first:
            first.append(1)
            entered.set()
            release.wait(60)
        return real(sentences, opts)

    monkeypatch.setattr(dataset, "_process_partition", held)
    result = {}

    def build_a():
        try:
            result["a"] = dataset.build_dataset(treebank, out, **BUILD)
        except BaseException as exc:     # noqa: BLE001 — reported by the main thread
            result["a"] = exc

    t = threading.Thread(target=build_a, name="build-A")
    t.start()
    try:
        assert entered.wait(120)
        with pytest.raises(OutputLockedError, match=f"PID {os.getpid()}"):
            dataset.build_dataset(treebank, out, **BUILD)
    finally:
        release.set()
        t.join()
    assert isinstance(result["a"], dict), result["a"]
    assert out.read_bytes() == built                 # every record once
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert len(ids) == len(set(ids))
    assert not out.with_name(out.name + ".lock").exists()


def test_a_build_on_a_locked_output_names_the_holders_pid_and_start_time(treebank, tmp_path,
                                                                         capsys):
    from kernelrank.lock import lock_path
    out = tmp_path / "d.jsonl"
    holder = (f"import sys, time\nsys.path.insert(0, {str(ROOT)!r})\n"
              "from kernelrank.lock import output_lock\n"
              f"with output_lock({str(out)!r}, command='python -m parse_ranking build'):\n"
              "    print('held', flush=True)\n    time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        started = json.loads(lock_path(out).read_text())["started"]
        assert _run_build(treebank, out) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and f"PID {proc.pid}" in err and started in err
        assert not out.exists()
    finally:
        proc.kill()
        proc.wait()


# -------------------------------------------------------- two extractions on one output
def test_second_extract_on_the_same_output_refuses(data_dir, lll_model, tmp_path,
                                                   monkeypatch):
    """Extract A is held inside its second chunk while extract B starts on the same output:
    B refuses (it must not compute, assemble and remove OUT.parts under A's feet)."""
    from ppi.extraction import extract as ex

    src, out, ref = _lll(data_dir), tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    ex.extract(src, lll_model, ref, "learning-xml", chunk_size=20, workers=0, progress=False)
    real = ex.process_chunk
    entered, release = threading.Event(), threading.Event()
    calls = []

    def held(docs, resources, output_format="jsonl"):
        if threading.current_thread().name == "extract-A":
            calls.append(1)
            if len(calls) == 2:
                entered.set()
                release.wait(60)
        return real(docs, resources, output_format)

    monkeypatch.setattr(ex, "process_chunk", held)
    result = {}

    def extract_a():
        try:
            result["a"] = ex.extract(src, lll_model, out, "learning-xml", chunk_size=20,
                                     workers=0, progress=False)
        except BaseException as exc:     # noqa: BLE001
            result["a"] = exc

    t = threading.Thread(target=extract_a, name="extract-A")
    t.start()
    try:
        assert entered.wait(120)
        for overwrite in (False, True):
            with pytest.raises(OutputLockedError, match="started"):
                ex.extract(src, lll_model, out, "learning-xml", chunk_size=20, workers=0,
                           progress=False, overwrite=overwrite)
    finally:
        release.set()
        t.join()
    assert isinstance(result["a"], dict), result["a"]
    assert out.read_bytes() == ref.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "ref.jsonl"]


# ------------------------------------------------------------- a run that keeps nothing
def test_no_sentence_selected_is_an_error_and_writes_nothing(treebank, tmp_path,
                                                             capsys):
    out2 = tmp_path / "e.jsonl"
    from parse_ranking.__main__ import main
    code = main(["build", "--treebank", str(treebank), "--output", str(out2), "--quiet",
                 "--min-length", "200", "--max-length", "300"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: no sentence of") and "--max-length" in err
    assert not out2.exists() and not Path(str(out2) + ".meta.json").exists()


def test_no_sentence_kept_is_an_error_and_keeps_the_complete_file(treebank, tmp_path,
                                                                  capsys):
    """--max-parses 1: no sentence can have two distinct scores; a typed error (not a
    TypeError in the summary after the file was written)."""
    from parse_ranking.__main__ import main
    out = tmp_path / "d.jsonl"
    argv = ["build", "--treebank", str(treebank), "--output", str(out), "--quiet",
            "--max-parses", "1", "--max-length", "14", "--jobs", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out}: none of the 6 selected sentences can be ranked")
    assert err.count("\n") == 1
    assert len(out.read_text().splitlines()) == 6
    assert json.loads(Path(str(out) + ".meta.json").read_text())["complete"] is True
    assert main(argv) == 2                           # the rerun resumes: same answer
    assert len(out.read_text().splitlines()) == 6


# --------------------------------------- corrupt run records, output paths, a full disk
@pytest.mark.parametrize("content, problem", [
    ('{"input": "/x", "form', "not JSON"),             # truncated
    ("\x00\x01garbage", "not JSON"),
    ("[1, 2]", "JSON list"),
    ('{"input": "/x"}', "lacks"),
])
def test_corrupt_run_record_names_it_and_says_overwrite(data_dir, lll_model, tmp_path,
                                                        content, problem):
    from ppi.extraction.extract import extract
    src, out = _lll(data_dir), tmp_path / "out.jsonl"
    extract(src, lll_model, out, "learning-xml", chunk_size=20, workers=0, progress=False,
            max_chunks=1)
    run = tmp_path / "out.jsonl.parts" / "run.json"
    run.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusFormatError) as info:
        extract(src, lll_model, out, "learning-xml", chunk_size=20, workers=0,
                progress=False)
    msg = str(info.value)
    assert str(run) in msg and problem in msg and "--overwrite starts afresh" not in msg
    assert "pass --overwrite to start afresh" in msg
    summary = extract(src, lll_model, out, "learning-xml", chunk_size=20, workers=0,
                      progress=False, overwrite=True)
    assert summary["resumed_chunks"] == 0 and out.exists()


def test_corrupt_build_record_is_a_typed_error(treebank, tmp_path):
    from parse_ranking.dataset import build_dataset
    out = tmp_path / "d.jsonl"
    out.write_text("")
    meta = tmp_path / "d.jsonl.meta.json"
    meta.write_text('{"options": {"max_par')
    with pytest.raises(CorpusFormatError, match="d.jsonl.meta.json.*delete it"):
        build_dataset(treebank, out, **BUILD)


def test_output_naming_a_directory(treebank, tmp_path, capsys):
    d = tmp_path / "dir"
    d.mkdir()
    assert _extract_cli("--model", tmp_path / "no-model", "--input", tmp_path / "x",
                        "--format", "pubtator", "--output", d, "--jobs", 0) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --output {d} is a directory")
    assert _run_build(treebank, d) == 2
    assert capsys.readouterr().err.startswith(f"error: --output {d} is a directory")
    from kernelrank.atomic import atomic_open
    with pytest.raises(InvalidParameterError, match="is a directory"):
        with atomic_open(d):
            pass


def test_output_dir_naming_a_file(tmp_path, capsys):
    from parse_ranking.__main__ import main
    f = tmp_path / "results"
    f.write_text("not a folder")
    assert main(["cv", "--data", str(tmp_path / "missing.jsonl"), "--output-dir", str(f)]) == 2
    assert capsys.readouterr().err == (f"error: --output-dir {f} is an existing file, not a "
                                       "folder; give a folder (it is created if absent)\n")


def test_oserror_naming_a_file_is_one_line_other_errors_keep_the_traceback(capsys):
    def full():
        raise OSError(errno.ENOSPC, "No space left on device", "/data/out.jsonl")
    assert exit_code(full) == 2
    assert capsys.readouterr().err == ("error: /data/out.jsonl: No space left on device; "
                                       "free some disk space, then rerun the same command\n")
    assert exit_code(full, resumes=True) == 2
    assert "to resume (completed chunks are kept)" in capsys.readouterr().err

    def denied():
        raise PermissionError(errno.EACCES, "Permission denied", "/etc/x")
    assert exit_code(denied) == 2
    assert capsys.readouterr().err == "error: /etc/x: Permission denied\n"

    def bug():
        raise OSError("no file involved")
    with pytest.raises(OSError, match="no file involved"):
        exit_code(bug)


def _failing_fsync(module, monkeypatch, fail_on):
    """Let ``module.os.fsync`` raise ENOSPC (as a full disk does) on its ``fail_on``-th call."""
    calls = []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == fail_on:
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.fsync(fd)
    monkeypatch.setattr(module, "os", types.SimpleNamespace(**{**vars(os), "fsync": fsync}))


def test_disk_full_in_atomic_open_names_the_file_and_leaves_no_temporary(
        tmp_path, monkeypatch):
    from kernelrank import atomic
    _failing_fsync(atomic, monkeypatch, 1)
    target = tmp_path / "r.json"
    with pytest.raises(OSError) as info:
        atomic.write_json(target, {"a": 1})
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []


def test_disk_full_during_build_one_line_then_resume(treebank, built, tmp_path,
                                                     monkeypatch, capsys):
    from parse_ranking import dataset
    out = tmp_path / "d.jsonl"
    _failing_fsync(dataset, monkeypatch, 2)          # the second chunk's write fails
    assert _run_build(treebank, out) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {out}: No space left on device; free some disk space, then "
                   "rerun the same command to resume (completed chunks are kept)\n")
    assert out.read_bytes() == b"".join(built.splitlines(keepends=True)[:2])  # chunk 1 only
    assert not Path(str(out) + ".lock").exists()
    monkeypatch.undo()
    assert _run_build(treebank, out) == 0
    assert out.read_bytes() == built


# ---------------------------------------------------------- file permissions and Ctrl-C
def _ctrl_c_as_in_a_terminal():
    """Child processes get Ctrl-C's default disposition: a run started in the background by
    a non-interactive shell (``cmd &``) inherits SIGINT *ignored*, and Python then keeps it
    ignored — the interrupt tests would test the environment, not the code."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def sigint_handler():
    """Python's KeyboardInterrupt handler in this process for the test (see above)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_output_files_follow_the_umask(tmp_path, umask, mode):
    from kernelrank.atomic import write_text
    old = os.umask(umask)
    try:
        write_text(tmp_path / "a.txt", "x")
        plain = tmp_path / "b.txt"
        plain.write_text("x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == mode == plain.stat().st_mode & 0o777


@pytest.mark.parametrize("resumes, line", [
    (False, "interrupted\n"),
    (True, "interrupted; rerun the same command to resume (completed chunks are kept)\n")])
def test_ctrl_c_is_one_line_and_exit_130(capsys, resumes, line):
    def run():
        raise KeyboardInterrupt
    assert exit_code(run, resumes=resumes) == 130
    assert capsys.readouterr().err == line


def test_ctrl_c_of_a_real_build_then_resume(treebank, built, tmp_path):
    """SIGINT to the whole process group (as the terminal sends it) of a running build with
    two worker processes: one line on stderr, exit 130, no lock left, the rerun completes
    the same file."""
    out = tmp_path / "d.jsonl"
    cmd = [sys.executable, "-m", "parse_ranking", "build", "--treebank", str(treebank),
           "--output", str(out), "--quiet", "--max-parses", "6", "--max-length", "14",
           "--jobs", "2", "--chunk-size", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_ctrl_c_as_in_a_terminal)
    lock = Path(str(out) + ".lock")
    while proc.poll() is None and not (out.exists() and out.stat().st_size > 0):
        threading.Event().wait(0.05)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err == "interrupted; rerun the same command to resume (completed chunks are " \
                  "kept)\n"
    assert not lock.exists()
    assert subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True).returncode == 0
    assert out.read_bytes() == built


def test_ctrl_c_of_extract_on_a_local_cluster_then_resume(data_dir, lll_model,
                                                          tmp_path):
    """SIGINT to the process group of `ppi extract` running on a local Dask cluster (its
    worker processes get it too): one line, exit 130, no lock left, the rerun resumes to
    the output of an uninterrupted run."""
    from ppi.extraction.extract import extract
    src, out, ref = _lll(data_dir), tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    extract(src, lll_model, ref, "learning-xml", chunk_size=2, workers=0, progress=False)
    cmd = [sys.executable, "-m", "ppi", "extract", "--quiet", "--model", str(lll_model),
           "--input", str(src), "--format", "learning-xml", "--output", str(out), "--jobs",
           "1", "--chunk-size", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_ctrl_c_as_in_a_terminal)
    parts = Path(str(out) + ".parts")
    while proc.poll() is None and len(list(parts.glob("chunk-*.jsonl"))) < 2:
        threading.Event().wait(0.05)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err == "interrupted; rerun the same command to resume (completed chunks are " \
                  "kept)\n"
    assert not Path(str(out) + ".lock").exists() and not list(parts.glob(".*.tmp"))
    assert subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True).returncode == 0
    assert out.read_bytes() == ref.read_bytes()


# ----------------------------------------------------------------------------- Dask
@pytest.mark.parametrize("address", ["foo", "http://x", "tcp://127.0.0.1", "tcp://h:99999",
                                     "127.0.0.1:8786:1"])
def test_dask_malformed_scheduler_address_refused_at_once(tmp_path, address, capsys):
    assert _extract_cli("--model", tmp_path / "no-model", "--input", tmp_path / "x",
                        "--format", "pubtator", "--output", tmp_path / "o.jsonl",
                        "--scheduler", address) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --scheduler {address!r} is not a Dask scheduler address")
    from kernelrank.parallel import map_tasks
    with pytest.raises(ClusterError, match="tcp://HOST:PORT"):
        map_tasks(abs, [1], scheduler=address, progress=False)


def test_dask_unreachable_scheduler_fails_fast_naming_it(data_dir, lll_model, tmp_path,
                                                         capsys):
    assert _extract_cli("--model", lll_model, "--input", _lll(data_dir), "--format",
                        "learning-xml", "--output", tmp_path / "o.jsonl", "--scheduler",
                        "tcp://127.0.0.1:1", "--scheduler-timeout", "1") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot reach the Dask scheduler at --scheduler "
                          "tcp://127.0.0.1:1 within 1 s")
    assert not (tmp_path / "o.jsonl.lock").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []   # no parts, no run.json
    from kernelrank.parallel import map_tasks
    with pytest.raises(ClusterError, match="tcp://127.0.0.1:1"):
        map_tasks(abs, [1], scheduler="tcp://127.0.0.1:1", connect_timeout=1, progress=False)


def test_dask_negative_jobs_is_a_typed_error(tmp_path, capsys):
    assert _extract_cli("--model", tmp_path / "no-model", "--input", tmp_path / "x",
                        "--format", "pubtator", "--output", tmp_path / "o.jsonl",
                        "--jobs", "-1") == 2
    # refused with the other numbers of the command line, before anything is opened
    assert capsys.readouterr().err.startswith("error: --jobs -1: give an integer >= 0")


def _exit_worker(x):
    if x == 1:
        os._exit(1)          # the worker process dies, as on an OOM kill
    return x


def test_dask_worker_death_is_a_cluster_error():
    import dask
    from distributed import LocalCluster

    from kernelrank.parallel import map_tasks
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
            with pytest.raises(ClusterError, match="KilledWorker|FuturesCancelledError"):
                map_tasks(_exit_worker, [0, 1], scheduler=cluster.scheduler_address,
                          progress=False)


def test_dask_cluster_lost_mid_extract_keeps_the_chunks_and_resumes(data_dir, lll_model,
                                                                    tmp_path, monkeypatch):
    """The only worker process is killed (as by the OOM killer) while it computes a chunk:
    a ClusterError saying that the completed chunks are kept (not a KilledWorker
    traceback); the same call resumes them."""
    import dask
    from distributed import Client, LocalCluster

    from kernelrank.chunks import ChunkParts
    from ppi.extraction import extract as ex
    src, out, ref = _lll(data_dir), tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    ex.extract(src, lll_model, ref, "learning-xml", chunk_size=10, workers=0, progress=False)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
                Client(cluster) as spy:
            real_write = ChunkParts.write

            def write_then_kill(self, k, text, counts):
                real_write(self, k, text, counts)
                if k == 1:                   # chunk 2 is in flight on the worker now
                    for pid in spy.run(os.getpid).values():
                        os.kill(pid, signal.SIGKILL)

            monkeypatch.setattr(ChunkParts, "write", write_then_kill)
            with pytest.raises(ClusterError) as info:
                ex.extract(src, lll_model, out, "learning-xml", chunk_size=10,
                           scheduler=cluster.scheduler_address, progress=False)
            monkeypatch.undo()
            msg = str(info.value)
            assert cluster.scheduler_address in msg and "\n" not in msg
            # the worker's task is lost (KilledWorker), or the data scattered to it with it
            # (the futures are cancelled), depending on which the scheduler notices first
            assert "KilledWorker" in msg or "FuturesCancelledError" in msg
            assert f"the completed chunks are kept in {out}.parts" in msg
            assert "rerun the same command to resume" in msg
            assert not Path(str(out) + ".lock").exists()
            kept = len(list(Path(str(out) + ".parts").glob("chunk-*.jsonl")))
            assert kept >= 2
            spy.wait_for_workers(1, timeout=60)     # the nanny restarted it
            summary = ex.extract(src, lll_model, out, "learning-xml", chunk_size=10,
                                 scheduler=cluster.scheduler_address, progress=False)
    assert summary["resumed_chunks"] == kept
    assert out.read_bytes() == ref.read_bytes()


def _listening(sockets):
    return sorted({s.getsockname()[0] for s in sockets})


@pytest.mark.parametrize("processes", [False, True])
def test_dask_local_cluster_listens_on_loopback_only(processes):
    from kernelrank.parallel import local_cluster
    cluster = local_cluster(1, 1, processes=processes)
    try:
        assert _listening(cluster.scheduler.http_server._sockets.values()) == ["127.0.0.1"]
        if processes:
            assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    finally:
        cluster.close()


def test_ctrl_c_inside_a_finalizer_still_stops_the_run(capsys, sigint_handler):
    """A Ctrl-C that arrives while Python runs a finalizer (Dask's Future.__del__ and its gc
    callback can swallow it: the run would go on and exit 0) is re-raised: one line,
    exit 130, and nothing after it runs."""
    import time

    reached = []

    class Finalizer:
        def __del__(self):
            raise KeyboardInterrupt          # as if the signal had arrived here

    def run():
        Finalizer()                           # collected at once: the interrupt is swallowed
        for _ in range(50):
            time.sleep(0.01)
        reached.append("the end")

    assert exit_code(run, resumes=True) == 130
    assert capsys.readouterr().err == ("interrupted; rerun the same command to resume "
                                       "(completed chunks are kept)\n")
    assert reached == []


def test_ctrl_c_swallowed_just_before_the_end_still_counts(capsys, sigint_handler):
    """The interrupt is swallowed by a finalizer and the run returns at once: still exit 130
    (not 0 followed by a stray signal)."""
    class Finalizer:
        def __del__(self):
            raise KeyboardInterrupt

    def run():
        Finalizer()
        return 0

    assert exit_code(run) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_an_interrupt_after_a_chunk_writer_created_its_file_leaves_no_temporary_file(
        data_dir, lll_model, tmp_path, monkeypatch):
    """Ctrl-C can land inside ``tempfile.mkstemp``, after the chunk's temporary file exists
    and before ``atomic_open`` can remove it (a race the interrupt tests above can meet):
    the interrupted extraction removes it; the completed chunks stay and the rerun
    resumes to an uninterrupted run's output."""
    import ppi.extraction.extract as extract_module
    from ppi.extraction.extract import extract

    src, out, ref = _lll(data_dir), tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    extract(src, lll_model, ref, "learning-xml", chunk_size=2, workers=0, progress=False)
    parts = Path(str(out) + ".parts")
    real = extract_module.process_chunk
    calls = []

    def interrupted_third_chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:                      # as if Ctrl-C came inside mkstemp
            (parts / ".chunk-000002.jsonl.x1y2z3.tmp").write_text("half a chunk")
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(extract_module, "process_chunk", interrupted_third_chunk)
    with pytest.raises(KeyboardInterrupt):
        extract(src, lll_model, out, "learning-xml", chunk_size=2, workers=0, progress=False)
    assert not list(parts.glob(".*.tmp"))
    assert sorted(p.name for p in parts.glob("chunk-*.jsonl")) == [
        "chunk-000000.jsonl", "chunk-000001.jsonl"]
    monkeypatch.setattr(extract_module, "process_chunk", real)
    extract(src, lll_model, out, "learning-xml", chunk_size=2, workers=0, progress=False)
    assert out.read_bytes() == ref.read_bytes()


def test_after_an_interrupt_only_the_thread_shutdown_bad_descriptor_is_dropped(
        monkeypatch, capsys):
    """The one error CPython prints at exit after an interrupted ProcessPoolExecutor
    (EBADF from ``threading._shutdown``) is dropped once a run was interrupted; any other
    unraisable exception, and EBADF from elsewhere, still reaches the previous hook."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    def interrupted():
        raise KeyboardInterrupt

    assert exit_code(interrupted, resumes=True) == 130
    assert "interrupted" in capsys.readouterr().err

    def unraisable(exc, obj):
        return types.SimpleNamespace(exc_type=type(exc), exc_value=exc, exc_traceback=None,
                                     err_msg=None, object=obj)

    bad_fd = OSError(errno.EBADF, "Bad file descriptor")
    sys.unraisablehook(unraisable(bad_fd, threading))
    assert seen == []
    others = [unraisable(ValueError("x"), threading), unraisable(bad_fd, os),
              unraisable(OSError(errno.EIO, "I/O error"), threading)]
    for u in others:
        sys.unraisablehook(u)
    assert seen == others
