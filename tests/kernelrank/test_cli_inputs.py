"""Every file-taking option of the ppi, homology, parse_ranking and ``learners letor``
commands ends in ``error: <message naming the file>`` and exit code 2 — never a traceback —
for a path that does not exist, a directory, an empty file and binary bytes.

What this guards against: ``ppi predict|train --input`` ending in ``FileNotFoundError`` /
``IsADirectoryError``, an empty LETOR part in a ``ValueError``, a binary file as ``homology
train --positives`` in a traceback, an empty or PNG ``homology predict --model`` in
``EOFError``, a binary ``parse_ranking train --data`` in ``UnicodeDecodeError``, an output
directory that is a file or an output file that is a directory in ``FileExistsError`` /
``IsADirectoryError`` after the work. Everything is run
through the commands' ``main([...])``; fixtures are generated here (the PPI model needs the
real LLL corpus and is skipped without it).
"""

import gzip
import json

import numpy as np
import pytest

#: bytes of a kind the commands must refuse with a message: ELF-like binary, a PNG header,
#: a gzip stream of binary bytes, NUL bytes
BINARY = {
    "elf": b"\x7fELF\x02\x01\x01\x00" + bytes(np.random.default_rng(7).integers(0, 256, 3000,
                                                                                 np.uint8)),
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "gzip": gzip.compress(bytes(np.random.default_rng(8).integers(0, 256, 2000, np.uint8)),
                          mtime=0),
    "nul": bytes(4000),
}
POSITIVES = ">p1\nMKVLAAGIVALLLAAGCSSS\n>p2\nMKVLAAGIVGLLLAAGCSTS\n>p3\nMKTLAAGIVALLLSAGCSSA\n"
NEGATIVES = ">n1\nMDEQRSTWYVHHKKDEQRST\n>n2\nMDEQRSTWYVHHKRDEQKST\n>n3\nMEEQRSTWFVHHKKDEARST\n"


@pytest.fixture
def bad(tmp_path):
    """``{kind: path}``: a missing path, a directory, an empty file and the BINARY files."""
    paths = {"missing": tmp_path / "no_such_file", "directory": tmp_path / "a_directory",
             "empty": tmp_path / "empty.txt"}
    paths["directory"].mkdir()
    paths["empty"].write_bytes(b"")
    for kind, data in BINARY.items():
        paths[kind] = tmp_path / f"binary_{kind}.dat"
        paths[kind].write_bytes(data)
    return paths


def _fails(main, argv, capsys, name):
    """Run ``main(argv)``: exit code 2, one ``error:`` line naming ``name`` on stderr."""
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and "Traceback" not in err, err
    assert str(name) in err, err
    return err


# ------------------------------------------------------------------------------- ppi
@pytest.fixture(scope="module")
def ppi_model(data_dir, tmp_path_factory):
    from corpora.ppi_xml import read_corpus
    from ppi.representation.features import PairFeaturizer
    from ppi.models.classes import SingleViewModel
    lll = data_dir / "ppi" / "LLL-learning-format.xml.gz"
    featurizer = PairFeaturizer()
    (data,) = featurizer.fit_transform([read_corpus(lll)])
    w = np.random.default_rng(0).normal(size=data.X.shape[1])
    directory = tmp_path_factory.mktemp("ppi") / "M"
    SingleViewModel(featurizer, w, alpha=0.5, threshold=0.1).save(directory)
    return directory, lll


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "elf", "png", "gzip",
                                  "nul"])
@pytest.mark.slow
def test_ppi_predict_input(ppi_model, bad, kind, tmp_path, capsys):
    from ppi.__main__ import main
    model, _ = ppi_model
    _fails(main, ["predict", "--input", bad[kind], "--model", model, "--output-dir",
                  tmp_path / "out"], capsys, bad[kind])


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "elf", "png"])
def test_ppi_train_input(bad, kind, tmp_path, capsys):
    from ppi.__main__ import main
    _fails(main, ["train", "--input", bad[kind], "--model", tmp_path / "M", "--output-dir",
                  tmp_path / "out", "--quiet"], capsys, bad[kind])


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "png"])
def test_ppi_predict_model(ppi_model, bad, kind, tmp_path, capsys):
    from ppi.__main__ import main
    _, lll = ppi_model
    _fails(main, ["predict", "--input", lll, "--model", bad[kind], "--output-dir",
                  tmp_path / "out"], capsys, bad[kind])


