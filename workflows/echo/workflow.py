"""EchoWorkflow, the template family: one LLM node with a degrade path (its reply streamed as the model writes it),
one tool call, one question to a person.

Small enough to read in one sitting; `docs/adding-a-family.md` walks through it. Every node is a method that does
its work and names the next node; `GraphRun` walks the declared graph (`workflows.echo.graph`), checks each
transition, runs each activity with its options from `workflows.policies`, and ends a failed node, the deadline or
a cancellation through the error node.
"""

from datetime import timedelta

from temporalio import workflow

from workflows import policies
from workflows.common.agent_stream import AgentStream, this_run
from workflows.common.event_log import EventLog
from workflows.common.human_input import HumanInput
from workflows.common.patches import decide_at_start, patched
from workflows.common.run import GraphRun, NodeFailed
from workflows.echo.graph import CONFIRM, COUNT_WORDS, ERROR_HANDLER, FINISH, GRAPH, REPLY

with workflow.unsafe.imports_passed_through():
    from models.echo import nodes
    from models.echo.errors import EchoErrorCode
    from models.echo.events import ECHO_EVENTS, Degraded, EchoReady
    from models.echo.runs import EchoResult, EchoRunInput, EchoState, Reply
    from models.human_input import InputOption
    from models.streaming import CONTENT_SIGNAL, ContentDelta

CHOICES = [InputOption(id="keep", label="保持原样"), InputOption(id="shout", label="全部大写")]
REPLY_STREAMS = "echo-reply-streams-text"
"""`workflow.patched` id: the model's reply streams to the run while it is written (`content` events)."""


@workflow.defn
class EchoWorkflow:
    """One echo run: its state is queryable as `state`, its events stream until `done`."""

    @workflow.init
    def __init__(self, input: EchoRunInput) -> None:
        self._input = input
        self._state = EchoState()
        self._events = EventLog(ECHO_EVENTS)
        self._human = HumanInput(self._events)
        self._run = GraphRun(GRAPH, self._events, self._state, error_node=ERROR_HANDLER)
        self._stream = AgentStream(self._events, self._run)

    @workflow.query(name="state")
    def state(self) -> EchoState:
        return self._state.model_copy(update={"awaiting_input": self._human.awaiting})

    @workflow.signal(name=CONTENT_SIGNAL)
    def content_delta(self, delta: ContentDelta) -> None:
        """A batch of the reply as the model writes it: shown as `content`, once, in order."""
        self._stream.receive(delta)

    @workflow.run
    async def run(self, input: EchoRunInput) -> EchoResult:
        decide_at_start()  # before anything else: workflows/common/patches.py
        steps = {
            REPLY: self._reply,
            COUNT_WORDS: self._count_words,
            CONFIRM: self._confirm,
            FINISH: self._finish,
            ERROR_HANDLER: self._error_handler,
        }
        # The run's own work has a deadline; the person's time to answer comes on top.
        deadline = timedelta(seconds=input.deadline_seconds + input.input_timeout_seconds)
        status = await self._run.execute(steps, first=REPLY, deadline=deadline)
        return EchoResult(status=status, final_text=self._state.final_text)

    async def _reply(self) -> str:
        """The LLM node: the model when one is configured (its reply streamed to the run while it is written), the
        offline rule when it is not or has failed for good."""
        request = nodes.ReplyRequest(text=self._input.text, use_llm=True)
        if self._input.llm_configured and patched(REPLY_STREAMS):
            request = request.model_copy(update={"stream": this_run()})
        with self._stream.taking(REPLY, REPLY):
            reply = await self._run.call_with_degrade(
                nodes.REPLY,
                request,
                policies.ECHO_REPLY,
                summary="reply (LLM)",
                use_llm=self._input.llm_configured,
                offline=nodes.ReplyRequest(text=self._input.text, use_llm=False),
                offline_options=policies.ECHO_REPLY_OFFLINE,
                offline_summary="reply (offline)",
                degraded=self._degraded,
                code=EchoErrorCode.REPLY_FAILED,
            )
        self._state.reply = reply
        self._events.emit("reply_ready", REPLY, reply)
        return COUNT_WORDS

    async def _count_words(self) -> str:
        """The tool call: one activity, so a retry never repeats another node's work."""
        reply = self._require_reply()
        count = await self._run.call_or_fail(
            nodes.COUNT_WORDS,
            nodes.CountRequest(text=reply.text),
            policies.ECHO_TOOL,
            summary="count_words(reply)",
            code=EchoErrorCode.COUNT_FAILED,
        )
        self._state.count = count
        self._events.emit("tool_result", COUNT_WORDS, count)
        return CONFIRM

    async def _confirm(self) -> str:
        """The question: keep the reply or shout it. Unanswered by its deadline, the reply is kept."""
        answer = await self._human.ask(
            CONFIRM,
            "保持这个回答，还是全部大写？",
            CHOICES,
            timeout=timedelta(seconds=self._input.input_timeout_seconds),
        )
        self._state.choice = "shout" if answer is not None and answer.answer == "shout" else "keep"
        return FINISH

    async def _finish(self) -> str:
        text = self._require_reply().text
        self._state.final_text = text.upper() if self._state.choice == "shout" else text
        self._events.emit("echo_ready", FINISH, EchoReady(text=self._state.final_text))
        return GRAPH.end

    async def _error_handler(self) -> str:
        self._run.report_error(ERROR_HANDLER)
        return GRAPH.end

    def _degraded(self, err: NodeFailed) -> None:
        """The event that says the model failed for good and the offline rule answers instead (what the model
        streamed is void)."""
        self._stream.discard(REPLY)
        self._events.emit("degraded", REPLY, Degraded(node=REPLY, reason=str(err.cause)[:500]))

    def _require_reply(self) -> Reply:
        if self._state.reply is None:
            raise RuntimeError("no reply before the tool")
        return self._state.reply
