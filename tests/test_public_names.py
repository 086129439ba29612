"""Each package publishes its names in `__all__`, and the names the docs import are published."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import thinkeval

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "thinkeval"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FROM = re.compile(r"^\s*(?:>>> )?from (thinkeval[\w.]*) import ([\w, ]+)", re.M)
_ATTRIBUTE = re.compile(r"\bthinkeval\.([A-Z]\w*|[a-z_]\w*(?=\())")


def _packages() -> list[str]:
    return sorted(
        ".".join(("thinkeval", *path.parent.relative_to(PACKAGE).parts))
        for path in PACKAGE.rglob("__init__.py")
    )


def _documented() -> set[tuple[str, str]]:
    found = set()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for module, names in _FROM.findall(text):
            found |= {(module, name.strip()) for name in names.split(",") if name.strip()}
        found |= {("thinkeval", name) for name in _ATTRIBUTE.findall(text)}
    return found


@pytest.mark.parametrize("package", _packages())
def test_every_published_name_is_there(package: str) -> None:
    module = importlib.import_module(package)
    for name in getattr(module, "__all__", ()):
        assert hasattr(module, name), f"{package}.__all__ names {name}, which it lacks"


def test_the_names_the_docs_import_are_published() -> None:
    documented = _documented()
    assert ("thinkeval", "evaluate") in documented  # the pattern reads the docs
    assert ("thinkeval.report", "build_report") in documented
    for module_name, name in sorted(documented):
        module = importlib.import_module(module_name)
        if hasattr(module, "__path__"):  # a package: the name is in its __all__
            assert name in module.__all__, f"{module_name}.__all__ lacks {name}, which docs import"
        else:  # a module: the name is its own
            assert getattr(module, name).__module__ == module_name, (module_name, name)


def test_the_top_level_names_resolve_lazily() -> None:
    assert {"evaluate", "load_run", "score", "ThinkevalError"} <= set(thinkeval.__all__)
    assert thinkeval.load_run.__name__ == "load_run"
