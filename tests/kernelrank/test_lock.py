"""kernelrank.lock.output_lock: one run per output (the lock itself).

A second holder is refused at once with the first one's PID and start time; the lock of a
killed process is taken over with a logged message; the lock is released on success, on an
error and on Ctrl-C; the lock file follows the umask."""

import json
import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kernelrank.errors import KernelrankError, OutputLockedError

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import sys, time
sys.path.insert(0, {root!r})
from kernelrank.lock import output_lock
with output_lock({out!r}, command="holder run"):
    print("held", flush=True)
    time.sleep(300)
"""


def _hold_in_subprocess(out):
    """A process holding the lock of ``out`` (returns once it holds it)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER.format(root=str(ROOT), out=str(out))],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.slow
def test_second_run_refused_at_once_naming_the_holder(tmp_path):
    from kernelrank.lock import lock_path, output_lock

    out = tmp_path / "out.jsonl"
    proc = _hold_in_subprocess(out)
    try:
        holder = json.loads(lock_path(out).read_text())
        assert holder["pid"] == proc.pid and holder["command"] == "holder run"
        with pytest.raises(OutputLockedError) as info:
            with output_lock(out):
                pytest.fail("the lock was granted twice")
        msg = str(info.value)
        assert isinstance(info.value, KernelrankError)
        assert f"PID {proc.pid}" in msg and holder["started"] in msg and str(out) in msg
        assert "holder run" in msg
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_lock_of_a_killed_run_is_taken_over_with_a_message(tmp_path, caplog):
    from kernelrank.lock import lock_path, output_lock

    out = tmp_path / "out.jsonl"
    proc = _hold_in_subprocess(out)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert lock_path(out).exists()                    # left behind by kill -9
    with caplog.at_level(logging.WARNING, logger="kernelrank.lock"):
        with output_lock(out, command="second") as path:
            assert json.loads(path.read_text())["pid"] == os.getpid()
    assert f"PID {proc.pid}" in caplog.text and "stale" in caplog.text
    assert not lock_path(out).exists()


@pytest.mark.parametrize("fault", [RuntimeError, KeyboardInterrupt])
def test_released_on_error_and_on_ctrl_c(tmp_path, fault):
    from kernelrank.lock import lock_path, output_lock

    out = tmp_path / "o"
    with pytest.raises(fault):
        with output_lock(out):
            raise fault()
    assert not lock_path(out).exists()
    with output_lock(out):                            # free again
        pass


def test_threads_of_one_process_exclude_each_other(tmp_path):
    from kernelrank.lock import output_lock

    out = tmp_path / "o"
    inside, leave, errors = threading.Event(), threading.Event(), []

    def first():
        with output_lock(out, command="first"):
            inside.set()
            leave.wait(30)

    t = threading.Thread(target=first)
    t.start()
    try:
        assert inside.wait(30)
        with pytest.raises(OutputLockedError, match=f"PID {os.getpid()}"):
            with output_lock(out):
                errors.append("granted twice")
    finally:
        leave.set()
        t.join()
    assert not errors


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_lock_file_follows_the_umask(tmp_path, umask, mode):
    from kernelrank.lock import output_lock

    old = os.umask(umask)
    try:
        with output_lock(tmp_path / "o") as path:
            assert path.stat().st_mode & 0o777 == mode
    finally:
        os.umask(old)
