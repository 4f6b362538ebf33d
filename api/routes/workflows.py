"""What the platform runs: `GET /v1/workflows` lists every registered workflow with its input schema, event types
and graph; `GET /v1/workflows/{name}/graph` serves one declared graph as Mermaid (seed 004)."""

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from api.bodies import StrictJsonRoute
from api.deps import AppSettings, WorkflowRegistry
from api.errors import ApiError
from models.errors import ErrorCode
from models.runs import WorkflowInfo

router = APIRouter(tags=["workflows"], route_class=StrictJsonRoute)


@router.get("/v1/workflows", response_model=list[WorkflowInfo])
async def list_workflows(workflows: WorkflowRegistry, settings: AppSettings) -> list[WorkflowInfo]:
    """Every registered workflow: its family, whether `POST /v1/runs` starts it, its input, state and events."""
    return [
        WorkflowInfo(
            name=entry.name,
            family=entry.family,
            description=entry.description,
            startable=entry.startable,
            task_queue=settings.task_queue(entry.family),
            input_schema=entry.input_model.model_json_schema(by_alias=True) if entry.input_model else None,
            state_schema=entry.state_model.model_json_schema(by_alias=True),
            event_types=entry.events.schemas() if entry.events else {},
            terminal_event=entry.events.terminal if entry.events else None,
            graph=entry.graph.to_mermaid() if entry.graph else None,
        )
        for entry in workflows
    ]


@router.get("/v1/workflows/{name}/graph", response_class=PlainTextResponse)
async def workflow_graph(name: str, workflows: WorkflowRegistry) -> str:
    """The declared graph of a workflow as Mermaid (seed 004 §2)."""
    entry = workflows.get(name)
    if entry is None or entry.graph is None:
        graphs = ", ".join(e.name for e in workflows if e.graph)
        raise ApiError(404, ErrorCode.WORKFLOW_NOT_FOUND, f"没有这个工作流的图：{name}（有：{graphs}）")
    return entry.graph.to_mermaid()
