"""PPI systems as objects (ppi.systems): the registry, the parts each system is composed of,
the saved-model class it owns, and progress passed explicitly."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from ppi.representation.features import PairSet
from ppi.systems import SYSTEMS, Settings, System
from ppi.systems.parts import AllPaths, Gaussian, Linear, MultiView
from ppi.systems.sources import NoTransfer, Transfer


def test_the_registry_names_every_system_of_both_roads():
    """The registry holds the mention-level systems ``--system`` chooses and the
    ``documents`` system ``--relations-from`` chooses, each registered under its own name,
    each declaring the options it reads."""
    from ppi.documents.system import DocumentSystem
    from ppi.systems.options import OPTIONS

    assert set(SYSTEMS) == {"paper-v", "multiview", "multicorpus", "text", "documents"}
    assert SYSTEMS["documents"] is DocumentSystem
    for name, cls in SYSTEMS.items():
        assert cls.name == name
        assert issubclass(cls, System) == (cls.chosen_by == "--system")
        assert set(cls.options) - {"jobs"} <= set(OPTIONS), name


def test_registering_a_second_system_under_a_taken_name_is_refused():
    from ppi.systems.registry import register

    class Another(System):
        name = "text"

    with pytest.raises(ValueError, match="two systems named 'text'"):
        register(Another)
    assert SYSTEMS["text"] is not Another



def test_the_system_help_is_written_from_the_registry(capsys, monkeypatch):
    """``--system``'s help names every registered system with its own summary, so a new
    system is described where it is defined."""
    from ppi.__main__ import main

    monkeypatch.setenv("COLUMNS", "100000")          # no line wrapping inside a summary
    with pytest.raises(SystemExit):
        main(["cv", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, cls in SYSTEMS.items():
        assert cls.summary
        assert " ".join(f"{name} — {cls.summary}".split()) in text

@pytest.mark.parametrize("name, parts", [
    ("paper-v", (AllPaths, Linear, NoTransfer)),
    ("multiview", (MultiView, Linear, NoTransfer)),
    ("multicorpus", (MultiView, Gaussian, Transfer)),
    ("text", (MultiView, Linear, Transfer)),
])
def test_each_system_is_composed_of_its_parts(name, parts):
    system = Settings.for_system(name).strategy
    assert type(system) is SYSTEMS[name]
    assert tuple(map(type, (system.representation, system.top, system.source))) == parts


def test_options_override_the_parts_a_system_chose():
    s = Settings.for_system("paper-v", views=["bow", "pair"], gamma=0.5, transfer=True)
    system = s.strategy
    assert isinstance(system.representation, MultiView) and system.top.gamma == 0.5
    assert isinstance(system.source, Transfer)
    off = Settings.for_system("multicorpus", gamma=0, transfer=False).strategy
    assert isinstance(off.top, Linear) and isinstance(off.source, NoTransfer)
    # one all-paths view on --parse is Paper V's representation
    one = Settings.for_system("multiview", views=["apg:split_parse"]).strategy
    assert isinstance(one.representation, AllPaths)


def test_settings_without_a_name_get_the_base_system():
    system = Settings(progress=False).strategy
    assert type(system) is System and isinstance(system.representation, AllPaths)
    assert system.parses() == ("split_parse",)


def test_cv_says_what_it_does_not_do_of_the_systems_training():
    """``cv_note``: a system whose ``ppi train`` learns from, or chooses on, development
    abstracts says so in ``ppi cv``'s reports; the others train in CV as in ``ppi train``."""
    text = Settings.for_system("text").strategy.cv_note
    assert "half of the development abstracts (biored)" in text and "--system text" in text
    for name in ("paper-v", "multiview", "multicorpus"):
        assert Settings.for_system(name).strategy.cv_note is None

    class ChoosesOnly(System):
        name = "chooser"
        development_set = "biored"

    note = ChoosesOnly(Settings(progress=False)).cv_note
    assert "chooses λ and β on the development abstracts (biored)" in note
    assert "half" not in note


def test_each_system_owns_its_saved_model_class():
    from ppi.models.classes import GaussianModel, MultiViewModel, SingleViewModel

    assert Settings.for_system("paper-v").strategy.model_class is SingleViewModel
    assert Settings.for_system("multiview").strategy.model_class is MultiViewModel
    assert Settings.for_system("text").strategy.model_class is MultiViewModel
    assert Settings.for_system("multicorpus").strategy.model_class is GaussianModel
    with pytest.raises(InvalidParameterError, match="version 5"):
        Settings.for_system("paper-v", gamma=1.0).strategy.model_class


def test_the_top_kernel_is_the_learner_input_and_the_cross_kernel():
    """Linear: X Xᵀ; Gaussian: exp(−γ‖x − z‖²), against a direct computation."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((7, 5)) * (rng.random((7, 5)) < 0.6))
    X = sp.csr_matrix(X / np.maximum(np.sqrt(X.multiply(X).sum(1)), 1e-12))
    a = PairSet("a", X[:4], np.array([1., -1, 1, -1]), None, None, None)
    b = PairSet("b", X[4:], np.array([1., -1, 1]), None, None, None)
    D = X.toarray()
    sq = ((D[:4, None, :] - D[None, 4:, :]) ** 2).sum(-1)
    lin = Settings(learner="rls", progress=False).strategy
    gau = Settings(learner="rls", views=("bow", "pair"), gamma=0.3, progress=False).strategy
    np.testing.assert_allclose(lin.cross_input(a, b), D[:4] @ D[4:].T, rtol=1e-12)
    np.testing.assert_allclose(gau.cross_input(a, b), np.exp(-0.3 * sq), rtol=1e-12)
    np.testing.assert_allclose(lin.learner_input(a), D[:4] @ D[:4].T, rtol=1e-12)
    sq_aa = ((D[:4, None, :] - D[None, :4, :]) ** 2).sum(-1)
    np.testing.assert_allclose(gau.learner_input(a), np.exp(-0.3 * sq_aa), rtol=1e-12,
                               atol=1e-15)
    K = D @ D.T
    sq_all = ((D[:, None, :] - D[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(gau.of_gram(K.copy()), np.exp(-0.3 * sq_all), rtol=1e-12,
                               atol=1e-15)


def test_a_new_system_is_one_class(monkeypatch):
    """A system registered under a new name: its defaults reach the settings, and a part
    it replaces is the one the runs use."""
    import ppi.systems

    class OnlyBow(System):
        name = "only-bow"
        defaults = {"order": "text", "views": ("bow",), "select_by": "auc"}

        @staticmethod
        def make_parts(s):
            return MultiView(s), Gaussian(2.0), NoTransfer()

    monkeypatch.setitem(ppi.systems.SYSTEMS, "only-bow", OnlyBow)
    s = Settings.for_system("only-bow", progress=False)
    assert (s.views, s.order, s.select_by) == (("bow",), "text", "auc")
    assert type(s.strategy) is OnlyBow and s.strategy.top.gamma == 2.0
    assert s.featurizer().views == ("bow",)


def test_progress_is_passed_not_a_module_global():
    import ppi.learning.evaluation
    import ppi.experiments.runs

    assert not hasattr(ppi.learning.evaluation, "PROGRESS") and not hasattr(ppi.experiments.runs, "_progress")
    assert not Settings(progress=False).strategy.progress
