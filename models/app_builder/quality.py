"""What the quality agent finds: each check's findings on the workspace, and the report of one quality round."""

from typing import Literal

from pydantic import Field

from models.app_builder.workspace import WorkspaceRef
from models.base import CamelModel

CheckName = Literal["parse", "imports", "dependencies", "typecheck", "build"]
ToolchainMode = Literal["off", "auto", "on"]
"""`off`: parsers and imports only; `auto`: also `tsc --noEmit` and the build when `npm` is found; `on`: those
must run (a missing toolchain is a finding)."""

PREVIEW_TOOLCHAIN_OFF = "toolchain checks are off on the worker (APP_TOOLCHAIN_CHECKS=off): no build, no preview"
PREVIEW_NO_TOOLCHAIN = (
    "no toolchain on the worker (npm not found): install Node or set APP_TOOLCHAIN_CHECKS to get a preview"
)
PREVIEW_NOT_BUILT = "the quality checks found problems, so the build did not run: no preview"
PREVIEW_NOT_FINAL = "the last check was not of the final workspace: no preview"

MAX_FINDINGS = 50
"""A report keeps this many findings (the counts say how many there were)."""


class Finding(CamelModel):
    """One problem a check found, where it is when the check says."""

    check: CheckName
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None


class QualityRequest(CamelModel):
    """Check one snapshot of the workspace."""

    run_id: str
    workspace: WorkspaceRef
    round: int = 0
    """0 for the first check, then the repair round it follows."""
    toolchain: ToolchainMode = "off"


class PreviewBuild(CamelModel):
    """The project's `vite build` output kept in the blob store (built with `--base ./`, so it works under any path
    prefix): a manifest (`{path: blob key}`, JSON) of the `dist/` files, their count and size, and the workspace
    manifest it was built from."""

    manifest_ref: str
    """`blob:<key>` of the build's manifest."""
    files: int
    bytes: int
    workspace_ref: str
    """`blob:<key>` of the workspace manifest the build was made from."""


class QualityReport(CamelModel):
    """One quality round's result."""

    passed: bool
    files_checked: int
    checks_run: list[CheckName]
    findings: list[Finding] = Field(default_factory=list, max_length=MAX_FINDINGS)
    counts: dict[str, int] = Field(default_factory=dict)
    """Findings per check (all of them, also those cut from `findings`)."""
    notes: list[str] = Field(default_factory=list)
    """What was skipped and why (no `npm` on this machine, ...)."""
    components: list[str] = Field(default_factory=list)
    """The components the checked workspace holds (`.tsx`/`.jsx` files directly under `src/components` or
    `src/pages`, by name): the blackboard's `generatedComponents` after the last check."""
    preview: PreviewBuild | None = None
    """The build this check made and kept (the toolchain check only)."""
    preview_note: str | None = None
    """Why this check kept no build (no toolchain on the worker, the build skipped or failed, too big)."""
