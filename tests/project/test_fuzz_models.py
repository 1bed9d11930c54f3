"""Fuzz suite of the saved model files: every damaged model is refused or harmless.

One tiny model of each kind is trained (a PPI model on four LLL documents — skipped without
the real data —, a homology detector on six FASTA sequences with the spectrum + protein
feature kernel, parse rankers on synthetic linkages: graph, locality and links_words views),
then :data:`CASES` seeded mutations **per model kind** (500 by default, three kinds: 1,500 in
all; ``KERNELRANK_FUZZ_CASES=N`` raises it) are applied to its files, one mutation per case:

* bytes: truncation (to any length, zero included), byte flips, inserted and deleted bytes,
  garbage appended, of one file of the model;
* JSON (``model.json``, ``<model>.json``, the ``meta`` member of the homology ``.npz``): a
  key removed or renamed, a value of another type, a list made a dict and back, numbers
  made NaN / ±inf / huge / negative / zero / moved by one, lists shortened or extended, and
  re-formatting (indentation, key order) — the only edit that keeps the meaning;
* npz members: removed, added, replaced by one of the wrong shape (shortened, extended,
  empty, 2-d, 0-d), the wrong dtype (float32, int32, str, complex), an object array, NaN /
  inf weights, or the member of another model;
* files swapped with the same file of another model of the same kind.

30 % of the structural edits are *resealed*: the checksums are recomputed after the edit,
as a writer with a bug would, so the checks behind them (types, shapes, values) are
exercised too; only edits that no valid model makes are resealed (a resealed threshold of
-1 would be a valid, different model).

Each mutated model must either raise a :class:`~kernelrank.errors.KernelrankError` on load
or prediction, or predict **exactly** the original scores (and, for PPI, decisions) — never
another exception, never silently different results; a re-formatting must load. The run
prints the outcomes per kind (``pytest -s``; at the default seed and 500 cases about 80 %
refused, 20 % identical). What the suite guards against: BadZipFile, UnicodeDecodeError,
TypeError, ValueError tracebacks and silently different scores (an edited graph weight, a
float32 weight array).
"""

import copy
import dataclasses
import hashlib
import io
import json
import os
import zipfile
from collections import Counter

import numpy as np
import pytest

from kernelrank.errors import KernelrankError

pytestmark = pytest.mark.slow      # fuzz: seeded mutations of real saved models

#: mutations per model kind (environment variable KERNELRANK_FUZZ_CASES raises it)
CASES = int(os.environ.get("KERNELRANK_FUZZ_CASES", "500"))
SEED = 20261124
RESEAL_SHARE = 0.3


# ============================================================================ model kinds
class Kind:
    """A model kind: its files (``{name: bytes}``), how to predict from files in a folder,
    how to reseal edited files."""

    name = ""

    def predict(self, folder):
        raise NotImplementedError

    def reseal(self, files):
        return files

    def json_files(self):
        return sorted(n for n in self.bases[0] if n.endswith(".json"))

    def npz_files(self):
        return sorted(n for n in self.bases[0] if n.endswith(".npz"))


def _sha(data):
    return hashlib.sha256(data).hexdigest()


class PPIKind(Kind):
    name = "ppi"

    def __init__(self, data_dir, tmp):
        from corpora.ppi_xml import read_corpus
        from ppi.representation.features import PairFeaturizer
        from ppi.models.classes import SingleViewModel
        corpus = read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")
        small = dataclasses.replace(corpus, documents=corpus.documents[:4])
        self.corpus = dataclasses.replace(corpus, documents=corpus.documents[4:7])
        models = []
        for seed, n_features in ((0, None), (1, None), (2, 4096)):
            f = PairFeaturizer(n_features=n_features)
            (data,) = f.fit_transform([small])
            w = np.random.default_rng(seed).normal(size=data.X.shape[1])
            w[np.random.default_rng(seed + 10).random(w.size) < 0.3] = 0.0
            d = tmp / f"ppi{seed}"
            SingleViewModel(f, w, alpha=0.5, threshold=0.05 * seed, learner="rls",
                            training={"corpus": "LLL"}).save(d)
            models.append({p.name: p.read_bytes() for p in d.iterdir()})
        self.bases = [models[0], models[2]]    # vocabulary and hashed features
        self.partners = models

    def predict(self, folder):
        from ppi.models.classes import PPIModel
        _, scores, decisions = PPIModel.load(folder).predict(self.corpus)
        return np.concatenate([scores, decisions.astype(float)])

    def reseal(self, files):
        from ppi.models.classes import meta_sha256
        meta = _json_or_none(files.get("model.json"))
        if isinstance(meta, dict):
            if "weights_sha256" in meta and "weights.npz" in files:
                meta["weights_sha256"] = _sha(files["weights.npz"])
            if "meta_sha256" in meta:
                meta["meta_sha256"] = meta_sha256(meta)
            files = {**files, "model.json": json.dumps(meta).encode()}
        return files


