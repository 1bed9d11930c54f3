"""The test suite, a map of the code: ``tests/<package>/`` holds the tests of ``<package>/``
(``tests/learners/kernels/`` and ``tests/learners/measures/`` those of the sub-packages), a file
``test_<module>.py`` tests ``<package>/<module>.py`` where one module is its subject;
``tests/project/`` holds the tests that span the packages (layers, the installed distribution,
the contract of every learner, trust under misuse, the fuzz suite of the model files).

Every folder is a package (``tests.ppi.test_cli`` and ``tests.kernelrank.test_cli`` do not
collide); shared fixtures live in ``tests/conftest.py`` and its helpers are imported as
``from tests.conftest import …``."""
