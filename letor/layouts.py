"""Where the parts of a LETOR data set are: the folder layouts users have, and their folds.

A LETOR data set is split into five parts of whole queries; fold k trains on three parts,
chooses the regularization on a fourth (validation) and tests on the fifth. The layouts
recognised by :func:`find_layout` (``.txt`` or ``.txt.gz`` everywhere):

* ``folds`` — ``Fold1/ … FoldN/`` each holding ``train.txt``, ``vali.txt``, ``test.txt``:
  LETOR 3.0 and 4.0 (``MQ2007/Fold1/train.txt``) and MSLR-WEB10K/30K as distributed (also
  LETOR 2.0's names ``trainingset``, ``validationset``, ``testset``). Each fold names its
  own files.
* ``parts`` — ``S1.txt … S5.txt``: LETOR 4.0's parts (``MQ2007/S1.txt``), rotated the
  standard way (the one behind its ``Fold{k}`` folders): fold k trains on S_k, S_{k+1},
  S_{k+2}, validates on S_{k+3} and tests on S_{k+4} (indices modulo 5; Fold1 = train S1,
  S2, S3 / validation S4 / test S5, Fold2 = S2, S3, S4 / S5 / S1, …).
* the project's own data folder (``--dataset OHSUMED``): ``letor/OHSUMED/Fold{k}.test.txt.gz``,
  the test part of every LETOR 3.0 fold; fold k tests on part k, validates on part k - 1
  (cyclically) and trains on the other three in increasing order — the same rotation with
  the parts named after the fold that tests on them.

:class:`LetorData` reads the parts of one fold on demand (the ``parts`` layouts keep every
part in memory once read; the ``folds`` layouts keep only the current fold, so a data set
the size of MSLR-WEB30K is never held five times) and checks what a user's folder can get
wrong: no recognizable layout, files with different numbers of features, a query found in
two parts of a fold, a file without ``qid:`` — each a
:class:`~kernelrank.errors.CorpusFormatError` naming the file and line.

The version of a data set (which evaluation script and which published baselines apply) is
told by its name (``MQ2007``, ``MSLR-WEB10K``, … in the folder's path) or else by its lines:
LETOR 4.0 comments read ``#docid = … inc = … prob = …``, LETOR 3.0 ones ``#docid = …``,
MSLR lines have no comment and 136 features.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from corpora.lines import READ_ERRORS, find_lines, open_text, read_error
from corpora.svmlight import iter_svmlight_lines, load_svmlight
from kernelrank.datadir import require_file
from kernelrank.errors import (CorpusFormatError, DataNotFoundError, InvalidInputError,
                               InvalidParameterError)
from letor.names import DATASETS, KNOWN_DATASETS

__all__ = ["Fold", "LetorData", "find_layout", "open_letor", "standard_folds", "used_columns"]

SUFFIXES = (".txt", ".txt.gz")
FOLD_FILES = ("train", "vali", "test")
#: other names of the three files of a Fold folder (LETOR 2.0's)
ALIASES = {"train": ("train", "trainingset"), "vali": ("vali", "validationset"),
           "test": ("test", "testset")}


@dataclass(frozen=True)
class Fold:
    """One fold: its number, the files it trains, validates and tests on, and the names
    of those parts for the report (part numbers, or paths relative to the data folder)."""

    k: int
    train: tuple
    validation: Path
    test: Path
    names: dict = field(default_factory=dict, compare=False)


def standard_folds(n_parts=5):
    """``[(k, train_parts, validation_part, test_part)]`` with 1-based part numbers, the
    LETOR 3.0 numbering of the project's OHSUMED folder (fold k tests on part k)."""
    folds = []
    for k in range(1, n_parts + 1):
        val = n_parts if k == 1 else k - 1
        folds.append((k, [p for p in range(1, n_parts + 1) if p not in (k, val)], val, k))
    return folds


def rotated_folds(n_parts=5):
    """``[(k, train_parts, validation_part, test_part)]`` of LETOR 4.0's ``S1..S5``: fold k
    trains on S_k, S_{k+1}, S_{k+2}, validates on S_{k+3}, tests on S_{k+4} (modulo n)."""
    def part(i):
        return (i - 1) % n_parts + 1
    return [(k, [part(k + j) for j in range(n_parts - 2)], part(k + n_parts - 2),
             part(k + n_parts - 1)) for k in range(1, n_parts + 1)]


def _existing(folder, stem):
    """``folder/stem.txt`` or ``folder/stem.txt.gz`` if one exists (not both), else None."""
    found = [folder / (stem + s) for s in SUFFIXES if (folder / (stem + s)).is_file()]
    if len(found) > 1:
        raise CorpusFormatError(f"both {found[0].name} and {found[1].name} exist; keep one",
                                path=folder)
    return found[0] if found else None


