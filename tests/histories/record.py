"""Records the committed workflow histories: one representative run per workflow type, written as
`<WorkflowType>[-<case>].json` (`WorkflowHistory.to_json()`) into an output directory.

`python -m tests.histories.record [OUT_DIR]` (or `make histories`; OUT_DIR defaults to `tests/fixtures/histories`)
runs each case on a time-skipping test server with the workflow tests' own harnesses: offline agents, and the
loopback LLM double for the cases whose commands depend on the model (the tool loops). A run still waiting (a
chain waiting for the writer's choice, a session between turns) is recorded while it waits. Re-record only when a
case is added or its recorded run no longer represents the workflow, never to make a failing replay pass
(docs/durable-changes.md).
"""

import argparse
import asyncio
import json
import logging
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from models.content.edits import ContentEditInput, EditRecord, PostEdit
from models.content.post import post_parts
from models.content.state import ContentState
from models.echo.runs import EchoRunInput
from models.human_input import InputAnswer
from stores.style_library import load_style_library
from stores.style_store import LanceStyleStore
from tests.conftest import TEST_SERVER, register_search_attributes
from tests.histories.replay import HISTORY_DIR
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.app_builder.harness import app_harness
from tests.workflows.app_builder.scripts import ScriptedModel, task
from tests.workflows.app_builder.test_llm_runs import MISSING_IMPORT
from tests.workflows.app_builder.test_quality_gate import checked_early
from tests.workflows.common.conftest import tiny_family
from tests.workflows.common.tiny_models import ProbeInput
from tests.workflows.content.harness import content_harness
from tests.workflows.content.scripts import REFUSED, decide, tools
from tests.workflows.content.test_offline_runs import waiting
from tests.workflows.harness import FamilyHarness, question_of, running_family
from tests.workflows.image.harness import agent_harness
from tests.workflows.image.test_planner_llm import INTENT as IMAGE_INTENT
from tests.workflows.image.test_planner_llm import REVIEW as IMAGE_REVIEW
from tests.workflows.image.test_session import OWNER, result_of, submit
from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS, PLOT_LOOPS, STYLE_SAMPLES
from tests.workflows.writing.harness import writing_harness
from tests.workflows.writing.test_chains import BRAINSTORM
from workflows.common.human_input import INPUT_UPDATE
from workflows.content.edit import ContentEditWorkflow
from workflows.image.session import session_workflow_id

log = logging.getLogger("histories")

Histories = dict[str, WorkflowHistory]
"""Recorded histories by file stem (`<WorkflowType>[-<case>]`)."""


@dataclass(frozen=True)
class Recording:
    """What every case gets: the server, a data dir of its own, the style store and the loopback LLM double."""

    env: WorkflowEnvironment
    data_dir: Path
    style_store: LanceStyleStore
    loopback: Loopback


async def image(rec: Recording) -> Histories:
    """A run on its own, a session whose second turn was queued behind the first, and a run with the LLM (the
    Critic's review of the prompt asked while the Executor draws)."""
    async with agent_harness(rec.env, rec.data_dir, rec.style_store) as harness:
        alone = await harness.run("生成一只赛博朋克风格的猫")
        await submit(harness, "history", "生成一只赛博朋克风格的猫")
        queued = await submit(harness, "history", "再调整一下，大一点")
        await result_of(harness.env, queued.run_id)
        session = harness.env.client.get_workflow_handle(session_workflow_id(OWNER, "history"))
        histories = {
            "ImageAgentWorkflow": await alone.handle.fetch_history(),
            "ImageAgentWorkflow-queued": await harness.env.client.get_workflow_handle(queued.run_id).fetch_history(),
            "ImageSessionWorkflow": await session.fetch_history(),
        }
    llm_dir = rec.data_dir / "llm"
    async with agent_harness(rec.env, llm_dir, rec.style_store, llm_base_url=rec.loopback.base_url) as harness:
        rec.loopback.reset()
        rec.loopback.queue(chat_completion(IMAGE_INTENT), chat_completion(IMAGE_REVIEW))
        with_llm = await harness.run("生成一只赛博朋克风格的猫")
        histories["ImageAgentWorkflow-llm"] = await with_llm.handle.fetch_history()
    return histories


async def writing(rec: Recording) -> Histories:
    """A single-agent run, a character design and the relationship update it started, a chain still waiting for
    the writer's choice (the design and its update from before the update's result reached the request, Req 4.4,
    are committed as `-before-relationships-in-request-stream` and `-before-report-to-request`)."""
    async with writing_harness(rec.env, rec.data_dir) as harness:
        project = harness.project(
            chapters=CHAPTERS, characters=CHARACTERS, plot_loops=PLOT_LOOPS, style_samples=STYLE_SAMPLES
        )
        single = await harness.run(project, "写一段林舟和苏念在码头打斗的场景")
        design = await harness.run(project, "设计一个新角色：码头的走私头目")
        relationships = harness.env.client.get_workflow_handle(design.one("relationship_update")["runId"])
        await relationships.result()
        chain = await harness.start(project, BRAINSTORM)
        await question_of(chain)
        return {
            "WritingWorkflow": await single.handle.fetch_history(),
            "WritingWorkflow-design": await design.handle.fetch_history(),
            "RelationshipGraphWorkflow": await relationships.fetch_history(),
            "WritingWorkflow-chain-waiting": await chain.fetch_history(),
        }


