"""How an agent's outcome enters the state: only the fields the agent owns (seed 001 状态列表, `OWNED_FIELDS`);
a patch that writes another agent's field is a bug, refused with AGENT_FIELD_NOT_OWNED. With `unchanged_kept`
(the `content-quality-cannot-improve` patch) a field that comes back equal to what the state holds is not a
write, so what depends on it does not go stale, and the agent's run is noted (`ran_at`)."""

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.content.agents import OWNED_FIELDS, AgentName, StatePatch
    from models.content.errors import ContentErrorCode
    from models.content.state import ContentState, FieldWrite


def apply_patch(state: ContentState, agent: AgentName, patch: StatePatch, *, unchanged_kept: bool = False) -> list[str]:
    """Write the patch's fields into the state and record the write; the fields written (with `unchanged_kept`,
    only those whose value changed), sorted."""
    written = patch.written()
    foreign = written - OWNED_FIELDS[agent]
    if foreign:
        raise ApplicationError(
            f"{agent.value} 写了不属于它的字段：{', '.join(sorted(foreign))}",
            type=ContentErrorCode.AGENT_FIELD_NOT_OWNED,
            non_retryable=True,
        )
    if unchanged_kept:
        written = {name for name in written if getattr(state, name) != getattr(patch, name)}
    for name in written:
        setattr(state, name, getattr(patch, name))
    fields = sorted(written)
    record_write(state, agent, fields, ran=unchanged_kept)
    return fields


def record_write(state: ContentState, agent: AgentName, fields: list[str], *, ran: bool = False) -> None:
    """Note that `agent` wrote `fields` in this iteration (what is stale is computed from it), and with `ran` that
    it returned its output, changed or not."""
    state.metadata.field_writes.append(FieldWrite(node=agent.value, fields=fields, iteration=state.iteration_count))
    if fields:
        state.metadata.written_at[agent.value] = state.iteration_count
    if ran:
        state.metadata.ran_at[agent.value] = state.iteration_count
