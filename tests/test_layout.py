"""The layout keeps its promises: no import cycles between thinkeval's modules, no file too long
to read, and every command split into parsing (cli/), logic and rendering (ui/)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parent.parent / "src"
PACKAGE = SRC / "thinkeval"
LONGEST = 400  # lines; a module longer than this is two concerns


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def import_graph() -> dict[str, set[str]]:
    """Module -> the thinkeval modules it imports, at the top or inside functions (lazy imports
    are still a dependency); importing a submodule also imports its parent packages."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                if target not in modules or target == name:
                    continue
                graph[name].add(target)
                parts = target.split(".")
                for cut in range(2, len(parts)):
                    parent = ".".join(parts[:cut])
                    if not name.startswith(parent + "."):
                        graph[name].add(parent)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_commands_parse_in_cli_and_nothing_else_parses() -> None:
    """argparse belongs to cli/ (and the simulator's own command); logic modules take values."""
    offenders = []
    for name, path in _modules().items():
        if name.startswith(("thinkeval.cli", "thinkeval.sim.cli")):
            continue
        if "import argparse" in path.read_text(encoding="utf-8"):
            offenders.append(name)
    assert offenders == []


def test_no_source_file_is_too_long_to_read() -> None:
    sources = [*PACKAGE.rglob("*.py"), *(SRC.parent / "bench").glob("*.py"),
               *(SRC.parent / "bench" / "thinkeval_bench").rglob("*.py")]  # fmt: skip
    long = {
        str(path.relative_to(SRC.parent)): lines
        for path in sources
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST
    }
    assert long == {}


# The packages from the bottom up (docs/architecture.md draws it): a package imports only those
# in layers below its own, never one beside or above it. Type-only imports (`TYPE_CHECKING`) do
# not count; lazy imports inside functions do.
LAYERS: list[set[str]] = [
    {"errors", "version", "failures", "inputs"},
    {"records", "urls", "generation"},
    {"settings", "sections"},
    {"execution"},  # the code sandbox, below the answer kind that runs it
    {"scoring"},
    {"tasks"},
    {"client"},
    {"config"},
    {"store"},  # the run store: what every reader of a run shares
    {"diagnosis"},  # why replies did not finish: read from stored replies, below their readers
    {"run", "results", "sim"},  # executing a run; reading its counts; the simulator
    {"report"},
    {"ops"},
    {"ui"},
    {"api"},
    {"cli"},
    {"thinkeval", "__main__"},
]


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def upward_imports(graph: dict[str, set[str]], layers: list[set[str]]) -> list[str]:
    """`module -> target` for every import of a package not in a layer below the importer's."""
    level = {name: at for at, layer in enumerate(layers) for name in layer}
    found = []
    for module, targets in sorted(graph.items()):
        source = _package(module)
        for target in sorted(targets):
            into = _package(target)
            if into != source and level[into] >= level[source]:
                found.append(f"{module} -> {target}")
    return found


def test_every_package_has_its_layer() -> None:
    named = {_package(module) for module in _modules()}
    assert named == set().union(*LAYERS)


def test_no_package_imports_one_beside_or_above_it() -> None:
    assert upward_imports(import_graph(), LAYERS) == []


def test_the_order_check_finds_an_upward_import() -> None:
    graph = {"thinkeval.store.journal": {"thinkeval.run.protocol"},
             "thinkeval.run.protocol": {"thinkeval.store.journal"},
             "thinkeval.results.summary": {"thinkeval.run.protocol"}}  # fmt: skip
    assert upward_imports(graph, LAYERS) == [
        "thinkeval.results.summary -> thinkeval.run.protocol",
        "thinkeval.store.journal -> thinkeval.run.protocol",
    ]