async def content(rec: Recording) -> Histories:
    """An offline run that asked for the platform and got its answer; a Supervisor that used a tool (the LLM path);
    an edit of the first run's post that redrew its second image."""
    async with content_harness(rec.env, rec.data_dir / "offline") as harness:
        handle = await harness.start("打工人的咖啡续命指南", platform=None)
        await waiting(handle)
        await handle.execute_update(INPUT_UPDATE, InputAnswer(answer="douyin"))
        answered = await harness.finish(handle)
        edit = await harness.start_run(ContentEditWorkflow.run, redraw(answered.state, 2), id_prefix="content-edit")
        await edit.result()
    async with content_harness(rec.env, rec.data_dir / "llm", llm_base_url=rec.loopback.base_url) as harness:
        rec.loopback.reset()
        rec.loopback.queue(tools(("c1", "inspect_artifact", {"name": "brief"})), decide("writer_agent"), REFUSED)
        with_tools = await harness.run("打工人的咖啡续命指南", max_iterations=1)
    return {
        "ContentSupervisorWorkflow": await answered.handle.fetch_history(),
        "ContentSupervisorWorkflow-tools": await with_tools.handle.fetch_history(),
        "ContentEditWorkflow": await edit.fetch_history(),
    }


def redraw(base: ContentState, image: int) -> ContentEditInput:
    """An edit that redraws image `image` of the post `base` (a run's finished state)."""
    plan_id = [part for section, part in post_parts(base) if section.kind == "image"][image - 1]
    edit = PostEdit(action="regenerate_image", image=image, plan_id=plan_id, instruction="换成俯拍")
    record = EditRecord(version=2, base_run_id=base.thread_id, origin_run_id=base.thread_id, edit=edit)
    return ContentEditInput(owner="tester", base=base, record=record, topic="打工人的咖啡续命指南")


async def app_builder(rec: Recording) -> Histories:
    """An offline run; a run whose one task is a model's tool loop (the LLM path); a run whose plan has a task
    after its quality task (issue 27; its run from before the check after the last wave is committed as
    `-late-writer-before-app-quality-after-last-wave`)."""
    async with app_harness(rec.env, rec.data_dir / "offline") as harness:
        offline = await harness.run()
    async with app_harness(rec.env, rec.data_dir / "llm", llm_base_url=rec.loopback.base_url) as harness:
        rec.loopback.reset()
        rec.loopback.responder = ScriptedModel(plans=[[task("scaffold", "scaffold-agent")]])
        scripted = await harness.run()
        rec.loopback.reset()
        plan = checked_early(task("pages", "page-agent", ["quality"]))
        rec.loopback.responder = ScriptedModel(plans=[plan], writes={"pages": {"src/Page.tsx": MISSING_IMPORT}})
        late_writer = await harness.run()
    return {
        "AppBuilderWorkflow": await offline.handle.fetch_history(),
        "AppBuilderWorkflow-tools": await scripted.handle.fetch_history(),
        "AppBuilderWorkflow-late-writer": await late_writer.handle.fetch_history(),
    }


@dataclass
class EchoRuns(FamilyHarness):
    """Starts the template family's runs (it has no workflow harness of its own: its tests go through the API)."""

    family: ClassVar[str] = "echo"


async def echo(rec: Recording) -> Histories:
    """An offline run of the template family that asked its question and got its answer."""
    async with running_family(
        rec.env, rec.data_dir, lambda settings, _: EchoRuns(rec.env, settings), style_store=rec.style_store
    ) as harness:
        handle = await harness.start_run("EchoWorkflow", EchoRunInput(text="你好，durable world"), id_prefix="echo")
        await question_of(handle)
        await handle.execute_update(INPUT_UPDATE, InputAnswer(answer="shout"))
        await handle.result()
        return {"EchoWorkflow": await handle.fetch_history()}


async def tiny(rec: Recording) -> Histories:
    """The tests' tiny graph walk with its activity: the history `test_command_order.py` changes the code against."""
    async with tiny_family(rec.env, rec.data_dir) as harness:
        handle = await harness.start("GraphProbeWorkflow", ProbeInput(behaviour="activity_ok"))
        await handle.result()
        return {"GraphProbeWorkflow": await handle.fetch_history()}


CASES: list[Callable[[Recording], Awaitable[Histories]]] = [image, writing, content, app_builder, echo, tiny]


def history_json(history: WorkflowHistory) -> str:
    """`history.to_json()` with one event per line instead of indented fields (a third smaller, and a diff shows
    which events changed), plus the run's workflow id, which `to_json()` leaves out but replay needs (a child's id
    is derived from it). `WorkflowHistory.from_json` ignores the extra field."""
    events = ",\n".join(
        json.dumps(event, ensure_ascii=False, separators=(",", ":")) for event in history.to_json_dict()["events"]
    )
    workflow_id = json.dumps(history.workflow_id, ensure_ascii=False)
    return f'{{"workflowId": {workflow_id}, "events": [\n{events}\n]}}\n'


async def record() -> Histories:
    """Run every case, each in a scratch data dir of its own, on one time-skipping server."""
    histories: Histories = {}
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(TEST_SERVER), data_converter=pydantic_data_converter
    ) as env:
        await register_search_attributes(env.client)
        loopback = Loopback()
        loopback.start()
        try:
            with tempfile.TemporaryDirectory(prefix="histories-") as scratch:
                root = Path(scratch)
                store = LanceStyleStore.open(root / "lancedb", library=load_style_library())
                for case in CASES:
                    histories |= await case(Recording(env, root / case.__name__, store, loopback))
        finally:
            loopback.stop()
    return histories


def write(histories: Histories, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for stem, history in histories.items():
        path = out_dir / f"{stem}.json"
        path.write_text(history_json(history), encoding="utf-8")
        log.info("%s: %d events, %d bytes", path, len(history.events), path.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?", type=Path, default=HISTORY_DIR, help=f"default: {HISTORY_DIR}")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    out_dir = parser.parse_args().out_dir
    write(asyncio.run(record()), out_dir)


if __name__ == "__main__":
    main()
