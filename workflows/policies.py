"""THE one place for activity options: timeouts, retry policies and budgets per node, one section per family.

Call sites pass a `NodeOptions` to the run machinery (`GraphRun.call(spec, request, IMAGE_PLANNER, summary=...)`),
which spreads it into `workflow.execute_activity`, or `execute_local_activity` for a `local` node; no retry
policy or timeout is written anywhere else.

A node whose work takes milliseconds and calls no remote service runs as a local activity: in the worker that
runs the workflow, inside the workflow task, recorded as one marker event instead of a round trip through the
server and six history events. It keeps the same timeouts, budget and retry schedule; its retries wait on
workflow timers (`LOCAL_RETRY_THRESHOLD`), so they are durable and measured on the workflow clock like any
other node's.

Run-level limits (one image run ≤ 60 s, a session ends after 30 idle minutes) are settings that reach the
workflows through their input. Budgets compose (ARCHITECTURE rule 13): a node with a degrade path gets a
`budget` (schedule-to-close: all its attempts together), so the degrade path still starts, and finishes, inside
the run's deadline; `tests/unit/test_policies.py` adds the worst cases up.
"""

from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from temporalio.common import RetryPolicy

NODE_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=5),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=20),
    maximum_attempts=4,  # the first attempt and 3 retries: 5 s, 10 s, 20 s apart
)
"""Exponential backoff shared by every node: retries after 5 s, 10 s and 20 s, then the node fails."""
LOCAL_RETRY_THRESHOLD = timedelta(milliseconds=1)
"""A local activity's retry always waits on a workflow timer, never on a sleep inside the worker."""


@dataclass(frozen=True)
class NodeOptions:
    """Declared options of one activity node."""

    start_to_close: timedelta
    retry: RetryPolicy = field(default_factory=lambda: NODE_RETRY)
    budget: timedelta | None = None
    """All attempts and the waits between them; no retry starts after it (schedule-to-close)."""
    local: bool = False
    """Run as a local activity (milliseconds of work, no remote service)."""
    heartbeat: timedelta | None = None
    """A long activity reports progress this often at least; a worker that died is noticed after it, not after
    the whole start-to-close timeout."""
    cpu_bound: bool = False
    """The attempt is CPU work on this machine (a local render, pixel statistics): it is scheduled on the family's
    CPU queue (`cpu_task_queue`), whose worker takes only as many attempts at once as it has threads for them. A
    busy worker then leaves the next attempts waiting on the server's queue (schedule-to-start, untimed) instead of
    inside their start-to-close, where they would time out behind each other and be retried, adding renders to a
    saturated worker (a retry storm: 50 content runs at once)."""
    queue_marker: bool = True
    """The move to the CPU queue records the `CPU_QUEUE` patch marker (`workflows.common.run`). A task queue is not
    part of Temporal's replay check (an activity's id and type are), so a move needs no marker; but the nodes moved
    first recorded one, and a history that holds it fails to replay on code that no longer asks for it. A node of a
    workflow that never recorded it moves without one (one event less per run)."""

    def __post_init__(self) -> None:
        if self.local and self.heartbeat is not None:
            raise ValueError("a local activity has no heartbeat timeout")
        if self.local and self.cpu_bound:
            raise ValueError("a local activity runs in the workflow's worker, not on the CPU queue")

    def kwargs(self) -> dict[str, Any]:
        options: dict[str, Any] = {"start_to_close_timeout": self.start_to_close, "retry_policy": self.retry}
        if self.budget is not None:
            options["schedule_to_close_timeout"] = self.budget
        if self.heartbeat is not None:
            options["heartbeat_timeout"] = self.heartbeat
        if self.local:
            # A local activity's schedule-to-close is timed by the worker's own clock, not the workflow's: the
            # budget also caps its attempts, so it holds on the workflow clock too (and under time skipping).
            options["retry_policy"] = replace(self.retry, maximum_attempts=self.attempts_within_budget())
            options["local_retry_threshold"] = LOCAL_RETRY_THRESHOLD
        return options

    def attempts_within_budget(self) -> int:
        """How many attempts start inside the budget when each fails at once (all of them without a budget)."""
        attempts = self.retry.maximum_attempts or 1
        if self.budget is None:
            return attempts
        started, interval, count = timedelta(0), self.retry.initial_interval, 1
        while count < attempts:
            started += interval
            if started >= self.budget:
                break
            count += 1
            interval = min(interval * self.retry.backoff_coefficient, self.retry.maximum_interval or interval)
        return count

    def worst_case(self) -> timedelta:
        """The longest this node can take before it has failed for good: every attempt times out."""
        total = timedelta(0)
        interval = self.retry.initial_interval
        attempts = self.retry.maximum_attempts or 1
        for attempt in range(attempts):
            total += self.start_to_close
            if attempt < attempts - 1:
                total += interval
                interval = min(interval * self.retry.backoff_coefficient, self.retry.maximum_interval or interval)
        return min(total, self.budget) if self.budget is not None else total


