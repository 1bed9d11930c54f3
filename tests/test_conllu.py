"""corpora.conllu: reader on real CRAFT files and on hand-made edge cases."""

import gzip

import pytest

from corpora.conllu import iter_conllu, read_conllu, token_offsets
from kernelrank.errors import CorpusFormatError

SAMPLE = """# newdoc id = doc7
# sent_id = s1
# text = We can't stop.
1\tWe\twe\tPRON\tPRP\t_\t3\tnsubj\t_\t_
2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_
2\tca\tcan\tAUX\tMD\t_\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tneg\t_\tSpaceAfter=No
4\tstop\tstop\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_

# sent_id = s2
# text = Hi  there
1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_
2\tthere\tthere\tADV\tRB\t_\t1\tadvmod\t_\t_
"""


def _write(tmp_path, text, name="x.conllu.gz"):
    path = tmp_path / name
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)
    return path


def test_reads_comments_multiword_and_gz(tmp_path):
    sents = read_conllu(_write(tmp_path, SAMPLE))
    assert [s.sent_id for s in sents] == ["s1", "s2"]
    s1 = sents[0]
    assert s1.doc_id == "doc7" and s1.text == "We can't stop."
    assert [t.form for t in s1.tokens] == ["We", "ca", "n't", "stop", "."]
    assert [t.head for t in s1.tokens] == [3, 4, 4, 0, 4]
    assert len(s1.multiword) == 1 and s1.multiword[0].form == "can't"
    # words of a multiword token share its span; double space is skipped
    assert token_offsets(s1) == [(0, 2), (3, 8), (3, 8), (9, 13), (13, 14)]
    assert token_offsets(sents[1]) == [(0, 2), (4, 9)]


@pytest.mark.parametrize("bad, message", [
    ("1\tWe\twe\tPRON\n", "10 TAB-separated"),
    ("1\tWe\twe\tPRON\tPRP\t_\tx\tnsubj\t_\t_\n", "HEAD"),
    ("1\tWe\twe\tPRON\tPRP\t_\t5\tnsubj\t_\t_\n", "outside the sentence"),
    ("2\tWe\twe\tPRON\tPRP\t_\t0\troot\t_\t_\n", "ids are not 1..n"),
])
def test_malformed_lines_name_file_and_line(tmp_path, bad, message):
    path = _write(tmp_path, "# text = We\n" + bad + "\n", "bad.conllu.gz")
    with pytest.raises(CorpusFormatError, match=message) as info:
        read_conllu(path)
    assert "bad.conllu.gz" in str(info.value) and "line" in str(info.value)


def test_text_mismatch_is_reported(tmp_path):
    text = "# sent_id = 9\n# text = Hello world\n1\tHello\t_\tX\t_\t_\t0\troot\t_\t_\n" \
           "2\tmoon\t_\tX\t_\t_\t1\tdep\t_\t_\n\n"
    (sent,) = read_conllu(_write(tmp_path, text))
    with pytest.raises(CorpusFormatError, match="'moon' is not found"):
        token_offsets(sent)


def test_real_craft_file(data_dir):
    path = data_dir / "craft" / "conllu" / "11319941.conllu.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    sents = list(iter_conllu(path))
    assert len(sents) > 100
    assert all(s.doc_id == "11319941" for s in sents)
    for s in sents:
        roots = [t for t in s.tokens if t.head == 0]
        assert len(roots) == 1
        spans = token_offsets(s)
        # the spans reproduce the forms exactly, in order, without overlap
        assert [s.text[a:b] for a, b in spans] == [t.form for t in s.tokens]
        assert all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))
