"""The codes only the writing family's runs and routes carry (the platform's own are `models.errors.ErrorCode`)."""

from models.errors import FamilyErrorCode


class WritingErrorCode(FamilyErrorCode):
    """Why a writing run or request failed."""

    PROJECT_NOT_FOUND = "PROJECT_NOT_FOUND"
    CHAPTER_NOT_FOUND = "CHAPTER_NOT_FOUND"
    CHARACTER_NOT_FOUND = "CHARACTER_NOT_FOUND"
    PLOT_LOOP_NOT_FOUND = "PLOT_LOOP_NOT_FOUND"
    STYLE_SAMPLE_NOT_FOUND = "STYLE_SAMPLE_NOT_FOUND"
    WORLD_NOTE_NOT_FOUND = "WORLD_NOTE_NOT_FOUND"
    RELATIONSHIP_NOT_FOUND = "RELATIONSHIP_NOT_FOUND"
    RELATIONSHIP_EXISTS = "RELATIONSHIP_EXISTS"
    ROUTER_DEGRADED = "ROUTER_DEGRADED"
    """The model's routing failed for good: the keyword rules named the intent (an `error` event, the run goes on)."""
    PREPROCESSING_TASK_FAILED = "PREPROCESSING_TASK_FAILED"
    """One preprocessing task failed for good: the run goes on with the others' context (an `error` event)."""
    CHAIN_STEP_FAILED = "CHAIN_STEP_FAILED"
    CHAIN_CONTEXT_INVALID = "CHAIN_CONTEXT_INVALID"
    CHECK_FAILED = "CHECK_FAILED"
    KNOWLEDGE_UPDATE_FAILED = "KNOWLEDGE_UPDATE_FAILED"
    RELATIONSHIP_UPDATE_FAILED = "RELATIONSHIP_UPDATE_FAILED"
    ITEM_CHANGED = "ITEM_CHANGED"
    INVALID_IF_MATCH = "INVALID_IF_MATCH"
    CHAPTER_ORDER_INVALID = "CHAPTER_ORDER_INVALID"
    CHAPTER_VERSION_NOT_FOUND = "CHAPTER_VERSION_NOT_FOUND"
    DRAFT_NOT_READY = "DRAFT_NOT_READY"
