"""Each family's README example as the benchmark sends it: what is set up first (untimed: the writing project),
the POST that starts the run, and the person's answer when the run asks one."""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from tests.e2e.writing.test_brainstorm_over_http import readme_project


@dataclass(frozen=True)
class Family:
    """One family's README example."""

    name: str
    path: str
    """The POST that starts the run (a writing project's `{project}` filled in by `prepare`)."""
    body: dict[str, Any]
    answer: dict[str, Any] | None = None
    """What the person answers to `user_input_required`."""
    prepare: Callable[[str], Awaitable[dict[str, str]]] | None = None
    """Given the gateway's URL, what `path` needs (untimed)."""
    marked: str | None = None
    """The body's text field that carries a run's marker (`marker`) in the runs-at-once phases: every model call
    of the run quotes it, so the simulator's log tells each run's calls apart. None: the family's calls do not
    quote one text of the body (or need not be told apart)."""

    def body_for(self, tag: str, *, marked: bool = False) -> dict[str, Any]:
        """The body of one run: an image turn in a session of its own (`tag`), so that runs do not queue; with
        `marked`, the run's marker appended to the `marked` field."""
        body = self.body | ({"sessionId": tag} if self.name == "image" else {})
        if marked and self.marked is not None:
            body[self.marked] = f"{body[self.marked]}{marker(tag)}"
        return body

    async def url(self, gateway: str) -> str:
        fields = await self.prepare(gateway) if self.prepare is not None else {}
        return gateway + self.path.format(**fields)


def marker(tag: str) -> str:
    """What a marked run's text ends with; bracketed, so that no run's marker is a part of another's."""
    return f"〔{tag}〕"


async def writing_project(gateway: str) -> dict[str, str]:
    """The README's project (a chapter, two characters), created through the gateway."""

    def create() -> str:
        with httpx.Client(base_url=gateway, timeout=60, trust_env=False) as http:
            return readme_project(http)

    return {"project": await asyncio.to_thread(create)}


FAMILIES = (
    Family("image", "/api/agent/chat", {"text": "生成一只赛博朋克风格的猫"}),
    Family(
        "content",
        "/v1/content/runs",
        {
            "topic": "打工人的咖啡续命指南",
            "platform": "xiaohongshu",
            "evidence": [
                "2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。",
                "营养师建议：每天咖啡因不超过 400 毫克。",
            ],
        },
        marked="topic",
    ),
    Family(
        "writing",
        "{project}/chat",
        {"text": "先想三个结局方案，我选一个再写"},
        answer={"answer": "B"},
        prepare=writing_project,
    ),
    Family(
        "app",
        "/v1/apps/runs",
        {"message": "做一个待办事项应用：可以添加、完成和删除待办，并按状态筛选", "techStack": ["react", "typescript"]},
        marked="message",
    ),
)
BY_NAME = {family.name: family for family in FAMILIES}
