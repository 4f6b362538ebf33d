"""Seed 002 Req 2: the preprocessing tasks really run side by side, and one that fails leaves a warning and the
others' context. The doubles are outside services at scale: the search index (Weaviate), slowed down or failing,
and the embedder that ranks style samples (an embeddings API), slowed down."""

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
from temporalio.testing import WorkflowEnvironment

from models.writing.context import IndexDocument, Passage
from stores.embedder import HashingEmbedder
from stores.writing_index import ProjectIndex
from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS, STYLE_SAMPLES
from tests.workflows.writing.harness import writing_harness

SEARCH_SECONDS = 0.6


class SlowSearch:
    """A search service that takes `SEARCH_SECONDS` to answer, as a remote vector store might."""

    def __init__(self, index: ProjectIndex) -> None:
        self._index = index

    def search(
        self,
        project_id: str,
        revision: int,
        documents: Callable[[], list[IndexDocument]],
        query: str,
        *,
        limit: int = 6,
        favour: Sequence[str] = (),
    ) -> list[Passage]:
        time.sleep(SEARCH_SECONDS)  # runs in the activity's thread, as the real search does
        return self._index.search(project_id, revision, documents, query, limit=limit, favour=favour)


class SlowEmbedder(HashingEmbedder):
    """An embeddings service that takes `SEARCH_SECONDS` to answer."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        time.sleep(SEARCH_SECONDS)
        return super().embed(texts)


class DownSearch:
    """A search service that cannot be reached."""

    def search(
        self,
        project_id: str,
        revision: int,
        documents: Callable[[], list[IndexDocument]],
        query: str,
        *,
        limit: int = 6,
        favour: Sequence[str] = (),
    ) -> list[Passage]:
        raise ConnectionError("search service unreachable")


async def test_req_2_1_the_preprocessing_tasks_overlap_in_time(env: WorkflowEnvironment, tmp_path: Path) -> None:
    """Retrieval and the style samples each take `SEARCH_SECONDS`: run one after the other they would take twice
    that; they overlap, and the phase takes little more than the slower one."""
    search = SlowSearch(ProjectIndex.open(tmp_path / "index"))
    async with writing_harness(env, tmp_path, project_index=search, embedder=SlowEmbedder()) as writing:
        project = writing.project(chapters=CHAPTERS, characters=CHARACTERS, style_samples=STYLE_SAMPLES)
        outcome = await writing.run(project, "写一段林舟和苏念在码头的场景")

    timings = {t.task.value: t for t in outcome.state.task_timings}
    rag, style = timings["rag"], timings["style_samples"]
    for slow in (rag, style):
        assert slow.elapsed_ms is not None and slow.elapsed_ms >= SEARCH_SECONDS * 1000
    assert rag.started_at and rag.finished_at and style.started_at and style.finished_at
    assert rag.started_at < style.finished_at and style.started_at < rag.finished_at, "they ran at the same time"
    starts: list[datetime] = [t.started_at for t in timings.values() if t.started_at]
    ends: list[datetime] = [t.finished_at for t in timings.values() if t.finished_at]
    span = (max(ends) - min(starts)).total_seconds()
    assert span < 2 * SEARCH_SECONDS, "the phase took less than the two slow tasks one after the other"
    events = [event.type for event in outcome.events]
    assert events.count("preprocessing_task") == 3
    assert events[-1] == "done"


async def test_req_2_5_a_failed_task_leaves_a_warning_and_the_others_context(
    env: WorkflowEnvironment, tmp_path: Path
) -> None:
    async with writing_harness(env, tmp_path, project_index=DownSearch()) as writing:
        project = writing.project(chapters=CHAPTERS, characters=CHARACTERS, style_samples=STYLE_SAMPLES)
        outcome = await writing.run(project, "写一段林舟和苏念在码头的场景")

    timings = {e.data["task"]: e.data for e in outcome.of_type("preprocessing_task")}
    assert timings["rag"]["status"] == "failed" and "rag" in timings["rag"]["warning"]
    assert timings["character_states"]["status"] == timings["style_samples"]["status"] == "ok"
    context = outcome.state.preprocessing_context
    assert context is not None and context.passages == [] and context.characters and context.style_samples
    assert context.warnings == ["rag 预处理失败，继续使用其余上下文"]
    assert outcome.result.status == "completed" and "林舟" in outcome.result.text
    assert outcome.one("check_result")["passed"] is True


async def test_req_1_5_a_failing_preprocessing_task_emits_an_error_event_with_its_code_and_node(
    env: WorkflowEnvironment, tmp_path: Path
) -> None:
    async with writing_harness(env, tmp_path, project_index=DownSearch()) as writing:
        project = writing.project(chapters=CHAPTERS, characters=CHARACTERS, style_samples=STYLE_SAMPLES)
        outcome = await writing.run(project, "写一段林舟和苏念在码头的场景")

    [error] = outcome.of_type("error")
    assert error.data["code"] == "PREPROCESSING_TASK_FAILED" and error.data["node"] == "preprocessing"
    assert "rag" in error.data["message"] and "search service unreachable" in error.data["message"]
    assert outcome.result.status == "completed" and outcome.types[-1] == "done"
