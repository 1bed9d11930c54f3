"""corpora.conllu: reader on real CRAFT files and on hand-made edge cases."""

import gzip

import pytest

from corpora.conllu import Token, iter_conllu, read_conllu, token_offsets
from kernelrank.errors import CorpusFormatError, DataNotFoundError

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


def _word(i, form, head, rel="dep"):
    return f"{i}\t{form}\t{form.lower()}\tX\tX\t_\t{head}\t{rel}\t_\t_\n"


GOOD = ("# sent_id = a\n# text = Hi there\n" + _word(1, "Hi", 0, "root")
        + _word(2, "there", 1) + "\n")
WE_GO = "# sent_id = b\n# text = We go\n"


def _goods(n):
    """``n`` copies of GOOD with distinct sentence ids (a repeated id is an error)."""
    return "".join(GOOD.replace("sent_id = a", f"sent_id = a{i}") for i in range(n))

GO = _word(2, "go", 0, "root")
EMPTY_COLS = "\t_" * 8

# (sentence text, message fragment, line of the error counted from the sentence's first
# line = 1). The file is GOOD + sentence + blank line + GOOD: lines offset by 5. What the
# conllu package (6.0) does with each is in the corpora.conllu docstring.
MALFORMED = [
    (WE_GO + "1\tWe\twe\tPRON\n" + GO, "expected 10 TAB-separated columns, found 4", 3),
    (WE_GO + _word(1, "We", 2).replace("\n", "\t\n") + GO, "found 11", 3),
    (WE_GO + "1  We  we  PRON  PRP  _  2  nsubj  _  _\n" + GO, "found 1", 3),
    (WE_GO + _word(1, "We", "x") + GO, "HEAD 'x' of word 1 is not an integer", 3),
    (WE_GO + _word(1, "We", "+2") + GO, "HEAD '+2' of word 1 is not an integer", 3),
    (WE_GO + _word(1, "We", "_") + GO, "word 1 has no HEAD", 3),
    (WE_GO + _word(1, "We", -1) + GO, "HEAD -1 of word 1 is negative", 3),
    (WE_GO + _word(1, "We", 5) + GO, "HEAD 5 of word 1 is outside the sentence (0..2)", 3),
    (WE_GO + _word(1, "We", 2) + _word(2, "go", 7), "HEAD 7 of word 2 is outside", 4),
    (WE_GO + _word(1, "We", 1) + GO, "word 1 is its own HEAD", 3),
    (WE_GO + _word(1, "We", 2) + _word(2, "go", 1), "no word has HEAD 0", 3),
    (WE_GO + _word(1, "We", 2) + _word(2, "go", 1) + _word(3, "x", 0, "root"),
     "the HEADs of words 1, 2 form a cycle", 3),
    (WE_GO + _word(1, "We", 0, "root") + GO, "words 1 and 2 both have HEAD 0", 4),
    (WE_GO + _word(2, "We", 0, "root"), "word id 2 where 1 was expected", 3),
    (WE_GO + _word(1, "We", 3) + _word(3, "go", 0, "root"), "word id 3 where 2", 4),
    (WE_GO + _word(0, "We", 2) + GO, "word id 0 where 1", 3),
    (WE_GO + _word("a", "We", 2) + GO, "id 'a' is not a word id", 3),
    (WE_GO + _word(1, "We", 2) + GO + _word(1, "Hi", 0, "root"),
     "word id 1 follows word 2: the blank line that ends a sentence is missing", 5),
    (WE_GO + _word(1, "We", 2) + GO + "# sent_id = c\n" + _word(1, "Hi", 0, "root"),
     "comment line among the words", 5),
    (WE_GO + _word(1, "We", 2) + "# note = x\n" + GO, "comment line among the words", 4),
    (WE_GO + "2-1\tWego" + EMPTY_COLS + "\n" + _word(1, "We", 2) + GO,
     "multiword token id '2-1' is not a range", 3),
    (WE_GO + "1-x\tWego" + EMPTY_COLS + "\n" + _word(1, "We", 2) + GO,
     "multiword token id '1-x' is not a range", 3),
    (WE_GO + "1-5\tWego" + EMPTY_COLS + "\n" + _word(1, "We", 2) + GO,
     "multiword token 1-5 goes beyond the last word 2", 3),
    (WE_GO + _word(1, "We", 2) + "1.x\tx" + EMPTY_COLS + "\n" + GO, "id '1.x' is not", 4),
    (WE_GO + _word(1, "We", 2) + "1.0\tx" + EMPTY_COLS + "\n" + GO, "id '1.0' is not", 4),
    (WE_GO + _word(1, "", 2) + GO, "word 1 has an empty FORM", 3),
    (WE_GO, "sentence has comments but no words", 3),
]


@pytest.mark.parametrize("sentence, message, line", MALFORMED)
def test_malformed_input_names_file_and_line(tmp_path, sentence, message, line):
    path = _write(tmp_path, GOOD + sentence + "\n" + GOOD, "bad.conllu.gz")
    with pytest.raises(CorpusFormatError) as info:
        read_conllu(path)
    assert message in str(info.value) and "bad.conllu.gz" in str(info.value)
    assert info.value.path == path and info.value.line == 5 + line


