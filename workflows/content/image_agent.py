"""The image agent's nodes: a tool loop (`image_agent` asks the next turn, `image_tools` draws the images it
asks for through `workflows.content.images`) until every planned image exists or seed 001's
`shouldContinueImage()` sends the run back to the Supervisor (at most `IMAGE_TOOL_CALL_LIMIT` calls a visit).

A model turn that calls no tool while images are missing is asked once more with a nudge to call
`generate_image`; when that one calls none either, the run says so (AGENT_DEGRADED) and the offline image
planning takes the rest of the visit."""

from temporalio import workflow

from workflows.common.patches import patched
from workflows.content.context import ContentRun
from workflows.content.fallbacks import CANNOT_IMPROVE
from workflows.content.images import ContentImages
from workflows.content.patches import record_write
from workflows.content.progress import artifact_status
from workflows.content.routing import (
    IMAGE_TOOL_CALL_LIMIT,
    IMAGE_TOOLS,
    SUPERVISOR,
    should_continue_image,
)
from workflows.content.tool_loops import ContentLoops

with workflow.unsafe.imports_passed_through():
    from models.content import nodes
    from models.content.agents import AGENT_LABELS, AgentName
    from models.content.events import ImageGenerated
    from models.content.post import images_complete
    from models.content.turns import Turn

NUDGE_THEN_OFFLINE = "content-image-agent-nudged-then-offline"
"""`workflow.patched` id: an image turn that calls no tool is asked again, then the offline turn answers."""


class ImageAgentNodes:
    """The `image_agent` and `image_tools` nodes; what one visit drew is reported when it leaves."""

    def __init__(self, context: ContentRun, loops: ContentLoops, images: ContentImages) -> None:
        self._context = context
        self._loops = loops
        self._images = images
        self._calls = 0
        self._before: dict[str, str] = {}

    async def image(self) -> str:
        state = self._context.state
        agent = AgentName.IMAGE
        if self._loops.enter("image", IMAGE_TOOLS):
            self._calls = 0
            self._before = dict(state.generated_image_asset_ids)
            planned = {plan.plan_id for plan in state.image_plans}
            if artifact_status(agent, state) == "stale" and state.metadata.written_at.get(agent.value) is not None:
                state.generated_image_asset_ids = {}  # the plans changed since: every image is drawn again
            else:
                state.generated_image_asset_ids = {
                    plan_id: image for plan_id, image in state.generated_image_asset_ids.items() if plan_id in planned
                }
        complete = images_complete(state)
        if complete:
            return self._leave()
        turn = await self._loops.agent_turn(nodes.IMAGE_TURN, "image", f"{AGENT_LABELS[agent]} turn")
        if not turn.tool_calls and not turn.offline and patched(NUDGE_THEN_OFFLINE):
            turn = await self._no_tool_called(turn)
        if should_continue_image(complete, len(turn.tool_calls), self._calls) == IMAGE_TOOLS:
            self._loops.record("image", turn.text, turn.tool_calls[: IMAGE_TOOL_CALL_LIMIT - self._calls])
            return IMAGE_TOOLS
        if turn.tool_calls:
            self._context.thought(
                agent,
                f"图片工具已调用 {self._calls} 次（上限 {IMAGE_TOOL_CALL_LIMIT}）：返回 Supervisor",
                level="warning",
            )
        return self._leave()

    async def _no_tool_called(self, turn: Turn) -> Turn:
        """The model answered without calling `generate_image`: nudged once, then the offline turn, announced."""
        agent = AgentName.IMAGE
        label = f"{AGENT_LABELS[agent]} turn"
        turn = await self._loops.agent_turn(nodes.IMAGE_TURN, "image", label, nudged_after=turn.text)
        if turn.tool_calls or turn.offline:
            return turn
        self._loops.go_offline("image")
        missing = len(self._context.state.image_plans) - len(self._context.state.generated_image_asset_ids)
        reason = f"图片 Agent 被提醒后仍未调用 generate_image（还缺 {missing} 张配图）：改用离线配图"
        self._context.degraded_because(agent, reason)
        return await self._loops.agent_turn(nodes.IMAGE_TURN, "image", label)

    async def image_tools(self) -> str:
        results = await self._loops.run_tools("image", self._images.generate)
        self._calls += len(results)
        for result in results:
            if result.image is not None:
                self._context.state.generated_image_asset_ids[result.image.plan_id] = result.image.image
                generated = ImageGenerated(plan_id=result.image.plan_id, image_url=result.image.image)
                self._context.events.emit("image_generated", AgentName.IMAGE, generated)
        return AgentName.IMAGE

    def _leave(self) -> str:
        state = self._context.state
        changed = state.generated_image_asset_ids != self._before
        fields = ["generated_image_asset_ids"] if changed else []
        record_write(state, AgentName.IMAGE, fields, ran=patched(CANNOT_IMPROVE))
        done = len(state.generated_image_asset_ids)
        summary = f"已生成 {done}/{len(state.image_plans)} 张配图（本轮工具调用 {self._calls} 次）"
        self._context.agent_finished(AgentName.IMAGE, summary, fields, self._loops.offline("image"))
        return SUPERVISOR
