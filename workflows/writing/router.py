"""The AgentRouter node: the writer's request becomes an intent, and the intent selects a workflow plan (Req 1).

With an LLM configured the router asks it first and falls back to the keyword rules when that call fails for
good (Req 1.5: an `error` event ROUTER_DEGRADED at `router`, and a warning thought); without one, the rules
answer. The plan (`WritingRequest.select`) decides what comes next (`route_after_router`).
"""

from temporalio import workflow

from workflows import policies
from workflows.writing.graph import ROUTER, route_after_router
from workflows.writing.request import WritingRequest

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.writing import nodes
    from models.writing.errors import WritingErrorCode
    from models.writing.events import IntentRecognized
    from models.writing.nodes import RouteRequest
    from models.writing.run_messages import RouterMessages


class Router:
    """The router node."""

    def __init__(self, request: WritingRequest) -> None:
        self._request = request

    async def router(self) -> str:
        request = self._request
        given = request.input
        route = RouteRequest(
            text=given.text,
            use_llm=given.llm_configured,
            owner=given.owner,
            project_id=given.project_id,
            session_id=given.session_id,
        )
        intent = await request.run.call_with_degrade(
            nodes.ROUTER,
            route,
            policies.WRITING_ROUTER,
            summary="route intent (LLM)",
            use_llm=route.use_llm,
            offline=route.model_copy(update={"use_llm": False}),
            offline_options=policies.WRITING_ROUTER_RULES,
            offline_summary="route intent (rules)",
            degraded=lambda err: request.degraded(
                ROUTER, err, WritingErrorCode.ROUTER_DEGRADED, RouterMessages.DEGRADED.say(request.english())
            ),
            code=ErrorCode.ROUTER_FAILED,
        )
        plan = request.select(intent)
        request.events.emit("intent_recognized", ROUTER, IntentRecognized(intent=intent, workflow=plan.kind))
        return route_after_router(plan)
