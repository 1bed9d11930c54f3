"""Download the data sets from their public copies into the data directory, checksum-verified.

The manifest (``corpora/manifest.json``) lists, per data set, every file with the address
of its public copy and the SHA-256 of its *uncompressed* content. A file is stored in the
data directory under ``store`` (gzip-compressed when the name ends in ``.gz``), so that the
layout equals the project's shared data folder. Existing files are verified, never
re-downloaded unless ``force=True``; a download is verified before it is moved into place
(atomically), so a failed or corrupt download never leaves a file behind.

Complexity: one pass over each file's bytes for download, decompression and hashing.
"""

import gzip
import hashlib
import json
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tqdm.auto import tqdm

from kernelrank.atomic import atomic_open
from kernelrank.datadir import resolve_data_dir
from kernelrank.errors import ChecksumMismatchError, DataNotFoundError, InvalidParameterError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class DataFile:
    """One file of a data set: where it is stored, where it comes from, its checksum."""

    store: str
    url: str
    sha256: str
    source_gzip: bool = False


def load_manifest(path=None):
    """Return ``{dataset: {"description", "licence", "files": [DataFile, ...]}}``."""
    text = (Path(path).read_text() if path is not None
            else resources.files("corpora").joinpath("manifest.json").read_text())
    raw = json.loads(text)["datasets"]
    return {name: {**entry, "files": [DataFile(**f) for f in entry["files"]]}
            for name, entry in raw.items()}


def content_sha256(path):
    """SHA-256 of a file's content, transparently gunzipping ``*.gz``."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    digest = hashlib.sha256()
    with opener(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify(dataset, data_dir=None, manifest=None):
    """Check every stored file of ``dataset``.

    Returns
    -------
    status : dict ``{store: "ok" | "missing" | "corrupt"}``
    """
    manifest = manifest or load_manifest()
    root = resolve_data_dir(data_dir)
    status = {}
    for item in _files(manifest, dataset):
        path = root / item.store
        if not path.exists():
            status[item.store] = "missing"
        else:
            status[item.store] = "ok" if content_sha256(path) == item.sha256 else "corrupt"
    return status


def fetch(dataset, data_dir=None, *, force=False, manifest=None, progress=True):
    """Download the missing (or, with ``force``, all) files of ``dataset``.

    Returns
    -------
    fetched : list of str
        The ``store`` names that were downloaded.

    Raises
    ------
    DataNotFoundError
        The public copy could not be reached (the message names the address).
    ChecksumMismatchError
        The downloaded content does not have the manifest's checksum (nothing is stored),
        or an existing stored file is corrupt and ``force`` is not set.
    """
    manifest = manifest or load_manifest()
    root = resolve_data_dir(data_dir)
    fetched = []
    for item in tqdm(_files(manifest, dataset), desc=f"fetch {dataset}", unit="file",
                     disable=not progress):
        target = root / item.store
        if target.exists() and not force:
            if content_sha256(target) != item.sha256:
                raise ChecksumMismatchError(
                    f"{target} exists but its content does not match the published checksum "
                    f"{item.sha256}; delete it or rerun with --force to download it again")
            continue
        _download_verified(item, target)
        fetched.append(item.store)
    return fetched


def expand_names(names, manifest=None):
    """Data set names, ``"all"`` standing for every data set of the manifest (sorted)."""
    manifest = manifest or load_manifest()
    return sorted(manifest) if "all" in names else list(names)


def fetch_many(names, data_dir=None, *, force=False, progress=True):
    """:func:`fetch` every data set of ``names`` (``"all"`` allowed); returns
    ``{name: [store names downloaded]}``."""
    manifest = load_manifest()
    return {name: fetch(name, data_dir, force=force, manifest=manifest, progress=progress)
            for name in expand_names(names, manifest)}


def verify_many(names, data_dir=None):
    """:func:`verify` every data set of ``names`` (``"all"`` allowed); returns
    ``{name: {store: "ok" | "missing" | "corrupt"}}``."""
    manifest = load_manifest()
    return {name: verify(name, data_dir, manifest=manifest)
            for name in expand_names(names, manifest)}


def _files(manifest, dataset):
    if dataset not in manifest:
        raise InvalidParameterError(
            f"unknown data set {dataset!r}; known: {', '.join(sorted(manifest))}")
    return manifest[dataset]["files"]


def _download_verified(item, target):
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "download"
        try:
            with urllib.request.urlopen(item.url, timeout=60) as response, open(raw, "wb") as out:
                shutil.copyfileobj(response, out, _CHUNK)
        except (urllib.error.URLError, OSError) as exc:
            raise DataNotFoundError(
                f"could not download {item.url} ({exc}); check the network, or copy the file "
                f"to {target} by hand") from exc
        plain = raw
        if item.source_gzip:
            plain = Path(tmp) / "plain"
            with gzip.open(raw, "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst, _CHUNK)
        got = content_sha256(plain)
        if got != item.sha256:
            raise ChecksumMismatchError(
                f"{item.url}: content SHA-256 {got} differs from the published {item.sha256}; "
                "the public copy changed or the download was corrupted — nothing was stored")
        with open(plain, "rb") as src, atomic_open(target, "wb") as dst:
            if target.suffix == ".gz":
                with gzip.GzipFile(fileobj=dst, mode="wb", mtime=0) as gz:
                    shutil.copyfileobj(src, gz, _CHUNK)
            else:
                shutil.copyfileobj(src, dst, _CHUNK)
