"""kernelrank.chunks: the resumable chunk map on its own — parts, resume, fingerprints, the
lock, interrupts, and the same output in this process and on a local Dask cluster."""

import json

import pytest

from kernelrank.chunks import ChunkParts, chunked, map_chunks, parts_path
from kernelrank.errors import CorpusFormatError, InvalidParameterError, OutputLockedError
from kernelrank.lock import lock_path, output_lock

ITEMS = list(range(23))
SIZE = 5                                     # 5 chunks: 4 of five items, the last of three


def _scaled(chunk, factor, sep="\n"):
    """A chunk's lines (each item times ``factor``) and its counts; module level, so that
    Dask worker processes can import it."""
    return "".join(f"{x * factor}{sep}" for x in chunk), {"items": len(chunk),
                                                          "sum": sum(chunk)}


def _expected(factor=3, header=""):
    return header + "".join(f"{x * factor}\n" for x in ITEMS)


def _run(out, fn=_scaled, fingerprint=None, **options):
    options = {"shared": 3, "jobs": 0, "ext": "txt", **options}
    return map_chunks(fn, chunked(ITEMS, SIZE), out,
                      fingerprint={"items": len(ITEMS), "size": SIZE} if fingerprint is None
                      else fingerprint, **options)


def _parts(out):
    return sorted(p.name for p in parts_path(out).glob("chunk-*.txt"))


