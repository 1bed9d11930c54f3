"""The local-alignment kernel (learners/kernels/alignment*.py) against the definitions: every
local alignment enumerated on short random sequences (several β and gap settings), the
Smith–Waterman maximum against the enumeration and against Biopython's PairwiseAligner, the
log-space and scaled programmes against each other (random, real and overflow-scale
sequences), symmetry, the eigenvalue shift and the empirical kernel map against their
formulas, and the Gram blocks: threads = serial, cache hit, damaged cache, resume after a
kill."""

import itertools
import math

import numpy as np
import pytest

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import LocalAlignmentKernel, smith_waterman_scores
from learners.kernels import alignment as alignment_module
from learners.kernels import gram_blocks
from learners.kernels.alignment import encode_sequences, substitution_matrix
from learners.kernels.alignment_dp import MAX_BETA_SCORE, la_log_dp, la_scaled_dp

AMINO = "ACDEFGHIKLMNPQRSTVWY"
ALPHABET, BLOSUM62 = substitution_matrix("BLOSUM62")
#: (β, gap open, gap extend): the paper's, a soft one, cheap gaps
SETTINGS = [(0.5, 11.0, 1.0), (0.1, 2.0, 0.5), (1.0, 1.0, 1.0), (0.05, 0.0, 0.0)]


def _codes(s):
    return encode_sequences([s], ALPHABET).codes.astype(np.int64)


def _gap(n, o, e):
    return 0.0 if n == 0 else o + (n - 1) * e


