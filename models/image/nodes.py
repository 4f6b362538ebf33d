"""One input model per activity node, so fields can be added compatibly (STYLE: one input model)."""

from pydantic import Field

from models.agent import (
    ErrorInfo,
    ExecutionResult,
    ImageParameters,
    Intent,
    MaskRef,
    Message,
    PreferredModel,
    PreviousResult,
    UserInput,
)
from models.base import CamelModel


class ValidateRequest(CamelModel):
    user_input: UserInput


class ValidatedInput(CamelModel):
    user_input: UserInput
    warnings: list[ErrorInfo] = Field(default_factory=list)


class PlannerRequest(CamelModel):
    text: str
    has_mask: bool
    messages: list[Message] = Field(default_factory=list)
    previous: PreviousResult | None = None
    use_llm: bool = True
    """False after the LLM path failed: the Planner degrades to keyword matching (seed 000 §8.4)."""


class RagRequest(CamelModel):
    original: str
    style: str | None = None
    subject: str | None = None
    limit: int = 3
    min_similarity: float = 0.6


class ExecutorRequest(CamelModel):
    session_id: str
    intent: Intent
    prompt: str
    seed: int
    parameters: ImageParameters
    mask: MaskRef | None = None
    base_image_url: str | None = None
    preferred_model: PreferredModel | None = None


class CriticRequest(CamelModel):
    intent: Intent
    prompt: str
    result: ExecutionResult
    mask: MaskRef | None = None
    base_image_url: str | None = None


class ActivityName:
    """Registered activity names; each is also the node id the workflow graph and events use."""

    VALIDATE_INPUT = "validate_input"
    PLANNER = "planner"
    RAG = "rag"
    EXECUTOR = "executor"
    CRITIC = "critic"