def test_chunked_groups_consecutive_items_lazily():
    assert list(chunked(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(chunked([], 3)) == []
    consumed = []
    first = next(chunked((consumed.append(x) or x for x in range(100)), 2))
    assert first == [0, 1] and consumed == [0, 1]
    with pytest.raises(InvalidParameterError, match="chunk size 0"):
        chunked(range(3), 0)


def test_in_process_map_writes_header_and_parts_in_order_and_sums_the_counts(tmp_path):
    out = tmp_path / "out.txt"
    run = _run(out, header="# scaled\n")
    assert out.read_text() == _expected(header="# scaled\n")
    assert (run.chunks, run.resumed, run.computed, run.complete) == (5, 0, 5, True)
    assert run.totals == {"items": len(ITEMS), "sum": sum(ITEMS)}
    assert not parts_path(out).exists() and not lock_path(out).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_args_follow_shared_and_without_shared_fn_gets_the_chunk_and_args(tmp_path):
    _run(tmp_path / "a.txt", args=(";",))
    assert (tmp_path / "a.txt").read_text() == "".join(f"{3 * x};" for x in ITEMS)
    _run(tmp_path / "b.txt", shared=None, args=(2,))
    assert (tmp_path / "b.txt").read_text() == _expected(2)


def test_a_failed_chunk_keeps_the_others_and_the_rerun_computes_only_the_missing(tmp_path):
    out, calls = tmp_path / "out.txt", []

    def failing_at_chunk_2(chunk, factor):
        calls.append(chunk[0])
        if chunk[0] == 2 * SIZE:
            raise ValueError("chunk 2 fails")
        return _scaled(chunk, factor)

    with pytest.raises(ValueError, match="chunk 2 fails"):
        _run(out, failing_at_chunk_2)
    assert not out.exists() and not lock_path(out).exists()
    assert _parts(out) == ["chunk-000000.txt", "chunk-000001.txt"]
    calls.clear()

    def counted(chunk, factor):
        calls.append(chunk[0])
        return _scaled(chunk, factor)

    run = _run(out, counted)
    assert calls == [10, 15, 20]                       # chunks 2, 3, 4: the missing ones
    assert (run.chunks, run.resumed, run.computed) == (5, 2, 3)
    assert out.read_text() == _expected()
    assert run.totals == {"items": len(ITEMS), "sum": sum(ITEMS)}    # resumed counts too


def test_max_new_stops_without_assembling_and_the_rerun_finishes(tmp_path):
    out = tmp_path / "out.txt"
    run = _run(out, max_new=2)
    assert (run.complete, run.computed, run.resumed, run.totals) == (False, 2, 0, {})
    assert not out.exists() and _parts(out) == ["chunk-000000.txt", "chunk-000001.txt"]
    run = _run(out, max_new=2)
    assert (run.complete, run.computed, run.resumed) == (False, 2, 2)
    run = _run(out)
    assert (run.complete, run.computed, run.resumed) == (True, 1, 4)
    assert out.read_text() == _expected()


def test_a_changed_fingerprint_is_refused_naming_what_differs_then_overwrite(tmp_path):
    out = tmp_path / "out.txt"
    _run(out, max_new=1)
    with pytest.raises(InvalidParameterError) as info:
        _run(out, fingerprint={"items": len(ITEMS), "size": SIZE + 1})
    msg = str(info.value)
    assert f"{parts_path(out)} holds chunks of a different run (differs in size)" in msg
    assert "pass --overwrite to start afresh" in msg
    assert _parts(out) == ["chunk-000000.txt"]          # nothing touched
    with pytest.raises(InvalidParameterError, match=r"differs in items, size\);.*--restart"):
        _run(out, fingerprint={"size": 0}, overwrite_option="--restart")
    calls = []
    run = _run(out, lambda c, f: calls.append(c) or _scaled(c, f), overwrite=True,
               fingerprint={"items": len(ITEMS), "size": SIZE + 1})
    assert run.resumed == 0 and len(calls) == 5 and out.read_text() == _expected()


def test_a_finished_output_is_refused_unless_overwrite(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("an earlier result\n")
    with pytest.raises(InvalidParameterError, match=r"out.txt exists \(a finished run\); "
                                                    "pass --overwrite to replace it"):
        _run(out)
    assert out.read_text() == "an earlier result\n"
    _run(out, overwrite=True)
    assert out.read_text() == _expected()


@pytest.mark.parametrize("content, problem", [('{"items": 2', "not JSON"),
                                              ("[1]", "a JSON list, not an object"),
                                              ('{"items": 23}', "lacks size")])
def test_an_unreadable_run_record_is_a_typed_error_naming_it(tmp_path, content, problem):
    out = tmp_path / "out.txt"
    _run(out, max_new=1)
    record = parts_path(out) / "run.json"
    record.write_text(content)
    with pytest.raises(CorpusFormatError) as info:
        _run(out)
    assert str(record) in str(info.value) and problem in str(info.value)
    assert "pass --overwrite to start afresh" in str(info.value)


def test_a_fingerprint_is_compared_as_it_reads_back_and_may_be_computed_late(tmp_path):
    """A tuple reads back from run.json as a list: the same run resumes.  A callable
    fingerprint is called once per run, after the output's checks."""
    out, made = tmp_path / "out.txt", []

    def fingerprint():
        made.append(1)
        return {"items": (0, len(ITEMS)), "size": SIZE}

    _run(out, fingerprint=fingerprint, max_new=1)
    run = _run(out, fingerprint=fingerprint)
    assert run.resumed == 1 and made == [1, 1]
    assert out.read_text() == _expected()


def test_what_a_killed_run_leaves_is_cleaned_and_a_part_without_its_text_is_redone(tmp_path):
    """A kill between a chunk's counts and its part, and inside a part's atomic write: the
    counts alone do not make a chunk done, the temporary file is removed."""
    out = tmp_path / "out.txt"
    _run(out, max_new=2)
    parts = parts_path(out)
    (parts / "chunk-000002.counts.json").write_text('{"items": 999}')
    (parts / ".chunk-000002.txt.abc.tmp").write_text("half a chunk")
    run = _run(out)
    assert (run.resumed, run.computed) == (2, 3)
    assert out.read_text() == _expected() and run.totals["items"] == len(ITEMS)


def test_resume_reads_part_names_exactly(tmp_path):
    """Chunk 1,000,000 is ``chunk-1000000``; with parts named ``.json`` a counts file
    (``chunk-<k>.counts.json``) is not a part."""
    out = tmp_path / "out.json"
    parts = ChunkParts(out, "json")
    parts_path(out).mkdir()
    for name in ("chunk-1000000.json", "chunk-000001.counts.json", "chunk-7.json",
                 "chunk-000003.json.x", "notes.json"):
        (parts_path(out) / name).write_text("")
    assert parts.start({"a": 1}) == {1_000_000}
    assert json.loads((parts_path(out) / "run.json").read_text()) == {"a": 1}
    assert parts.part(3).name == "chunk-000003.json"


def test_an_interrupt_removes_temporary_files_keeps_parts_and_reaches_the_caller(tmp_path):
    out, closed = tmp_path / "out.txt", []

    def interrupted_at_chunk_2(chunk, factor):
        if chunk[0] == 2 * SIZE:
            (parts_path(out) / ".chunk-000002.txt.x1y2.tmp").write_text("half")
            raise KeyboardInterrupt
        return _scaled(chunk, factor)

    class Reporter:
        def __init__(self):
            self.seen = []

        def update(self, counts):
            self.seen.append(counts["items"])

        def close(self):
            closed.append(self.seen)

    with pytest.raises(KeyboardInterrupt):
        _run(out, interrupted_at_chunk_2, progress=Reporter)
    assert closed == [[5, 5]]                           # updated per part, closed once
    assert _parts(out) == ["chunk-000000.txt", "chunk-000001.txt"]
    assert not list(parts_path(out).glob(".*.tmp")) and not lock_path(out).exists()
    assert _run(out).resumed == 2 and out.read_text() == _expected()


def test_the_output_lock_is_held_unless_the_caller_holds_it(tmp_path):
    out = tmp_path / "out.txt"
    with output_lock(out, command="another run"):
        with pytest.raises(OutputLockedError, match="another run"):
            _run(out)
        assert not parts_path(out).exists()
        assert _run(out, lock=False).complete
    assert out.read_text() == _expected()


def test_negative_jobs_is_a_typed_error(tmp_path):
    with pytest.raises(InvalidParameterError, match="jobs -1"):
        _run(tmp_path / "out.txt", jobs=-1)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_local_dask_cluster_writes_what_this_process_writes(tmp_path):
    """Two worker processes, ``shared`` broadcast, at most four chunks in flight: the same
    bytes and counts as in this process; a run begun in this process and resumed on the
    cluster too."""
    here, there, mixed = tmp_path / "here.txt", tmp_path / "there.txt", tmp_path / "mixed.txt"
    a = _run(here, header="h\n")
    b = _run(there, header="h\n", jobs=2)
    assert there.read_bytes() == here.read_bytes() == _expected(header="h\n").encode()
    assert (a.chunks, a.totals) == (b.chunks, b.totals)
    _run(mixed, header="h\n", max_new=2)
    c = _run(mixed, header="h\n", jobs=2, args=("\n",))
    assert (c.resumed, c.computed) == (2, 3)
    assert mixed.read_bytes() == here.read_bytes()
