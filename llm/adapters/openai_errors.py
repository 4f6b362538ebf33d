"""OpenAI's error documents, shared by the Chat Completions and Responses adapters (and every OpenAI-compatible
server): `{"error": {"type", "code", "message"}}`, or the flat `{"type": "error", "code", "message"}` of a
Responses stream event. A 429 whose code says the quota or billing is spent is not a rate limit."""

from typing import Any

from llm.errors import LLMError, QuotaExhaustedError, RateLimitError

QUOTA_CODES = {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"}


def openai_error_class(body: Any) -> type[LLMError] | None:
    """The error class the body's code names, or None to go by the HTTP status."""
    if not isinstance(body, dict):
        return None
    nested = body.get("error")
    error: dict[str, Any] = nested if isinstance(nested, dict) else body
    codes = {error.get("code"), error.get("type")}
    if codes & QUOTA_CODES:
        return QuotaExhaustedError
    if "rate_limit_exceeded" in codes:
        return RateLimitError
    return None
