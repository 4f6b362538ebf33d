"""The quality agent's two activities: `app_builder.quality_checks` (parsers, import resolution and the
dependency specs package.json may name, in a thread; its report also names the project's components) and
`app_builder.toolchain_checks` (`tsc --noEmit` and `vite build` on the project, `checks.toolchain`; the build's
output is stored as the preview, `stores.app_preview`, or the report says why there is none). Each reads the
workspace snapshot from the blob store and answers with a `QualityReport`."""

import asyncio
from collections import Counter
from pathlib import Path, PurePosixPath

from temporalio import activity

from activities.app_builder.checks.dependencies import manifest_findings
from activities.app_builder.checks.imports import import_findings
from activities.app_builder.checks.parsers import parse_findings
from activities.app_builder.checks.toolchain import run_toolchain
from models.app_builder.nodes import QUALITY_CHECKS, TOOLCHAIN_CHECKS
from models.app_builder.quality import MAX_FINDINGS, CheckName, Finding, QualityReport, QualityRequest
from stores.app_preview import store_build
from stores.app_workspace import read_files
from stores.blob_store import BlobStore

COMPONENT_FOLDERS = ("src/components", "src/pages")
COMPONENT_SUFFIXES = (".tsx", ".jsx")


class QualityAgent:
    """The quality checks over the blob store; toolchain runs work in (and cache installs under) `work_root`."""

    def __init__(self, blobs: BlobStore, work_root: Path) -> None:
        self._blobs = blobs
        self._projects = work_root / "projects"
        self._npm_cache = work_root / "npm-cache"

    @QUALITY_CHECKS.defn
    async def quality_checks(self, request: QualityRequest) -> QualityReport:
        files = await asyncio.to_thread(read_files, self._blobs, request.workspace)
        findings, parsed = await asyncio.to_thread(static_findings, files)
        checked = report(findings, files_checked=parsed, checks_run=["parse", "imports", "dependencies"])
        checked.components = component_names(files)
        return checked

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
        checked = report(result.findings, files_checked=len(files), checks_run=result.checks_run, notes=result.notes)
        checked.preview_note = result.preview_note
        if result.build is not None:
            checked.preview = await asyncio.to_thread(store_build, self._blobs, result.build, request.workspace)
        return checked


def static_findings(files: dict[str, str]) -> tuple[list[Finding], int]:
    """The parsers', the import check's and the dependency check's findings, and how many files were parsed."""
    findings, parsed = parse_findings(files)
    return findings + import_findings(files) + manifest_findings(files), parsed


def component_names(files: dict[str, str]) -> list[str]:
    """The project's components: its `.tsx`/`.jsx` files directly under `COMPONENT_FOLDERS`, by name."""
    names = []
    for path in sorted(files):
        file = PurePosixPath(path)
        if str(file.parent) in COMPONENT_FOLDERS and file.suffix in COMPONENT_SUFFIXES:
            names.append(file.stem)
    return list(dict.fromkeys(names))


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