CPU_QUEUE_SUFFIX = "-cpu"


def cpu_task_queue(task_queue: str) -> str:
    """The task queue of a family's CPU-bound nodes (`NodeOptions.cpu_bound`), next to the family's own."""
    return f"{task_queue}{CPU_QUEUE_SUFFIX}"


@dataclass(frozen=True)
class ToolLimit:
    """How far a tool loop (`workflows.common.tool_loop`) may go before its model is asked for its answer alone:
    `calls` tool calls in all, or `rounds` rounds of them (a turn's calls and their results)."""

    calls: int | None = None
    rounds: int | None = None


# --- image agent (seeds 000 §8.2, 004) ------------------------------------------------------------------------

IMAGE_VALIDATE_INPUT = NodeOptions(start_to_close=timedelta(seconds=5), local=True)
"""Text and URL checks (the mask was checked at the gateway): local."""
IMAGE_PLANNER = NodeOptions(
    start_to_close=timedelta(seconds=10), heartbeat=timedelta(seconds=3), budget=timedelta(seconds=20)
)
"""The LLM path: 10 s per attempt; after 20 s the Planner degrades to keyword matching (fast failures are
retried after 5 s and 10 s, a hung provider gets a second attempt cut short at 20 s). Its call heartbeats while it
runs, so a worker that died mid-call is noticed after 3 s and the call retried within the budget, not after the
attempt's 10 s, past it."""
IMAGE_PLANNER_KEYWORDS = NodeOptions(start_to_close=timedelta(seconds=10), local=True)
"""Keyword matching, offline or as the LLM's fallback: milliseconds of CPU, no provider: local."""
IMAGE_RAG = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=10), local=True)
"""A cached search of the embedded style store: local. After 10 s of failures the run goes on with the original
prompt."""
IMAGE_EXECUTOR = NodeOptions(start_to_close=timedelta(seconds=5), cpu_bound=True, queue_marker=False)
"""Renders the image on this machine (a few hundred ms of CPU): a regular activity, so the events before it stream
while it runs, on the CPU queue, so that with many turns at once a render waits for a thread on the server's queue,
not inside its 5 s (50 LLM turns at once on its own queue: 4 and 12 attempts timed out and were retried in two
bursts; on the CPU queue none). It costs the eager dispatch an activity on the workflow's own queue gets. No degrade
path: when every retry fails the run ends with EXECUTION_FAILED (or at the deadline)."""
IMAGE_CRITIC = NodeOptions(start_to_close=timedelta(seconds=8), budget=timedelta(seconds=10))
"""The LLM's review of the prompt (`image.critic_review`, asked while the Executor draws; histories from before
ask it inside the Critic's activity). After 10 s of failures it is announced and the checks answer alone (seed 000
§3.4): a fast failure is retried once."""
IMAGE_CRITIC_CHECKS = NodeOptions(start_to_close=timedelta(seconds=8), budget=timedelta(seconds=10), local=True)
"""The pixel and keyword checks, with the LLM's review of the prompt when it came (no LLM configured, or its review
failed: keywords judge the prompt): local."""

IMAGE_SUBMIT = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=20))
"""A hosted model's Executor submits its task: one HTTP call, the Executor's 5 s and 5/10/20 s retries (a
throttled submit waits as long as the provider asks instead), within 20 s so the poll still has time."""
IMAGE_POLL = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=15))
"""One look at a hosted task: a short call; its retries are cut at 15 s, after which the task counts as failed."""
IMAGE_FETCH = NodeOptions(start_to_close=timedelta(seconds=10), budget=timedelta(seconds=20))
"""Copies a finished task's image from the provider's host into the blob store (provider URLs expire)."""
IMAGE_CANCEL = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=10))
"""Cancels a hosted task the run no longer waits for (the deadline, a cancelled run): best effort."""
IMAGE_HOSTED_EXECUTOR = NodeOptions(start_to_close=timedelta(seconds=50), budget=timedelta(seconds=50))
"""A hosted model whose API answers with the finished image (DashScope's qwen-image-max and z-image-turbo):
one call may take most of the run's minute; a fast failure is retried within it, and the deadline still holds."""


