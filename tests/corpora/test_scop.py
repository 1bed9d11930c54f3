"""SCOP 1.53 benchmark reader on the real files, and errors on malformed membership tables."""

import numpy as np
import pytest

from corpora.fasta import read_fasta
from corpora.scop import load_scop, read_membership
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError


@pytest.fixture(scope="module")
def bench(data_dir):
    return load_scop(data_dir)


def test_sizes_and_code_totals(bench):
    assert len(bench) == 4352 and len(set(bench.ids)) == 4352
    assert len(bench.families) == 54
    assert bench.codes.shape == (4352, 54)
    assert bench.code_totals() == {1: 1779, 2: 157500, 3: 857, 4: 72937}


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
    assert total == 1779 + 157500 + 857 + 72937


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
