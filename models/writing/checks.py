"""Post-processing's checks (seed 002 Req 3.4–3.5, 6.3, 9.5): the consistency check's request, and the
`check_result` every post-processing step gives (the consistency check's findings, or what a relationship or
knowledge update did)."""

from typing import Literal

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
    english: bool = False
    """Whether the request was written in English: the findings and the summary are then English too."""


class CheckResult(CamelModel):
    """`check_result` (Req 9.5): what a post-processing step found. For the consistency check, whether the draft is
    consistent with the project and every issue with its place; for a relationship or knowledge update, whether it
    was done (`passed`) and what it did (`message`)."""

    check: Literal["consistency", "relationships", "knowledge"] = "consistency"
    """Which post-processing step this is the result of (the names `processing_check` announced)."""
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
