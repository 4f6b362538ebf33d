"""Post-processing's consistency check (seed 002 Req 3.4–3.5, 6.3): its request and the `check_result` it gives."""

from pydantic import Field

from models.base import CamelModel
from models.writing.context import ConsistencyIssue, PreprocessingContext


class ConsistencyCheckRequest(CamelModel):
    """A draft to check against the writer's project (its characters and chapters)."""

    owner: str
    project_id: str
    text: str
    context: PreprocessingContext | None = None
    """The run's preprocessing context: the characters it found are checked against without asking the store."""
    use_llm: bool = True


class CheckResult(CamelModel):
    """`check_result`: whether the draft is consistent with the project, and every issue with its place."""

    passed: bool
    issues: list[ConsistencyIssue] = Field(default_factory=list)
    characters_checked: int = 0
    chapters_checked: int = 0
    degraded: bool = False
    """True when the check, or its model review, could not run: with `offline` and no issues nothing was checked
    (its activity failed for good); otherwise the issues are the rules' findings without the review."""
    offline: bool = True
    """True when only the deterministic checks ran (no LLM review)."""
    message: str = ""
