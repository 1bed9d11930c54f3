"""The package layers of README "Architecture", checked on every import in the tree (also the
ones inside functions): the ground floor imports nothing of ours, the engine and the data
package only the ground floor, applications never each other; and no two modules import
each other, directly or around a cycle."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GROUND, ENGINE, DATA = "kernelrank", "learners", "corpora"
APPLICATIONS = ("ppi", "homology", "parse_ranking", "letor")
PACKAGES = (GROUND, ENGINE, DATA) + APPLICATIONS
ALLOWED = {
    GROUND: set(),
    ENGINE: {GROUND},
    DATA: {GROUND},
    **{app: {GROUND, ENGINE, DATA} for app in APPLICATIONS},
}
#: The one documented exception: the ``learners`` console command keeps its ``letor``
#: subcommand by importing the LETOR application's command line (lazily, in the CLI module
#: only; no library module of the engine imports an application).
EXCEPTIONS = {("learners/__main__.py", "letor")}


def _modules():
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT)
            name = ".".join(rel.with_suffix("").parts)
            if name.endswith(".__init__"):
                name = name[: -len(".__init__")]
            yield rel.as_posix(), name, path


def _imports(path, module):
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)   # `from pkg import submodule`
    return out


MODULES = {name: (rel, path) for rel, name, path in _modules()}


def test_layers():
    bad = []
    for name, (rel, path) in MODULES.items():
        pkg = name.split(".")[0]
        for imp in _imports(path, name):
            top = imp.split(".")[0]
            if top in PACKAGES and top != pkg and top not in ALLOWED[pkg] \
                    and (rel, top) not in EXCEPTIONS:
                bad.append(f"{rel} imports {imp}")
    assert not bad, "imports across the layers:\n" + "\n".join(sorted(set(bad)))


def test_the_exception_is_only_the_cli_dispatch():
    rel, path = MODULES["learners.__main__"]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {n.module.split(".")[0] for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert "letor" not in top_level            # imported lazily, inside a function


def _module_edges(path, module, modules):
    """The modules of ``modules`` that ``path`` (module ``module``) imports by name:
    ``import a.b`` and ``from a import b`` of a submodule are edges to ``a.b``; ``from a
    import name`` of anything else is an edge to the package ``a`` itself (its
    ``__init__``), which runs that package's code — so a circle through an ``__init__`` is a
    circle.  A package's ``__init__`` run only as the parent of a submodule is not an edge
    (every submodule would otherwise import its own package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                if f"{base}.{a.name}" in modules:
                    out.add(f"{base}.{a.name}")
                elif base in modules:
                    out.add(base)
    out.discard(module)
    return out


def import_cycles(modules):
    """Every strongly connected set of two or more modules of ``modules`` (name → path) in
    the graph of :func:`_module_edges`, each as a sorted list (Tarjan's algorithm,
    O(modules + imports))."""
    graph = {name: sorted(_module_edges(path, name, modules)) for name, path in modules.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_cycles_between_modules():
    cycles = import_cycles({name: path for name, (_, path) in MODULES.items()})
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _tree(root, files):
    """Write ``files`` (relative path → source) under ``root``; name → path of each."""
    out = {}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        name = ".".join(Path(rel).with_suffix("").parts)
        out[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


def test_the_cycle_check_sees_a_circle_through_an_init(tmp_path):
    """A package whose ``__init__`` imports a module that imports a second one, which takes
    a name from the package again, is a circle; a submodule merely run under its package's
    ``__init__`` is not."""
    planted = _tree(tmp_path, {
        "app/__init__.py": "from app.sub import base\n",
        "app/sub/__init__.py": "from app.sub.base import Thing\n",
        "app/sub/base.py": "from app.parts import helper\nThing = 1\n",
        "app/parts.py": "def helper():\n    from app.sub import Thing\n    return Thing\n",
    })
    assert import_cycles(planted) == [["app.parts", "app.sub", "app.sub.base"]]
    clean = _tree(tmp_path / "clean", {
        "app/__init__.py": "from app.sub import base\n",
        "app/sub/__init__.py": "from app.sub.base import Thing\n",
        "app/sub/base.py": "from app.parts import helper\nThing = 1\n",
        "app/parts.py": "def helper():\n    return 1\n",
        "app/user.py": "from app.sub import Thing\nfrom app.sub.base import Thing\n",
    })
    assert import_cycles(clean) == []


def test_the_ppi_package_is_its_sub_packages():
    """``ppi/`` holds at most 8 modules beside its sub-packages, and none of its modules over
    600 lines holds two concepts: the command line is the one long module allowed."""
    top = sorted(p.name for p in (ROOT / "ppi").glob("*.py"))
    assert len(top) <= 8, top
    long = [rel for name, (rel, path) in MODULES.items()
            if name.startswith("ppi.") and name != "ppi.__main__"
            and len(path.read_text(encoding="utf-8").splitlines()) > 600]
    assert not long, f"modules over 600 lines: {long}"


@pytest.mark.parametrize("pkg", PACKAGES)
def test_every_package_is_listed(pkg):
    assert (ROOT / pkg / "__init__.py").is_file()


# --------------------------------------------------------------------- private names
def _private(name):
    """``_name`` is private; ``__dunder__`` names (``__version__``, ``__all__``) are not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _parent(module):
    return module.rpartition(".")[0]


def _may_use_module(user, target):
    """Whether module ``user`` may import module ``target`` and use its names.

    The rule: a module's private names (``_name``) are its own.  A private *module*
    (``learners/_solvers.py``, ``learners/measures/_common.py``) holds helpers private to its
    package: the modules of that package (and of its subpackages) import its names — which
    carry no underscore — and nobody outside the package imports it at all."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if _private(part):
            package = ".".join(parts[:i])
            if not (user == package or user.startswith(package + ".")):
                return False
    return True


def _private_uses(path, module):
    """``(line, text)`` of every use in ``path`` of another module's private name: ``from X
    import _name``, ``import X._m`` / ``from X import _m`` of a private module outside its
    package, and ``X._name`` through a name bound to one of our modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else _parent(module)
    bound = {}                     # local name -> one of our modules
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PACKAGES:
                    if not _may_use_module(module, a.name):
                        out.append((node.lineno, f"import {a.name}"))
                    if a.asname:
                        bound[a.asname] = a.name
                    else:
                        bound[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] not in PACKAGES:
                continue
            if not _may_use_module(module, base):
                out.append((node.lineno, f"from {base} import ..."))
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in MODULES:                     # a submodule
                    if not _may_use_module(module, full):
                        out.append((node.lineno, f"from {base} import {a.name}"))
                    bound[a.asname or a.name] = full
                elif _private(a.name) and base != module:
                    out.append((node.lineno, f"from {base} import {a.name}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                target = ".".join([bound[value.id]] + chain[::-1])
                if target in MODULES and target != module:
                    out.append((node.lineno, f"{target}.{node.attr}"))
    return out


def test_no_module_uses_another_modules_private_names():
    """No module imports (or reaches through a module) a private name of another module:
    what one module needs of another is public and documented.  Private modules
    (``_solvers.py``) are their package's own, see :func:`_may_use_module`."""
    bad = [f"{rel}:{line}: {text}" for name, (rel, path) in MODULES.items()
           for line, text in _private_uses(path, name)]
    assert not bad, "private names of other modules:\n" + "\n".join(sorted(bad))


# --------------------------------------------------------------------- benchmarks
def _benchmark_modules(root=ROOT):
    """Name → path of every module of ``benchmarks/`` at any depth (a package by its
    ``__init__``)."""
    out = {}
    for path in sorted((root / "benchmarks").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _benchmark_scripts(modules):
    """The scripts among ``modules`` (:func:`_benchmark_modules`): every module but the
    packages, :mod:`benchmarks.harness` and the private modules (``_biored.py``) that hold
    what the scripts of their package share."""
    return {name: path for name, path in modules.items()
            if path.name != "__init__.py" and name != "benchmarks.harness"
            and not _private(name.rpartition(".")[2])}


def _scripts_imported(modules):
    """``path: imports X`` for every module of ``modules`` that imports a benchmark script
    (not itself) or a private module outside that module's package."""
    scripts = _benchmark_scripts(modules)
    bad = []
    for name, path in modules.items():
        for imp in sorted(_imports(path, name)):
            if imp in scripts and imp != name:
                bad.append(f"{path.name}: imports the script {imp}")
            elif imp in modules and not _may_use_module(name, imp):
                bad.append(f"{path.name}: imports {imp}, private to another package")
    return bad


def test_benchmarks_use_only_public_names():
    """The benchmarks are the first users of the packages: what they need is public too."""
    bad = [f"{path.relative_to(ROOT).as_posix()}:{line}: {text}"
           for name, path in _benchmark_modules().items()
           for line, text in _private_uses(path, name)]
    assert not bad, "private names used by benchmarks:\n" + "\n".join(bad)


def test_no_benchmark_script_imports_another_script():
    """A script is not a library: what two benchmark scripts share lives in
    :mod:`benchmarks.harness`, in a private module of their package
    (``benchmarks/experiments/ppi/_biored.py``) or in the packages' public API."""
    bad = _scripts_imported(_benchmark_modules())
    assert not bad, "benchmark modules importing scripts:\n" + "\n".join(bad)


def test_the_script_import_check_sees_violations(tmp_path):
    """The check itself: a script importing a script, and one importing another package's
    private module, are found; the harness and the own package's private module are not."""
    planted = _tree(tmp_path, {
        "benchmarks/__init__.py": "",
        "benchmarks/harness.py": "",
        "benchmarks/timings/__init__.py": "",
        "benchmarks/timings/_shared.py": "",
        "benchmarks/timings/bench_a.py": "from benchmarks import harness\n"
                                         "from benchmarks.timings._shared import f\n",
        "benchmarks/timings/bench_b.py": "from benchmarks.timings.bench_a import main\n",
        "benchmarks/experiments/__init__.py": "",
        "benchmarks/experiments/exp_c.py": "from benchmarks.timings import _shared\n",
    })
    assert _scripts_imported(planted) == [
        "bench_b.py: imports the script benchmarks.timings.bench_a",
        "exp_c.py: imports benchmarks.timings._shared, private to another package"]


def test_every_benchmark_script_uses_the_harness():
    """Command line, logging, load average and JSON output of every script come from one
    place, :mod:`benchmarks.harness`."""
    bad = [path.relative_to(ROOT).as_posix()
           for name, path in _benchmark_scripts(_benchmark_modules()).items()
           if "benchmarks.harness" not in _imports(path, name)]
    assert not bad, "benchmark scripts without the harness: " + ", ".join(bad)


def test_the_benchmarks_readme_gives_every_scripts_command():
    """``benchmarks/README.md`` names every script by the command that runs it."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    commands = [f"python -m {name}" for name in _benchmark_scripts(_benchmark_modules())]
    commands += [f"bash {path.relative_to(ROOT).as_posix()}"
                 for path in sorted((ROOT / "benchmarks").rglob("*.sh"))]
    missing = [c for c in commands if f"`{c}" not in text]
    assert not missing, "not in benchmarks/README.md: " + ", ".join(missing)


def test_the_private_name_check_sees_violations(tmp_path):
    """The check itself: each form of private use is found; public uses are not."""
    src = tmp_path / "m.py"
    src.write_text("from learners.kernels.all_paths import _x, y\n"
                   "import learners.rls as r\nr._z\nfrom learners import _solvers\n"
                   "from learners._solvers import solve\n__all__ = []\n", encoding="utf-8")
    found = {text for _, text in _private_uses(src, "ppi.m")}
    assert found == {"from learners.kernels.all_paths import _x", "learners.rls._z",
                     "from learners import _solvers", "from learners._solvers import ..."}
    assert {t for _, t in _private_uses(src, "learners.m")} == \
        {"from learners.kernels.all_paths import _x", "learners.rls._z"}


# ------------------------------------------------------------ code that speaks of the code
#: Where the code may not speak of its history: the packages and the benchmarks (history is
#: kept in CHANGELOG.md and docs/results/*.md).
HISTORY_FREE = PACKAGES + ("benchmarks",)
#: A reference to an issue by its number, or a calendar date (YYYY-MM-DD).  Assembled from
#: pieces, so that the source of this test does not match it.
HISTORY = re.compile("[Ii]ssue" + "s? #?[0-9]+" + "|" + "20[0-9]{2}" + "-[0-9]{2}" * 2)


def _history_lines(base, roots):
    """``path:line: text`` of every line of a ``.py`` file under the folders ``roots`` of
    ``base`` that names an issue by number or a date.  O(size of the files)."""
    out = []
    for root in roots:
        for path in sorted((base / root).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            out += [f"{path.relative_to(base).as_posix()}:{n}: {line.strip()}"
                    for n, line in enumerate(lines, 1) if HISTORY.search(line)]
    return out


def test_the_code_speaks_of_what_it_does_not_of_its_history():
    """No issue number and no date in the packages or the benchmarks (code, docstrings,
    comments, help texts): a line says what the code does or guards."""
    bad = _history_lines(ROOT, HISTORY_FREE)
    assert not bad, "issue numbers or dates in the code:\n" + "\n".join(bad)


def test_tests_are_named_for_what_they_check():
    """No test function or class is named after an issue: its name says what it checks."""
    bad = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad += [f"{path.relative_to(ROOT).as_posix()}:{node.lineno}: {node.name}"
                for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.name.lower().startswith("test") and "issue" in node.name.lower()]
    assert not bad, "tests named after an issue:\n" + "\n".join(bad)


def test_the_history_check_sees_numbered_references_and_dates(tmp_path):
    """The check itself: issue numbers and dates are found, other numbers are not (the
    lines are assembled from pieces, as the pattern is)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "# see iss" + "ue 16\n" + "x = 1  # Iss" + "ues #3 and 4\n"
        "# measured 2026-11" + "-24\n"
        "# an issued warning, 16 issues, version 2.0-11, 2026 cells, 12-24\n",
        encoding="utf-8")
    found = [line.split(":")[1] for line in _history_lines(tmp_path, ["pkg"])]
    assert found == ["1", "2", "3"]
