"""Every reader of ``corpora`` answers a damaged or wrong input with a typed error.

A truncated ``.gz`` (a download that broke off), a damaged gzip stream, bytes that are not
UTF-8, a path that does not exist and a directory given as a file must not escape as
``EOFError``, ``BadGzipFile``, ``UnicodeDecodeError``, ``FileNotFoundError`` or
``IsADirectoryError`` tracebacks. Each case is built here from a valid file the test writes
itself (large enough that the gzip stream spans several blocks), and each must end in a
:class:`CorpusFormatError` naming the file (and the line where one can be told) or a
:class:`DataNotFoundError` — never another exception.
"""

import gzip
import re
import xml.sax.saxutils as su

import pytest

from corpora.conllu import read_conllu
from corpora.fasta import read_fasta
from corpora.ppi_xml import read_corpus
from corpora.scop import read_membership
from corpora.svmlight import load_svmlight
from corpora.text_input import read_pubmed_xml, read_pubtator, read_text
from kernelrank.errors import CorpusFormatError, DataNotFoundError

N = 3000  # records per generated file: a gzip stream of tens of kilobytes


def _tag(i):
    """A word that differs from record to record (keeps the stream from compressing away)."""
    return format(i * 2654435761 % 2 ** 32, "08x")


def _fasta():
    return "".join(f">P{i} protein {_tag(i)}\nACDEFGHIKLMNPQRSTVWY{'ACDK' * (i % 7)}\n"
                   for i in range(N))


def _pubtator():
    return "".join(f"{100 + i}|t|Protein {_tag(i)} binds KinD.\n{100 + i}|a|Nothing else here.\n\n"
                   for i in range(N))


def _text():
    return "".join(f"Sentence {_tag(i)} of a plain text document.\n\n" for i in range(N))


def _pubmed():
    arts = "".join(
        f"<PubmedArticle><MedlineCitation><PMID>{i + 1}</PMID><Article><ArticleTitle>"
        f"{su.escape(f'Title {_tag(i)} & more')}</ArticleTitle></Article></MedlineCitation>"
        "</PubmedArticle>\n" for i in range(N))
    return f"<?xml version=\"1.0\"?>\n<PubmedArticleSet>\n{arts}</PubmedArticleSet>\n"


def _ppi():
    docs = "".join(
        f'  <document id="T.d{i}" origId="{_tag(i)}">\n    <sentence id="T.d{i}.s0" text="KinC binds KinD.">\n'
        f'      <entity charOffset="0-3" id="T.d{i}.s0.e0" text="KinC" type="protein" />\n'
        f'      <entity charOffset="11-14" id="T.d{i}.s0.e1" text="KinD" type="protein" />\n'
        f'      <pair e1="T.d{i}.s0.e0" e2="T.d{i}.s0.e1" id="T.d{i}.s0.p0" '
        'interaction="True" />\n    </sentence>\n  </document>\n' for i in range(N))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<corpus source="T">\n{docs}</corpus>\n'


def _scop():
    return "ID a b\n" + "".join(f"s{_tag(i)} {i % 5} {(i + 2) % 5}\n" for i in range(N))


def _svmlight():
    return "".join(f"{i % 3} qid:{i // 10} 1:{i / N:.6f} 2:{(i % 17) / 17:.6f} #doc{i}\n"
                   for i in range(N))


def _conllu():
    return "".join(f"# sent_id = s{_tag(i)}{i}\n# text = We go\n1\tWe\twe\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
                   "2\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n\n" for i in range(N))


def _all(reader):
    return lambda path: list(reader(path))


READERS = {
    # name: (reader, content builder, file suffix, reads text line by line)
    "fasta": (read_fasta, _fasta, ".fasta", True),
    "pubtator": (_all(read_pubtator), _pubtator, ".pubtator", True),
    "text": (_all(read_text), _text, ".txt", True),
    "pubmed-xml": (_all(read_pubmed_xml), _pubmed, ".xml", False),
    "ppi-xml": (read_corpus, _ppi, ".xml", False),
    "scop-membership": (read_membership, _scop, ".txt", True),
    "svmlight": (load_svmlight, _svmlight, ".txt", True),
    "conllu": (read_conllu, _conllu, ".conllu", True),
}


def _reader(name):
    return READERS[name][0]


def _write_gz(tmp_path, name):
    _, build, suffix, _ = READERS[name]
    data = gzip.compress(build().encode("utf-8"))
    assert len(data) > 16_000, "the stream must span several decompression blocks"
    path = tmp_path / f"{name}{suffix}.gz"
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("name", READERS)
def test_valid_file_reads(tmp_path, name):
    # the fixtures are valid: the errors below come from the damage, not the content
    path, _ = _write_gz(tmp_path, name)
    assert _reader(name)(path) is not None


