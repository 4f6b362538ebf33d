"""Post-processing that proposes changes to the writer's project (issue 28 item 2: proposals, not silent canon):
a character design's characters and relationships (seed 002 Req 4.3, in its own run; which edges it considers:
`activities.writing.relationship_edges`), world building's setting as a world note, and the new plot loops (伏笔) a
planner's outline sets up (`propose_plot_loops`, called by the planner activity itself). Nothing here writes an
item: each becomes a pending proposal of the run, which the writer accepts or rejects
(`api.routes.writing_proposals`). A relationship for the same pair as one the project has is proposed with that
one as `before`; one naming a character neither the project nor the design has is dropped (reported in `unknown`,
and in `skipped` as before). What the project or a pending proposal says already is not proposed again
(`already_there`). Idempotent: a retried attempt finds the proposals its first try made."""

from pydantic import ValidationError
from temporalio import activity

from activities.writing.project_access import ProjectReader
from activities.writing.relationship_edges import edges_to_merge
from models.writing.agents import AgentRequest, AgentResult, CharacterSketch, RelationshipEdge
from models.writing.nodes import (
    UPDATE_KNOWLEDGE,
    UPDATE_RELATIONSHIPS,
    KnowledgeUpdateRequest,
    KnowledgeUpdateResult,
    RelationshipUpdateRequest,
    RelationshipUpdateResult,
)
from models.writing.projects import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME,
    CharacterIn,
    PlotLoopIn,
    Relationship,
    RelationshipIn,
)
from models.writing.proposals import AlreadyThere, RelationshipChange


class ProjectUpdater:
    """The post-processing activities that propose changes to a project."""

    def __init__(self, reader: ProjectReader) -> None:
        self._reader = reader

    @UPDATE_RELATIONSHIPS.defn
    async def update_relationships(self, request: RelationshipUpdateRequest) -> RelationshipUpdateResult:
        store, owner, project_id = self._reader.projects, request.owner, request.project_id
        known = {character.name for character in await self._reader.read(store.characters, owner, project_id)}
        edges, unknown = edges_to_merge(request, known)
        result = RelationshipUpdateResult(skipped=list(unknown), unknown=unknown)
        designed = {sketch.name.strip(): sketch for sketch in request.characters if sketch.name.strip() not in known}
        existing = await self._reader.read(store.relationships, owner, project_id)
        by_pair = {frozenset((r.source, r.target)): r for r in existing}
        run_id = _run_id()
        for name, sketch in designed.items():
            character = _character(sketch)
            if character is not None:
                filed = await self._reader.read(
                    store.propose, owner, project_id, run_id, "character", name, _values(character)
                )
                if isinstance(filed, AlreadyThere):
                    result.already_there.append(filed)
                else:
                    result.characters.append(name)
        for edge in edges:
            try:
                relationship = RelationshipIn(
                    source=edge.source, target=edge.target, kind=edge.kind, description=edge.description
                )
            except ValidationError:
                result.skipped.append(edge)  # e.g. a character related to itself: the others still count
                continue
            pair = (relationship.source, relationship.target)
            old = by_pair.get(frozenset(pair))
            if old is not None and _edge(old) == _edge(relationship):
                continue  # the project says so already
            before = None if old is None else (old.relationship_id, old.version, _values(_edge(old)))
            key = "|".join(sorted(pair))
            proposal = await self._reader.read(
                store.propose, owner, project_id, run_id, "relationship", key, _values(relationship), before
            )
            if isinstance(proposal, AlreadyThere):
                result.already_there.append(proposal)
                continue
            after = _edge(relationship)
            was = None if old is None else _edge(old)
            result.changes.append(RelationshipChange(proposal_id=proposal.proposal_id, before=was, after=after))
            (result.added if old is None else result.changed).append(after)
        result.total = len(existing)
        return result

    @UPDATE_KNOWLEDGE.defn
    async def update_knowledge(self, request: KnowledgeUpdateRequest) -> KnowledgeUpdateResult:
        note = {"title": request.title[:MAX_NAME], "content": request.content[:MAX_DESCRIPTION_CHARS]}
        filed = await self._reader.read(
            self._reader.projects.propose,
            request.owner,
            request.project_id,
            _run_id(),
            "world_note",
            note["title"],
            note,
        )
        result = KnowledgeUpdateResult(title=note["title"], chars=len(note["content"]))
        if isinstance(filed, AlreadyThere):
            result.already_there = filed
        else:
            result.proposal_id = filed.proposal_id
        return result


async def propose_plot_loops(reader: ProjectReader, request: AgentRequest, result: AgentResult) -> AgentResult:
    """The planner's answer with each new plot loop its outline sets up proposed to the project (a pending
    `plot_loop` proposal of the run, its `proposal_id`), unless the project or a pending proposal has one of that
    title already (its `existing_id`). One the project cannot hold (a blank title, a chapter number out of range)
    is left out."""
    loops = []
    store, owner, project_id = reader.projects, request.owner, request.project_id
    for loop in result.plot_loops:
        try:
            valid = PlotLoopIn(
                title=loop.title.strip()[:MAX_NAME],
                description=loop.description[:MAX_DESCRIPTION_CHARS],
                planted_in_chapter=loop.planted_in_chapter,
            )
        except ValidationError:
            continue
        item = {"title": valid.title, "description": valid.description}
        if valid.planted_in_chapter is not None:
            item["plantedInChapter"] = str(valid.planted_in_chapter)
        filed = await reader.read(store.propose, owner, project_id, _run_id(), "plot_loop", item["title"], item)
        if isinstance(filed, AlreadyThere):
            loops.append(loop.model_copy(update={"existing_id": filed.existing_id}))
        else:
            loops.append(loop.model_copy(update={"proposal_id": filed.proposal_id}))
    return result.model_copy(update={"plot_loops": loops})


def _run_id() -> str:
    """The run the proposal comes from: the workflow this activity runs for."""
    run_id = activity.info().workflow_id
    assert run_id is not None, "a writing activity runs for a workflow"
    return run_id


def _character(sketch: CharacterSketch) -> CharacterIn | None:
    """The designed character as the project would hold it (its role leads its description); None for a name the
    project cannot hold."""
    description = f"{sketch.role}：{sketch.description}" if sketch.role else sketch.description
    try:
        return CharacterIn(name=sketch.name.strip()[:MAX_NAME], description=description[:MAX_DESCRIPTION_CHARS])
    except ValidationError:
        return None


def _edge(relationship: Relationship | RelationshipIn) -> RelationshipEdge:
    return RelationshipEdge(
        source=relationship.source,
        target=relationship.target,
        kind=relationship.kind,
        description=relationship.description,
    )


def _values(item: CharacterIn | RelationshipIn | RelationshipEdge) -> dict[str, str]:
    return {key: str(value) for key, value in item.model_dump(by_alias=False).items()}
