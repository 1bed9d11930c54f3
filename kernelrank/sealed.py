"""The sealed model file: JSON metadata and NumPy arrays, the arrays' sha256 and a seal on
the metadata, written atomically and read back with every field's type checked.

Every saved model of the project (:mod:`ppi.models.classes`, :mod:`homology.model`,
:mod:`parse_ranking.model`) is written and read here; the model modules say what the fields
and arrays mean and check their values. Two layouts:

* **A pair** — ``<meta>.json`` beside ``<arrays>.npz``, in a directory of their own
  (:func:`save_directory`) or side by side (:func:`save_pair`). The JSON records
  ``weights_sha256``, the sha256 of the archive's bytes (files of two models are refused),
  and ``meta_sha256``, the seal of its own content (:func:`meta_sha256`: the sha256 of the
  canonical JSON of the object without that key — sorted keys, no whitespace — so
  formatting does not matter and an edited value does).
* **One archive** (:func:`save_archive`) — the metadata as JSON in the 0-d unicode array
  ``meta`` of the ``.npz``, sealed by its field ``sha256``: :func:`content_sha256` of the
  canonical JSON and every other array's name, dtype, shape and bytes.

Writing: the JSON is strict (:func:`kernelrank.atomic.strict_json`: no NaN, non-finite
numbers listed under ``non_finite``), the archive byte for byte reproducible
(:func:`kernelrank.atomic.save_npz`: a loaded model saves to the same bytes), and the files
replace the old ones only once ``validate`` — the model's own reader — has accepted them
(:mod:`kernelrank.atomic`: what is saved can be loaded; a crash leaves the old model whole).

Reading: a :class:`SealedFormat` names the model and the command that makes one; its
methods read the JSON (:meth:`~SealedFormat.read_json`), check the seal
(:meth:`~SealedFormat.check_seal`, :meth:`~SealedFormat.check_archive_seal`), the fields'
types (:meth:`~SealedFormat.field`, :meth:`~SealedFormat.check_fields`: a ``bool`` is no
number, a float must be finite) and load the arrays (:meth:`~SealedFormat.read_arrays`,
:meth:`~SealedFormat.read_archive`: ``allow_pickle=False``). Every failure is a
:class:`~kernelrank.errors.CorpusFormatError` naming the file and the field.

Cost: writing and reading are O(size of the files) (one sha256 pass over the archive, or
over the arrays' bytes for one archive).
"""

import hashlib
import json
import math
import struct
import zipfile
import zlib
from pathlib import Path

from kernelrank.atomic import (atomic_directory, atomic_files, atomic_open, dumps_strict,
                               save_npz, strict_json)
from kernelrank.checksum import canonical_json, file_sha256, json_sha256
from kernelrank.errors import CorpusFormatError

__all__ = ["NPZ_ERRORS", "NUMBER", "SealedFormat", "meta_sha256", "content_sha256",
           "typed", "save_directory", "save_pair", "save_archive"]

#: what reading a damaged ``.npz`` archive can raise (zipfile, zlib, numpy's header parser)
NPZ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError,
              NotImplementedError, RuntimeError, struct.error, OverflowError, IndexError,
              SyntaxError, TypeError, MemoryError)
#: the type of a JSON number field (a ``bool`` is refused: :func:`typed`)
NUMBER = (int, float)

#: the keys of a pair's JSON: the archive's sha256 and the seal of the JSON itself
WEIGHTS_KEY, SEAL_KEY = "weights_sha256", "meta_sha256"
#: the key of an archive's seal inside its ``meta`` member
ARCHIVE_SEAL_KEY = "sha256"

_KIND_NAMES = {"int": "integer", "float": "number", "str": "string", "bool": "boolean",
               "list": "list", "dict": "object", "ndarray": "array"}


def meta_sha256(meta):
    """Hex SHA-256 of ``meta`` (without its ``meta_sha256`` key) as canonical JSON: sorted
    keys, no whitespace — the seal of a pair's JSON. O(size of ``meta``)."""
    return json_sha256(meta, exclude=(SEAL_KEY,))


