"""The import contract of DESIGN.md's "Layout": each layer of tracecheck imports only from
the layers below it, readers and guards stand side by side and never import each other,
nothing below engine/ imports reports/, no two modules import each other (directly or
round a circle), and no module imports another module's private (_underscore) name.

The checker reads the package's source with ``ast`` (no import-linter: the whole contract
is the few rules below and the graph takes a fraction of a second to build). Imports
inside functions count as much as those at the top: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from dataclasses import dataclass
from pathlib import Path

import tracecheck

PACKAGE = Path(tracecheck.__file__).resolve().parent

# The layers from the bottom up, by the first name under the package (a module or a
# folder). A layer imports only from the layers before it. Names grouped in one tuple
# stand side by side: neither imports the other. ``tracecheck`` is the package's own
# __init__ (the public names, loaded lazily) and ``__main__`` ``python -m tracecheck``.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dataclass_lite",),  # dataclasses built with less start-up work: imports nothing of tracecheck
    ("model",),  # the normalized model
    ("input",),  # sources, diagnostics, safe output files
    ("text",),  # tokenizers, similarity, arguments, volatile text, "did you mean"
    ("readers", "guards"),  # one module per format | one module per guard
    ("presets",),  # presets as data (names guards' options)
    ("config",),  # defaults -> config file -> command line
    ("engine",),  # replay, costs, counterfactuals, sweep, check, jobs
    ("reports",),  # report records and one writer per format
    ("scaffold",),  # the files `tracecheck init` writes
    ("commands",),  # one plain function per command: the library API
    ("live",),  # the Monitor and the recorder
    ("integrations",),  # LangChain middleware, Dask (built on live/ and commands/)
    ("cli",),  # options -> a request -> commands/
    ("tracecheck", "__main__"),  # the package's public names; python -m tracecheck
)

# The package root holds ``__version__``: any layer may read it (the root is imported
# before any of its modules anyway), which makes it no upward dependency.
METADATA = {("tracecheck", "__version__")}

@dataclass(frozen=True)
class Import:
    """``importer`` imports ``name`` from ``module`` (``name`` is None for ``import module``),
    the module bound to the name ``alias`` when it is imported whole."""

    importer: str
    module: str
    name: str | None
    line: int
    alias: str | None = None


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name (a folder by its own)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def read_imports(root: Path, package: str) -> tuple[set[str], list[Import]]:
    """The package's modules and each import among them: a submodule named in a
    ``from package import submodule`` resolved to that submodule, and ``module._name``
    of a module bound by an import counted as importing ``_name``."""
    modules = module_names(root, package)
    imports = []
    for importer, path in modules.items():
        is_package = path.name == "__init__.py"
        here = importer.split(".") if is_package else importer.split(".")[:-1]
        private_uses = []  # (name the module is bound to, attribute, line)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imports += [Import(importer, a.name, None, node.lineno, a.asname) for a in node.names if a.name.split(".")[0] == package]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    target = ".".join([*base, node.module] if node.module else base)
                else:
                    target = node.module or ""
                if target.split(".")[0] != package:
                    continue
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    if submodule in modules:
                        imports.append(Import(importer, submodule, None, node.lineno, alias.asname or alias.name))
                    else:
                        imports.append(Import(importer, target, alias.name, node.lineno))
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _is_private(node.attr):
                private_uses.append((node.value.id, node.attr, node.lineno))
        bound = {i.alias: i.module for i in imports if i.importer == importer and i.alias is not None}
        imports += [Import(importer, bound[name], attr, line) for name, attr, line in private_uses if name in bound]
    return set(modules), imports


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def layer_of(module: str, layers=LAYERS) -> tuple[int, str] | None:
    """(height, name) of the layer a module belongs to, None when the layout has no place for it."""
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else parts[0]
    for height, names in enumerate(layers):
        if key in names:
            return height, key
    return None


def contract_violations(modules: set[str], imports: list[Import], layers=LAYERS) -> set[str]:
    """One line per break of the contract; empty when the package keeps it."""
    found = set()
    for module in modules:
        if layer_of(module, layers) is None:
            found.add(f"unplaced: {module}")
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for i in imports:
        if i.module not in modules:
            continue  # not a module of the package (a name the checker cannot place)
        if (i.module, i.name) in METADATA:
            continue  # no dependency: the root is loaded before any module, and holds no code
        if i.importer != i.module:
            edges[i.importer].add(i.module)
        if i.name and _is_private(i.name) and i.module != i.importer:
            found.add(f"private: {i.importer} imports {i.name} from {i.module}")
        low, high = layer_of(i.module, layers), layer_of(i.importer, layers)
        if low is None or high is None or low[1] == high[1]:
            continue
        if low[0] >= high[0]:
            found.add(f"layer: {i.importer} imports {i.module}")
    found |= {"cycle: " + " <-> ".join(sorted(c)) for c in circles(edges)}
    return found


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, following = work[-1]
            step = next(following, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(edges.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


@functools.cache
def tracecheck_graph() -> tuple[set[str], list[Import]]:
    return read_imports(PACKAGE, "tracecheck")


def tracecheck_violations() -> set[str]:
    return contract_violations(*tracecheck_graph())


def test_tracecheck_keeps_the_layers_of_its_design():
    found = tracecheck_violations()
    assert not found, "imports that break DESIGN.md's layout:\n" + "\n".join(sorted(found))


def test_the_order_keeps_reports_above_engine_and_readers_beside_guards():
    assert layer_of("tracecheck.reports.x")[0] > layer_of("tracecheck.engine.x")[0]
    assert layer_of("tracecheck.readers.x")[0] == layer_of("tracecheck.guards.x")[0]


def _write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "tracecheck"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return package


def test_the_checker_reports_each_kind_of_leak(tmp_path):
    package = _write_package(
        tmp_path,
        {
            "__init__.py": "__version__ = '0'\n",
            "model.py": "",
            "config.py": "from .text.words import WORDS\n_OPTION = 1\n",
            "text/__init__.py": "",
            # text below config: importing it, even lazily, is upward
            "text/words.py": "WORDS = ()\ndef hint():\n    from ..config import WORDS\n",
            "readers/__init__.py": "from .. import __version__\n",
            "readers/json.py": "",
            "guards/__init__.py": "",
            # readers and guards side by side
            "guards/g1.py": "from ..readers.json import parse\n",
            # a private name, one imported and one reached through its module
            "guards/g2.py": "from .. import config\nfrom ..config import _OPTION\nx = config._OPTION\n",
            "guards/g3.py": "from .. import model as m\nx = m._HIDDEN\n",
            # a circle inside one layer
            "guards/a.py": "from .b import B\nA = 1\n",
            "guards/b.py": "def f():\n    from .a import A\nB = 2\n",
            "engine/__init__.py": "",
            "engine/run.py": "from ..reports.terminal import write\n",
            "reports/__init__.py": "",
            "reports/terminal.py": "from ..engine.run import go\n",
            "loose.py": "",
        },
    )
    modules, imports = read_imports(package, "tracecheck")
    assert contract_violations(modules, imports) == {
        "layer: tracecheck.text.words imports tracecheck.config",
        "layer: tracecheck.guards.g1 imports tracecheck.readers.json",
        "layer: tracecheck.guards.g2 imports tracecheck.config",
        "private: tracecheck.guards.g2 imports _OPTION from tracecheck.config",
        "private: tracecheck.guards.g3 imports _HIDDEN from tracecheck.model",
        "layer: tracecheck.engine.run imports tracecheck.reports.terminal",
        "cycle: tracecheck.guards.a <-> tracecheck.guards.b",
        "cycle: tracecheck.engine.run <-> tracecheck.reports.terminal",
        "cycle: tracecheck.config <-> tracecheck.text.words",
        "unplaced: tracecheck.loose",
    }


def test_a_leak_added_to_the_real_graph_is_caught():
    modules, imports = tracecheck_graph()
    leaks = [
        Import("tracecheck.guards.p001_similar_query_stagnation", "tracecheck.readers.load", "read_traces", 1),
        Import("tracecheck.text.tokenizers", "tracecheck.config", "Settings", 1),
    ]
    assert contract_violations(modules, imports + leaks) - contract_violations(modules, imports) == {
        "layer: tracecheck.guards.p001_similar_query_stagnation imports tracecheck.readers.load",
        "layer: tracecheck.text.tokenizers imports tracecheck.config",
    }
