"""The codes only the app builder family's runs and routes carry (the platform's own are `models.errors.ErrorCode`)."""

from models.errors import FamilyErrorCode


class AppBuilderErrorCode(FamilyErrorCode):
    """Why a app builder run or request failed."""

    ANALYSIS_FAILED = "ANALYSIS_FAILED"
    DOCUMENT_INVALID = "DOCUMENT_INVALID"
    PLANNING_FAILED = "PLANNING_FAILED"
    PLAN_INVALID = "PLAN_INVALID"
    INVALID_PATCH = "INVALID_PATCH"
    QUALITY_CHECK_FAILED = "QUALITY_CHECK_FAILED"
    DEPENDENCY_SPEC_REFUSED = "DEPENDENCY_SPEC_REFUSED"
    """A quality finding: package.json names a package outside the registry (a path, git, a URL)."""
    WORKSPACE_NOT_READY = "WORKSPACE_NOT_READY"
    FILE_NOT_FOUND = "FILE_NOT_FOUND"
    TECH_STACK_UNSUPPORTED = "TECH_STACK_UNSUPPORTED"
    PREVIEW_URL_INVALID = "PREVIEW_URL_INVALID"
    """A preview URL whose token is not one this gateway signed (forged, or another run's or build's altered)."""
    PREVIEW_URL_EXPIRED = "PREVIEW_URL_EXPIRED"
    """A preview URL past its expiry: `GET /v1/apps/runs/{id}/preview` gives a new one."""
    OFFLINE_APP_UNSUPPORTED = "OFFLINE_APP_UNSUPPORTED"
    """Offline (no model) and the message names none of the kinds the offline builder builds
    (`models.app_builder.app_kinds`): refused, never built as another kind of app."""
    OFFLINE_FOLLOWUP_UNSUPPORTED = "OFFLINE_FOLLOWUP_UNSUPPORTED"
    """Offline (no model) and the request is a follow-up (`fromRun`): the offline builder builds its four kinds
    from scratch only, so follow-up changes need a configured model; refused, never silently rebuilt."""
    BASE_NOT_READY = "BASE_NOT_READY"
    """`fromRun` names a run that is still running or ended without writing any file."""
    ROUND_LIMIT_REACHED = "ROUND_LIMIT_REACHED"
    """`fromRun` names a run that is already the last round a chain may have (`APP_MAX_ROUNDS`)."""
