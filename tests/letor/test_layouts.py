"""`python -m learners letor --data FOLDER`: the LETOR folder layouts (Fold{k}/ and S1..S5),
their folds, feature counts, version, the bad folders a user can give, and the report."""

import gzip
import json
import shutil

import numpy as np
import pytest

from corpora.svmlight import dump_svmlight
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError
from learners.__main__ import main
from letor.layouts import find_layout, open_letor, rotated_folds
from letor.protocol import load_parts, run_letor


def _part(rng, qid0, n_features=45, n_queries=3, size=20, comment="docid = {i}"):
    X = rng.random((n_queries * size, n_features))
    qids = np.repeat(np.arange(qid0, qid0 + n_queries), size)
    y = np.digitize(X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=len(qids)),
                    [1.2, 1.6]).astype(float)
    return X, y, qids, [comment.format(i=i) for i in range(len(qids))]


@pytest.fixture
def parts(rng):
    """Five synthetic parts (3 queries of 20 documents, 45 features, labels 0..2)."""
    return [_part(rng, 1 + 3 * k) for k in range(5)]


def _preset(root, parts):
    for k, (X, y, q, c) in enumerate(parts, start=1):
        dump_svmlight(root / "letor" / "OHSUMED" / f"Fold{k}.test.txt.gz", X, y, q, c)
    return root


def _s_layout(folder, parts, suffix=".txt"):
    # S_i is the preset's part (i mod 5) + 1: then fold k tests on the same part in both
    for i in range(1, 6):
        X, y, q, c = parts[i % 5]
        dump_svmlight(folder / f"S{i}{suffix}", X, y, q, c)
    return folder


def _fold_layout(folder, parts, suffix=".txt.gz"):
    from letor.layouts import standard_folds
    for k, train, val, test in standard_folds(5):
        for name, numbers in (("train", train), ("vali", [val]), ("test", [test])):
            chosen = [parts[p - 1] for p in numbers]
            dump_svmlight(folder / f"Fold{k}" / f"{name}{suffix}",
                          np.vstack([c[0] for c in chosen]), np.concatenate([c[1] for c in chosen]),
                          np.concatenate([c[2] for c in chosen]), sum((c[3] for c in chosen), []))
    return folder


def test_rotation_is_the_letor4_one():
    assert rotated_folds(5) == [(1, [1, 2, 3], 4, 5), (2, [2, 3, 4], 5, 1),
                                (3, [3, 4, 5], 1, 2), (4, [4, 5, 1], 2, 3),
                                (5, [5, 1, 2], 3, 4)]


@pytest.mark.parametrize("learner", ["rankrls", "ranksvm"])
@pytest.mark.slow
def test_every_layout_gives_the_preset_numbers(parts, tmp_path, learner):
    grid = {"alphas": [0.1, 10.0, 1000.0], "Cs": [1e-3, 1e-1]}
    preset = run_letor(_preset(tmp_path / "d", parts), learner=learner, progress=False, **grid)
    for folder in (_s_layout(tmp_path / "S", parts), _fold_layout(tmp_path / "F", parts)):
        res = run_letor(data=folder, learner=learner, progress=False, **grid)
        assert res["n_features"] == 45 and res["version"] == "LETOR 3.0"
        for ours, theirs in zip(res["folds"], preset["folds"]):
            for name in ("MAP", "NDCG@10", "P@10", "validation_MAP"):
                # the same training rows (stacked in another order for S3..S5): equal up
                # to rounding
                assert ours[name] == pytest.approx(theirs[name], abs=1e-9), (folder, name)


def test_cli_data_interface(parts, tmp_path, capsys):
    folder = _s_layout(tmp_path / "MQ-like", parts, suffix=".txt.gz")
    out = tmp_path / "O"
    assert main(["letor", "--data", str(folder), "--learner", "rankrls", "--alphas",
                 "1,100", "--output-dir", str(out), "--quiet"]) == 0
    result = json.loads((out / "results.json").read_text())
    assert len(result["folds"]) == 5 and not result["partial"]
    assert result["mean"]["MAP"] == pytest.approx(np.mean([f["MAP"] for f in result["folds"]]))
    assert 0 < result["mean"]["NDCG@10"] <= 1
    assert [f["test_part"] for f in result["folds"]] == [5, 1, 2, 3, 4]
    md = (out / "results.md").read_text()
    # a data set of its own: no OHSUMED baselines beside it
    assert "LETOR 3.0 RankSVM" not in md and "No published baselines" in md