def _numbered(folder, pattern):
    """``{number: path}`` of the entries of ``folder`` whose name matches ``pattern``."""
    out = {}
    for entry in folder.iterdir():
        match = re.fullmatch(pattern, entry.name)
        if match:
            out[int(match.group(1))] = entry
    return out


def _consecutive(numbers, what, folder):
    if sorted(numbers) != list(range(1, len(numbers) + 1)):
        raise CorpusFormatError(f"{what} must be numbered 1..n without gaps, found "
                                f"{sorted(numbers)}", path=folder)


def find_layout(folder):
    """The folds of the LETOR data set in ``folder`` (see the module docstring).

    Returns
    -------
    (str, list of Fold)
        The layout (``"folds"`` or ``"parts"``) and its folds in order.

    Raises
    ------
    DataNotFoundError
        ``folder`` does not exist.
    CorpusFormatError
        ``folder`` is a file, or holds no recognizable layout (the message lists what is
        expected and what was found), or a fold folder lacks one of its three files.
    """
    folder = Path(folder).expanduser()
    if not folder.exists():
        raise DataNotFoundError(f"LETOR data folder {folder} does not exist")
    if not folder.is_dir():
        raise CorpusFormatError("is a file; --data takes the folder of a LETOR data set "
                                "(with Fold1..Fold5/ or S1..S5.txt)", path=folder)
    fold_dirs = {k: p for k, p in _numbered(folder, r"Fold(\d+)").items() if p.is_dir()}
    if fold_dirs:
        _consecutive(fold_dirs, "the Fold folders", folder)
        folds = []
        for k in sorted(fold_dirs):
            files = {}
            for stem in FOLD_FILES:
                found = [p for p in (_existing(fold_dirs[k], a) for a in ALIASES[stem]) if p]
                files[stem] = found[0] if found else None
                if files[stem] is None:
                    raise CorpusFormatError(
                        f"has no {stem}.txt (or {stem}.txt.gz); every Fold folder holds "
                        "train, vali and test", path=fold_dirs[k])
            names = {s: files[s].relative_to(folder).as_posix() for s in FOLD_FILES}
            folds.append(Fold(k, (files["train"],), files["vali"], files["test"],
                              {"train_parts": [names["train"]],
                               "validation_part": names["vali"], "test_part": names["test"]}))
        return "folds", folds
    parts = {}
    for suffix in SUFFIXES:
        for k, p in _numbered(folder, r"S(\d+)" + re.escape(suffix)).items():
            if k in parts:
                raise CorpusFormatError(f"both {parts[k].name} and {p.name} exist; keep one",
                                        path=folder)
            parts[k] = p
    if parts:
        _consecutive(parts, "the S parts", folder)
        if len(parts) < 3:
            raise CorpusFormatError(f"has {len(parts)} S parts; the rotation needs at "
                                    "least 3 (train, validation, test)", path=folder)
        return "parts", _part_folds(parts, rotated_folds(len(parts)))
    seen = sorted(p.name for p in folder.iterdir())[:10]
    raise CorpusFormatError(
        "no LETOR layout found: expected Fold1..Fold5/ folders holding train, vali and "
        "test (.txt or .txt.gz; LETOR 3.0/4.0, MSLR-WEB) or parts S1.txt..S5.txt (LETOR "
        f"4.0); found {seen or 'nothing'}", path=folder)


def _part_folds(paths, scheme):
    return [Fold(k, tuple(paths[p] for p in train), paths[val], paths[test],
                 {"train_parts": list(train), "validation_part": val, "test_part": test})
            for k, train, val, test in scheme]


# --------------------------------------------------------------------------- reading


def _first_example(path):
    """``(line number, number of features, comment, has qid)`` of the first example of a
    file, or None when it holds none."""
    try:
        with open_text(path, "LETOR file") as handle:
            for lineno, _, qid, indices, _, comment in iter_svmlight_lines(handle, path):
                return lineno, (indices[-1] + 1 if indices else 0), comment, qid is not None
    except READ_ERRORS as exc:
        raise read_error(path, exc) from None
    return None


