"""FASTA reader/writer: round trip, upper-casing, and loud errors naming the record."""

import gzip

import pytest

from corpora.fasta import ProteinRecord, read_fasta, write_fasta
from kernelrank.errors import CorpusFormatError, DataNotFoundError


def test_round_trip_and_uppercase(tmp_path):
    src = tmp_path / "in.fa"
    src.write_text(">a first protein\nacdef\nghik\n>b\nLMNPQRSTVWYX\n")
    records = read_fasta(src)
    assert records == [ProteinRecord("a", "first protein", "ACDEFGHIK"),
                       ProteinRecord("b", "", "LMNPQRSTVWYX")]
    out = write_fasta(tmp_path / "out.fa", records, width=4)
    assert out.read_text().splitlines()[:4] == [">a first protein", "ACDE", "FGHI", "K"]
    assert read_fasta(out) == records


def test_pairs_are_accepted_by_writer(tmp_path):
    path = write_fasta(tmp_path / "p.fa", [("x1", "ACD"), ("x2", "EFG")])
    assert [(r.id, r.seq) for r in read_fasta(path)] == [("x1", "ACD"), ("x2", "EFG")]


def test_gzip(tmp_path):
    path = tmp_path / "in.fa.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(">q\nMKV\n")
    assert read_fasta(path)[0].seq == "MKV"


@pytest.mark.parametrize("text,needle", [
    (">ok\nACD\n>bad1\nAC1D\n", "bad1"),
    (">ok\nACD\n>bad2\nAC*\n", "bad2"),
    (">ok\nACD\n>bad3\nAC-D\n", "bad3"),
    (">dup\nACD\n>dup\nEFG\n", "duplicate"),
    (">empty\n>x\nACD\n", "empty"),
    ("ACD\n>x\nACD\n", "before the first"),
    ("", "no FASTA record"),
])
def test_malformed_records_raise(tmp_path, text, needle):
    path = tmp_path / "bad.fa"
    path.write_text(text)
    with pytest.raises(CorpusFormatError, match=needle):
        read_fasta(path)


def test_unknown_residue_error_names_record_and_line(tmp_path):
    path = tmp_path / "bad.fa"
    path.write_text(">ok\nACD\n>weird_one desc\nACDZZ9\n")
    with pytest.raises(CorpusFormatError) as info:
        read_fasta(path)
    assert info.value.record == "weird_one" and info.value.line == 3
    assert "'9'" in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(DataNotFoundError):
        read_fasta(tmp_path / "nope.fa")


def test_writer_rejects_bad_ids(tmp_path):
    with pytest.raises(CorpusFormatError):
        write_fasta(tmp_path / "x.fa", [("has blank", "ACD")])
