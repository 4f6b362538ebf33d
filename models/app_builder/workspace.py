"""A run's workspace by reference (ARCHITECTURE rule 4): the project's files live in the blob store, one blob per
file version; a manifest (`{path: blob key}`, itself a JSON blob) is one snapshot of the whole project. Runs carry
`WorkspaceRef`s and `PatchIntent`s, never file contents.

Execution agents do not write the workspace: each emits patch intents against the snapshot its wave started
from, and the workflow applies a wave's intents together, so two agents that touched the same file are detected
and merged (three-way, against that snapshot) or reported as a conflict with both versions kept.
"""

from pydantic import Field

from models.base import CamelModel


class WorkspaceRef(CamelModel):
    """One snapshot of the workspace."""

    manifest_ref: str | None = None
    """`blob:<key>` of the manifest JSON; None for the empty workspace a run starts with."""
    files: int = 0
    bytes: int = 0


class PatchIntent(CamelModel):
    """One agent's change to one file, against the snapshot its task started from."""

    task_id: str
    agent_id: str
    path: str
    base_key: str | None
    """The file's blob key in that snapshot; None when the file did not exist."""
    new_key: str | None
    """The new text's blob key; None deletes the file."""
    summary: str = ""


class MergedFile(CamelModel):
    """A file several tasks changed without overlapping: their changes were merged three-way."""

    path: str
    task_ids: list[str]
    merged_key: str


class ConflictRecord(CamelModel):
    """A file several tasks changed in overlapping lines: the first task's version stays in the workspace, every
    version is kept by key, and the overlap is reported."""

    path: str
    task_ids: list[str]
    base_key: str | None
    versions: dict[str, str | None]
    """Each task's version by task id (None: that task deleted the file)."""
    kept_task_id: str
    regions: int = 1
    """How many overlapping regions the three-way merge found."""


class ApplyRequest(CamelModel):
    """Apply one wave's (or one repair round's) patch intents to a snapshot."""

    run_id: str
    workspace: WorkspaceRef
    intents: list[PatchIntent]


class ApplyOutcome(CamelModel):
    """The new snapshot, the changed paths, the merged files and the conflicts."""

    workspace: WorkspaceRef
    changed: list[str] = Field(default_factory=list)
    """Paths whose content changed, sorted."""
    merged: list[MergedFile] = Field(default_factory=list)
    conflicts: list[ConflictRecord] = Field(default_factory=list)
