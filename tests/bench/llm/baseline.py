"""The LangGraph baseline of the writing chain, for the same work on the same simulator.

The project's writing run is replayed as a LangGraph graph: its model requests (the bodies the simulator logged,
sent again, so the simulator gives the same answers at the same pace), grouped into steps as the project issued
them (calls that overlapped are one step and run side by side, with `asyncio.gather`), the steps before the
person's answer, an `interrupt()` for the person (answered "B" at once, as the project's run was), then the steps
after. Each call goes through a LangChain chat model (`SimulatedChat`) so that `stream_mode="messages"` streams
its tokens to the caller as the simulator writes them. State is checkpointed by `AsyncSqliteSaver` after every
step (`durability="sync"`), in this process: no HTTP hop and no separate worker, a lower bound on what a
LangGraph service would take.
"""

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, TypedDict, cast

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from tests.bench.llm.client import TimedRun
from tests.bench.llm.numbers import sequential_numbers
from tests.simulator.server import LoggedCall, Simulator


class SimulatedChat(BaseChatModel):
    """A chat model that sends one logged request body to the simulator's Chat Completions, streamed."""

    url: str
    body: dict[str, Any]

    @property
    def _llm_type(self) -> str:
        return "simulator"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NotImplementedError("the baseline calls the model asynchronously")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = "".join([str(chunk.message.content) async for chunk in self._astream(messages, stop, run_manager)])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        body = self.body | {"stream": True}
        async with (
            httpx.AsyncClient(timeout=300, trust_env=False) as http,
            http.stream("POST", self.url, json=body) as response,
        ):
            async for line in response.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                choices = json.loads(line.removeprefix("data: ")).get("choices") or [{}]
                delta = choices[0].get("delta") or {}
                piece = delta.get("content") or "".join(
                    (call.get("function") or {}).get("arguments") or "" for call in delta.get("tool_calls") or []
                )
                if not piece:
                    continue
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
                if run_manager is not None:
                    await run_manager.on_llm_new_token(piece, chunk=chunk)
                yield chunk


class ChainState(TypedDict, total=False):
    """The chain's state: each call's answer, and the person's choice."""

    answers: list[str]
    choice: str


def steps(calls: Sequence[LoggedCall]) -> list[list[LoggedCall]]:
    """The calls in the order they started, those that overlapped (transitively) in one step."""
    grouped: list[list[LoggedCall]] = []
    reach = float("-inf")
    for call in sorted(calls, key=lambda c: c.started):
        end = call.ended if call.ended is not None else call.started
        if grouped and call.started < reach:
            grouped[-1].append(call)
            reach = max(reach, end)
        else:
            grouped.append([call])
            reach = end
    return grouped


def build(url: str, before: list[list[LoggedCall]], after: list[list[LoggedCall]]) -> StateGraph[ChainState]:
    """A graph: the steps before the person, the person (`interrupt`), the steps after."""
    graph: StateGraph[ChainState] = StateGraph(ChainState)

    def step(calls: list[LoggedCall]) -> Any:
        async def node(state: ChainState) -> ChainState:
            models = [SimulatedChat(url=url, body=call.body, tags=[f"call-{call.number}"]) for call in calls]
            answers = await asyncio.gather(*(model.ainvoke([HumanMessage("…")]) for model in models))
            return {"answers": [*state.get("answers", []), *(str(a.content) for a in answers)]}

        return node

    def person(state: ChainState) -> ChainState:
        return {"choice": str(interrupt({"question": "which ending?", "options": ["A", "B", "C"]}))}

    names = (
        [f"step_{i}" for i in range(len(before))] + ["person"] + [f"step_{len(before) + i}" for i in range(len(after))]
    )
    for name, calls in zip([n for n in names if n != "person"], [*before, *after], strict=True):
        graph.add_node(name, step(calls))
    graph.add_node("person", person)
    for a, b in zip([START, *names], [*names, END], strict=True):
        graph.add_edge(a, b)
    return graph


async def run_baseline(
    simulator: Simulator,
    calls: Sequence[LoggedCall],
    answered: float | None,
    text_call: int | None,
    runs: int,
    work_dir: Path,
) -> list[dict[str, Any]]:
    """`runs` runs of the graph, each alone on the simulator: the same numbers as the project's sequential runs;
    the first streamed text is the first token of `text_call` (the number, in the project's run, of the call
    whose text the project's client saw first)."""
    cut = answered if answered is not None else float("inf")
    grouped = steps(calls)
    before = [g for g in grouped if g[0].started < cut]
    after = [g for g in grouped if g[0].started >= cut]
    url = f"{simulator.base_url}/v1/chat/completions"
    samples = []
    async with AsyncSqliteSaver.from_conn_string(str(work_dir / "langgraph.sqlite")) as saver:
        graph = build(url, before, after).compile(checkpointer=saver)
        for _ in range(runs):
            config: RunnableConfig = {"configurable": {"thread_id": uuid.uuid4().hex}}
            run = TimedRun("writing-langgraph", posted=time.monotonic())

            async def drain(command: ChainState | Command[str], config: RunnableConfig, run: TimedRun) -> None:
                """Runs the graph to its end or its interrupt, noting the first token of the text call."""
                async for item in graph.astream(command, config, stream_mode="messages", durability="sync"):
                    chunk, meta = cast(tuple[BaseMessage, dict[str, Any]], item)
                    if chunk.content:
                        run.texts.append((time.monotonic(), str(chunk.content)))
                    if run.first_text is None and f"call-{text_call}" in meta.get("tags", []) and chunk.content:
                        run.first_text, run.first_text_sample = time.monotonic(), str(chunk.content)

            await drain({"answers": []}, config, run)
            if after:
                run.answered = time.monotonic()
                await drain(Command(resume="B"), config, run)
            run.ended, run.status = time.monotonic(), "completed"
            samples.append(sequential_numbers(simulator, run))
    return samples