class HomologyKind(Kind):
    name = "homology"
    POS = ["MKVLAAGIVALLLAAGCSSS", "MKVLAAGIVGLLLAAGCSTS", "MKTLAAGIVALLLSAGCSSA"]
    NEG = ["MDEQRSTWYVHHKKDEQRST", "MDEQRSTWYVHHKRDEQKST", "MEEQRSTWFVHHKKDEARST"]

    def __init__(self, tmp):
        from corpora.fasta import ProteinRecord
        from homology.model import save_model, train_model
        from homology.runs import kernel_options
        self.queries = ["MKVLAAGIVALLLAAGCSSA", "MDEQRSTWYVHHKKDEQKSS", "ACDEFGHIKLMNPQRSTVWY"]
        models = []
        for i, (kernel, k) in enumerate((("spectrum+features", 2), ("spectrum+features", 2),
                                         ("spectrum", 3))):
            pos = [ProteinRecord(f"p{j}", "", s[i:] + s[:i]) for j, s in enumerate(self.POS)]
            neg = [ProteinRecord(f"n{j}", "", s) for j, s in enumerate(self.NEG)]
            model = train_model(pos, neg, kernel, kernel_options(kernel, k=k), alphas=(1.0,),
                                learner="l2svm" if i != 1 else "rls")
            save_model(tmp / f"h{i}.npz", model)
            models.append({"model.npz": (tmp / f"h{i}.npz").read_bytes()})
        self.bases = [models[0]]
        self.partners = models

    def json_files(self):
        return []                       # the JSON is the npz member "meta"

    def predict(self, folder):
        from homology.model import load_model, predict_scores
        return predict_scores(load_model(folder / "model.npz"), self.queries)

    def reseal(self, files):
        from homology.model import content_sha256
        arrays = _npz_or_none(files["model.npz"])
        if arrays is None or "meta" not in arrays:
            return files
        meta = _json_or_none(str(arrays["meta"]).encode()) if arrays["meta"].shape == () \
            else None
        if isinstance(meta, dict) and "sha256" in meta:
            meta["sha256"] = content_sha256(meta, arrays)
            arrays["meta"] = np.array(json.dumps(meta))
            return {"model.npz": _npz_bytes(arrays)}
        return files


class ParseKind(Kind):
    name = "parse_ranking"

    def __init__(self, tmp):
        from parse_ranking.model import train_model
        from tests.parse_ranking.test_coreg import synthetic_records
        records = synthetic_records(np.random.default_rng(3), n_articles=3, per_article=3,
                                    n_parses=5)
        new = synthetic_records(np.random.default_rng(4), n_articles=1, per_article=2,
                                n_parses=4)
        self.items = [(p, r["text"]) for r in new for p in r["parses"]]
        models = []
        for i, kernel in enumerate(("graph", "locality", "links_words", "graph")):
            train_model(records[: 9 - (i == 3)], tmp / f"m{i}", kernel=kernel,
                        alphas=(1.0,), max_parses=5)
            models.append({"model.json": (tmp / f"m{i}.json").read_bytes(),
                           "model.npz": (tmp / f"m{i}.npz").read_bytes()})
        self.bases = models[:3]
        self.partners = models

    def predict(self, folder):
        from parse_ranking.model import load_model, score_parses
        _, views, weights = load_model(folder / "model")
        return score_parses(views, weights, self.items)

    def reseal(self, files):
        from parse_ranking.model import meta_sha256
        meta = _json_or_none(files.get("model.json"))
        if isinstance(meta, dict):
            if "weights_sha256" in meta:
                meta["weights_sha256"] = _sha(files["model.npz"])
            if "meta_sha256" in meta:
                meta["meta_sha256"] = meta_sha256(meta)
            files = {**files, "model.json": json.dumps(meta).encode()}
        return files


