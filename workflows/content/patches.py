"""How an agent's outcome enters the state: only the fields the agent owns (seed 001 状态列表, `OWNED_FIELDS`);
a patch that writes another agent's field is a bug, refused with AGENT_FIELD_NOT_OWNED."""

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.content.agents import OWNED_FIELDS, AgentName, StatePatch
    from models.content.errors import ContentErrorCode
    from models.content.state import ContentState, FieldWrite


def apply_patch(state: ContentState, agent: AgentName, patch: StatePatch) -> list[str]:
    """Write the patch's fields into the state and record the write; the fields written, sorted."""
    written = patch.written()
    foreign = written - OWNED_FIELDS[agent]
    if foreign:
        raise ApplicationError(
            f"{agent.value} 写了不属于它的字段：{', '.join(sorted(foreign))}",
            type=ContentErrorCode.AGENT_FIELD_NOT_OWNED,
            non_retryable=True,
        )
    for name in written:
        setattr(state, name, getattr(patch, name))
    fields = sorted(written)
    record_write(state, agent, fields)
    return fields


def record_write(state: ContentState, agent: AgentName, fields: list[str]) -> None:
    """Note that `agent` wrote `fields` in this iteration (what is stale is computed from it)."""
    state.metadata.field_writes.append(FieldWrite(node=agent.value, fields=fields, iteration=state.iteration_count))
    if fields:
        state.metadata.written_at[agent.value] = state.iteration_count
