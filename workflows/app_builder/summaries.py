"""One-line summaries the app run shows in its events and state: a Session_Document in a sentence, a finding as
`path:line:col [check] message`, and two quality reports as one."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.app_builder.documents import (
        FrontendArchitectDocument,
        ProductManagerDocument,
        SessionDocument,
        UIExpertDocument,
        UXExpertDocument,
    )
    from models.app_builder.quality import MAX_FINDINGS, Finding, QualityReport


def document_summary(document: SessionDocument) -> str:
    if isinstance(document, ProductManagerDocument):
        content = document.content
        return f"{len(content.functional_requirements)} 项功能需求、{len(content.user_stories)} 个用户故事"
    if isinstance(document, FrontendArchitectDocument):
        architecture = document.content
        approach = architecture.state_management.approach
        return (
            f"{len(architecture.component_tree)} 个组件、{len(architecture.route_design)} 条路由、状态管理 {approach}"
        )
    if isinstance(document, UIExpertDocument):
        ui = document.content
        styles = len(ui.component_styles)
        return f"配色 {ui.visual_spec.color_scheme}、{styles} 个组件样式、{ui.responsive_layout.strategy}"
    assert isinstance(document, UXExpertDocument)
    ux = document.content
    return f"{len(ux.interaction_flows)} 个交互流程、{len(ux.usability_recommendations)} 条可用性建议"


def finding_line(finding: Finding) -> str:
    where = finding.path or "(project)"
    if finding.line is not None:
        where += f":{finding.line}" + (f":{finding.column}" if finding.column is not None else "")
    return f"{where} [{finding.check}] {finding.message}"


def merge_reports(first: QualityReport, second: QualityReport) -> QualityReport:
    """Both reports' checks and findings as one report (passed only when both passed)."""
    counts = dict(first.counts)
    for check, count in second.counts.items():
        counts[check] = counts.get(check, 0) + count
    return QualityReport(
        passed=first.passed and second.passed,
        files_checked=max(first.files_checked, second.files_checked),
        checks_run=[*first.checks_run, *(c for c in second.checks_run if c not in first.checks_run)],
        findings=[*first.findings, *second.findings][:MAX_FINDINGS],
        counts=counts,
        notes=[*first.notes, *second.notes],
        components=first.components or second.components,
        preview=second.preview,
        preview_note=second.preview_note,
    )