def enumerate_alignments(x, y, o, e):
    """The score of every local alignment of ``x`` and ``y`` (lists of pairs, explicitly)."""
    n, m = len(x), len(y)
    for k in range(1, min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.combinations(range(m), k):
                s = sum(BLOSUM62[x[i], y[j]] for i, j in zip(rows, cols))
                s -= sum(_gap(rows[t + 1] - rows[t] - 1, o, e)
                         + _gap(cols[t + 1] - cols[t] - 1, o, e) for t in range(k - 1))
                yield s


def _random(rng, lo, hi, letters=AMINO):
    return "".join(rng.choice(list(letters), rng.integers(lo, hi)))


def _scaled(x, y, beta, o, e):
    return la_scaled_dp(x, y, np.exp(beta * BLOSUM62), math.exp(-beta * o),
                        math.exp(-beta * e), np.zeros(3 * (len(y) + 1)))


@pytest.mark.parametrize("beta, o, e", SETTINGS)
def test_dynamic_programmes_equal_the_sum_over_all_local_alignments(rng, beta, o, e):
    for _ in range(12):
        a, b = _random(rng, 1, 6), _random(rng, 1, 6)
        x, y = _codes(a), _codes(b)
        scores = np.fromiter(enumerate_alignments(x, y, o, e), dtype=float)
        expected = math.log(1.0 + np.exp(beta * scores).sum())        # + the empty one
        assert la_log_dp(x, y, beta * BLOSUM62, beta * o, beta * e, False) == \
            pytest.approx(expected, rel=1e-12)
        assert _scaled(x, y, beta, o, e) == pytest.approx(expected, rel=1e-12)
        assert _scaled(y, x, beta, o, e) == pytest.approx(expected, rel=1e-12)
        # the same recursion with max: the best alignment (or 0, the empty one)
        assert la_log_dp(x, y, BLOSUM62, o, e, True) == max(0.0, scores.max())
        kern = LocalAlignmentKernel(beta=beta, gap_open=o, gap_extend=e, psd=None,
                                    normalize=False)
        assert kern.fit([b]).transform([a])[0, 0] == pytest.approx(expected / beta, rel=1e-12)


@pytest.mark.parametrize("o, e", [(11.0, 1.0), (5.0, 2.0), (3.0, 3.0)])
def test_smith_waterman_equals_biopython_local_score(rng, o, e):
    from Bio.Align import PairwiseAligner, substitution_matrices

    aligner = PairwiseAligner(mode="local", open_gap_score=-o, extend_gap_score=-e,
                              substitution_matrix=substitution_matrices.load("BLOSUM62"))
    A = [_random(rng, 1, 70, AMINO + "X") for _ in range(8)]
    B = [_random(rng, 1, 70) for _ in range(7)] + [A[0][::-1] + A[1]]
    expected = np.array([[aligner.score(a, b) for b in B] for a in A])
    got = smith_waterman_scores(A, B, gap_open=o, gap_extend=e)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert (expected > 0).all()


def test_log_space_and_scaled_agree_on_long_random_sequences(rng):
    beta, o, e = 0.5, 11.0, 1.0
    worst = 0.0
    for _ in range(10):
        x, y = _codes(_random(rng, 50, 400)), _codes(_random(rng, 50, 400))
        exact = la_log_dp(x, y, beta * BLOSUM62, beta * o, beta * e, False)
        worst = max(worst, abs(_scaled(x, y, beta, o, e) - exact) / exact)
    assert worst < 1e-11


def test_scaled_programme_beyond_the_float_range(rng):
    """Values far beyond 1e308 (rescaled thousands of bits), with a strong alignment that
    ends and a second one that starts elsewhere: the scaled and log-space programmes agree."""
    beta, o, e = 0.5, 11.0, 1.0
    core = _random(rng, 600, 601)
    island = _random(rng, 60, 61)
    x = core + _random(rng, 150, 151) + island + _random(rng, 200, 201)
    y = _random(rng, 30, 31) + core + island + _random(rng, 20, 21)
    for a, b in [(x, x), (x, y), (y, x), (core, core)]:
        ca, cb = _codes(a), _codes(b)
        exact = la_log_dp(ca, cb, beta * BLOSUM62, beta * o, beta * e, False)
        assert exact > 1000                       # e^1000: far outside float64 (e^709)
        assert _scaled(ca, cb, beta, o, e) == pytest.approx(exact, rel=1e-12)


def test_kernel_symmetry_and_self_values(rng):
    A = [_random(rng, 5, 60) for _ in range(7)]
    B = [_random(rng, 5, 60) for _ in range(5)]
    kern = LocalAlignmentKernel(psd=None, normalize=False)
    np.testing.assert_allclose(kern.gram(A, B), kern.gram(B, A).T, rtol=1e-12)
    G = kern.gram(A)
    np.testing.assert_allclose(G, G.T, rtol=0, atol=0)            # one value per pair
    np.testing.assert_allclose(np.diag(G), kern.self_kernel(A), rtol=1e-12)
    # (1/β) log K_LA ≥ the Smith–Waterman score (one term of the sum) and → it as β grows
    SW = smith_waterman_scores(A, B)
    assert (kern.gram(A, B) >= SW - 1e-9).all()
    sharp = LocalAlignmentKernel(beta=20.0, psd=None, normalize=False).gram(A, B)
    np.testing.assert_allclose(sharp, SW, atol=0.6)


def test_scaled_programme_exact_at_the_largest_beta_allowed(rng):
    # the fastest growth: runs of W (BLOSUM62's largest score, 11), long enough to rescale;
    # the longer sequence in the inner loop, as la_tile runs every pair
    beta = MAX_BETA_SCORE / 11
    W = _codes("W" * 300)
    for x, y in ((W, W), (_codes("W" * 7), W), (rng.integers(0, 20, 200), W)):
        exact = la_log_dp(x, y, beta * BLOSUM62, beta * 11.0, beta * 1.0, False)
        assert _scaled(x, y, beta, 11.0, 1.0) == pytest.approx(exact, rel=1e-12)


def test_eigenvalue_shift(rng):
    X = [_random(rng, 3, 40) for _ in range(14)] + ["W", "WW", "C"]
    plain = LocalAlignmentKernel(psd=None).fit_transform(X)
    smallest = np.linalg.eigvalsh(plain).min()
    kern = LocalAlignmentKernel()
    G = kern.fit_transform(X)
    assert kern.shift_ == pytest.approx(max(0.0, -smallest), rel=1e-8, abs=1e-12)
    np.testing.assert_allclose(G, plain + kern.shift_ * np.eye(len(X)), rtol=1e-12)
    assert np.linalg.eigvalsh(G).min() > -1e-10
    new = [_random(rng, 3, 40) for _ in range(3)]
    np.testing.assert_allclose(kern.transform(new),
                               LocalAlignmentKernel(psd=None).fit(X).transform(new), rtol=1e-12)


def test_empirical_kernel_map(rng):
    X = [_random(rng, 3, 40) for _ in range(10)]
    new = [_random(rng, 3, 40) for _ in range(4)]
    base = LocalAlignmentKernel(psd=None)
    Phi = base.gram(X)                                   # normalized rows against X
    Phi_new = base.gram(new, X)
    cos = lambda A, B: (A @ B.T) / np.outer(np.linalg.norm(A, axis=1),  # noqa: E731
                                           np.linalg.norm(B, axis=1))
    kern = LocalAlignmentKernel(psd="ekm")
    np.testing.assert_allclose(kern.fit_transform(X), cos(Phi, Phi), rtol=1e-10)
    np.testing.assert_allclose(kern.transform(new), cos(Phi_new, Phi), rtol=1e-10)
    assert np.linalg.eigvalsh(kern.fit_transform(X)).min() > -1e-10


def test_bad_input_and_parameters():
    with pytest.raises(InvalidInputError, match="sequence 1 has the character '1'"):
        LocalAlignmentKernel().fit(["ACD", "AC1"])
    with pytest.raises(InvalidInputError, match="single string"):
        LocalAlignmentKernel().fit("ACDE")
    with pytest.raises(InvalidParameterError, match="unknown substitution matrix"):
        LocalAlignmentKernel(substitution="BLOSUM99").fit(["ACD"])
    for bad in ({"beta": 0.0}, {"gap_open": -1.0}, {"psd": "clip"}, {"n_jobs": 0},
                {"memory": 3}):
        with pytest.raises(InvalidParameterError, match=f"'{next(iter(bad))}'"):
            LocalAlignmentKernel(**bad).fit(["ACD"])
    # β beyond what the scaled programme holds (BLOSUM62's largest score is 11) is refused
    LocalAlignmentKernel(beta=MAX_BETA_SCORE / 11).fit(["ACD"])
    with pytest.raises(InvalidParameterError, match="beta=24"):
        LocalAlignmentKernel(beta=24.0).fit(["ACD"])
    # letters the matrix lacks are its unknown residue X; lower case is read as upper case
    kern = LocalAlignmentKernel(psd=None, normalize=False)
    np.testing.assert_allclose(kern.gram(["acuj"]), kern.gram(["ACXX"]), rtol=1e-12)


def test_real_slice_log_and_scaled_agree(data_dir):
    from corpora.scop import load_scop

    bench = load_scop(data_dir)
    lengths = np.array([len(s) for s in bench.sequences])
    picks = list(np.argsort(lengths)[[0, 1000, 2500, 4000, -1]])        # 994 residues last
    seqs = [bench.sequences[i] for i in picks]
    P = encode_sequences(seqs, ALPHABET)
    kern = LocalAlignmentKernel(psd=None, normalize=False)
    G = kern.gram(seqs)
    beta = 0.5
    for a in range(len(seqs)):
        for b in range(a, len(seqs)):
            x = P.codes[P.starts[a]:P.starts[a] + P.lengths[a]].astype(np.int64)
            y = P.codes[P.starts[b]:P.starts[b] + P.lengths[b]].astype(np.int64)
            exact = la_log_dp(x, y, beta * BLOSUM62, beta * 11, beta * 1, False) / beta
            assert G[a, b] == pytest.approx(exact, rel=1e-11)


# ------------------------------------------------------------------ Gram blocks
@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 3 sequences and no serial shortcut, so that small tests use the machinery."""
    monkeypatch.setattr(alignment_module, "DEFAULT_BLOCK", 3)
    monkeypatch.setattr(gram_blocks, "SERIAL_COST", 0.0)


@pytest.mark.slow
def test_threads_and_blocks_equal_one_block(rng, small_blocks):
    X = [_random(rng, 3, 50) for _ in range(11)]
    Y = [_random(rng, 3, 50) for _ in range(7)]
    one = LocalAlignmentKernel(psd=None, n_jobs=1)
    two = LocalAlignmentKernel(psd=None, n_jobs=2)
    P, Q = (encode_sequences(s, ALPHABET) for s in (X, Y))
    np.testing.assert_allclose(two.log_kernel(P), one.log_kernel(P), rtol=1e-14)
    np.testing.assert_allclose(two.log_kernel(P, Q), one.log_kernel(P, Q), rtol=1e-14)
    direct = np.array([[_scaled(_codes(a), _codes(b), 0.5, 11, 1) if len(b) >= len(a) else
                        _scaled(_codes(b), _codes(a), 0.5, 11, 1) for b in Y] for a in X])
    np.testing.assert_allclose(one.log_kernel(P, Q), direct, rtol=1e-14)


@pytest.mark.slow
def test_cache_hit_damage_and_resume(rng, tmp_path, small_blocks, monkeypatch):
    X = [_random(rng, 3, 40) for _ in range(10)]
    P = encode_sequences(X, ALPHABET)
    expected = LocalAlignmentKernel(psd=None).log_kernel(P)
    calls = []
    real = gram_blocks._BlockTask.__call__

    def counted(self, spec):
        calls.append(spec)
        if len(calls) == 3 and kill:
            raise KeyboardInterrupt("killed")
        return real(self, spec)

    monkeypatch.setattr(gram_blocks._BlockTask, "__call__", counted)
    kern = LocalAlignmentKernel(psd=None, n_jobs=1, memory=tmp_path)
    kill = True
    with pytest.raises(KeyboardInterrupt):
        kern.log_kernel(P)
    assert len(list(tmp_path.glob("*.parts/*.npy"))) == 2        # two blocks kept
    kill, calls[:] = False, []
    np.testing.assert_allclose(kern.log_kernel(P), expected, rtol=1e-14)
    assert len(calls) == 10 - 2                               # 4 x 4 blocks, upper: 10
    assert not list(tmp_path.glob("*.parts/*.npy"))
    calls.clear()
    np.testing.assert_allclose(kern.log_kernel(P), expected, rtol=0)      # from the file
    assert not calls
    (matrix,) = tmp_path.glob("local-alignment-*.npy")
    data = bytearray(matrix.read_bytes())
    data[-5] ^= 0xFF
    matrix.write_bytes(bytes(data))
    np.testing.assert_allclose(kern.log_kernel(P), expected, rtol=1e-14)  # recomputed
    assert len(calls) == 10
    # other parameters or other sequences: another file
    LocalAlignmentKernel(psd=None, beta=0.3, memory=tmp_path).log_kernel(P)
    LocalAlignmentKernel(psd=None, memory=tmp_path).log_kernel(encode_sequences(X[:-1],
                                                                                ALPHABET))
    assert len(list(tmp_path.glob("local-alignment-*.npy"))) == 3


def test_an_unwritable_cache_folder_is_one_warning_and_the_matrix_computed(rng, tmp_path,
                                                                           small_blocks,
                                                                           caplog):
    """``memory`` whose folder cannot be made (a regular file in the place of its parent:
    the tests run as root, whom no permission stops): the matrix of a kernel without a
    cache, one warning naming the folder and what moves it."""
    import logging

    X = [_random(rng, 3, 20) for _ in range(5)]
    P = encode_sequences(X, ALPHABET)
    (tmp_path / "data").write_text("")
    folder = tmp_path / "data" / "cache"
    with caplog.at_level(logging.WARNING):
        K = LocalAlignmentKernel(psd=None, memory=folder).log_kernel(P)
        LocalAlignmentKernel(psd=None, beta=0.3, memory=folder).log_kernel(P)
    np.testing.assert_allclose(K, LocalAlignmentKernel(psd=None).log_kernel(P), rtol=0)
    (message,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert message == (f"Gram-matrix cache folder {folder} not writable (Not a directory): "
                       f"going on without it; set {gram_blocks.MOVED_BY} to move it")


@pytest.mark.slow
def test_gram_on_a_dask_cluster_of_processes(rng, tmp_path, small_blocks):
    """``scheduler``: the blocks are computed by separate ``dask worker`` processes (which
    import this checkout) and give the values of this process."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    from kernelrank.errors import ClusterError
    from kernelrank.parallel import process_cluster
    from tests.ppi.test_extract_dask import _env

    X = [_random(rng, 3, 40) for _ in range(8)]
    Y = [_random(rng, 3, 40) for _ in range(5)]
    local = LocalAlignmentKernel(psd=None)
    try:
        with process_cluster(2, tmp_path / "dask", env=_env()) as cluster:
            remote = LocalAlignmentKernel(psd=None, scheduler=cluster.address,
                                          memory=tmp_path / "cache")
            np.testing.assert_allclose(remote.gram(X), local.gram(X), rtol=1e-14)
            np.testing.assert_allclose(remote.gram(Y, X), local.gram(Y, X), rtol=1e-14)
    except ClusterError as exc:
        pytest.skip(f"cannot start a local dask scheduler and workers: {exc}")


@pytest.mark.slow
def test_log_space_programme_exact_after_the_scaled_one_compiled_first():
    """The programmes share their log-add; compiled first in a fresh process, the scaled
    programme's fast-math options must not reach the log-space one (with ``ninf`` among them
    ``log_add(-inf, -inf)`` would be NaN, depending only on which compiled first)."""
    import os
    import subprocess
    import sys
    import tempfile

    code = ("import math, numpy as np\n"
            "from learners.kernels.alignment import encode_sequences, substitution_matrix\n"
            "from learners.kernels.alignment_dp import la_log_dp, la_scaled_dp\n"
            "al, S = substitution_matrix('BLOSUM62')\n"
            "x = encode_sequences(['HEAGAWGHEE'], al).codes.astype(np.int64)\n"
            "y = encode_sequences(['PAWHEAE'], al).codes.astype(np.int64)\n"
            "s = la_scaled_dp(x, y, np.exp(0.5 * S), math.exp(-5.5), math.exp(-0.5),\n"
            "                 np.zeros(3 * (len(y) + 1)))\n"
            "print(s, la_log_dp(x, y, 0.5 * S, 5.5, 0.5, False))\n")
    with tempfile.TemporaryDirectory() as cache:      # nothing compiled before, not even cached
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
    scaled, log_space = map(float, out.stdout.split())
    assert math.isfinite(log_space) and log_space == pytest.approx(scaled, rel=1e-12)
