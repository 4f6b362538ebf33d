"""Which relationships a character design's update merges (seed 002 Req 10.5: `RelationshipUpdateRequest`'s
`relationships`, `characters` and `text` are all read).

- `relationships`: the edges the agent gave explicitly;
- `text`: when it gave none (a model's design that wrote its relationships only in prose), its relationship lines,
  `- 甲 → 乙（师徒）：说明` or `- Wren Hale → Mara Vell (mentor): description`, the forms the designs render
  them in (an English name may have spaces);
- `characters`: who the design introduces. An edge is merged only when both its ends are people the writer knows
  of: a character of the project or one the design introduces; an edge to anyone else (a name the model made up
  in passing) is skipped, never written into the graph.
"""

import re
from collections.abc import Collection

from models.writing.agents import RelationshipEdge
from models.writing.nodes import RelationshipUpdateRequest

_LINE = re.compile(
    r"^\s*[-*•]\s*(?P<source>[^\s→（(][^→（(\n]{0,39}?)\s*(?:→|->)\s*"
    r"(?P<target>[^\s（(：:][^（(：:\n]{0,39}?)\s*(?=[（(：:]|$)"
)
_KIND = re.compile(r"[（(](?P<kind>[^）)]{1,40})[）)]\s*(?:[：:]\s*(?P<description>.*))?$")


def edges_in_text(text: str) -> list[RelationshipEdge]:
    """The relationship lines of a design's text (`- 甲 → 乙（师徒）：说明`, `- A B → C D (kind): …`), in order."""
    edges = []
    for line in text.splitlines():
        head = _LINE.match(line)
        if head is None:
            continue
        tail = _KIND.search(line, head.end())
        kind = tail["kind"].strip() if tail else "关系"
        description = (tail["description"] or "").strip() if tail else ""
        edges.append(RelationshipEdge(source=head["source"], target=head["target"], kind=kind, description=description))
    return edges


def edges_to_merge(
    request: RelationshipUpdateRequest, project_characters: Collection[str]
) -> tuple[list[RelationshipEdge], list[RelationshipEdge]]:
    """(the edges to merge, the edges skipped because an end is nobody the writer knows of): see the module."""
    known = set(project_characters) | {sketch.name for sketch in request.characters}
    given = request.relationships or edges_in_text(request.text)
    merged = [edge for edge in given if edge.source in known and edge.target in known]
    return merged, [edge for edge in given if edge not in merged]