@pytest.mark.parametrize("name", READERS)
@pytest.mark.parametrize("keep", [0.5, 0.97])
def test_truncated_gzip_is_a_located_format_error(tmp_path, name, keep):
    path, data = _write_gz(tmp_path, name)
    path.write_bytes(data[:int(len(data) * keep)])
    with pytest.raises(CorpusFormatError, match="truncated|ends|damaged") as err:
        _reader(name)(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("name", READERS)
@pytest.mark.slow
def test_damaged_gzip_stream_is_a_format_error(tmp_path, name):
    path, data = _write_gz(tmp_path, name)
    broken = bytearray(data)
    broken[len(broken) // 3: len(broken) // 3 + 64] = bytes(64)     # zeros inside the stream
    path.write_bytes(bytes(broken))
    with pytest.raises(CorpusFormatError) as err:
        _reader(name)(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("name", READERS)
def test_gzip_magic_with_a_broken_header_is_a_format_error(tmp_path, name):
    path = tmp_path / f"{name}.gz"
    path.write_bytes(b"\x1f\x8b" + b"not a gzip header at all" * 10)
    with pytest.raises(CorpusFormatError) as err:
        _reader(name)(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("name", [n for n, r in READERS.items() if r[3]])
def test_bytes_that_are_not_utf8_name_their_line(tmp_path, name):
    _, build, suffix, _ = READERS[name]
    lines = build().encode("utf-8").split(b"\n")
    target = 2 * N // 3
    lines[target] = lines[target] + b" caf\xe9"                     # Latin-1 é
    path = tmp_path / f"{name}{suffix}"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(CorpusFormatError, match="UTF-8") as err:
        _reader(name)(path)
    assert err.value.line == target + 1
    assert str(path) in str(err.value)


@pytest.mark.parametrize("name", READERS)
def test_missing_file_is_data_not_found(tmp_path, name):
    path = tmp_path / "nowhere" / f"missing{READERS[name][2]}"
    with pytest.raises(DataNotFoundError, match="does not exist") as err:
        _reader(name)(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("name", [n for n in READERS if n != "text"])   # text reads *.txt
def test_directory_instead_of_a_file_is_a_typed_error(tmp_path, name):
    folder = tmp_path / "a_folder"
    folder.mkdir()
    with pytest.raises((CorpusFormatError, DataNotFoundError)) as err:
        _reader(name)(folder)
    assert str(folder) in str(err.value)


# Found by tests/corpora/test_fuzz_readers.py: an XML declaration naming an unknown encoding
# escaped xml.etree as a bare LookupError ("unknown encoding: utf1_0").
@pytest.mark.parametrize("name", ["pubmed-xml", "ppi-xml"])
def test_unknown_xml_encoding_is_a_format_error(tmp_path, name):
    _, build, suffix, _ = READERS[name]
    text = re.sub(r"<\?xml[^>]*\?>", '<?xml version="1.0" encoding="utf1_0"?>', build(),
                  count=1)
    assert text.startswith('<?xml version="1.0" encoding="utf1_0"?>')
    path = tmp_path / f"{name}{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="unknown encoding") as err:
        _reader(name)(path)
    assert err.value.path == path and err.value.line == 1


def _plain(result):
    """A reader's result in a comparable form (arrays as lists)."""
    if hasattr(result, "X"):
        return (result.X.toarray().tolist(), result.y.tolist(), result.qids.tolist(),
                result.comments)
    if isinstance(result, tuple) and len(result) == 3 and hasattr(result[2], "tolist"):
        return result[0], result[1], result[2].tolist()
    return result


# Found while writing the fuzz suite: a UTF-8 byte order mark (Windows editors write one)
# was read as part of the first line: the first plain-text document began with U+FEFF,
# and FASTA, PubTator, SCOP, SVMlight and CoNLL-U files were refused at line 1.
@pytest.mark.parametrize("name", READERS)
def test_utf8_byte_order_mark_is_not_text(tmp_path, name):
    _, build, suffix, _ = READERS[name]
    (tmp_path / "plain").mkdir()
    (tmp_path / "marked").mkdir()
    plain, marked = tmp_path / "plain" / f"f{suffix}", tmp_path / "marked" / f"f{suffix}"
    plain.write_bytes(build().encode("utf-8"))
    marked.write_bytes(b"\xef\xbb\xbf" + build().encode("utf-8"))
    expected, got = _plain(_reader(name)(plain)), _plain(_reader(name)(marked))
    for record in (expected + got if isinstance(expected, list) else []):
        for where in ("position", "path"):      # these name the file read
            if hasattr(record, where):
                setattr(record, where, "")
    assert got == expected
