"""The image agent's tool loop, as activities: one LLM turn (`supervisor.image_turn`: `generate_image` calls, or
done) and one tool call. A call renders one planned image into the blob store and the state gets its `blob:`
reference: in one activity on the local renderer or a synchronous image API (`content.image_tool`), or, on a
task-based API, as `content.image_submit`, the workflow's polls (`content.image_poll`, and
`content.image_cancel` for a task the run leaves), and `content.image_fetch`. Without an LLM
the offline turn asks for every image not yet made. A turn asked again after an answer that called no tool
(`nudged_after`) carries that answer and a nudge to call `generate_image`. The model reads the post's whole text
with the plans (seed 001), so a call's own `prompt` can draw what the text says.

The user's reference images go with each request to a model that takes them (`max_references`: OpenAI's GPT image
models), read from the blob store in the activity; for any other model (and the local renderer) the tool result
says they were not sent, and only the style measured from them (the image planner's prompt) reaches the image."""

from activities.common.failures import permanent
from activities.common.hosted_providers import HostedProviders
from activities.common.llm_calls import model_turn
from activities.common.provider_failures import provider_failure
from activities.content.prompts import AGENT_PROMPTS
from imaging.image_provider import ImageProvider, ImageRequest
from imaging.providers.errors import ImageProviderError
from llm import LLMClient, LLMRequest, Message, ToolCall, ToolDefinition
from models.blobs import blob_ref, key_of
from models.content import nodes
from models.content.agents import AgentName
from models.content.artifacts import ImagePlan
from models.content.turns import (
    GENERATE_IMAGE as GENERATE_IMAGE_TOOL,
)
from models.content.turns import (
    GeneratedImage,
    HostedImageFetch,
    ToolCallRequest,
    ToolCallResult,
    Turn,
    TurnRequest,
    planned_image,
)
from models.errors import ErrorCode
from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll
from stores.blob_store import BlobStore