def test_ppi_output_paths_of_the_wrong_kind(ppi_model, bad, tmp_path, capsys):
    """A file as --output-dir (predict, train) or as --model (train): refused before the
    work instead of a FileExistsError after it."""
    from ppi.__main__ import main
    model, lll = ppi_model
    _fails(main, ["predict", "--input", lll, "--model", model, "--output-dir", bad["empty"]],
           capsys, "--output-dir")
    _fails(main, ["train", "--input", lll, "--model", bad["empty"], "--output-dir",
                  tmp_path / "out", "--quiet"], capsys, "--model")
    _fails(main, ["train", "--input", lll, "--model", tmp_path / "M2", "--output-dir",
                  bad["empty"], "--quiet"], capsys, "--output-dir")


# ------------------------------------------------------------------------------ homology
@pytest.fixture
def fasta(tmp_path):
    pos, neg = tmp_path / "pos.fa", tmp_path / "neg.fa"
    pos.write_text(POSITIVES)
    neg.write_text(NEGATIVES)
    return pos, neg


def _homology_train(pos, neg, model):
    return ["train", "--positives", pos, "--negatives", neg, "--model", model, "--kernel",
            "spectrum", "--k", "2", "--alphas", "1,4"]


@pytest.mark.parametrize("option", ["--positives", "--negatives"])
@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "elf", "png", "gzip",
                                  "nul"])
def test_homology_train_fasta_options(fasta, bad, option, kind, tmp_path, capsys):
    from homology.__main__ import main
    pos, neg = fasta
    if option == "--positives":
        pos = bad[kind]
    else:
        neg = bad[kind]
    _fails(main, _homology_train(pos, neg, tmp_path / "h.npz"), capsys, bad[kind])


@pytest.fixture
def homology_model(fasta, tmp_path, capsys):
    from homology.__main__ import main
    model = tmp_path / "h.npz"
    assert main([str(a) for a in _homology_train(*fasta, model)]) == 0
    capsys.readouterr()
    return model


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "elf", "png", "gzip",
                                  "nul", "truncated"])
def test_homology_predict_model(homology_model, fasta, bad, kind, tmp_path, capsys):
    from homology.__main__ import main
    if kind == "truncated":
        data = homology_model.read_bytes()
        bad[kind] = tmp_path / "truncated.npz"
        bad[kind].write_bytes(data[: len(data) // 2])
    _fails(main, ["predict", "--model", bad[kind], "--input", fasta[0], "--output",
                  tmp_path / "o.tsv"], capsys, bad[kind])


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "elf", "png", "gzip"])
def test_homology_predict_input(homology_model, bad, kind, tmp_path, capsys):
    from homology.__main__ import main
    _fails(main, ["predict", "--model", homology_model, "--input", bad[kind], "--output",
                  tmp_path / "o.tsv"], capsys, bad[kind])


def test_homology_outputs_that_are_directories(homology_model, fasta, bad, capsys):
    from homology.__main__ import main
    _fails(main, _homology_train(*fasta, bad["directory"]), capsys, "--model")
    _fails(main, ["predict", "--model", homology_model, "--input", fasta[0], "--output",
                  bad["directory"]], capsys, "--output")


# ------------------------------------------------------------------------------ LETOR
def _letor_dir(tmp_path):
    """Five tiny LETOR parts (45 features, 3 queries of 6 documents each)."""
    from corpora.svmlight import dump_svmlight
    rng = np.random.default_rng(5)
    root = tmp_path / "data"
    folder = root / "letor" / "OHSUMED"
    folder.mkdir(parents=True)
    for k in range(1, 6):
        X = rng.random((18, 45))
        y = rng.integers(0, 3, 18).astype(float)
        dump_svmlight(folder / f"Fold{k}.test.txt.gz", X, y, np.repeat([1, 2, 3], 6) + 10 * k)
    return root, folder / "Fold3.test.txt.gz"


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "empty_gzip", "no_qid",
                                  "comments_only", "elf", "png", "gzip"])
