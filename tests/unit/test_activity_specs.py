"""Workflows call activities through typed specs, so the type checker catches one node's request sent to another
(an `ActivitySpec` binds a name to its input and result models, for the worker and the workflow alike)."""

from pathlib import Path

from mypy import api as mypy

from tests.stack_process import REPO

CALLS = """
from models.image import nodes
from models.image.nodes import RagRequest
from models.image.state import EnhancedPrompt
from workflows import policies
from workflows.common.run import GraphRun


async def call(run: GraphRun, request: RagRequest) -> EnhancedPrompt:
    enhanced = await run.call(nodes.RAG, request, policies.IMAGE_RAG, summary="the right node")
    await run.call(nodes.EXECUTOR, request, policies.IMAGE_EXECUTOR, summary="the wrong node")  # line 11
    return enhanced
"""


def test_strict_mypy_rejects_a_rag_request_sent_to_the_executor(tmp_path: Path) -> None:
    source = tmp_path / "calls.py"
    source.write_text(CALLS)

    report, _, status = mypy.run(["--no-incremental", "--config-file", str(REPO / "pyproject.toml"), str(source)])

    errors = [line for line in report.splitlines() if ": error:" in line]
    assert status == 1 and len(errors) == 1, report
    assert errors[0].startswith(f"{source}:11: error:"), "only the call that sends RagRequest to the Executor"