STYLE_STRENGTH = 0.7
WHOLE_TEXT_CHARS = 6000
"""How much of the post's body the image turn reads."""
GENERATE_IMAGE = ToolDefinition(
    name=GENERATE_IMAGE_TOOL,
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


def generate_image_for(plan_ids: list[str]) -> ToolDefinition:
    """`generate_image` whose `plan_id` is one of the plans still without an image (any plan id when none)."""
    if not plan_ids:
        return GENERATE_IMAGE
    schema = GENERATE_IMAGE.input_schema
    plan_id = schema["properties"]["plan_id"] | {"enum": plan_ids}
    properties = schema["properties"] | {"plan_id": plan_id}
    return GENERATE_IMAGE.model_copy(update={"input_schema": schema | {"properties": properties}})


class ImageAgent:
    """image_agent's turns and tools, over the image providers, the blob store and the LLM (None: offline).
    `provider` is the local renderer, `direct` the synchronous API for a call that names a model, `hosted` the
    task-based APIs."""

    def __init__(
        self,
        provider: ImageProvider,
        blobs: BlobStore,
        llm: LLMClient | None = None,
        *,
        direct: ImageProvider | None = None,
        hosted: HostedProviders | None = None,
    ) -> None:
        self._provider = provider
        self._direct = direct
        self._hosted = hosted or HostedProviders([])
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
        messages = [Message.user(f"{_whole_text(request)}\n\n还没有图片的配图计划：\n{plans}"), *request.conversation]
        if request.nudged_after is not None:
            ids = "、".join(plan.plan_id for plan in missing)
            nudge = f"还有配图没有生成（{ids}）：请调用 generate_image，每次一个 plan_id。"
            messages += [Message.assistant(request.nudged_after or "（空）"), Message.user(nudge)]
        call = LLMRequest(
            messages=tuple(messages),
            system=AGENT_PROMPTS[AgentName.IMAGE],
            tools=(generate_image_for([plan.plan_id for plan in missing]),),
        )
        response = await model_turn(self._llm, call)
        return Turn(tool_calls=list(response.tool_calls), text=response.text[:2000], offline=False)

    @nodes.IMAGE_TOOL.defn
    async def image_tool(self, request: ToolCallRequest) -> ToolCallResult:
        planned = _planned(request)
        if isinstance(planned, ToolCallResult):
            return planned
        plan, prompt = planned
        provider = self._direct if request.model is not None and self._direct is not None else self._provider
        references = await self._references(request, provider.max_references(request.model))
        png = await provider.generate(_image_request(plan, prompt, request.model, references))
        return await self._stored(request, plan, png, provider.name, len(references))

    @nodes.IMAGE_SUBMIT.defn
    async def image_submit(self, request: ToolCallRequest) -> SubmittedTask:
        planned = _planned(request)
        if isinstance(planned, ToolCallResult):  # the workflow submits only calls of a known plan
            raise permanent(ErrorCode.AGENT_FAILED, planned.content)
        plan, prompt = planned
        provider = self._hosted.for_model(request.model)
        references = await self._references(request, provider.max_references(request.model))
        try:
            return await provider.submit(_image_request(plan, prompt, request.model, references))
        except ImageProviderError as err:
            raise provider_failure(err) from err

    @nodes.IMAGE_POLL.defn
    async def image_poll(self, request: PollRequest) -> TaskPoll:
        return await self._hosted.poll(request)

    @nodes.IMAGE_CANCEL.defn
    async def image_cancel(self, request: PollRequest) -> Cancelled:
        return await self._hosted.cancel(request)

    @nodes.IMAGE_FETCH.defn
    async def image_fetch(self, request: HostedImageFetch) -> ToolCallResult:
        planned = _planned(request.call)
        if isinstance(planned, ToolCallResult):
            raise permanent(ErrorCode.AGENT_FAILED, planned.content)
        provider = self._hosted.named(request.task.provider)
        try:
            png = await provider.fetch(request.image_url)
        except ImageProviderError as err:
            raise provider_failure(err) from err
        sent = min(len(request.call.view.reference_images), provider.max_references(request.call.model))
        return await self._stored(request.call, planned[0], png, f"{provider.name} {request.call.model}", sent)

    async def _references(self, request: ToolCallRequest, limit: int) -> list[bytes]:
        """The run's reference images a model that takes `limit` of them gets (the first `limit`; none when 0)."""
        keys = [key_of(ref) for ref in request.view.reference_images[:limit]]
        return [await self._blobs.aget(key) for key in keys if key]

    async def _stored(
        self, request: ToolCallRequest, plan: ImagePlan, png: bytes, made_by: str, references_sent: int
    ) -> ToolCallResult:
        image = blob_ref(await self._blobs.aput(png, kind="images", ext="png", owner=request.owner or None))
        summary = f"{plan.plan_id}（{plan.slot}）已生成 {plan.width}x{plan.height}，{made_by}"
        return ToolCallResult(
            call_id=request.call.id,
            name=request.call.name,
            content=f"{plan.plan_id} 已生成：{image}（{plan.width}x{plan.height}）",
            summary=summary + _references_note(len(request.view.reference_images), references_sent),
            image=GeneratedImage(plan_id=plan.plan_id, image=image),
        )


def _planned(request: ToolCallRequest) -> tuple[ImagePlan, str] | ToolCallResult:
    """The call's plan and prompt, or the error result the model reads for a call that names no known plan."""
    planned = planned_image(request)
    if planned is not None:
        return planned
    call = request.call
    known = ", ".join(plan.plan_id for plan in request.view.image_plans) or "（没有计划）"
    message = f"无法执行 {call.name}(plan_id={call.arguments.get('plan_id')!r})：可用的计划 {known}"
    return ToolCallResult(call_id=call.id, name=call.name, content=message, is_error=True, summary=message)


def _whole_text(request: TurnRequest) -> str:
    """The user's topic and the post's whole text for the image turn (seed 001: images are generated with the full
    text as context, not bound to a paragraph), cut at `WHOLE_TEXT_CHARS`."""
    topic = f"用户话题：{request.view.topic}"
    content = request.view.generated_content
    if content is None or not content.body.strip():
        return f"{topic}\n帖子正文还没有写好：按计划和话题生成。"
    return f"{topic}\n帖子全文（配图依据）：\n{content.title}\n{content.body[:WHOLE_TEXT_CHARS]}"


def _references_note(references: int, sent: int) -> str:
    """What the timeline says about the run's reference images for one image: sent, or why not."""
    if references == 0:
        return ""
    if sent == 0:
        return "；参考图没有发给它（它不接受参考图），只用了测得的风格"
    if sent < references:
        return f"；参考图发了 {sent}/{references} 张（它最多接受 {sent} 张）"
    return f"；参考图 {sent} 张已一并发送"


def _image_request(plan: ImagePlan, prompt: str, model: str | None, references: list[bytes]) -> ImageRequest:
    return ImageRequest(
        task_type="text_to_image",
        prompt=prompt,
        seed=plan.seed,
        width=plan.width,
        height=plan.height,
        style_strength=STYLE_STRENGTH,
        model=model,
        references=references,
    )
