"""Hold-out sets (learners/splits.py): groups never split, deterministic, stratified, shuffled."""

import numpy as np
import pytest

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.splits import folds_to_sets, group_folds, group_sets


def document_folds(docs, y, n_folds, seed=0):
    return group_folds(docs, n_folds, seed, y=y)


def pair_folds(m, n_folds, seed=0):
    return group_folds(np.arange(m), n_folds, seed)


def toy(rng, n_docs=40):
    sizes = rng.integers(1, 15, n_docs)
    docs = np.repeat([f"D.d{i}" for i in range(n_docs)], sizes)
    y = np.where(rng.random(len(docs)) < 0.3, 1.0, -1.0)
    return docs.astype(object), y


def test_documents_never_split(rng):
    docs, y = toy(rng)
    fold = document_folds(docs, y, 10)
    for d in np.unique(docs):
        assert len(np.unique(fold[docs == d])) == 1
    assert set(fold) == set(range(10))


def test_deterministic_and_independent_of_row_order(rng):
    docs, y = toy(rng)
    f1 = document_folds(docs, y, 10, seed=3)
    assert np.array_equal(f1, document_folds(docs, y, 10, seed=3))
    perm = rng.permutation(len(docs))
    f2 = document_folds(docs[perm], y[perm], 10, seed=3)
    assert np.array_equal(f1[perm], f2)
    # another seed changes only tie-breaking, still a valid assignment
    f3 = document_folds(docs, y, 10, seed=4)
    assert set(f3) == set(range(10))


def test_stratified_by_positives(rng):
    docs, y = toy(rng, 80)
    fold = document_folds(docs, y, 10)
    pos = np.array([np.sum(y[fold == k] > 0) for k in range(10)])
    max_doc_pos = max(np.sum(y[docs == d] > 0) for d in np.unique(docs))
    assert pos.max() - pos.min() <= max_doc_pos
    size = np.bincount(fold)                      # pairs are balanced too
    max_doc_size = max(np.sum(docs == d) for d in np.unique(docs))
    assert size.max() - size.min() <= 2 * max_doc_size


def test_sets_and_leave_one_group_out(rng):
    docs, y = toy(rng, 12)
    fold = document_folds(docs, y, 4)
    sets = folds_to_sets(fold)
    assert np.array_equal(np.sort(np.concatenate(sets)), np.arange(len(y)))
    groups = group_sets(docs)
    assert len(groups) == 12
    for g in groups:
        assert len(np.unique(docs[g])) == 1
    assert sum(len(g) for g in groups) == len(y)


def test_leaky_pair_folds_split_documents(rng):
    docs, y = toy(rng)
    fold = pair_folds(len(y), 10, seed=0)
    assert np.array_equal(fold, pair_folds(len(y), 10, seed=0))
    assert np.bincount(fold).max() - np.bincount(fold).min() <= 1
    split = sum(len(np.unique(fold[docs == d])) > 1 for d in np.unique(docs))
    assert split > 0


def test_bad_input(rng):
    docs, y = toy(rng, 5)
    with pytest.raises(InvalidInputError, match="groups"):
        document_folds(docs, y, 10)
    with pytest.raises(InvalidParameterError):
        document_folds(docs, y, 1)
    with pytest.raises(InvalidInputError):
        document_folds(docs[:-1], y, 2)


def test_real_corpus_folds(data_dir):
    from corpora.ppi_xml import read_corpus
    c = read_corpus(data_dir / "ppi" / "HPRD50-learning-format.xml.gz")
    docs = np.array([d.id for d in c.documents for s in d.sentences for p in s.pairs], object)
    y = np.array([1.0 if p.interaction else -1.0 for s in c.sentences() for p in s.pairs])
    fold = document_folds(docs, y, 10)
    for d in np.unique(docs):
        assert len(np.unique(fold[docs == d])) == 1
    assert all(np.sum(y[fold == k] > 0) > 0 for k in range(10))


def test_shuffled_group_folds(rng):
    docs, y = toy(rng, 23)
    fold = group_folds(docs, 5, seed=2)
    for d in np.unique(docs):                      # whole groups
        assert len(np.unique(fold[docs == d])) == 1
    per_fold = [len(np.unique(docs[fold == k])) for k in range(5)]
    assert max(per_fold) - min(per_fold) <= 1       # groups dealt round-robin
    perm = rng.permutation(len(docs))                # independent of row order
    assert np.array_equal(group_folds(docs[perm], 5, seed=2), fold[perm])
    assert not np.array_equal(group_folds(docs, 5, seed=3), fold)
    rows = group_folds(np.arange(17), 4, seed=0)     # plain k-fold of rows
    assert sorted(np.bincount(rows)) == [4, 4, 4, 5]
