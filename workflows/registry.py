"""Every workflow family the worker runs, and the declared graph of each that has one (served as Mermaid)."""

from workflows.graph import Graph
from workflows.image_agent import ImageAgentWorkflow
from workflows.image_agent_graph import GRAPH as IMAGE_AGENT_GRAPH
from workflows.session import SessionWorkflow

WORKFLOWS: tuple[type, ...] = (ImageAgentWorkflow, SessionWorkflow)

GRAPHS: dict[str, Graph] = {IMAGE_AGENT_GRAPH.name: IMAGE_AGENT_GRAPH}