# ============================================================================ helpers
def _pick(rng, options):
    """One element of ``options`` (any Python objects), chosen by ``rng``."""
    options = list(options)
    return options[int(rng.integers(len(options)))]


def _json_or_none(data):
    try:
        return json.loads(data)
    except (TypeError, ValueError):
        return None


def _npz_or_none(data):
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception:   # noqa: BLE001 — only deciding whether a structural edit applies
        return None


def _npz_bytes(arrays):
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _paths(node, prefix=()):
    """Every path (tuple of keys / indices) into a JSON tree, the root excluded."""
    out = []
    items = node.items() if isinstance(node, dict) else \
        enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        out.append(prefix + (k,))
        out += _paths(v, prefix + (k,))
    return out


def _get(node, path):
    for k in path:
        node = node[k]
    return node


def _other_type(rng, value, reseal):
    """A value of another JSON type than ``value`` (never int↔float, never bool↔bool)."""
    pool = ["text", [1, "a"], {"x": 1}, True, 7]
    if not reseal:
        pool.append(None)
    same = (lambda c: isinstance(c, bool)) if isinstance(value, bool) else \
        (lambda c: isinstance(c, (int, float)) and not isinstance(c, bool)) \
        if isinstance(value, (int, float)) else (lambda c: type(c) is type(value))
    return copy.deepcopy(_pick(rng, [c for c in pool if not same(c)]))


#: objects whose keys are data, not field names: a resealed renamed key there is a valid,
#: different model (a vocabulary entry of another word)
DATA_MAPPINGS = {"vocabulary", "symbols"}
NUMBER_EDITS = ["nan", "inf", "-inf", "huge", "neg", "zero", "plus1", "minus1", "bigint"]
RESEALABLE_NUMBERS = ["nan", "inf", "-inf"]


def _number(op, v):
    return {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "huge": 1e308,
            "neg": -abs(v) - 1, "zero": 0, "plus1": v + 1, "minus1": v - 1,
            "bigint": 2 ** 70}[op]


def mutate_json(rng, doc, reseal):
    """One structural edit of a JSON tree (in place on a copy); returns ``(doc, label)``.
    With ``reseal``, only edits no valid model makes."""
    doc = copy.deepcopy(doc)
    paths = _paths(doc)
    fields = [p for p in paths if isinstance(_get(doc, p[:-1]), dict)
              and (len(p) < 2 or p[-2] not in DATA_MAPPINGS)]
    ops = ["remove", "rename", "type", "list_dict", "number"]
    if not reseal:
        ops += ["shorten", "extend"]
    for _ in range(50):
        op = _pick(rng, ops)
        # mostly a field of an object: the long lists (labels, codes) would take every pick
        path = _pick(rng, fields if fields and rng.random() < 0.7 else paths)
        parent, key = _get(doc, path[:-1]), path[-1]
        value = parent[key]
        if op == "remove" and isinstance(parent, dict):
            del parent[key]
        elif op == "rename" and isinstance(parent, dict) and not (
                reseal and len(path) > 1 and path[-2] in DATA_MAPPINGS):
            parent[key + "_renamed"] = parent.pop(key)
        elif op == "type":
            parent[key] = _other_type(rng, value, reseal)
        elif op == "list_dict" and isinstance(value, list):
            parent[key] = {str(i): x for i, x in enumerate(value)}
        elif op == "list_dict" and isinstance(value, dict):
            parent[key] = list(value.values())
        elif (op == "number" and isinstance(value, (int, float))
              and not isinstance(value, bool)):
            which = _pick(rng, RESEALABLE_NUMBERS if reseal else NUMBER_EDITS)
            parent[key] = _number(which, value)
            op = f"number:{which}"
        elif op == "shorten" and isinstance(value, list) and value:
            parent[key] = value[: int(rng.integers(len(value)))]
        elif op == "extend" and isinstance(value, list) and value:
            parent[key] = value + [copy.deepcopy(value[-1])]
        else:
            continue
        return doc, f"json {op} {'/'.join(map(str, path))}"
    return doc, "json none"


