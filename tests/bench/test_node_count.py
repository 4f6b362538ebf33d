"""The benchmark's orchestration cost per node divides both systems' run time by the same count: the nodes of the
declared graph each run visited (the headline prompt's six), read from the project run's recorded transitions as
from the baseline's LangGraph path. On hand-made transitions and times: the computation, not the speed."""

import math

from tests.bench.measure import graph_nodes
from tests.bench.report import orchestration_per_node

HEADLINE_SIX = ["validate_input", "planner", "rag", "executor", "critic", "genui"]


def test_the_headline_run_visits_six_nodes_the_end_is_none_of_them() -> None:
    transitions = [
        ("start", "validate_input"),
        ("validate_input", "planner"),
        ("planner", "rag"),
        ("rag", "executor"),
        ("executor", "critic"),
        ("critic", "genui"),
        ("genui", "stream_end"),
    ]

    assert graph_nodes(transitions) == HEADLINE_SIX


def test_a_node_visited_again_counts_again_as_in_the_baseline_path() -> None:
    transitions = [
        ["start", "validate_input"],
        ["validate_input", "planner"],
        ["planner", "rag"],
        ["rag", "executor"],
        ["executor", "critic"],
        ["critic", "rag"],
        ["rag", "executor"],
        ["executor", "critic"],
        ["critic", "genui"],
        ["genui", "stream_end"],
    ]

    assert graph_nodes(transitions) == [*HEADLINE_SIX[:5], "rag", "executor", "critic", "genui"]


def test_a_failed_run_counts_its_error_handler() -> None:
    transitions = [("start", "validate_input"), ("validate_input", "error_handler"), ("error_handler", "stream_end")]

    assert graph_nodes(transitions) == ["validate_input", "error_handler"]


def test_the_cost_per_node_is_what_the_run_took_beyond_node_work_over_the_nodes() -> None:
    assert orchestration_per_node(208.0, 167.0, HEADLINE_SIX) == (208.0 - 167.0) / 6
    assert orchestration_per_node(157.0, 167.0, HEADLINE_SIX) < 0  # faster than its node work: shown, not hidden
    assert math.isnan(orchestration_per_node(208.0, 167.0, []))
