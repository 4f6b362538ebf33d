"""The image agent's state (seed 000 §2.1, 004 §3) and the pieces each node produces.

Binary data never lives here: masks and images are blob keys, and a link to an image is its `blob:` reference,
which the gateway serves as its own URL (`models.blobs`).
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from models.base import CamelModel
from models.blobs import BlobLink, ImageRef
from models.errors import ErrorInfo
from models.image.genui import GenUIComponent
from models.runs import GraphPosition

IntentAction = Literal["generate_image", "inpainting", "adjust_parameters", "unknown"]
TaskType = Literal["text_to_image", "inpainting", "parameter_adjustment"]
PreferredModel = Literal["qwen-image", "qwen-image-max", "qwen-image-plus", "z-image-turbo"]
Role = Literal["user", "assistant", "system"]

TASK_TYPE_FOR_ACTION: dict[str, TaskType] = {
    "generate_image": "text_to_image",
    "inpainting": "inpainting",
    "adjust_parameters": "parameter_adjustment",
}
"""The Executor's task for each actionable intent (seed 004 §4.3)."""


class Message(CamelModel):
    """One entry of a session's conversation (seed 000 §2.1 `messages`)."""

    role: Role
    content: str
    timestamp: datetime


class MaskRef(CamelModel):
    """A mask after the claim check: its PNG/JPG and its drawn paths (JSON) live in the blob store, already
    validated by the gateway where the bytes arrived; `image` is the picture the mask applies to."""

    blob_key: str | None = None
    paths_key: str | None = None
    image: ImageRef | None = None


class UserInput(CamelModel):
    """Seed 000 §2.1 `userInput`: the text, the mask (by reference) and the preferred model."""

    text: str
    mask_data: MaskRef | None = None
    preferred_model: PreferredModel | None = None
    allow_fallback: bool | None = None
    """None: the deployment's `ALLOW_IMAGE_FALLBACK`."""


class ImageParameters(CamelModel):
    """Generation parameters a user can adjust (`adjust_parameters`)."""

    width: int = 800
    height: int = 600
    style_strength: float = 0.7


class Intent(CamelModel):
    """Planner output (seed 000 §3.1 JSON plus 004's `prompt` and `parameters`)."""

    action: IntentAction
    subject: str | None = None
    style: str | None = None
    prompt: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str = ""
    raw_response: str = ""
    source: Literal["mask", "llm", "keywords"] = "keywords"


class RetrievedStyle(CamelModel):
    """One style the RAG node found, with its prompt fragment and calibrated similarity."""

    style: str
    prompt: str
    similarity: float


class EnhancedPrompt(CamelModel):
    """RAG output: the original prompt, the styles retrieved and the final prompt."""

    original: str
    retrieved: list[RetrievedStyle] = Field(default_factory=list)
    final: str


class ExecutionResult(CamelModel):
    """Executor output (seed 004 §4.3): the stored image and the parameters that made it."""

    image_url: BlobLink
    """The image's `blob:` reference (the gateway serves it as a URL)."""
    blob_key: str
    task_type: TaskType
    prompt: str
    seed: int
    width: int
    height: int
    style_strength: float
    metadata: dict[str, Any] = Field(default_factory=dict)


class CriticCheck(CamelModel):
    """One explainable check behind the Critic's score."""

    name: str
    passed: bool
    weight: float
    detail: str


class PromptReview(BaseModel):
    """An LLM's judgement of whether the prompt expresses the requested subject and style (the Critic asks for
    it when a provider is configured; it replaces the keyword test for those two checks)."""

    subject_covered: bool
    style_covered: bool
    suggestion: str = ""
    """One sentence, in Chinese, on how to improve the prompt."""


class QualityCheck(CamelModel):
    """The Critic's verdict (seed 000 §3.4): score, whether to regenerate, and the checks behind it."""

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    needs_regeneration: bool = False
    feedback: str | None = None
    suggestions: list[str] = Field(default_factory=list)
    checks: list[CriticCheck] = Field(default_factory=list)
    degraded: bool = False
    llm_review_failed: bool = False
    """The LLM's prompt review failed and keywords answered; later Critic rounds of the run skip the LLM."""


class PreviousResult(CamelModel):
    """What a session remembers of its last image, for "再调整一下" (seed 000 §5.2)."""

    blob_key: str
    prompt: str
    subject: str | None = None
    style: str | None = None
    width: int
    height: int
    style_strength: float
    seed: int


class ImageAgentMetadata(GraphPosition):
    """Seed 000 §2.1 `metadata`: the run's place in the graph plus its session, start and regenerations."""

    session_id: str
    start_time: datetime | None = None
    retry_count: int = 0


class ImageAgentState(CamelModel):
    """The whole state of one run, served by `GET /v1/runs/{id}` with the seed's field names."""

    messages: list[Message] = Field(default_factory=list)
    user_input: UserInput
    intent: Intent | None = None
    enhanced_prompt: EnhancedPrompt | None = None
    execution_result: ExecutionResult | None = None
    quality_check: QualityCheck | None = None
    ui_components: list[GenUIComponent] = Field(default_factory=list)
    error: ErrorInfo | None = None
    metadata: ImageAgentMetadata

    @property
    def position(self) -> GraphPosition:
        return self.metadata
