"""An app run as the platform sees it: the request `POST /v1/apps/runs` takes, the workflow's input (the request
and limits from settings) and the run's result; and the tech stack the builder writes (`SUPPORTED_TECH_STACK`):
its agents, prompts and quality checks write and check a React + TypeScript + Vite project, so a request that asks
for anything else is refused at the gateway rather than answered with a React app."""

import re
from typing import Annotated

from pydantic import Field, field_validator

from models.app_builder.agents import AppBrief
from models.app_builder.quality import ToolchainMode
from models.app_builder.rounds import AppRoundBase
from models.base import CamelModel, RequestModel
from models.events import RunStatus
from models.runs import RUN_ID_PATTERN, SESSION_ID_PATTERN

MESSAGE_CHARS = 4000
MAX_TECH_STACK = 12
SUPPORTED_TECH_STACK: dict[str, str] = {
    "react": "React",
    "reactjs": "React",
    "react18": "React",
    "typescript": "TypeScript",
    "ts": "TypeScript",
    "tsx": "TypeScript",
    "vite": "Vite",
    "vitejs": "Vite",
    "css": "CSS",
    "html": "HTML",
}
"""What a `techStack` entry may name (lower case, without spaces, dots or dashes), and what it names."""


def unsupported_tech(stack: list[str]) -> list[str]:
    """The entries of `stack` the builder does not write (it writes React + TypeScript + Vite)."""
    return [entry for entry in stack if re.sub(r"[\s.\-_]", "", entry.lower()) not in SUPPORTED_TECH_STACK]


class AppRunRequest(RequestModel):
    """What app to build: `input` of `POST /v1/runs` with `AppBuilderWorkflow`."""

    message: str = Field(min_length=1, max_length=MESSAGE_CHARS)
    platform: str | None = Field(default=None, max_length=40)
    """Where the app runs (`web`, `mobile-web`, ...)."""
    tech_stack: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=MAX_TECH_STACK)
    from_run: str | None = Field(default=None, max_length=64, pattern=RUN_ID_PATTERN)
    """A follow-up change: the id of the earlier app run (of the same owner) whose final workspace it starts from;
    `message` then says what to change."""

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message is blank")
        return value.strip()

    @field_validator("tech_stack")
    @classmethod
    def _short_names(cls, values: list[str]) -> list[str]:
        for value in values:
            if not 0 < len(value.strip()) <= 40:
                raise ValueError("each techStack entry has 1 to 40 characters")
        return [value.strip() for value in values]


class AppRunBody(AppRunRequest):
    """`POST /v1/apps/runs`: the request and, optionally, the session it belongs to."""

    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)


class AppRunInput(CamelModel):
    """What an `AppBuilderWorkflow` run needs."""

    owner: str
    brief: AppBrief
    llm_configured: bool = False
    toolchain: ToolchainMode = "off"
    """Whether the quality agent also runs `tsc --noEmit` and the build (`APP_TOOLCHAIN_CHECKS`)."""
    session_id: str | None = None
    deadline_seconds: float = 3600.0
    from_run: str | None = None
    """The request's `fromRun`, until the gateway has read that run into `base` (when the run starts)."""
    base: AppRoundBase | None = None
    """A follow-up's base run; None for round 1 (an empty workspace, documents from scratch)."""


class AppRunResult(CamelModel):
    """How the run ended and what it produced (the workspace is served by the gateway)."""

    status: RunStatus
    success: bool
    files: int
    degraded_tasks: list[str] = Field(default_factory=list)
    unresolved_issues: list[str] = Field(default_factory=list)
    failed_tasks: list[str] = Field(default_factory=list)
    skipped_tasks: list[str] = Field(default_factory=list)
    conflicts: int = 0