def test_partial_run_is_labelled_and_not_set_beside_published(parts, tmp_path):
    out = tmp_path / "O"
    assert main(["letor", "--data-dir", str(_preset(tmp_path / "d", parts)), "--learner",
                 "rls", "--folds", "2", "--alphas", "1", "--output-dir", str(out),
                 "--quiet"]) == 0
    result = json.loads((out / "results.json").read_text())
    assert result["partial"] and result["folds_run"] == [2] and result["n_folds"] == 5
    md = (out / "results.md").read_text()
    assert "partial run: fold 2 of 5" in md
    assert "0.4334" not in md and "not comparable" in md
    full = tmp_path / "full"
    assert main(["letor", "--data-dir", str(tmp_path / "d"), "--learner", "rls", "--alphas",
                 "1", "--output-dir", str(full), "--quiet"]) == 0
    assert "0.4334" in (full / "results.md").read_text()


def test_letor4_lines_select_the_letor4_convention(rng, tmp_path):
    comment = "docid = GX{i} inc = 1 prob = 0.5"
    for i in range(1, 6):
        X, y, q, c = _part(rng, 10 * i, n_features=46, size=7, comment=comment)
        dump_svmlight(tmp_path / "D" / f"S{i}.txt", X, y, q, c)
    data = open_letor(tmp_path / "D")
    assert (data.version, data.n_features) == ("LETOR 4.0", 46)
    res = run_letor(data=data, learner="rls", alphas=[1.0], progress=False)
    assert res["convention"] == "letor4"
    # 7 documents per query: P@10 pads (#relevant / 10), so it is never 0 on every query
    # where 3.0's rule would be
    assert res["mean"]["P@10"] > 0
    res3 = run_letor(data=data, learner="rls", alphas=[1.0], progress=False,
                     convention="letor3")
    assert res3["mean"]["P@10"] == 0.0 and res3["mean"]["MAP"] == res["mean"]["MAP"]


def test_name_in_path_tells_the_version(parts, tmp_path):
    data = open_letor(_s_layout(tmp_path / "MSLR-WEB10K", parts))
    assert data.version == "MSLR-WEB" and data.name == "MSLR-WEB10K"


# ------------------------------------------------------------------------ bad folders
def test_no_layout(tmp_path):
    (tmp_path / "stuff").mkdir()
    (tmp_path / "stuff" / "train.txt").write_text("1 qid:1 1:0.5\n")
    with pytest.raises(CorpusFormatError, match="no LETOR layout.*train.txt") as err:
        find_layout(tmp_path / "stuff")
    assert err.value.path == tmp_path / "stuff"
    with pytest.raises(DataNotFoundError):
        find_layout(tmp_path / "nowhere")
    with pytest.raises(CorpusFormatError, match="is a file"):
        find_layout(tmp_path / "stuff" / "train.txt")


def test_fold_folder_without_vali(parts, tmp_path):
    folder = _fold_layout(tmp_path / "F", parts)
    (folder / "Fold3" / "vali.txt.gz").unlink()
    with pytest.raises(CorpusFormatError, match="has no vali.txt") as err:
        find_layout(folder)
    assert err.value.path == folder / "Fold3"


def test_gap_in_parts(parts, tmp_path):
    folder = _s_layout(tmp_path / "S", parts)
    (folder / "S2.txt").unlink()
    with pytest.raises(CorpusFormatError, match=r"without gaps, found \[1, 3, 4, 5\]"):
        find_layout(folder)