def content_sha256(meta, arrays):
    """Hex SHA-256 sealing one archive: the canonical JSON of ``meta`` without its
    ``sha256`` key (sorted keys, no whitespace), then, in name order, every array of
    ``arrays`` other than ``meta``: its name, dtype, shape and C-order bytes. O(bytes of the
    arrays)."""
    import numpy as np

    digest = hashlib.sha256()
    digest.update(canonical_json(meta, exclude=(ARCHIVE_SEAL_KEY,)))
    for name in sorted(arrays):
        if name == "meta":
            continue
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode("ascii"))
        digest.update(a.tobytes())
    return digest.hexdigest()


def typed(value, kind):
    """``value`` is of ``kind`` (a type or tuple of types; a ``bool`` counts only as
    ``bool``, not as a number) and, if a float, finite."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def _kind_name(kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if kind == NUMBER:
        return "number"
    return " or ".join(_KIND_NAMES.get(k.__name__, k.__name__) for k in kinds)


# ------------------------------------------------------------------ writing
def _write_sealed_pair(json_path, npz_path, meta, arrays, compress):
    """Write the archive, record its sha256 in ``meta``, seal ``meta`` and write it as
    indented strict JSON; returns the sealed ``meta`` (what the JSON file holds)."""
    with atomic_open(npz_path, "wb") as handle:
        save_npz(handle, arrays, compress=compress)
    meta = dict(meta)
    meta[WEIGHTS_KEY] = file_sha256(npz_path)
    meta = strict_json(meta)                 # the seal is over what the file holds
    meta[SEAL_KEY] = meta_sha256(meta)
    with atomic_open(json_path) as handle:
        handle.write(dumps_strict(meta, indent=2) + "\n")
    return meta


def save_directory(directory, meta, arrays, *, json_name, npz_name, validate=None,
                   compress=True):
    """Write ``meta`` (JSON) and ``arrays`` (``.npz``) as ``directory/json_name`` and
    ``directory/npz_name``, sealed (module docstring), the directory replaced as a unit
    (:func:`kernelrank.atomic.atomic_directory`) once ``validate(temporary directory)`` has
    accepted it. Returns the sealed metadata."""
    with atomic_directory(Path(directory), validate=validate) as tmp:
        return _write_sealed_pair(tmp / json_name, tmp / npz_name, meta, arrays, compress)


def save_pair(json_path, npz_path, meta, arrays, *, validate=None, compress=True):
    """Write ``meta`` to ``json_path`` and ``arrays`` to ``npz_path``, sealed (module
    docstring), as a pair (:func:`kernelrank.atomic.atomic_files`: the archive moved into
    place first, then the JSON naming it) once ``validate(npz_tmp, json_tmp)`` has accepted
    the temporary files. Returns the sealed metadata."""
    with atomic_files([Path(npz_path), Path(json_path)],
                      validate=validate and (lambda tmps: validate(*tmps))) as (npz, js):
        return _write_sealed_pair(js, npz, meta, arrays, compress)


def save_archive(path, meta, arrays, *, validate=None, compress=False):
    """Write ``arrays`` and ``meta`` (as the JSON of the last member, ``meta``) to the
    ``.npz`` file ``path`` atomically, sealed by :func:`content_sha256` under the key
    ``sha256``, once ``validate(temporary file)`` has accepted it. Returns the sealed
    metadata."""
    import numpy as np

    meta = strict_json(meta)                 # no NaN in the JSON
    meta[ARCHIVE_SEAL_KEY] = content_sha256(meta, arrays)
    members = {**arrays, "meta": np.array(json.dumps(meta, allow_nan=False))}
    with atomic_open(path, "wb", validate=validate) as handle:
        save_npz(handle, members, compress=compress)
    return meta


# ------------------------------------------------------------------ reading
class SealedFormat:
    """The reader's checks of one sealed model format; every failure a
    :class:`~kernelrank.errors.CorpusFormatError` naming the file and the field, and saying
    how to make a new model.

    Parameters
    ----------
    name : str
        What the files hold, e.g. ``"kernelrank homology model"``.
    command : str
        The command that writes one, e.g. ``"python -m homology train"``.
    """

    def __init__(self, name, command):
        self.name = name
        self.command = command

    def bad(self, path, what):
        """The error of a damaged or altered file ``path``: ``what`` is wrong."""
        return CorpusFormatError(f"{what}; the model is damaged or altered — retrain it with "
                                 f"`{self.command}`", path=path)

    def read_json(self, path):
        """The JSON object of the file ``path`` (not JSON, or not an object: an error)."""
        path = Path(path)
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise CorpusFormatError(f"not JSON: {exc}", path=path) from None
        if not isinstance(meta, dict):
            raise self.bad(path, f"a JSON {type(meta).__name__}, not an object")
        return meta

    def field(self, path, obj, key, kind, prefix=""):
        """``obj[key]``, which must exist and be of ``kind`` (:func:`typed`); ``prefix``
        names where ``obj`` sits in the file (``"featurizer."``)."""
        if key not in obj:
            raise self.bad(path, f"no field {prefix + key!r}")
        value = obj[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            name = _kind_name(kind)
            raise self.bad(path, f"field {prefix + key!r} is {value!r}, not "
                                 f"{'an' if name[0] in 'aeiou' else 'a'} {name}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.bad(path, f"field {prefix + key!r} is {value!r}, not a finite number")
        return value

    def check_fields(self, path, obj, types, prefix=""):
        """Every ``key: kind`` of ``types`` is a field of ``obj`` of that type
        (:meth:`field`)."""
        for key, kind in types.items():
            self.field(path, obj, key, kind, prefix)

    def check_seal(self, path, meta):
        """A pair's JSON ``meta`` has the content its ``meta_sha256`` sealed."""
        if self.field(path, meta, SEAL_KEY, str) != meta_sha256(meta):
            raise self.bad(path, "its content is not the one its meta_sha256 sealed (the file "
                                 "was edited or damaged)")

    def read_arrays(self, path, sha256=None, recorded_by="model.json"):
        """The arrays of the ``.npz`` file ``path`` (``allow_pickle=False``), once its
        sha256 is ``sha256`` (the one ``recorded_by`` records; None: not checked)."""
        import numpy as np

        if sha256 is not None and file_sha256(path) != sha256:
            raise self.bad(path, f"its sha256 is not the one {recorded_by} records: the two "
                                 "files come from different models (or the weights were "
                                 "altered)")
        try:
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except NPZ_ERRORS as exc:
            raise self.bad(path, f"not a readable NumPy .npz file ({type(exc).__name__}: "
                                 f"{exc})") from None

    def read_archive(self, path):
        """``(meta, arrays)`` of one sealed archive: every member's CRC checked (a byte flip,
        a truncation), the arrays loaded (``allow_pickle=False``), ``meta`` the JSON object
        of the member ``meta`` (its seal not yet checked: :meth:`check_archive_seal`)."""
        import numpy as np

        try:
            with zipfile.ZipFile(path) as archive:
                damaged = archive.testzip()
            if damaged is None:
                with np.load(path, allow_pickle=False) as data:
                    arrays = {k: data[k] for k in data.files}
        except NPZ_ERRORS as exc:
            raise CorpusFormatError(f"not a readable {self.name} ({type(exc).__name__}: "
                                    f"{exc}); train one with `{self.command}`",
                                    path=path) from None
        if damaged is not None:
            raise self.bad(path, f"member {damaged!r} of the archive fails its CRC check")
        if "meta" not in arrays:
            raise self.bad(path, f"no array 'meta' (not a {self.name}?)")
        raw = arrays["meta"]
        if raw.shape != () or raw.dtype.kind != "U":
            raise self.bad(path, f"array 'meta' is {raw.dtype}{raw.shape}, not a unicode "
                                 "scalar")
        try:
            meta = json.loads(str(raw))
        except (json.JSONDecodeError, RecursionError) as exc:
            raise self.bad(path, f"array 'meta' is not JSON ({exc})") from None
        if not isinstance(meta, dict):
            raise self.bad(path, f"array 'meta' is a JSON {type(meta).__name__}, not an "
                                 "object")
        return meta, arrays

    def check_archive_seal(self, path, meta, arrays):
        """One archive's ``meta`` and ``arrays`` have the content its ``sha256`` sealed."""
        if not isinstance(meta.get(ARCHIVE_SEAL_KEY), str):
            raise self.bad(path, f"no field {ARCHIVE_SEAL_KEY!r} (the seal)")
        if meta[ARCHIVE_SEAL_KEY] != content_sha256(meta, arrays):
            raise self.bad(path, "its content is not the one its sha256 sealed (an edited or "
                                 "damaged field or array, or a member of another model)")
