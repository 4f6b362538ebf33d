"""Rule 13, budgets compose: every degrade path of the image agent starts and ends inside the run's deadline."""

from datetime import timedelta

import pytest

from models.settings import Settings
from workflows import policies


def test_the_image_agents_worst_degrade_path_fits_its_deadline() -> None:
    """Every node with a degrade path spends its whole budget and then degrades; the others take one full
    attempt. Even then the run ends (with an image) before the 60 s deadline ends it with WORKFLOW_TIMEOUT."""
    worst = (
        policies.IMAGE_VALIDATE_INPUT.start_to_close
        + policies.IMAGE_PLANNER.worst_case()  # the LLM path, all attempts …
        + policies.IMAGE_PLANNER_KEYWORDS.start_to_close  # … then the keyword fallback
        + policies.IMAGE_RAG.worst_case()  # then the original prompt
        + policies.IMAGE_EXECUTOR.start_to_close
        + policies.IMAGE_CRITIC.worst_case()  # then "passed"
    )
    assert worst <= policies.IMAGE_RUN_DEADLINE, f"worst degrade path {worst} > {policies.IMAGE_RUN_DEADLINE}"
    assert Settings(_env_file=None).run_deadline_seconds == policies.IMAGE_RUN_DEADLINE.total_seconds()


def test_a_budget_caps_the_worst_case_and_the_declared_schedule_stays() -> None:
    assert policies.IMAGE_PLANNER.worst_case() == timedelta(seconds=20)
    unbudgeted = policies.NodeOptions(start_to_close=timedelta(seconds=10))
    assert unbudgeted.worst_case() == timedelta(seconds=4 * 10 + 5 + 10 + 20)
    for options in (policies.IMAGE_PLANNER, policies.IMAGE_RAG, policies.IMAGE_EXECUTOR, policies.IMAGE_CRITIC):
        assert options.retry is policies.NODE_RETRY


def test_a_local_node_keeps_its_budget_in_attempts_on_the_workflow_clock() -> None:
    """A local activity's schedule-to-close is timed by the worker's clock; the attempts that start inside the
    budget when each fails at once are the same on any clock."""
    assert policies.IMAGE_RAG.attempts_within_budget() == 2  # 0 s, 5 s; the next would start at 15 s > 10 s
    assert policies.IMAGE_CRITIC_CHECKS.attempts_within_budget() == 2
    assert policies.IMAGE_EXECUTOR.attempts_within_budget() == 4  # no budget: the declared four
    local = policies.IMAGE_RAG.kwargs()
    assert local["retry_policy"].maximum_attempts == 2 and local["schedule_to_close_timeout"] == timedelta(seconds=10)
    assert local["local_retry_threshold"] < timedelta(seconds=5), "retries wait on workflow timers"
    assert "local_retry_threshold" not in policies.IMAGE_EXECUTOR.kwargs()


def test_a_writing_chains_worst_degrade_path_fits_its_deadline() -> None:
    """A two-agent chain where everything degrades: the router's LLM path, then its rules; the preprocessing tasks
    (side by side) at their budget; each agent's LLM path, then every attempt of the offline agent; the check at
    its budget. The writer's wait for a choice comes on top of the deadline (`input_timeout_seconds`)."""
    agent = policies.WRITING_AGENT.worst_case() + policies.WRITING_AGENT_OFFLINE.worst_case()
    worst = (
        policies.WRITING_ROUTER.worst_case()
        + policies.WRITING_ROUTER_RULES.start_to_close
        + policies.WRITING_PREPROCESS.worst_case()
        + 2 * agent
        + policies.WRITING_CHECK.worst_case()
    )
    assert worst <= policies.WRITING_RUN_DEADLINE, f"worst degrade path {worst} > {policies.WRITING_RUN_DEADLINE}"
    settings = Settings(_env_file=None)
    assert settings.writing_run_deadline_seconds == policies.WRITING_RUN_DEADLINE.total_seconds()
    assert settings.writing_input_timeout_hours * 3600 == policies.WRITING_INPUT_TIMEOUT.total_seconds()


def test_a_content_runs_first_pass_with_a_dead_llm_fits_its_deadline() -> None:
    """Seed 001's eight stages, each decided by a Supervisor whose LLM spends its whole budget before the offline
    policy decides, and each agent's LLM spending its budget before its offline version answers (at its first
    attempt), with the tool rounds of research and images: the run still ends inside its deadline."""
    decision = policies.SUPERVISOR_TURN.worst_case() + policies.SUPERVISOR_TURN_OFFLINE.start_to_close
    agent = policies.CONTENT_AGENT.worst_case() + policies.CONTENT_AGENT_OFFLINE.start_to_close
    tools = 2 * policies.SUPERVISOR_TOOL.worst_case() + policies.IMAGE_TOOL.start_to_close
    worst = 8 * decision + 6 * agent + policies.REFERENCE_ANALYSIS.start_to_close + tools
    assert worst <= policies.CONTENT_RUN_DEADLINE, f"worst first pass {worst} > {policies.CONTENT_RUN_DEADLINE}"
    settings = Settings(_env_file=None)
    assert settings.content_run_deadline_seconds == policies.CONTENT_RUN_DEADLINE.total_seconds()
    assert settings.content_input_timeout_hours * 3600 == policies.CONTENT_INPUT_TIMEOUT.total_seconds()


def test_a_hosted_image_task_is_given_up_inside_the_runs_deadline() -> None:
    """One submit, the whole poll schedule and one fetch fit the run's 60 s; when the planner's and the Critic's
    worst cases come on top, the deadline ends the run through its error path (which cancels the task)."""
    waits = policies.IMAGE_TASK_POLL.waits()
    assert sum(waits, timedelta(0)) <= policies.IMAGE_TASK_POLL.total
    assert waits[0] == policies.IMAGE_TASK_POLL.first and max(waits) == policies.IMAGE_TASK_POLL.longest
    hosted = policies.IMAGE_SUBMIT.start_to_close + policies.IMAGE_TASK_POLL.total + policies.IMAGE_FETCH.start_to_close
    assert hosted <= policies.IMAGE_RUN_DEADLINE - timedelta(seconds=10), hosted


@pytest.mark.parametrize(
    "name", ["APP_ANALYSIS_AGENT", "APP_PLANNER", "APP_TASK_TURN", "WRITING_AGENT", "WRITING_CHECK", "CONTENT_AGENT"]
)
def test_the_long_llm_nodes_stream_under_a_heartbeat_timeout_shorter_than_their_attempt(name: str) -> None:
    """Their answers take a real model 20-90 s: the call streams and heartbeats per chunk (`llm_calls`) when the
    node declares a heartbeat timeout, so a dead worker is noticed before the attempt's timeout."""
    options: policies.NodeOptions = getattr(policies, name)

    assert options.heartbeat is not None and options.heartbeat < options.start_to_close
