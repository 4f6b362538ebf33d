"""The shared tool loop (`workflows.common.tool_loop`) on its own: a turn's calls run with their numbers, in order
or side by side, a call that failed for good becomes the error result the model reads, and the loop stops when
the model answers or its `ToolLimit` is spent."""

from dataclasses import dataclass, field

from temporalio.exceptions import ApplicationError

from llm.types import ToolCall, ToolResultPart
from workflows.common.run import NodeFailed
from workflows.common.tool_loop import Conversation
from workflows.policies import ToolLimit


@dataclass
class Result:
    """A tool's result as a family's result model would carry it."""

    call: ToolCall
    content: str
    is_error: bool = False

    def as_part(self) -> ToolResultPart:
        return ToolResultPart(call_id=self.call.id, name=self.call.name, content=self.content, is_error=self.is_error)


@dataclass
class Turn:
    """A model's turn."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)


@dataclass
class Tools:
    """Tools that log what ran; `broken` fails for good."""

    log: list[str] = field(default_factory=list)

    async def run(self, call: ToolCall, number: int) -> Result:
        self.log.append(f"run {call.name} #{number}")
        if call.name == "broken":
            raise NodeFailed(ApplicationError("disk on fire", non_retryable=True))
        return Result(call, f"{call.name} ok")

    def failed(self, call: ToolCall, error: NodeFailed) -> Result:
        return Result(call, f"failed: {error.cause}", is_error=True)

    def returned(self, call: ToolCall, result: Result) -> None:
        self.log.append(f"returned {call.name}")


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(id=f"c-{name}", name=name, arguments={}) for name in names]


async def test_a_turns_calls_run_numbered_and_a_failure_is_an_error_result() -> None:
    conversation = Conversation()
    tools = Tools()
    conversation.record("", calls("read", "broken"))
    first = await conversation.run_tools(tools, side_by_side=False)
    conversation.record("", calls("write"))
    second = await conversation.run_tools(tools, side_by_side=True)

    assert tools.log == [
        "run read #1",
        "returned read",
        "run broken #2",
        "returned broken",
        "run write #3",
        "returned write",
    ]
    assert [r.is_error for r in first + second] == [False, True, False]
    assert first[1].content == "failed: disk on fire"
    results = conversation.history()[1].parts
    assert [part.is_error for part in results if isinstance(part, ToolResultPart)] == [False, True]
    assert (conversation.calls_made, conversation.rounds) == (3, 2)


async def test_the_loop_stops_when_its_limit_is_spent_or_the_model_answers() -> None:
    asked: list[bool] = []

    async def ask(conversation: Conversation) -> Turn:
        asked.append(conversation.tools_allowed)
        return Turn("done") if len(asked) == 4 else Turn("", calls("read", "read"))

    last = await Conversation(ToolLimit(calls=3)).run(ask, Tools())
    assert asked == [True, True, False] and last.tool_calls, "after 4 calls the turn is the answer"

    asked.clear()
    last = await Conversation(ToolLimit(rounds=5)).run(ask, Tools())
    assert asked == [True, True, True, True] and last.text == "done"


def test_a_limit_counts_calls_or_rounds() -> None:
    conversation = Conversation(ToolLimit(rounds=1))
    assert conversation.tools_allowed
    conversation.record("", calls("a", "b"))
    assert conversation.tools_allowed, "a round counts when its results came back"
    conversation.clear()
    assert conversation.history() == [] and Conversation(ToolLimit(calls=0)).tools_allowed is False


async def test_a_call_whose_arguments_were_cut_off_is_not_run_and_the_model_reads_why() -> None:
    conversation = Conversation()
    tools = Tools()
    cut = ToolCall(id="c-write", name="write", arguments_error="the arguments of write were cut at the output limit")
    conversation.record("", [*calls("read"), cut])

    results = await conversation.run_tools(tools, side_by_side=True)

    assert tools.log == ["run read #1", "returned read", "returned write"]
    assert results[1].is_error and "cut at the output limit" in results[1].content
