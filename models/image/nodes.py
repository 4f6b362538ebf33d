"""The image agent's activities: one input model per node (fields can be added compatibly) and the typed
`ActivitySpec` that names each one `image.<node>` for the worker and the workflow alike."""

from pydantic import Field

from models.base import CamelModel
from models.blobs import ImageRef
from models.errors import ErrorInfo
from models.image.state import (
    EnhancedPrompt,
    ExecutionResult,
    ImageParameters,
    Intent,
    MaskRef,
    Message,
    PreviousResult,
    PromptReview,
    QualityCheck,
    UserInput,
)
from models.nodes import ActivitySpec


class ValidateRequest(CamelModel):
    """ValidateInput's input: the user's message as it arrived."""

    user_input: UserInput


class ValidatedInput(CamelModel):
    """ValidateInput's output: the message as the run uses it, and what was changed on the way."""

    user_input: UserInput
    warnings: list[ErrorInfo] = Field(default_factory=list)


class PlannerRequest(CamelModel):
    """The Planner's input: the text, whether a mask came with it, and the session's context."""

    text: str
    has_mask: bool
    messages: list[Message] = Field(default_factory=list)
    previous: PreviousResult | None = None
    use_llm: bool = True
    """False after the LLM path failed: the Planner degrades to keyword matching (seed 000 §8.4)."""


class RagRequest(CamelModel):
    """RAG's input: the prompt to enhance and the style (and subject) to look up."""

    original: str
    style: str | None = None
    subject: str | None = None
    limit: int = 3
    min_similarity: float = 0.6


class ExecutorRequest(CamelModel):
    """The Executor's input: what to render, and the images and mask it starts from (by reference)."""

    session_id: str
    intent: Intent
    prompt: str
    seed: int
    parameters: ImageParameters
    mask: MaskRef | None = None
    base_image: ImageRef | None = None
    preferred_model: str | None = None
    """The model that makes the image: the user's `preferredModel`, or the deployment's default hosted model."""
    owner: str = ""
    """The principal the image is stored for (the run's owner); empty: for nobody."""


class CriticRequest(CamelModel):
    """The Critic's input: the result to check, against the intent, prompt, base image and mask."""

    intent: Intent
    prompt: str
    result: ExecutionResult
    mask: MaskRef | None = None
    base_image: ImageRef | None = None
    use_llm: bool = True
    """Whether this activity asks the LLM for its review of the prompt (False once the review has failed in this
    run, or when `review` brings it)."""
    review: PromptReview | None = None
    """The LLM's review of the prompt, taken beside the Executor (`PROMPT_REVIEW`): the checks use it."""


class PromptReviewRequest(CamelModel):
    """The Critic's question to the LLM: does the prompt that makes the image express the intent's subject and
    style? It reads the prompt, not the image, so it is asked while the Executor draws."""

    intent: Intent
    prompt: str


VALIDATE_INPUT = ActivitySpec("image.validate_input", ValidateRequest, ValidatedInput)
PLANNER = ActivitySpec("image.planner", PlannerRequest, Intent)
RAG = ActivitySpec("image.rag", RagRequest, EnhancedPrompt)
EXECUTOR = ActivitySpec("image.executor", ExecutorRequest, ExecutionResult)
CRITIC = ActivitySpec("image.critic", CriticRequest, QualityCheck)
PROMPT_REVIEW = ActivitySpec("image.critic_review", PromptReviewRequest, PromptReview)
