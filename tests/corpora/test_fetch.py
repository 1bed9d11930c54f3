"""Data download: checksum verification, atomic storage, clear errors; real data verifies."""

import gzip
import hashlib
import json

import pytest

from corpora.__main__ import main as corpora_main
from corpora.fetch import content_sha256, fetch, load_manifest, verify
from kernelrank.errors import ChecksumMismatchError, DataNotFoundError, InvalidParameterError


def _manifest(tmp_path, payload, *, source_gzip, sha=None):
    src = tmp_path / ("public.txt.gz" if source_gzip else "public.txt")
    if source_gzip:
        with gzip.open(src, "wb") as handle:
            handle.write(payload)
    else:
        src.write_bytes(payload)
    entry = {"store": "toy/part.txt.gz", "url": src.as_uri(), "source_gzip": source_gzip,
             "sha256": sha or hashlib.sha256(payload).hexdigest()}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"datasets": {"toy": {"description": "d", "licence": "l",
                                                     "files": [entry]}}}))
    return load_manifest(path)


@pytest.mark.parametrize("source_gzip", [False, True])
def test_fetch_stores_verified_gzip(tmp_path, source_gzip):
    payload = b"1 qid:1 1:0.5 #docid = 7\n" * 100
    manifest = _manifest(tmp_path, payload, source_gzip=source_gzip)
    data = tmp_path / "data"
    assert fetch("toy", data, manifest=manifest, progress=False) == ["toy/part.txt.gz"]
    assert gzip.open(data / "toy/part.txt.gz").read() == payload
    assert verify("toy", data, manifest=manifest) == {"toy/part.txt.gz": "ok"}
    assert fetch("toy", data, manifest=manifest, progress=False) == []   # nothing re-downloaded


def test_wrong_checksum_stores_nothing(tmp_path):
    manifest = _manifest(tmp_path, b"tampered", source_gzip=False, sha="0" * 64)
    data = tmp_path / "data"
    with pytest.raises(ChecksumMismatchError, match="nothing was stored"):
        fetch("toy", data, manifest=manifest, progress=False)
    assert not (data / "toy/part.txt.gz").exists()
    assert verify("toy", data, manifest=manifest) == {"toy/part.txt.gz": "missing"}


def test_corrupt_existing_file_is_reported(tmp_path):
    manifest = _manifest(tmp_path, b"good", source_gzip=False)
    target = tmp_path / "data/toy/part.txt.gz"
    target.parent.mkdir(parents=True)
    with gzip.open(target, "wb") as handle:
        handle.write(b"bad")
    assert verify("toy", tmp_path / "data", manifest=manifest) == {"toy/part.txt.gz": "corrupt"}
    with pytest.raises(ChecksumMismatchError, match="--force"):
        fetch("toy", tmp_path / "data", manifest=manifest, progress=False)


def test_unreachable_source_and_unknown_dataset(tmp_path):
    manifest = _manifest(tmp_path, b"x", source_gzip=False)
    manifest["toy"]["files"][0] = manifest["toy"]["files"][0].__class__(
        store="toy/a.gz", url=(tmp_path / "nope").as_uri(), sha256="0" * 64)
    with pytest.raises(DataNotFoundError, match="could not download"):
        fetch("toy", tmp_path / "data", manifest=manifest, progress=False)
    with pytest.raises(InvalidParameterError, match="unknown data set"):
        fetch("nonesuch", tmp_path / "data", manifest=manifest)


def test_shared_data_matches_published_checksums(data_dir):
    """The real files (PPI md5s in the data README agree) have the manifest's content hashes."""
    manifest = load_manifest()
    for name in ("ppi", "letor", "scop153"):
        assert set(verify(name, data_dir, manifest=manifest).values()) == {"ok"}, name
    aimed = data_dir / "ppi/AIMed-learning-format.xml.gz"
    assert hashlib.md5(gzip.open(aimed).read()).hexdigest() == "f13249ff97a63bec7c691359cca88dfd"
    assert content_sha256(aimed) == manifest["ppi"]["files"][0].sha256


def test_cli_verify_and_list(data_dir, capsys):
    assert corpora_main(["verify", "letor", "--data-dir", str(data_dir)]) == 0
    assert "5/5 files ok" in capsys.readouterr().out
    assert corpora_main(["fetch", "nonesuch", "--data-dir", str(data_dir)]) == 2
    assert "unknown data set" in capsys.readouterr().err
