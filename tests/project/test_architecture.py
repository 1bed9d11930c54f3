"""The package layers of README "Architecture", checked on every import in the tree (also the
ones inside functions): the ground floor imports nothing of ours, the engine and the data
package only the ground floor, applications never each other; and no two modules import
each other, directly or around a cycle."""

import ast
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


def test_no_import_cycles_between_modules():
    graph = {}
    for name, (_, path) in MODULES.items():
        targets = set()
        for imp in _imports(path, name):
            if imp in MODULES and imp != name and not name.startswith(imp + "."):
                targets.add(imp)             # a package's own __init__ is not a cycle
        graph[name] = targets
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    # a package __init__ that re-exports its submodules is imported by them only as a parent
    real = [c for c in cycles if not any(c[i + 1].startswith(c[i] + ".") or
                                         c[i].startswith(c[i + 1] + ".")
                                         for i in range(len(c) - 1))]
    assert not real, "import cycles:\n" + "\n".join(" -> ".join(c) for c in real)


@pytest.mark.parametrize("pkg", PACKAGES)
def test_every_package_is_listed(pkg):
    assert (ROOT / pkg / "__init__.py").is_file()