@pytest.mark.parametrize("sentence, forms, multiword", [
    ("# just a remark\n" + WE_GO + _word(1, "We", 2) + GO, ["We", "go"], 0),
    (WE_GO + "1-2\tWego" + EMPTY_COLS + "\n" + _word(1, "We", 2) + GO, ["We", "go"], 1),
    (WE_GO + _word(1, "We", 2) + "1.1\tx" + EMPTY_COLS[:-4] + "\t2:dep\t_\n" + GO,
     ["We", "go"], 0),
])
def test_valid_comments_multiword_tokens_and_empty_nodes(tmp_path, sentence, forms, multiword):
    (sent,) = read_conllu(_write(tmp_path, sentence + "\n"))
    assert [t.form for t in sent.tokens] == forms and len(sent.multiword) == multiword


def test_crlf_and_missing_final_blank_line_are_accepted(tmp_path):
    text = (GOOD + WE_GO + _word(1, "We", 2) + GO).replace("\n", "\r\n")
    sents = read_conllu(_write(tmp_path, text))
    assert [s.sent_id for s in sents] == ["a", "b"]
    assert sents[1].tokens[1].misc == "_" and sents[1].line == 6


def test_tokens_equal_the_dataclass_built_normally(tmp_path):
    (sent,) = read_conllu(_write(tmp_path, GOOD))
    assert sent.tokens == [Token(1, "Hi", "hi", "X", "X", "_", 0, "root", "_", "_"),
                           Token(2, "there", "there", "X", "X", "_", 1, "dep", "_", "_")]
    assert hash(sent.tokens[0]) == hash(Token(1, "Hi", "hi", "X", "X", "_", 0, "root", "_", "_"))
    with pytest.raises(AttributeError):
        sent.tokens[0].head = 2  # still frozen


def test_non_utf8_byte_is_located_beyond_the_decoder_block(tmp_path):
    path = tmp_path / "latin1.conllu"
    path.write_bytes(_goods(400).encode() + _word(1, "caf\xe9", 0, "root").encode("latin-1"))
    with pytest.raises(CorpusFormatError, match="not UTF-8 text: byte 0xe9") as info:
        read_conllu(path)
    assert info.value.line == 2001


@pytest.mark.parametrize("kind", ["truncated", "damaged"])
def test_broken_gzip_names_the_first_unreadable_line(broken_gzip, kind):
    path = broken_gzip(_goods(20000).encode(), kind)
    with pytest.raises(CorpusFormatError, match=kind) as info:
        read_conllu(path)
    assert info.value.path == path and 1 < info.value.line < 100000


def test_missing_file_is_data_not_found(tmp_path):
    with pytest.raises(DataNotFoundError, match="does not exist"):
        read_conllu(tmp_path / "none.conllu")


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


# An invalid tree names the file, the line and the sentence.
TREE_ERRORS = [
    (_word(1, "We", 2) + _word(2, "go", 1) + _word(3, "x", 0, "root"), "form a cycle", 3),
    (_word(1, "We", 2) + _word(2, "go", 1), "no word has HEAD 0", 3),
    (_word(1, "We", 0, "root") + GO, "words 1 and 2 both have HEAD 0", 4),
    (_word(1, "We", 5) + GO, "outside the sentence", 3),
    (_word(1, "We", 3) + _word(3, "go", 0, "root"), "word id 3 where 2", 4),
]


@pytest.mark.parametrize("words, message, line", TREE_ERRORS,
                         ids=["cycle", "no-root", "two-roots", "head-outside", "id-gap"])
@pytest.mark.parametrize("sent_id", ["b", None])
def test_invalid_tree_names_the_sentence(tmp_path, words, message, line, sent_id):
    head = WE_GO if sent_id else "# text = We go\n"
    path = _write(tmp_path, GOOD + head + words + "\n" + GOOD, "tree.conllu.gz")
    with pytest.raises(CorpusFormatError) as info:
        read_conllu(path)
    # without a sent_id the sentence is named as ConlluSentence.sent_id names it: its index
    expected = sent_id or "1"
    assert message in str(info.value) and f"record {expected!r}" in str(info.value)
    assert info.value.record == expected and info.value.line == 5 + line - (sent_id is None)
    assert info.value.path == path


def test_invalid_last_sentence_without_final_blank_line_is_named(tmp_path):
    path = _write(tmp_path, GOOD + WE_GO + _word(1, "We", 2) + _word(2, "go", 1))
    with pytest.raises(CorpusFormatError, match="no word has HEAD 0") as info:
        read_conllu(path)
    assert info.value.record == "b" and info.value.line == 8


@pytest.mark.slow
def test_all_real_craft_files_are_valid_trees(data_dir):
    folder = data_dir / "craft" / "conllu"
    files = sorted(folder.glob("*.conllu.gz"))
    if not files:
        pytest.skip(f"no CRAFT CoNLL-U files in {folder}")
    n_sentences = n_words = 0
    for path in files:
        for s in iter_conllu(path):
            heads = [t.head for t in s.tokens]
            assert heads.count(0) == 1 and all(0 <= h <= len(heads) for h in heads)
            n_sentences += 1
            n_words += len(heads)
    # the sentences and words of the raw lines (blank-line separated blocks; word lines have an
    # integer id, not a range "1-2" or an empty node "1.1")
    raw_sentences = raw_words = 0
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            blocks = handle.read().split("\n\n")
        lines = [[x for x in b.splitlines() if x and not x.startswith("#")] for b in blocks]
        raw_sentences += sum(1 for b in lines if b)
        raw_words += sum(x.split("\t", 1)[0].isdigit() for b in lines for x in b)
    assert (n_sentences, n_words) == (raw_sentences, raw_words) and n_sentences > 0
