"""The rule of `workflows/common/patches.py`, over all workflow code: every `@workflow.run` decides its changes
first (`decide_at_start()` before anything else), and changes are asked through `patches.patched`, never
`workflow.patched` (which, asked after a local activity, may not replay: tests/workflows/test_patch_decisions.py)."""

import ast
from pathlib import Path

WORKFLOWS = Path(__file__).resolve().parents[2] / "workflows"
RULE_MODULE = WORKFLOWS / "common" / "patches.py"


def modules() -> list[Path]:
    return sorted(path for path in WORKFLOWS.rglob("*.py") if path != RULE_MODULE)


def is_workflow_run(function: ast.AsyncFunctionDef | ast.FunctionDef) -> bool:
    return any(ast.unparse(decorator) == "workflow.run" for decorator in function.decorator_list)


def first_statement(function: ast.AsyncFunctionDef | ast.FunctionDef) -> str:
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):  # the docstring
        body = body[1:]
    return ast.unparse(body[0]) if body else ""


def test_every_workflow_run_decides_its_changes_first() -> None:
    runs, late = 0, []
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and is_workflow_run(node):
                runs += 1
                if first_statement(node) != "decide_at_start()":
                    late.append(f"{path.relative_to(WORKFLOWS)}:{node.lineno}")

    assert runs >= 8  # every family's workflow, the image session, the content edit, the relationship graph
    assert not late, f"runs that do not start with decide_at_start(): {late}"


def test_no_workflow_code_asks_workflow_patched_itself() -> None:
    calls = [
        f"{path.relative_to(WORKFLOWS)}:{node.lineno}"
        for path in modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("workflow.patched", "workflow.deprecate_patch")
    ]

    assert not calls, f"ask workflows.common.patches.patched instead: {calls}"