def _version_of(name, first_examples):
    """``(version, how it was told)`` of a data set."""
    if name in KNOWN_DATASETS:
        return KNOWN_DATASETS[name]["version"], f"the name {name}"
    comments = [c for _, _, c, _ in first_examples]
    if comments and all("inc =" in c and "prob =" in c for c in comments):
        return "LETOR 4.0", "its lines (#docid = … inc = … prob = …)"
    if comments and all(c.startswith("docid") for c in comments):
        return "LETOR 3.0", "its lines (#docid = …)"
    if (first_examples and all(not c for c in comments)
            and all(n == 136 for _, n, _, _ in first_examples)):
        return "MSLR-WEB", "its lines (136 features, no comment)"
    return "unknown", "neither its name nor its lines"


class LetorData:
    """A LETOR data set on disk: its folds, feature count, version; parts read on demand.

    Build it with :func:`open_letor`. Attributes: ``name``, ``version`` ("LETOR 3.0",
    "LETOR 4.0", "MSLR-WEB" or "unknown"), ``version_source`` (how it was told),
    ``layout``, ``root``, ``folds`` (list of :class:`Fold`), ``n_features``.
    """

    def __init__(self, name, layout, root, folds, n_features=None):
        self.name, self.layout, self.root, self.folds = name, layout, Path(root), folds
        self._cache = {}
        files = self.files()
        firsts = {}
        for path in files:
            first = _first_example(path)
            if first is None:
                raise CorpusFormatError("holds no example (empty file?)", path=path)
            lineno, _, _, has_qid = first
            if not has_qid:
                raise CorpusFormatError("has no qid:, but a LETOR file is ranked per query; "
                                        "is this a LETOR file?", path=path, line=lineno)
            firsts[path] = first
        if n_features is None:
            widths = {path: first[1] for path, first in firsts.items()}
            reference = files[0]
            for path in files[1:]:
                if widths[path] != widths[reference]:
                    raise CorpusFormatError(
                        f"has {widths[path]} features on its first example, but "
                        f"{reference} has {widths[reference]}: the parts of a data set must "
                        "have the same features (if the files write features sparsely, give "
                        "the count with --n-features)", path=path, line=firsts[path][0])
            n_features = widths[reference]
        self.n_features = int(n_features)
        self.version, self.version_source = _version_of(name, list(firsts.values()))

    @classmethod
    def from_parts(cls, parts, name="OHSUMED"):
        """A data set of already-read parts (:class:`corpora.svmlight.SvmlightData`, in
        part order) with the folds of :func:`standard_folds`."""
        self = cls.__new__(cls)
        keys = {k: Path(f"<part {k}>") for k in range(1, len(parts) + 1)}
        self.name, self.layout, self.root = name, "parts", Path(".")
        self.folds = _part_folds(keys, standard_folds(len(parts)))
        self._cache = {keys[k]: part for k, part in zip(keys, parts)}
        self.n_features = int(parts[0].X.shape[1])
        self.version, self.version_source = _version_of(name, [])
        return self

    def files(self):
        """Every file of the data set, each once, in the order of the folds."""
        seen = {}
        for fold in self.folds:
            for path in (*fold.train, fold.validation, fold.test):
                seen.setdefault(path, None)
        return list(seen)

    def read(self, path):
        """One file as :class:`corpora.svmlight.SvmlightData` with sparse (CSR) X over
        ``n_features`` columns (cached): memory O(its entries), whatever width the file or
        ``--n-features`` claims."""
        if path not in self._cache:
            part = load_svmlight(path, n_features=self.n_features)
            if part.qids is None:  # the first example had one, so some line must lack it
                raise CorpusFormatError("has no qid:", path=path)
            self._cache[path] = part
        return self._cache[path]

    def load(self, fold):
        """``(train, validation, test)``, each ``(X, y, qids)``, of one :class:`Fold`.

        The training parts are stacked in the fold's order. A query found in two of the
        fold's parts is an error (naming the later file and the query's first line there).
        """
        paths = (*fold.train, fold.validation, fold.test)
        if self.layout == "folds":   # keep one fold in memory
            for old in [p for p in self._cache if p not in paths]:
                del self._cache[old]
        parts = [self.read(p) for p in paths]
        seen = {}
        for path, part in zip(paths, parts):
            qids = np.unique(part.qids)
            for earlier, earlier_qids in seen.items():
                common = np.intersect1d(qids, earlier_qids)
                if common.size:
                    q = int(common[0])
                    lines = find_lines(path, rb"^\s*\S+\s+qid:" + str(q).encode() + rb"(\s|$)",
                                       limit=1)
                    raise CorpusFormatError(
                        f"query {q} is also in {earlier}: a query must lie in one part of "
                        f"fold {fold.k} ({common.size} queries shared)", path=path,
                        line=lines[0] if lines else None)
            seen[path] = qids
        train = parts[:len(fold.train)]
        X_train, X_val, X_test = used_columns(
            [sp.vstack([sp.csr_matrix(d.X) for d in train], format="csr"),
             sp.csr_matrix(parts[-2].X), sp.csr_matrix(parts[-1].X)], fold.k)
        stacked = (X_train, np.concatenate([d.y for d in train]),
                   np.concatenate([d.qids for d in train]))
        return (stacked, (X_val, parts[-2].y, parts[-2].qids),
                (X_test, parts[-1].y, parts[-1].qids))