@dataclass(frozen=True)
class PollSchedule:
    """How a workflow waits for a task it submitted: a durable timer before each poll, growing from `first` by
    `backoff` up to `longest`; after `total` of waiting the task is given up."""

    first: timedelta
    longest: timedelta
    total: timedelta
    backoff: float = 1.5

    def waits(self) -> list[timedelta]:
        """Every wait before a poll, in order (their sum is at most `total`)."""
        waits: list[timedelta] = []
        wait, waited = self.first, timedelta(0)
        while waited + wait <= self.total:
            waits.append(wait)
            waited += wait
            wait = min(wait * self.backoff, self.longest)
        return waits


IMAGE_TASK_POLL = PollSchedule(first=timedelta(seconds=2), longest=timedelta(seconds=5), total=timedelta(seconds=35))
"""A hosted image task is polled 2, 3, 4.5, 5, 5, ... s apart, for at most 35 s of waiting: with one submit and
one fetch that leaves 10 s of the run's 60 s for the polls' own calls and the nodes around the Executor; a
slower run ends at its deadline, through the error path that cancels the task."""

IMAGE_RUN_DEADLINE = timedelta(seconds=60)
"""Seed 000 §8.2: one run takes at most 60 s (the default of `Settings.run_deadline_seconds`)."""

IMAGE_START_TURN = NodeOptions(start_to_close=timedelta(seconds=5), local=True)
"""The session starts a turn's run: one call to Temporal, in the workflow task of the message's update."""
IMAGE_REPORT_TURN = NodeOptions(start_to_close=timedelta(seconds=5), local=True)
"""A run tells its session how it ended: one signal, in the run's last workflow task."""
IMAGE_LOOK_UP_TURN = NodeOptions(start_to_close=timedelta(seconds=5), local=True)
"""The session asks how a run it has not heard from is doing: a describe and, once it has ended, its result."""
IMAGE_LOOK_UP_SESSION = NodeOptions(start_to_close=timedelta(seconds=5), local=True)
"""A queued run asks whether its session is still there: one describe."""
IMAGE_QUEUED_SESSION_CHECK = timedelta(minutes=2)
"""How often a queued run checks that its session is still there to let it begin (an operator may have terminated
the session; a cancelled session cancels its runs itself)."""
IMAGE_TURN_SILENCE = timedelta(seconds=60)
"""How long past its run's deadline a session waits to hear from a run before it looks the run up (an operator
may have terminated it)."""


# --- writing assistant (seed 002) ------------------------------------------------------------------------------

WRITING_ROUTER = NodeOptions(
    start_to_close=timedelta(seconds=20), heartbeat=timedelta(seconds=10), budget=timedelta(seconds=40)
)
"""The router's LLM path, a Planner given the time a thinking model takes to decide (its reasoning streams first):
20 s per attempt, streamed with a heartbeat per chunk; after 40 s the keyword rules answer (GENERAL_CHAT at
worst)."""
WRITING_ROUTER_RULES = NodeOptions(start_to_close=timedelta(seconds=10), local=True)
"""The keyword rules alone: microseconds of regular expressions, local."""
WRITING_PREPROCESS = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=20))
"""Each preprocessing task, a RAG node: 5 s per attempt; after 20 s the run goes on without its part (Req 2.5).
The budget leaves room for the retry 5 s after an attempt that timed out: with 10 s, an attempt that timed out was
the task's last, and 50 writing runs started at once lost up to 12 runs' preprocessing (their tasks all began
late in a worker busy with the burst); with 20 s, the 60 attempts that timed out were retried and none was lost
(README, Performance). Regular activities, so the Web UI shows each task and they run side by side."""
WRITING_AGENT = NodeOptions(
    start_to_close=timedelta(seconds=90), heartbeat=timedelta(seconds=15), budget=timedelta(seconds=120)
)
"""An agent with an LLM writes up to a chapter while it streams: an Executor whose work takes a minute, not 5 s.
It heartbeats with every batch it streams, so a dead worker is noticed after 15 s; after 120 s of failures the
offline agent answers instead."""
WRITING_AGENT_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=5))
"""The deterministic offline agent (no LLM, or the LLM's fallback), an Executor: 5 s, the full retry schedule."""
WRITING_CHECK = NodeOptions(
    start_to_close=timedelta(seconds=45), heartbeat=timedelta(seconds=15), budget=timedelta(seconds=90)
)
"""The draft's consistency check, a Critic whose model review is a JSON list of issues (a hosted model under load
writes one in 5-20 s): 45 s per attempt, streamed with a heartbeat per chunk; after 90 s of failures the rules
check alone and the run ends with a degraded `check_result`."""
WRITING_POSTPROCESS = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=10))
"""Saving to the project (relationship graph, world notes): 5 s; after 10 s the run reports it and goes on."""

