"""The image agent's tool loop, as activities: one LLM turn (`supervisor.image_turn`: `generate_image` calls, or
done) and one tool call (`supervisor.image_tool`: renders one planned image with the image provider into the blob
store; the state gets its `blob:` reference). Without an LLM the offline turn asks for every image not yet made."""

from activities.common.llm_calls import llm_failure, llm_timeout
from activities.image.image_provider import ImageProvider, ImageRequest
from activities.supervisor.prompts import AGENT_PROMPTS
from llm import LLMClient, LLMRequest, Message, ToolCall, ToolDefinition
from llm.errors import LLMError
from models.blobs import blob_ref
from models.supervisor import nodes
from models.supervisor.agents import AgentName
from models.supervisor.artifacts import ImagePlan
from models.supervisor.turns import GeneratedImage, ToolCallRequest, ToolCallResult, Turn, TurnRequest
from stores.blob_store import LocalBlobStore

STYLE_STRENGTH = 0.7
GENERATE_IMAGE = ToolDefinition(
    name="generate_image",
    description="按一个配图计划生成图片（存入图库），返回图片引用。每次调用生成一张。",
    input_schema={
        "type": "object",
        "properties": {
            "plan_id": {"type": "string", "description": "配图计划的 id，如 p1"},
            "prompt": {"type": "string", "description": "可选：改写后的提示词（默认用计划里的）"},
        },
        "required": ["plan_id"],
    },
)


class ImageAgent:
    """image_agent's turns and tools, over the image provider, the blob store and the LLM (None: offline)."""

    def __init__(self, provider: ImageProvider, blobs: LocalBlobStore, llm: LLMClient | None = None) -> None:
        self._provider = provider
        self._blobs = blobs
        self._llm = llm

    @nodes.IMAGE_TURN.defn
    async def image_turn(self, request: TurnRequest) -> Turn:
        missing = [
            plan for plan in request.view.image_plans if plan.plan_id not in request.view.generated_image_asset_ids
        ]
        if self._llm is None or not request.use_llm:
            calls = [
                ToolCall(id=f"gen-{plan.plan_id}", name=GENERATE_IMAGE.name, arguments={"plan_id": plan.plan_id})
                for plan in missing
            ]
            text = f"生成 {len(calls)} 张配图" if calls else "配图已全部生成"
            return Turn(tool_calls=calls, text=text, offline=True)
        plans = "\n".join(f"- {plan.plan_id}（{plan.slot}）：{plan.prompt}" for plan in missing) or "（全部已生成）"
        call = LLMRequest(
            messages=(Message.user(f"还没有图片的配图计划：\n{plans}"), *request.conversation),
            system=AGENT_PROMPTS[AgentName.IMAGE],
            tools=(GENERATE_IMAGE,),
        )
        try:
            response = await self._llm.complete(call, timeout=llm_timeout(self._llm.timeout))
        except LLMError as err:
            raise llm_failure(err) from err
        return Turn(tool_calls=list(response.tool_calls), text=response.text[:2000], offline=False)

    @nodes.IMAGE_TOOL.defn
    async def image_tool(self, request: ToolCallRequest) -> ToolCallResult:
        call = request.call
        plan_id = call.arguments.get("plan_id")
        plan = next((plan for plan in request.view.image_plans if plan.plan_id == plan_id), None)
        if call.name != GENERATE_IMAGE.name or plan is None:
            known = ", ".join(plan.plan_id for plan in request.view.image_plans) or "（没有计划）"
            message = f"无法执行 {call.name}(plan_id={plan_id!r})：可用的计划 {known}"
            return ToolCallResult(call_id=call.id, name=call.name, content=message, is_error=True, summary=message)
        prompt = str(call.arguments.get("prompt") or plan.prompt)[:800]
        png = await self._provider.generate(_image_request(plan, prompt))
        image = blob_ref(await self._blobs.aput(png, kind="images", ext="png"))
        return ToolCallResult(
            call_id=call.id,
            name=call.name,
            content=f"{plan.plan_id} 已生成：{image}（{plan.width}x{plan.height}）",
            summary=f"{plan.plan_id}（{plan.slot}）已生成 {plan.width}x{plan.height}，{self._provider.name}",
            image=GeneratedImage(plan_id=plan.plan_id, image=image),
        )


def _image_request(plan: ImagePlan, prompt: str) -> ImageRequest:
    return ImageRequest(
        task_type="text_to_image",
        prompt=prompt,
        seed=plan.seed,
        width=plan.width,
        height=plan.height,
        style_strength=STYLE_STRENGTH,
    )
