"""Declared workflow graphs: nodes and labelled edges, rendered as Mermaid (seed 004 §2) and checked at run time.

Each family declares its graph once; the run machinery (`workflows.common.run`) records every transition a run
takes and refuses one that is not a declared edge, and the tests hold every recorded transition against it
(ARCHITECTURE rule 7). A graph whose run does the work of several nodes at once declares them as a group
(`together`): the group's first node starts the work of all of them, and each node still records its own
transition, in the declared order, when it takes its result.
"""

import itertools
from dataclasses import dataclass, field

START = "start"


@dataclass(frozen=True)
class Edge:
    """A declared transition, with the condition it stands for as its label."""

    source: str
    target: str
    label: str = ""


@dataclass(frozen=True)
class Graph:
    """A workflow's declared state machine: every run starts at `START` and ends at `end`."""

    name: str
    nodes: dict[str, str]
    """Node id → display label."""
    edges: tuple[Edge, ...]
    end: str
    """The node a run ends in (its id is also the terminal event's node)."""
    decisions: frozenset[str] = field(default_factory=frozenset)
    """Nodes drawn as decision diamonds."""
    together: tuple[tuple[str, ...], ...] = ()
    """Groups of nodes whose work runs at once, each in the order its transitions are recorded (a dashed link
    `同时运行` in the Mermaid)."""

    def __post_init__(self) -> None:
        for node in (START, self.end):
            if node not in self.nodes:
                raise ValueError(f"graph {self.name}: {node!r} must be a node")
        for edge in self.edges:
            for node in (edge.source, edge.target):
                if node not in self.nodes:
                    raise ValueError(f"graph {self.name}: edge uses undeclared node {node!r}")
        for group in self.together:
            for source, target in itertools.pairwise(group):
                if not self.has_edge(source, target):
                    raise ValueError(f"graph {self.name}: nodes run together need the edge {source} → {target}")

    def has_edge(self, source: str, target: str) -> bool:
        return any(e.source == source and e.target == target for e in self.edges)

    def undeclared(self, transitions: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The transitions of a run that are not declared edges (none, for a correct run)."""
        return [(source, target) for source, target in transitions if not self.has_edge(source, target)]

    def to_mermaid(self) -> str:
        lines = ["graph TD"]
        for node, label in self.nodes.items():
            if node in (START, self.end):
                lines.append(f"    {node}([{label}])")
            elif node in self.decisions:
                lines.append(f"    {node}{{{label}}}")
            else:
                lines.append(f"    {node}[{label}]")
        for edge in self.edges:
            arrow = f"-->|{edge.label}|" if edge.label else "-->"
            lines.append(f"    {edge.source} {arrow} {edge.target}")
        for group in self.together:
            lines += [f"    {source} -.-|同时运行| {target}" for source, target in itertools.pairwise(group)]
        return "\n".join(lines) + "\n"