WRITING_RUN_DEADLINE = timedelta(minutes=10)
"""A writing run's active work (`Settings.writing_run_deadline_seconds`); a chain's wait for the writer's choice
comes on top."""
WRITING_INPUT_TIMEOUT = timedelta(hours=24)
"""How long a chain waits for the writer's choice (`Settings.writing_input_timeout_hours`)."""


# --- content creation under a supervisor (seed 001) ---------------------------------------------------------------

SUPERVISOR_TURN = NodeOptions(
    start_to_close=timedelta(seconds=30), heartbeat=timedelta(seconds=15), budget=timedelta(seconds=45)
)
"""One LLM turn of the Supervisor, a Planner given the time a thinking model takes to decide (a decision after a
page of reasoning): 30 s, streamed with a heartbeat per chunk; after 45 s of failures its offline policy decides
instead."""
SUPERVISOR_TURN_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=10), local=True)
"""The offline Supervisor policy: microseconds of rules over the run's progress, local."""
SUPERVISOR_TOOL_ROUNDS = ToolLimit(rounds=4)
"""Tool rounds the Supervisor may take per decision; after that its turn is asked for the decision alone."""
RESEARCH_TOOL_CALLS = ToolLimit(calls=8)
"""Tool calls research may make per visit; after that its turn is asked for its findings alone."""
SUPERVISOR_TOOL = NodeOptions(start_to_close=timedelta(seconds=5), budget=timedelta(seconds=10))
"""One tool call of a loop that reads (the Supervisor's `inspect_artifact`, research's `search_notes` and
`extract_facts`), a RAG node: 5 s; after 10 s of failures the model reads the failure as the tool's result."""
CONTENT_AGENT = NodeOptions(
    start_to_close=timedelta(seconds=90), heartbeat=timedelta(seconds=15), budget=timedelta(seconds=120)
)
"""An agent's LLM call (one JSON answer: a brief, a layout, a post's text, a review; a hosted model under load
writes a post of a thousand characters in 30-60 s): 90 s per attempt, streamed with a heartbeat per chunk (a dead
worker or a silent model is noticed after 15 s); after 120 s of failures its offline agent answers instead."""
CONTENT_AGENT_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=5))
"""An offline agent, an Executor: 5 s, the full retry schedule; when it fails for good the run ends with an error."""
REFERENCE_ANALYSIS = NodeOptions(start_to_close=timedelta(seconds=10), cpu_bound=True)
"""Measures every reference image (decoding and pixel statistics, a few hundred ms each): 10 s, on the CPU queue."""
IMAGE_TOOL = NodeOptions(start_to_close=timedelta(seconds=5), cpu_bound=True)
"""`generate_image` on the local renderer, an Executor: renders one planned image into the blob store (0.4-0.8 s of
CPU), 5 s on the CPU queue (a render does not wait for a thread inside its 5 s); retried 5/10/20 s apart."""

EDIT_REWRITE = NodeOptions(
    start_to_close=timedelta(seconds=60), heartbeat=timedelta(seconds=15), budget=timedelta(seconds=90)
)
"""An edit's section rewrite by the writer's model (one section, a JSON answer): 60 s per attempt, streamed with a
heartbeat per chunk; after 90 s of failures the offline rewrite answers instead (and says what it could do)."""
EDIT_REWRITE_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=5))
"""The offline section rewrite, an Executor: a few rules over one section, 5 s."""
CONTENT_EDIT_DEADLINE = timedelta(minutes=5)
"""An edit run of a finished post (one rewrite, or one image redrawn, hosted models included)."""

