"""kernelrank.atomic's caches: a cache folder that cannot be written is one warning naming
the folder, the reason and what moves it — never a temporary file — and the caller goes on;
a cache file that cannot be read is a warning and computed again.

The tests run as root, which writes into folders without write permission: an unwritable
folder is made by a regular file in the place of one of its parents, or by a refusing
``tempfile.mkstemp`` (monkeypatched) where the folder itself must exist."""

import errno
import logging
import tempfile

from kernelrank.atomic import read_cache_file, write_cache_file


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_an_unwritable_cache_folder_is_one_warning_naming_it_and_what_moves_it(tmp_path,
                                                                              caplog):
    (tmp_path / "home").write_text("a file where a folder should be")
    folder = tmp_path / "home" / "cache"
    with caplog.at_level(logging.WARNING):
        for name in ("a.json", "b.json"):
            assert write_cache_file(folder / name, lambda fh: fh.write("{}"), what="test cache",
                                    moved_by="$TEST_CACHE", mode="w") is False
    (message,) = _warnings(caplog)                              # once for the folder
    assert message == (f"test cache folder {folder} not writable (Not a directory): going on "
                       "without it; set $TEST_CACHE to move it")


def test_a_refused_temporary_file_is_not_named_only_its_folder(tmp_path, caplog,
                                                               monkeypatch):
    """A folder without write permission (as for a user who is not root): mkstemp's
    PermissionError names the temporary file; the warning names the folder."""
    def refuse(prefix="", suffix="", dir=None):
        raise PermissionError(errno.EACCES, "Permission denied",
                              f"{dir}/{prefix}k2j4h1.tmp")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with caplog.at_level(logging.WARNING):
        assert write_cache_file(tmp_path / "x.npz", lambda fh: fh.write(b"x"),
                                what="test cache", moved_by="--test-dir") is False
    (message,) = _warnings(caplog)
    assert f"folder {tmp_path} not writable (Permission denied)" in message
    assert ".tmp" not in message and "--test-dir" in message
    assert not list(tmp_path.iterdir())


def test_a_cache_file_absent_damaged_or_readable(tmp_path, caplog):
    def read(path):
        return int(path.read_text())

    with caplog.at_level(logging.WARNING):
        assert read_cache_file(tmp_path / "absent", read, what="test cache") is None
        (tmp_path / "file").write_text("")
        assert read_cache_file(tmp_path / "file" / "below", read, what="test cache") is None
        assert not _warnings(caplog)                             # absent: no word
        (tmp_path / "bad").write_text("not a number")
        assert read_cache_file(tmp_path / "bad", read, what="test cache") is None
        (message,) = _warnings(caplog)
        assert f"test cache file {tmp_path / 'bad'} unreadable" in message
        assert "computing it again" in message
        assert write_cache_file(tmp_path / "good", lambda fh: fh.write("12"),
                                what="test cache", moved_by="$X", mode="w")
        assert read_cache_file(tmp_path / "good", read, what="test cache") == 12
