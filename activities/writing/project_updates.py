"""Post-processing that writes to the writer's project: the relationship graph after a character design
(seed 002 Req 4.3, in its own run; which edges it merges:
`activities.writing.relationship_edges`) and the knowledge base after world building (a world note, which the
retrieval index picks up with the project's next revision). Both are idempotent: a retried attempt whose first
try did write changes nothing twice."""

from pydantic import ValidationError

from activities.writing.project_access import ProjectReader
from activities.writing.relationship_edges import edges_to_merge
from models.writing.nodes import (
    UPDATE_KNOWLEDGE,
    UPDATE_RELATIONSHIPS,
    KnowledgeUpdateRequest,
    KnowledgeUpdateResult,
    RelationshipUpdateRequest,
    RelationshipUpdateResult,
)
from models.writing.projects import MAX_DESCRIPTION_CHARS, MAX_NAME, RelationshipIn, WorldNoteIn


class ProjectUpdater:
    """The post-processing activities that change a project."""

    def __init__(self, reader: ProjectReader) -> None:
        self._reader = reader

    @UPDATE_RELATIONSHIPS.defn
    async def update_relationships(self, request: RelationshipUpdateRequest) -> RelationshipUpdateResult:
        store = self._reader.projects
        cast = await self._reader.read(store.characters, request.owner, request.project_id)
        edges, unknown = edges_to_merge(request, [character.name for character in cast])
        result = RelationshipUpdateResult(skipped=unknown)
        for edge in edges:
            try:
                relationship = RelationshipIn(
                    source=edge.source, target=edge.target, kind=edge.kind, description=edge.description
                )
            except ValidationError:
                result.skipped.append(edge)  # e.g. a character related to itself: the others still count
                continue
            _, outcome = await self._reader.read(
                store.upsert_relationship, request.owner, request.project_id, relationship
            )
            if outcome == "added":
                result.added.append(edge)
            elif outcome == "changed":
                result.changed.append(edge)
        result.total = len(await self._reader.read(store.relationships, request.owner, request.project_id))
        return result

    @UPDATE_KNOWLEDGE.defn
    async def update_knowledge(self, request: KnowledgeUpdateRequest) -> KnowledgeUpdateResult:
        note = WorldNoteIn(title=request.title[:MAX_NAME], content=request.content[:MAX_DESCRIPTION_CHARS])
        store = self._reader.projects
        existing = await self._reader.read(store.world_notes, request.owner, request.project_id)
        same = [n for n in existing if (n.title, n.content) == (note.title, note.content)]
        saved = (
            same[0] if same else await self._reader.read(store.add_world_note, request.owner, request.project_id, note)
        )
        return KnowledgeUpdateResult(note_id=saved.world_note_id, title=saved.title, chars=len(saved.content))