def test_letor_part(kind, tmp_path, capsys):
    from learners.__main__ import main
    root, part = _letor_dir(tmp_path)
    part.unlink()
    if kind == "directory":
        part.mkdir()
    elif kind == "empty":
        part.write_bytes(b"")
    elif kind == "empty_gzip":
        part.write_bytes(gzip.compress(b"", mtime=0))
    elif kind == "no_qid":
        part.write_bytes(gzip.compress(b"1 1:0.5 2:0.25\n0 1:0.1\n", mtime=0))
    elif kind == "comments_only":
        part.write_bytes(b"# nothing here\n\n")
    elif kind != "missing":
        part.write_bytes(BINARY[kind])
    _fails(main, ["letor", "--data-dir", root, "--learner", "rankrls", "--folds", "1",
                  "--output-dir", tmp_path / "out", "--quiet"], capsys, part)


def test_letor_tiny_parts_run(tmp_path, capsys):
    """The generated parts themselves are valid: the failures above are the bad part's."""
    from learners.__main__ import main
    root, _ = _letor_dir(tmp_path)
    assert main(["letor", "--data-dir", str(root), "--learner", "rankrls", "--folds", "1",
                 "--alphas", "1", "--output-dir", str(tmp_path / "out"), "--quiet"]) == 0


# ------------------------------------------------------------------------- parse_ranking
@pytest.mark.parametrize("kind", ["missing", "directory", "elf", "png", "gzip"])
def test_parse_ranking_train_data(bad, kind, tmp_path, capsys):
    from parse_ranking.__main__ import main
    _fails(main, ["train", "--data", bad[kind], "--output-model", tmp_path / "m"], capsys,
           bad[kind])


@pytest.fixture
def parse_model(tmp_path, capsys):
    from parse_ranking.__main__ import main
    from tests.parse_ranking.test_coreg import synthetic_records
    data = tmp_path / "built.jsonl"
    records = synthetic_records(np.random.default_rng(1), n_articles=3, per_article=3,
                                n_parses=5)
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["train", "--data", str(data), "--output-model", str(tmp_path / "m"),
                 "--alphas", "1"]) == 0
    capsys.readouterr()
    return tmp_path / "m", data


@pytest.mark.parametrize("kind", ["missing", "truncated_npz", "png_npz", "object_npz",
                                  "json_list", "other_npz"])
def test_parse_ranking_rank_model(parse_model, kind, tmp_path, capsys):
    """A bad model is refused before Link Grammar is even needed (the stem names the two
    files; the message names the bad one)."""
    from parse_ranking.__main__ import main
    stem, _ = parse_model
    npz, js = stem.with_suffix(".npz"), stem.with_suffix(".json")
    name = npz
    if kind == "missing":
        npz.unlink()
    elif kind == "truncated_npz":
        npz.write_bytes(npz.read_bytes()[:100])
    elif kind == "png_npz":
        npz.write_bytes(BINARY["png"])
    elif kind == "object_npz":
        np.savez(npz, w0=np.array([object()]))
    elif kind == "other_npz":
        np.savez(npz, w0=np.zeros(3))
    elif kind == "json_list":
        js.write_text("[1, 2]")
        name = js
    _fails(main, ["rank", "--model", stem, "--sentence", "A test ."], capsys, name)


def test_parse_ranking_output_model_that_is_a_directory(parse_model, tmp_path, capsys):
    from parse_ranking.__main__ import main
    stem, data = parse_model
    (tmp_path / "d.npz").mkdir()
    _fails(main, ["train", "--data", data, "--output-model", tmp_path / "d", "--alphas", "1"],
           capsys, tmp_path / "d.npz")


@pytest.mark.parametrize("kind", ["directory", "binary", "not-an-object"])
def test_parse_ranking_benchmark_data_of_the_wrong_kind_is_a_located_error(kind, tmp_path,
                                                                         capsys):
    """`parse_ranking benchmark --data` reads through load_dataset like train and cv: a
    directory, non-UTF-8 bytes and a JSON line that is not an object are typed errors."""
    from parse_ranking.__main__ import main as pr_main
    data = tmp_path / "d.jsonl"
    if kind == "directory":
        data.mkdir()
    elif kind == "binary":
        data.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(128, 256)) + b"\n")
    else:
        data.write_text("5\n", encoding="utf-8")
    code = pr_main(["benchmark", "--data", str(data), "--output-dir", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and str(data) in err
    assert "Traceback" not in err
