"""Declared workflow graphs: nodes and labelled edges, rendered as Mermaid (seed 004 §2) and checked in tests.

Each workflow module declares its graph once; runs record the transitions they take, and a transition that is
not a declared edge is a bug the tests catch (ARCHITECTURE rule 7).
"""

from dataclasses import dataclass, field

START = "start"
END = "stream_end"


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    label: str = ""


@dataclass(frozen=True)
class Graph:
    name: str
    nodes: dict[str, str]
    """Node id → display label."""
    edges: tuple[Edge, ...]
    decisions: frozenset[str] = field(default_factory=frozenset)
    """Nodes drawn as decision diamonds."""

    def __post_init__(self) -> None:
        for edge in self.edges:
            for node in (edge.source, edge.target):
                if node not in self.nodes:
                    raise ValueError(f"graph {self.name}: edge uses undeclared node {node!r}")

    def has_edge(self, source: str, target: str) -> bool:
        return any(e.source == source and e.target == target for e in self.edges)

    def to_mermaid(self) -> str:
        lines = ["graph TD"]
        for node, label in self.nodes.items():
            if node in (START, END):
                lines.append(f"    {node}([{label}])")
            elif node in self.decisions:
                lines.append(f"    {node}{{{label}}}")
            else:
                lines.append(f"    {node}[{label}]")
        for edge in self.edges:
            arrow = f"-->|{edge.label}|" if edge.label else "-->"
            lines.append(f"    {edge.source} {arrow} {edge.target}")
        return "\n".join(lines) + "\n"