def mutate_arrays(rng, arrays, partner, reseal):
    """One edit of the members of an npz; returns ``(arrays, label)``."""
    arrays = dict(arrays)
    names = sorted(k for k in arrays if k != "meta")
    ops = ["remove", "add", "shape", "dtype", "object", "nonfinite"]
    if not reseal:
        ops.append("partner")
    for _ in range(50):
        op = _pick(rng, ops)
        name = names[rng.integers(len(names))]
        a = arrays[name]
        if op == "remove":
            del arrays[name]
        elif op == "add":
            arrays["extra"] = np.arange(3.0)
        elif op == "shape":
            how = _pick(rng, ["short", "long", "empty", "2d", "0d"])
            arrays[name] = {"short": lambda: a[:-1], "long": lambda: np.concatenate([a, a[:1]]),
                            "empty": lambda: a[:0], "2d": lambda: a.reshape(-1, 1),
                            "0d": lambda: a.reshape(-1)[0] if a.size else np.float64(1)}[how]()
            op = f"shape:{how}"
            if arrays[name].shape == a.shape:
                continue
        elif op == "dtype":
            to = _pick(rng, ["float32", "int32", "str", "complex"])
            if a.dtype.kind == "U" and to == "str" or a.dtype == np.dtype(to):
                continue
            try:
                arrays[name] = a.astype(to) if to != "str" else a.astype(str)
            except ValueError:          # strings that are no numbers
                continue
            op = f"dtype:{to}"
        elif op == "object":
            arrays[name] = np.array(list(a.reshape(-1)) + [None], dtype=object)
        elif op == "nonfinite" and a.dtype.kind == "f" and a.size:
            b = a.copy()
            b[rng.integers(a.size)] = _pick(rng, [np.nan, np.inf, -np.inf])
            arrays[name] = b
        elif op == "partner" and partner is not None and name in partner:
            if np.array_equal(partner[name], a) and partner[name].dtype == a.dtype:
                continue
            arrays[name] = partner[name]
        else:
            continue
        return arrays, f"npz {op} {name}"
    return arrays, "npz none"


def mutate_bytes(rng, data):
    op = _pick(rng, ["truncate", "flip", "insert", "delete", "append"])
    n = len(data)
    if op == "truncate":
        return data[: int(rng.integers(n))], op
    if op == "flip":
        b = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            b[rng.integers(n)] ^= int(rng.integers(1, 256))
        return bytes(b), op
    if op == "insert":
        i = int(rng.integers(n + 1))
        return data[:i] + bytes(rng.integers(0, 256, int(rng.integers(1, 9)), np.uint8)) \
            + data[i:], op
    if op == "delete":
        i = int(rng.integers(n))
        return data[:i] + data[i + int(rng.integers(1, 9)):], op
    return data + bytes(rng.integers(0, 256, 16, np.uint8)), op


