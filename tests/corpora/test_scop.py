"""SCOP 1.53 benchmark reader on the real files, and errors on malformed membership tables."""

import numpy as np
import pytest

from corpora.fasta import read_fasta
from corpora.scop import load_scop, read_membership
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError


@pytest.fixture(scope="module")
def bench(data_dir):
    return load_scop(data_dir)


def _raw_scop(data_dir):
    """The FASTA records, family ids and code totals counted from the raw files (not
    :mod:`corpora`): ``(records, families, {code: entries})``."""
    folder = data_dir / "scop153"
    fasta = (folder / "scop.1.53.1e-25.fasta").read_text(encoding="utf-8").splitlines()
    table = (folder / "all_seq_fam_membership.txt").read_text(encoding="utf-8").split("\n")
    codes = " ".join(line.split(None, 1)[1] for line in table[1:] if line.strip()).split()
    return (sum(line.startswith(">") for line in fasta), table[0].split()[1:],
            {code: codes.count(str(code)) for code in (1, 2, 3, 4)})


def test_sizes_and_code_totals(bench, data_dir):
    records, families, totals = _raw_scop(data_dir)
    assert len(bench) == len(set(bench.ids)) == records > 0
    assert list(bench.families) == families
    assert bench.codes.shape == (records, len(families))
    assert bench.code_totals() == totals and min(totals.values()) > 0


def test_rows_follow_fasta_order(bench, data_dir):
    records = read_fasta(data_dir / "scop153" / "scop.1.53.1e-25.fasta")
    assert bench.ids == tuple(r.id for r in records)
    assert bench.sequences[0].startswith("SVYDAAAQLTADVKK")


def test_split_is_remote_homology(bench):
    for family in bench.families:
        s = bench.split(family)
        assert set(s.train).isdisjoint(s.test)
        assert set(np.unique(s.y_train)) == {-1.0, 1.0} == set(np.unique(s.y_test))
        sfam = ".".join(family.split(".")[:3])
        pos_train = [bench.descriptions[i].split()[0] for i in s.train[s.y_train > 0]]
        pos_test = [bench.descriptions[i].split()[0] for i in s.test[s.y_test > 0]]
        # test positives are the family; train positives are other families of its superfamily
        assert all(".".join(d.split(".")[:4]) == family for d in pos_test)
        assert all(d.startswith(sfam + ".") and not d.startswith(family + ".")
                   for d in pos_train)
    total = sum(len(bench.split(f).train) + len(bench.split(f).test) for f in bench.families)
    assert total == sum(bench.code_totals().values())      # every entry of code 1..4 is used


def test_unknown_family(bench):
    with pytest.raises(InvalidParameterError, match="unknown SCOP family"):
        bench.split("9.9.9.9")


@pytest.mark.parametrize("text,needle", [
    ("XX a b\ns1 1 2\n", "header"),
    ("ID a b\ns1 1\n", "expected an id and 2 codes"),
    ("ID a b\ns1 1 7\n", "codes must be"),
    ("ID a b\ns1 1 2\ns1 2 1\n", "duplicate"),
])
def test_bad_membership(tmp_path, text, needle):
    path = tmp_path / "m.txt"
    path.write_text(text)
    with pytest.raises(CorpusFormatError, match=needle):
        read_membership(path)


def test_missing_data_dir(tmp_path):
    with pytest.raises(DataNotFoundError, match="scop153"):
        load_scop(tmp_path)
