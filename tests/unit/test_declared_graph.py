"""The declared graph's groups of nodes that run at once (`Graph.together`): declared only over declared edges,
drawn in the Mermaid."""

import pytest

from workflows.app_builder.graph import GRAPH as APP_GRAPH
from workflows.common.graph import START, Edge, Graph

NODES = {START: "start", "a": "A", "b": "B", "end": "end"}


def test_a_group_run_together_is_drawn_as_a_dashed_link() -> None:
    edges = (Edge(START, "a"), Edge("a", "b"), Edge("b", "end"))
    graph = Graph(name="g", nodes=NODES, edges=edges, end="end", together=(("a", "b"),))

    assert "    a -.-|同时运行| b" in graph.to_mermaid().splitlines()


def test_a_group_needs_the_edges_its_transitions_record() -> None:
    edges = (Edge(START, "a"), Edge(START, "b"), Edge("a", "end"), Edge("b", "end"))
    with pytest.raises(ValueError, match="a → b"):
        Graph(name="g", nodes=NODES, edges=edges, end="end", together=(("a", "b"),))


def test_the_app_graph_declares_its_ui_and_ux_experts_together() -> None:
    assert APP_GRAPH.together == (("ui_expert", "ux_expert"),)
