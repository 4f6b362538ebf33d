"""Layers go one way (ARCHITECTURE rule 14): workflows and the gateway import no activity code, and activities
import no workflow or gateway code. Every module's imports are read from its syntax tree, so an import inside a
function or an `imports_passed_through()` block counts as well."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN: dict[str, frozenset[str]] = {
    "workflows": frozenset({"activities"}),
    "api": frozenset({"activities"}),
    "activities": frozenset({"workflows", "api"}),
}
"""Each layer's top-level package → the packages none of its modules may import."""


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every absolute module name `path` imports, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            found.append((node.lineno, node.module))
    return found


def violations(layer: str) -> list[str]:
    forbidden = FORBIDDEN[layer]
    return [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for line, module in imported_modules(path)
        if module.split(".", 1)[0] in forbidden
    ]


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_go_one_way(layer: str) -> None:
    assert violations(layer) == []


def test_a_backward_import_is_found(tmp_path: Path) -> None:
    module = tmp_path / "node.py"
    module.write_text(
        "from temporalio import workflow\n"
        "with workflow.unsafe.imports_passed_through():\n"
        "    from activities.writing import agents\n"
        "def late() -> None:\n"
        "    import api.server\n"
    )
    assert imported_modules(module) == [(1, "temporalio"), (3, "activities.writing"), (5, "api.server")]