CONTENT_RUN_DEADLINE = timedelta(minutes=25)
"""A content run's active work (`Settings.content_run_deadline_seconds`); each clarification's wait comes on top."""
CONTENT_INPUT_TIMEOUT = timedelta(hours=24)
"""How long a clarification waits for the user (`Settings.content_input_timeout_hours`)."""


# --- the app builder (seed 003) -----------------------------------------------------------------------------------

APP_ANALYSIS_AGENT = NodeOptions(
    start_to_close=timedelta(seconds=90), heartbeat=timedelta(seconds=30), budget=timedelta(minutes=5)
)
"""An analysis agent's LLM call: one Session_Document, a long JSON answer (a Planner that writes a document, not a
10 s routing decision): 90 s per attempt, streamed with a heartbeat per chunk (a dead worker or a silent model is
noticed after 30 s), retried 5/10/20 s apart within 5 minutes; then the layer stops."""
APP_ANALYSIS_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=10), local=True)
"""An offline analysis agent: milliseconds of rules, local."""
APP_PLANNER = NodeOptions(
    start_to_close=timedelta(seconds=90), heartbeat=timedelta(seconds=30), budget=timedelta(minutes=5)
)
"""The planning layer's LLM call (the Execution_Plan from four documents), like an analysis agent."""
APP_PLANNER_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=10), local=True)
"""The offline planner (the seed's wave graph as tasks) and the storing of the documents: local."""
APP_TASK_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=30))
"""One execution task without a model (rules that write files into the blob store), an Executor with file work:
30 s, retried 5/10/20 s apart; when it fails for good the task is failed and its dependents are skipped."""
APP_TASK_TURN = NodeOptions(
    start_to_close=timedelta(seconds=90), heartbeat=timedelta(seconds=30), budget=timedelta(minutes=5)
)
"""One LLM turn of a writing agent's tool loop (it may write a whole file as a tool call's arguments), streamed
with a heartbeat per chunk like an analysis agent."""
APP_TASK_TOOL = NodeOptions(start_to_close=timedelta(seconds=10))
"""One workspace tool call (list, read, write a blob): 10 s, retried 5/10/20 s apart."""
APP_APPLY_PATCHES = NodeOptions(start_to_close=timedelta(seconds=30))
"""Applying a wave's patch intents: reads the snapshot, merges three-way, writes the new manifest."""
APP_ROUND_CHANGES = NodeOptions(start_to_close=timedelta(seconds=30))
"""A follow-up round's change counts: two manifests compared by key (no file is read)."""
APP_QUALITY_CHECKS = NodeOptions(start_to_close=timedelta(seconds=60))
"""Parsing every file and resolving its imports (tree-sitter; a few ms per file), a Critic with a large input."""
APP_TOOLCHAIN_CHECKS = NodeOptions(
    start_to_close=timedelta(minutes=10), heartbeat=timedelta(seconds=30), budget=timedelta(minutes=25)
)
"""`npm install`, `tsc --noEmit` and the build (minutes the first time, seconds with the dependency cache); a
worker that dies is noticed after 30 s without a heartbeat."""

APP_TASK_TOOL_CALLS = ToolLimit(calls=12)
"""Tool calls a writing agent may make per task; after that its turn is asked for its summary alone."""
APP_MAX_REPAIR_ROUNDS = 2
"""Repair rounds after a failed quality check (seed 003); then the remaining tasks are marked degraded."""
APP_RUN_DEADLINE = timedelta(hours=1)
"""An app run's whole work (`Settings.app_run_deadline_seconds`)."""


# --- echo, the template family (docs/adding-a-family.md) -------------------------------------------------------

ECHO_REPLY = NodeOptions(start_to_close=timedelta(seconds=30), budget=timedelta(seconds=60))
"""The reply's LLM call: 30 s per attempt, retried 5/10/20 s apart; after 60 s of failures the offline rule answers."""
ECHO_REPLY_OFFLINE = NodeOptions(start_to_close=timedelta(seconds=5), local=True)
"""The offline reply: microseconds of string work, local."""
ECHO_TOOL = NodeOptions(start_to_close=timedelta(seconds=5))
"""The word-count tool, an Executor: 5 s, retried 5/10/20 s apart; when it fails for good the run fails."""