def mutate(rng, kind, base):
    """One mutation of the files ``base`` of ``kind``: ``(files, label, keeps_meaning)``."""
    files = dict(base)
    partner = kind.partners[int(rng.integers(len(kind.partners)))]
    while partner is base:
        partner = kind.partners[int(rng.integers(len(kind.partners)))]
    family = _pick(rng, ["bytes", "json", "json", "npz", "npz", "swap", "reformat"])
    reseal = family in ("json", "npz") and rng.random() < RESEAL_SHARE
    jsons = kind.json_files() or ([] if kind.name != "homology" else ["meta"])
    if family == "bytes":
        name = _pick(rng, sorted(files))
        files[name], op = mutate_bytes(rng, files[name])
        return files, f"bytes {op} {name}", False
    if family == "swap":
        name = _pick(rng, sorted(files))
        if kind.name == "homology":     # one file: swap a member instead
            arrays = _npz_or_none(files[name])
            theirs = _npz_or_none(partner[name])
            member = _pick(rng, sorted(set(arrays) & set(theirs)))
            arrays[member] = theirs[member]
            return {name: _npz_bytes(arrays)}, f"swap member {member}", False
        files[name] = partner[name]
        return files, f"swap file {name}", False
    if family in ("json", "reformat") and jsons:
        if jsons == ["meta"]:
            arrays = _npz_or_none(files["model.npz"])
            doc = json.loads(str(arrays["meta"]))
        else:
            name = _pick(rng, jsons)
            doc = json.loads(files[name])
        if family == "reformat":
            items = list(doc.items())
            rng.shuffle(items)
            text = json.dumps(dict(items), indent=int(rng.integers(0, 5)),
                              sort_keys=bool(rng.random() < 0.5))
            label, keeps = "json reformat", True
        else:
            doc, label = mutate_json(rng, doc, reseal)
            text, keeps = json.dumps(doc), False
        if jsons == ["meta"]:
            arrays["meta"] = np.array(text)
            files["model.npz"] = _npz_bytes(arrays)
        else:
            files[name] = text.encode()
    else:
        name = _pick(rng, kind.npz_files())
        arrays = _npz_or_none(files[name])
        arrays, label = mutate_arrays(rng, arrays, _npz_or_none(partner[name]), reseal)
        files[name] = _npz_bytes(arrays)
        keeps = False
    if reseal:
        files = kind.reseal(files)
        label += " (resealed)"
    return files, label, keeps


# ============================================================================ the test
def _kind(name, request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(name)
    if name == "ppi":
        return PPIKind(request.getfixturevalue("data_dir"), tmp)
    return {"homology": HomologyKind, "parse_ranking": ParseKind}[name](tmp)


@pytest.mark.parametrize("name", [pytest.param("ppi", marks=pytest.mark.needs_data),
                                  "homology", "parse_ranking"])
def test_mutated_models_are_refused_or_harmless(name, request, tmp_path_factory, tmp_path):
    kind = _kind(name, request, tmp_path_factory)
    rng = np.random.default_rng([SEED, ["ppi", "homology", "parse_ranking"].index(name)])
    expected = []
    for i, base in enumerate(kind.bases):
        folder = tmp_path / f"base{i}"
        folder.mkdir()
        for fname, data in base.items():
            (folder / fname).write_bytes(data)
        expected.append(kind.predict(folder))
    outcomes, problems = Counter(), []
    for case in range(CASES):
        b = case % len(kind.bases)
        files, label, keeps = mutate(rng, kind, kind.bases[b])
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        for fname, data in files.items():
            (folder / fname).write_bytes(data)
        try:
            got = kind.predict(folder)
        except KernelrankError as exc:
            outcomes["refused"] += 1
            if keeps:
                problems.append(f"case {case} ({label}): refused a harmless edit: {exc}")
            continue
        except Exception as exc:   # noqa: BLE001 — exactly what the suite is looking for
            problems.append(f"case {case} ({label}): {type(exc).__name__}: {exc}")
            continue
        finally:
            for p in folder.iterdir():
                p.unlink()
            folder.rmdir()
        if got.shape == expected[b].shape and np.array_equal(got, expected[b]):
            outcomes["identical"] += 1
        else:
            problems.append(f"case {case} ({label}): loaded and predicted DIFFERENTLY")
    print(f"\n{name}: {CASES} cases, {dict(outcomes)}")
    assert not problems, f"{len(problems)} of {CASES} cases:\n" + "\n".join(problems[:30])
    assert outcomes["refused"] > CASES // 2      # the mutations do reach the checks


def test_zip_crc_is_what_homology_byte_flips_hit(tmp_path):
    """Why a byte flip in the homology archive is refused without numpy parsing it: the
    archive's CRC check (``testzip``) names the damaged member."""
    from homology.model import load_model
    arrays = {"meta": np.array("{}"), "x": np.arange(1000.0)}
    data = bytearray(_npz_bytes(arrays))
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "m.npz").write_bytes(bytes(data))
    with zipfile.ZipFile(tmp_path / "m.npz") as z:
        assert z.testzip() is not None
    with pytest.raises(KernelrankError, match="CRC"):
        load_model(tmp_path / "m.npz")
