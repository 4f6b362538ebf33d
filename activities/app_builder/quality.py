"""The quality agent's two activities: `app_builder.quality_checks` (parsers, import resolution and the
dependency specs package.json may name, in a thread) and `app_builder.toolchain_checks` (`tsc --noEmit` and `vite
build` on the project, `checks.toolchain`). Each reads the workspace snapshot from the blob store and answers with
a `QualityReport`."""

import asyncio
from collections import Counter
from pathlib import Path

from temporalio import activity

from activities.app_builder.checks.dependencies import manifest_findings
from activities.app_builder.checks.imports import import_findings
from activities.app_builder.checks.parsers import parse_findings
from activities.app_builder.checks.toolchain import run_toolchain
from models.app_builder.nodes import QUALITY_CHECKS, TOOLCHAIN_CHECKS
from models.app_builder.quality import MAX_FINDINGS, CheckName, Finding, QualityReport, QualityRequest
from models.app_builder.workspace import WorkspaceRef
from stores.app_workspace import read_files
from stores.blob_store import LocalBlobStore


class QualityAgent:
    """The quality checks over the blob store; toolchain runs work in (and cache installs under) `work_root`."""

    def __init__(self, blobs: LocalBlobStore, work_root: Path) -> None:
        self._blobs = blobs
        self._projects = work_root / "projects"
        self._npm_cache = work_root / "npm-cache"

    @QUALITY_CHECKS.defn
    async def quality_checks(self, request: QualityRequest) -> QualityReport:
        findings, parsed = await asyncio.to_thread(self._static_findings, request.workspace)
        return report(findings, files_checked=parsed, checks_run=["parse", "imports", "dependencies"])

    @TOOLCHAIN_CHECKS.defn
    async def toolchain_checks(self, request: QualityRequest) -> QualityReport:
        files = await asyncio.to_thread(read_files, self._blobs, request.workspace)
        result = await run_toolchain(
            files,
            work_root=self._projects,
            cache_root=self._npm_cache,
            mode=request.toolchain,
            heartbeat=activity.heartbeat,
        )
        return report(result.findings, files_checked=len(files), checks_run=result.checks_run, notes=result.notes)

    def _static_findings(self, workspace: WorkspaceRef) -> tuple[list[Finding], int]:
        files = read_files(self._blobs, workspace)
        findings, parsed = parse_findings(files)
        return findings + import_findings(files) + manifest_findings(files), parsed


def report(
    findings: list[Finding], *, files_checked: int, checks_run: list[CheckName], notes: list[str] | None = None
) -> QualityReport:
    """Passed when nothing was found; the first `MAX_FINDINGS` findings by place, and every check's count."""
    ordered = sorted(findings, key=lambda found: (found.path or "", found.line or 0, found.column or 0))
    counts = dict.fromkeys(checks_run, 0) | Counter(found.check for found in findings)
    return QualityReport(
        passed=not findings,
        files_checked=files_checked,
        checks_run=checks_run,
        findings=ordered[:MAX_FINDINGS],
        counts=counts,
        notes=notes or [],
    )
