"""The Supervisor's decision the way a model that follows its prompt writes it, for the simulator's `json_author`:
the first stage the run summary marks not done, else the quality fallback the summary names, else END. Tests use it
where a run must pass through a given agent, which the simulator's made-up decisions may never name."""

import re
from typing import Any

from tests.simulator.requests import SimRequest

_STAGE = re.compile(r"^- (\w+)（[^）]*）：(?:❌|⚠️)", re.MULTILINE)
_FALLBACK = re.compile(r"质量回退建议：\S+ 偏低 → (\w+)")


def prompted_decision(request: SimRequest) -> dict[str, Any] | None:
    """The decision for a Supervisor's decision request; None for any other request (the simulator makes it up)."""
    summary = next((text for role, text in request.messages if role == "user" and "JSON 决策" in text), None)
    if summary is None:
        return None
    stage, fallback = _STAGE.search(summary), _FALLBACK.search(summary)
    target = stage[1] if stage else fallback[1] if fallback else "END"
    return {"next_agent": target, "guidance": f"继续：{target}", "context_from_previous": "", "focus_areas": []}
