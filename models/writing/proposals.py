"""What an agent wants written into a writer's project (issue 28 item 2): a proposal, never canon until the writer
accepts it. A proposal names the run it came from, its kind, the item it proposes and, when it changes an item the
project already has (a relationship for the same pair), that item as it was (`before`) and the version it was at,
so accepting it after the writer changed that item is refused rather than overwriting the writer's edit."""

from datetime import datetime
from typing import Literal

from models.base import CamelModel
from models.writing.agents import RelationshipEdge

ProposalKind = Literal["world_note", "character", "relationship", "plot_loop"]
ProposalStatus = Literal["pending", "accepted", "rejected"]
ItemOrigin = Literal["writer", "accepted"]
"""Where a project's item came from: written by the writer, or an agent's proposal the writer accepted."""
PROPOSAL_ID_PREFIX = "prop_"
"""How a proposal's id starts (a project's items start with their table's prefix: `note_`, `char_`, ...)."""


class Proposal(CamelModel):
    """One proposal as the API lists it."""

    proposal_id: str
    project_id: str
    run_id: str
    """The run that proposed it (its events at `GET /v1/runs/{runId}/events`)."""
    kind: ProposalKind
    status: ProposalStatus
    item: dict[str, str]
    """The proposed item, as its `POST` body would be (a world note's title and content, a character's name and
    description, a relationship's source, target, kind and description, a plot loop's title, description and
    `plantedInChapter`, a number written as text)."""
    before: dict[str, str] | None = None
    """For a change of an item the project has: that item as it was when the proposal was made."""
    target_id: str | None = None
    """For a change: the item it changes; accepting it requires that item still at `target_version`."""
    target_version: int | None = None
    item_id: str | None = None
    """Once accepted: the project's item it became."""
    created_at: datetime
    decided_at: datetime | None = None


class RelationshipChange(CamelModel):
    """A relationship a character design proposes, with the pair's relationship as the project has it (`before`,
    None for a new pair), so the run's stream shows what would change."""

    proposal_id: str
    before: RelationshipEdge | None = None
    after: RelationshipEdge


class AlreadyThere(CamelModel):
    """A proposal not filed because the project, or a pending proposal of another run, says the same already (after
    whitespace normalisation): a world note with the same text, a character of the same name, the same
    relationship."""

    kind: ProposalKind
    label: str
    """What it is: the note's title, the character's name, `甲—乙（kind）`."""
    existing_id: str
    """The project's item that says it (`note_…`, `char_…`, `rel_…`) or the pending proposal (`prop_…`)."""
