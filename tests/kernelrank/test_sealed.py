"""The sealed model file (:mod:`kernelrank.sealed`): what it writes reads back, byte for byte
the same for the same content, and every damage is a CorpusFormatError naming the file and
the field. (Each model format's own checks: tests/ppi/test_model_files.py,
tests/homology/test_model_files.py, tests/parse_ranking/test_model.py.)"""

import json

import numpy as np
import pytest

from kernelrank.errors import CorpusFormatError, UnsaveableError
from kernelrank.sealed import (SealedFormat, content_sha256, meta_sha256, save_archive,
                               save_directory, save_pair, typed)

FMT = SealedFormat("test model", "python -m test train")
META = {"format": "t", "alpha": 0.5, "nan": float("nan"), "labels": ["a", "b"]}
ARRAYS = {"w": np.arange(4.0), "codes": np.array([1, 5], dtype=np.int64)}


def _read_pair(js, npz):
    meta = FMT.read_json(js)
    FMT.check_seal(js, meta)
    return meta, FMT.read_arrays(npz, meta["weights_sha256"])


def test_directory_round_trip_is_sealed_and_reproducible(tmp_path):
    meta = save_directory(tmp_path / "m", META, ARRAYS, json_name="model.json",
                          npz_name="weights.npz")
    first = [(tmp_path / "m" / f).read_bytes() for f in ("model.json", "weights.npz")]
    got, arrays = _read_pair(tmp_path / "m" / "model.json", tmp_path / "m" / "weights.npz")
    assert got == meta and got["nan"] is None and got["non_finite"] == {"nan": "NaN"}
    assert got["meta_sha256"] == meta_sha256(got)
    assert all(np.array_equal(arrays[k], ARRAYS[k]) for k in ARRAYS)
    save_directory(tmp_path / "m", META, ARRAYS, json_name="model.json",
                   npz_name="weights.npz")
    assert [(tmp_path / "m" / f).read_bytes() for f in ("model.json", "weights.npz")] == first


def test_pair_refuses_an_edit_and_a_foreign_archive(tmp_path):
    save_pair(tmp_path / "a.json", tmp_path / "a.npz", META, ARRAYS)
    save_pair(tmp_path / "b.json", tmp_path / "b.npz", META, {"w": np.ones(2)})
    meta = json.loads((tmp_path / "a.json").read_text())
    (tmp_path / "a.json").write_text(json.dumps({**meta, "alpha": 2.0}))
    with pytest.raises(CorpusFormatError, match="a.json.*meta_sha256"):
        _read_pair(tmp_path / "a.json", tmp_path / "a.npz")
    (tmp_path / "a.json").write_text(json.dumps(meta))
    (tmp_path / "a.npz").write_bytes((tmp_path / "b.npz").read_bytes())
    with pytest.raises(CorpusFormatError, match="a.npz.*different models"):
        _read_pair(tmp_path / "a.json", tmp_path / "a.npz")


def test_a_validator_that_refuses_keeps_the_old_files(tmp_path):
    save_pair(tmp_path / "a.json", tmp_path / "a.npz", META, ARRAYS)
    old = (tmp_path / "a.json").read_bytes()

    def refuse(npz, js):
        raise CorpusFormatError("no", path=js)

    with pytest.raises(UnsaveableError):
        save_pair(tmp_path / "a.json", tmp_path / "a.npz", {**META, "alpha": 1.0}, ARRAYS,
                  validate=refuse)
    assert (tmp_path / "a.json").read_bytes() == old


def test_archive_round_trip_and_seal(tmp_path):
    meta = save_archive(tmp_path / "h.npz", META, ARRAYS)
    got, arrays = FMT.read_archive(tmp_path / "h.npz")
    FMT.check_archive_seal(tmp_path / "h.npz", got, arrays)
    assert got == meta and got["sha256"] == content_sha256(got, arrays)
    with pytest.raises(CorpusFormatError, match="h.npz.*sha256 sealed"):
        FMT.check_archive_seal(tmp_path / "h.npz", got, {**arrays, "w": arrays["w"] + 1})
    (tmp_path / "h.npz").write_bytes((tmp_path / "h.npz").read_bytes()[:50])
    with pytest.raises(CorpusFormatError, match="not a readable test model"):
        FMT.read_archive(tmp_path / "h.npz")


@pytest.mark.parametrize(("obj", "kind", "message"), [
    ({}, int, "no field 'x.k'"),
    ({"k": True}, int, "'x.k' is True, not an integer"),
    ({"k": "1"}, (int, float), "not a number"),
    ({"k": float("inf")}, (int, float), "not a finite number"),
    ({"k": []}, dict, "not an object"),
])
def test_typed_fields_name_the_file_and_the_field(tmp_path, obj, kind, message):
    with pytest.raises(CorpusFormatError, match=message) as err:
        FMT.field(tmp_path / "f.json", obj, "k", kind, "x.")
    assert "f.json" in str(err.value) and "python -m test train" in str(err.value)


def test_typed():
    assert typed(1, int) and not typed(True, int) and typed(True, bool)
    assert typed(1.5, (int, float)) and not typed(float("nan"), (int, float))


def test_not_json_and_not_an_object(tmp_path):
    (tmp_path / "a.json").write_text("{")
    with pytest.raises(CorpusFormatError, match="not JSON"):
        FMT.read_json(tmp_path / "a.json")
    (tmp_path / "a.json").write_text("[]")
    with pytest.raises(CorpusFormatError, match="a JSON list, not an object"):
        FMT.read_json(tmp_path / "a.json")
