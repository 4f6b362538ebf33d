"""Follow-up changes (issue 27 item 2): a run that starts from an earlier run's final workspace, one round of a
chain. `AppRoundBase` is what such a run takes from its base (its id, round, final workspace, documents and the
chain's earlier messages); `RoundChanges` is what one round changed against its base (the gateway's diff says it
file by file, `stores.app_diff`)."""

from typing import Literal

from pydantic import Field

from models.app_builder.documents import SessionDocument
from models.app_builder.workspace import WorkspaceRef
from models.base import CamelModel


class AppRoundBase(CamelModel):
    """The run a follow-up starts from, as the gateway read it from that run's state. It is part of the run's input
    (one payload in its history): four documents, each within its agent's output limit (16 384 tokens), and the
    chain's messages (at most `APP_MAX_ROUNDS` × 4 000 characters) stay far below Temporal's 2 MB."""

    run_id: str
    round: int = Field(ge=1)
    workspace: WorkspaceRef
    """Its final workspace: the follow-up's first wave starts from it."""
    documents: list[SessionDocument] = Field(default_factory=list)
    """Its four analysis documents (each agent updates its own); by value, as they are in its state."""
    messages: list[str] = Field(default_factory=list)
    """The chain's messages before the follow-up's own, from round 1 on."""


class RoundChanges(CamelModel):
    """How many files one round added, modified and removed against its base's final workspace."""

    added: int = 0
    modified: int = 0
    removed: int = 0


class ChangesRequest(CamelModel):
    """Count a round's changes: its base's final workspace against its own."""

    run_id: str
    base: WorkspaceRef
    workspace: WorkspaceRef


class FileDiff(CamelModel):
    """One file a round changed against its base: how, by how many lines, and the unified diff (capped)."""

    path: str
    status: Literal["added", "modified", "removed"]
    additions: int = 0
    deletions: int = 0
    diff: str | None = None
    """The unified diff; None when the file is summarised (`note` says why) or the response's budget is spent."""
    truncated: bool = False
    """The diff was cut at the per-file cap."""
    note: str | None = None
