"""The three LETOR evaluation conventions (Eval-Score-3.0.pl, -4.0.pl, -MSLR.pl) on queries
worked out by hand: every expected value below is computed in the comment beside it from
the scripts' rules, not from our code."""

import math

import pytest

from kernelrank.errors import InvalidParameterError
from learners.measures import LETOR_CONVENTIONS, letor_evaluation

# query 7: three documents, labels 1, 0, 2, ranked in this order by the scores
# query 9: two documents, no relevant one (labels 0, 0)
Y = [1, 0, 2, 0, 0]
S = [3.0, 2.0, 1.0, 5.0, 4.0]
Q = [7, 7, 7, 9, 9]

LOG2_3 = math.log2(3)


def test_letor3_rules():
    out = letor_evaluation(Y, S, Q, convention="letor3")
    # query 7: relevant (>= 1) at ranks 1 and 3 -> AP = (1/1 + 2/3) / 2 = 5/6; query 9: 0,
    # and it counts: MAP = (5/6 + 0) / 2
    assert out["MAP"] == pytest.approx(5 / 12)
    assert out["P@1"] == pytest.approx(0.5)           # (1 + 0) / 2
    assert out["P@3"] == pytest.approx((2 / 3) / 2)   # query 9 has 2 documents: 0
    assert out["P@5"] == 0.0                          # both queries shorter than 5: 0
    # NDCG@3 of query 7: DCG = 1 + 0 + 3 / log2(3); ideal 3 + 1 + 0 = 4; query 9: 0
    assert out["NDCG@3"] == pytest.approx((1 + 3 / LOG2_3) / 4 / 2)
    assert out["NDCG@2"] == pytest.approx((1 / 4) / 2)  # DCG 1 + 0, ideal 3 + 1
    assert out["NDCG@5"] == 0.0                       # shorter than 5: 0 in every script


def test_letor4_pads_precision_of_short_queries_only():
    out3 = letor_evaluation(Y, S, Q, convention="letor3")
    out4 = letor_evaluation(Y, S, Q, convention="letor4")
    # P@5 of query 7 with the two missing positions irrelevant: 2 / 5; query 9: 0
    assert out4["P@5"] == pytest.approx((2 / 5) / 2)
    assert out4["P@3"] == pytest.approx((2 / 3) / 2)  # query 9 (2 docs): 0 relevant / 3
    for name in ["MAP"] + [f"NDCG@{k}" for k in range(1, 11)] + ["P@1", "P@2", "P@3"]:
        assert out4[name] == pytest.approx(out3[name]), name


def test_mslr_counts_labels_from_2_as_relevant():
    out = letor_evaluation(Y, S, Q, convention="mslr")
    assert out["MAP"] == pytest.approx((1 / 3) / 2)   # query 7: only the label 2, at rank 3
    assert out["P@1"] == 0.0
    assert out["P@5"] == pytest.approx((1 / 5) / 2)   # padded, one relevant
    # NDCG keeps the graded gains: same as the other scripts
    assert out["NDCG@3"] == pytest.approx((1 + 3 / LOG2_3) / 4 / 2)


def test_graded_gain_beyond_label_2():
    # labels 4 and 3 ranked in the wrong order: DCG = 7 + 15, ideal 15 + 7 (ranks 1-2 are
    # not discounted), so NDCG@2 = 1; at rank 3 the label-1 document (gain 1, 1/log2 3)
    out = letor_evaluation([3, 4, 1], [3.0, 2.0, 1.0], [1, 1, 1], convention="mslr")
    assert out["NDCG@2"] == pytest.approx(1.0)
    assert out["NDCG@1"] == pytest.approx(7 / 15)
    assert out["MAP"] == pytest.approx(1.0)           # labels 3, 4 relevant, label 1 not


def test_ties_keep_the_file_order_in_every_convention():
    # all scores equal: the file order is the ranking (Perl's stable sort)
    for convention in LETOR_CONVENTIONS:
        out = letor_evaluation([0, 2], [1.0, 1.0], [1, 1], convention=convention)
        assert out["MAP"] == pytest.approx(0.5)       # relevant document at rank 2


def test_unknown_convention_is_refused():
    with pytest.raises(InvalidParameterError, match="convention"):
        letor_evaluation(Y, S, Q, convention="letor5")
