"""What the quality agent finds: each check's findings on the workspace, and the report of one quality round."""

from typing import Literal

from pydantic import Field

from models.app_builder.workspace import WorkspaceRef
from models.base import CamelModel

CheckName = Literal["parse", "imports", "dependencies", "typecheck", "build"]
ToolchainMode = Literal["off", "auto", "on"]
"""`off`: parsers and imports only; `auto`: also `tsc --noEmit` and the build when `npm` is found; `on`: those
must run (a missing toolchain is a finding)."""

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