def test_different_feature_counts(parts, rng, tmp_path):
    folder = _s_layout(tmp_path / "S", parts)
    X, y, q, c = _part(rng, 100, n_features=46)
    dump_svmlight(folder / "S4.txt", X, y, q, c)
    with pytest.raises(CorpusFormatError, match="46 features.*45") as err:
        open_letor(folder)
    assert err.value.path == folder / "S4.txt" and err.value.line == 1
    # the count can be given (files that write features sparsely)
    assert open_letor(folder, n_features=46).n_features == 46


def test_query_split_across_parts(parts, tmp_path):
    folder = _s_layout(tmp_path / "S", parts)
    X, y, q, c = parts[0]                      # the preset's part 1 is S5
    q = q.copy()
    q[45:] = parts[1][2][0]                    # its last 15 rows take S1's first query
    dump_svmlight(folder / "S5.txt", X, y, q, c)
    with pytest.raises(CorpusFormatError, match=f"query {parts[1][2][0]} is also in") as err:
        run_letor(data=folder, learner="rls", alphas=[1.0], folds=[1], progress=False)
    assert err.value.path == folder / "S5.txt" and err.value.line == 46


def test_file_without_qid(parts, tmp_path, capsys):
    folder = _s_layout(tmp_path / "S", parts)
    (folder / "S3.txt").write_text("# header\n1 1:0.5 2:0.25\n0 1:0.1\n")
    with pytest.raises(CorpusFormatError, match="no qid") as err:
        open_letor(folder)
    assert err.value.path == folder / "S3.txt" and err.value.line == 2
    assert main(["letor", "--data", str(folder), "--output-dir", str(tmp_path / "o"),
                 "--quiet"]) == 2
    assert capsys.readouterr().err.startswith(f"error: {folder / 'S3.txt'}, line 2")


def test_data_and_dataset_together_refused(parts, tmp_path):
    with pytest.raises(InvalidParameterError, match="not both"):
        open_letor(_s_layout(tmp_path / "S", parts), dataset="OHSUMED")


def test_both_plain_and_gzip_refused(parts, tmp_path):
    folder = _s_layout(tmp_path / "S", parts)
    (folder / "S1.txt.gz").write_bytes(gzip.compress((folder / "S1.txt").read_bytes()))
    with pytest.raises(CorpusFormatError, match="keep one"):
        find_layout(folder)


# ------------------------------------------------------------------------ real data
@pytest.fixture(scope="module")
def ohsumed(data_dir):
    if not (data_dir / "letor" / "OHSUMED" / "Fold1.test.txt.gz").exists():
        pytest.skip("LETOR OHSUMED is absent from the data folder")
    return data_dir


@pytest.mark.slow
def test_ohsumed_as_s_parts_equals_the_preset(ohsumed, tmp_path):
    """OHSUMED's parts copied into the S1..S5 layout (S_i = part (i mod 5) + 1)."""
    folder = tmp_path / "OHSUMED-S"
    folder.mkdir()
    for i in range(1, 6):
        shutil.copy(ohsumed / "letor" / "OHSUMED" / f"Fold{i % 5 + 1}.test.txt.gz",
                    folder / f"S{i}.txt.gz")
    alphas = [2.0 ** 10, 2.0 ** 20]
    preset = run_letor(None, learner="rankrls", alphas=alphas, progress=False,
                       parts=load_parts(ohsumed), folds=[1, 3])
    res = run_letor(data=folder, learner="rankrls", alphas=alphas, folds=[1, 3],
                    progress=False)
    assert res["version"] == "LETOR 3.0" and res["n_features"] == 45
    for ours, theirs in zip(res["folds"], preset["folds"]):
        assert ours["alpha"] == theirs["alpha"]
        assert ours["MAP"] == pytest.approx(theirs["MAP"], abs=1e-9)


def test_letor2_file_names(parts, tmp_path):
    folder = _fold_layout(tmp_path / "F", parts, suffix=".txt")
    for k in range(1, 6):
        for old, new in (("train", "trainingset"), ("vali", "validationset"),
                         ("test", "testset")):
            (folder / f"Fold{k}" / f"{old}.txt").rename(folder / f"Fold{k}" / f"{new}.txt")
    layout, folds = find_layout(folder)
    assert layout == "folds" and folds[2].validation == folder / "Fold3" / "validationset.txt"