#: a fold's matrices are dense when that takes at most this many cells more than their
#: stored entries (the learners are dense; LETOR files write every feature, so this is 1×)
DENSE_FACTOR = 64
#: … or at most this many cells (1 GiB of float64) whatever their entries
DENSE_CELLS = 2 ** 27


def used_columns(matrices, fold=None):
    """The CSR ``matrices`` of one fold (train, validation, test) cut to the feature columns
    any of them uses, as dense arrays.

    Exact for the linear learners and the trees of the protocol: a feature that is zero in
    every training row gets weight 0 (and no split), and one that is zero in every row is
    zero in every score. So the width is bounded by the entries actually in the files, not
    by the largest feature index a line claims or ``--n-features``: a single feature 10⁹ in
    37 rows gives 38 columns, not a 37 × 10⁹ matrix. A fold whose used columns still make
    a dense matrix far larger than its entries (more than :data:`DENSE_FACTOR` × and
    :data:`DENSE_CELLS` cells) is an :class:`~kernelrank.errors.InvalidInputError` with the
    numbers. O(entries + rows × used columns)."""
    used = np.unique(np.concatenate([m.indices for m in matrices]))
    rows = sum(m.shape[0] for m in matrices)
    entries = sum(m.nnz for m in matrices)
    cells = rows * used.size
    if cells > max(DENSE_FACTOR * entries, DENSE_CELLS):
        raise InvalidInputError(
            f"fold {fold}: {rows:,} rows × {used.size:,} features in use would make a dense "
            f"matrix of {cells * 8 / 2 ** 30:,.1f} GiB for {entries:,} stored values; the "
            "LETOR learners are dense — use fewer distinct features (a LETOR data set has "
            "the same few hundred features on every line)")
    out = []
    for m in matrices:      # remapped by search: m[:, used] allocates the claimed width
        cols = np.searchsorted(used, m.indices)
        out.append(sp.csr_matrix((m.data, cols, m.indptr),
                                 shape=(m.shape[0], used.size)).toarray())
    return out


def open_letor(data=None, dataset=None, data_dir=None, n_features=None):
    """The LETOR data set in the folder ``data``, or the preset ``dataset`` of the data dir.

    Parameters
    ----------
    data : path-like, optional
        A folder in one of the layouts of :func:`find_layout`.
    dataset : str, optional
        A preset of :data:`letor.names.DATASETS` (``"OHSUMED"``), read from
        ``<data_dir>/letor/<dataset>/Fold{k}.test.txt.gz``; used when ``data`` is None.
    data_dir : path-like, optional
        See :mod:`kernelrank.datadir`.
    n_features : int, optional
        Number of features; default: detected from the first example of every file (which
        must agree).

    Raises
    ------
    InvalidParameterError
        Unknown preset, both ``data`` and ``dataset``, or a bad ``n_features``.
    DataNotFoundError, CorpusFormatError
        See :func:`find_layout` and :class:`LetorData`.
    """
    if n_features is not None and (int(n_features) != n_features or n_features < 1):
        raise InvalidParameterError(f"n_features must be a positive integer, got {n_features!r}")
    if data is not None:
        if dataset is not None:
            raise InvalidParameterError("give either a data folder (--data) or a preset "
                                        "(--dataset), not both")
        root = Path(data).expanduser()
        layout, folds = find_layout(root)
        name = next((p.name for p in (root.resolve(), *root.resolve().parents)
                     if p.name in KNOWN_DATASETS), root.resolve().name)
        return LetorData(name, layout, root, folds, n_features)
    dataset = "OHSUMED" if dataset is None else dataset
    if dataset not in DATASETS:
        raise InvalidParameterError(f"unknown LETOR dataset {dataset!r}; known presets: "
                                    f"{', '.join(DATASETS)} (any other: --data FOLDER)")
    info = DATASETS[dataset]
    paths = {k: require_file(data_dir, f"letor/{dataset}/Fold{k}.test.txt.gz", "letor")
             for k in range(1, info["n_parts"] + 1)}
    return LetorData(dataset, "parts", paths[1].parent,
                     _part_folds(paths, standard_folds(info["n_parts"])),
                     info["n_features"] if n_features is None else n_features)
