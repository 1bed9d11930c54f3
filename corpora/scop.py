"""Reader of the SCOP 1.53 remote-homology benchmark (Liao & Noble 2003; thesis Paper III).

Files (below ``<data-dir>/scop153/``):

* ``scop.1.53.1e-25.fasta`` — 4,352 ASTRAL SCOP 1.53 domains (E-value 1e-25 filtered);
* ``all_seq_fam_membership.txt`` — header ``ID`` + 54 family ids, then one row per sequence
  with one code per family: ``1`` positive train, ``2`` negative train, ``3`` positive
  test, ``4`` negative test, ``0`` not used.

For family *f* the positive test examples are the domains of *f*, the positive training
examples are the domains of the other families of *f*'s superfamily, and the negatives
come from other folds (split between train and test), so the task is *remote* homology
detection: no training positive belongs to the tested family. :meth:`ScopBenchmark.split` returns the
indices and ±1 labels of the train and test parts of a family.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpora.fasta import read_fasta
from corpora.lines import open_text, reading
from kernelrank.datadir import require_file
from kernelrank.errors import CorpusFormatError, InvalidParameterError

FASTA_NAME = "scop153/scop.1.53.1e-25.fasta"
MEMBERSHIP_NAME = "scop153/all_seq_fam_membership.txt"
POS_TRAIN, NEG_TRAIN, POS_TEST, NEG_TEST, UNUSED = 1, 2, 3, 4, 0


@dataclass(frozen=True)
class FamilySplit:
    """Train/test part of one family: row indices into the benchmark and labels in {-1, +1}."""

    family: str
    train: np.ndarray
    y_train: np.ndarray
    test: np.ndarray
    y_test: np.ndarray


@dataclass(frozen=True)
class ScopBenchmark:
    """The benchmark: ``ids``, ``sequences``, ``descriptions`` (length n), ``families``
    (length 54) and ``codes`` (n x 54 int8 array of the membership codes)."""

    ids: tuple
    sequences: tuple
    descriptions: tuple
    families: tuple
    codes: np.ndarray

    def __len__(self):
        return len(self.ids)

    def split(self, family):
        """The :class:`FamilySplit` of ``family`` (a family id such as ``"1.27.1.1"``)."""
        try:
            j = self.families.index(family)
        except ValueError:
            raise InvalidParameterError(
                f"unknown SCOP family {family!r}; the benchmark has {len(self.families)} "
                f"families, e.g. {self.families[:3]}") from None
        col = self.codes[:, j]
        train = np.flatnonzero((col == POS_TRAIN) | (col == NEG_TRAIN))
        test = np.flatnonzero((col == POS_TEST) | (col == NEG_TEST))
        y_train = np.where(col[train] == POS_TRAIN, 1.0, -1.0)
        y_test = np.where(col[test] == POS_TEST, 1.0, -1.0)
        return FamilySplit(family, train, y_train, test, y_test)

    def code_totals(self):
        """Number of (sequence, family) entries with each code 1..4, summed over families."""
        return {code: int(np.sum(self.codes == code)) for code in (1, 2, 3, 4)}


def read_membership(path):
    """Parse ``all_seq_fam_membership.txt`` → ``(families, ids, codes)``.

    Raises :class:`CorpusFormatError` naming the line on a wrong header, a row with the
    wrong number of fields, a code outside 0..4, a duplicate id, text that is not UTF-8 or a
    truncated gzip stream; :class:`DataNotFoundError` when the file is missing.
    """
    path = Path(path)
    with open_text(path, "SCOP membership table") as handle, reading(path):
        lines = handle.read().splitlines()
    if not lines or lines[0].split()[:1] != ["ID"]:
        raise CorpusFormatError("the header must start with 'ID' followed by family ids",
                                path=path, line=1)
    families = tuple(lines[0].split()[1:])
    if not families or len(set(families)) != len(families):
        raise CorpusFormatError("no or duplicate family ids in the header", path=path, line=1)
    ids, rows, seen = [], [], set()
    for lineno, line in enumerate(lines[1:], 2):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(families) + 1:
            raise CorpusFormatError(
                f"expected an id and {len(families)} codes, found {len(fields)} fields",
                path=path, line=lineno, record=fields[0])
        if fields[0] in seen:
            raise CorpusFormatError("duplicate sequence id", path=path, line=lineno,
                                    record=fields[0])
        seen.add(fields[0])
        if any(f not in {"0", "1", "2", "3", "4"} for f in fields[1:]):
            raise CorpusFormatError("codes must be 0, 1, 2, 3 or 4", path=path, line=lineno,
                                    record=fields[0])
        ids.append(fields[0])
        rows.append(fields[1:])
    codes = np.asarray(rows, dtype=np.int8).reshape(len(ids), len(families))
    return families, tuple(ids), codes


def load_scop(data_dir=None):
    """Load the SCOP 1.53 benchmark from ``<data_dir>/scop153/`` (see :mod:`kernelrank.datadir`).

    The rows follow the order of the FASTA file; every FASTA id must have exactly one
    membership row and vice versa (otherwise :class:`CorpusFormatError`).
    """
    fasta_path = require_file(data_dir, FASTA_NAME, "scop153")
    member_path = require_file(data_dir, MEMBERSHIP_NAME, "scop153")
    records = read_fasta(fasta_path)
    families, ids, codes = read_membership(member_path)
    row = {rid: i for i, rid in enumerate(ids)}
    missing = [r.id for r in records if r.id not in row]
    if missing:
        raise CorpusFormatError(
            f"{len(missing)} FASTA record(s) have no membership row, e.g. {missing[:3]}",
            path=member_path)
    if len(row) != len(records):
        extra = sorted(set(row) - {r.id for r in records})
        raise CorpusFormatError(
            f"{len(extra)} membership row(s) have no FASTA record, e.g. {extra[:3]}",
            path=fasta_path)
    order = np.array([row[r.id] for r in records])
    return ScopBenchmark(
        ids=tuple(r.id for r in records),
        sequences=tuple(r.seq for r in records),
        descriptions=tuple(r.description for r in records),
        families=families,
        codes=codes[order],
    )
