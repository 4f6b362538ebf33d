"""OpenAI's error documents, shared by the Chat Completions and Responses adapters (and every OpenAI-compatible
server): `{"error": {"type", "code", "message"}}`, or the flat `{"type": "error", "code", "message"}` of a
Responses stream event. A 429 whose code says the quota or billing is spent is not a rate limit.

Inside a 200 stream there is no HTTP status, so the document must say what failed. Compatible servers name the
status they mean in their own ways: Groq adds `status_code`, vLLM puts the status in `code` as a number, LiteLLM
as a digit string; otherwise `type` tells a refused request (`invalid_request_error`) from a server failure. The
message is never read: "token limit reached" is a context-length refusal on one server and a rate limit on the
next."""

from typing import Any

from llm.errors import LLMError, QuotaExhaustedError, RateLimitError

QUOTA_CODES = {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"}
HTTP_ERROR_STATUSES = range(400, 600)


def openai_error_class(body: Any) -> type[LLMError] | None:
    """The error class the body's code names, or None to go by the HTTP status."""
    error = _error_fields(body)
    codes = {error.get("code"), error.get("type")}
    if codes & QUOTA_CODES:
        return QuotaExhaustedError
    if "rate_limit_exceeded" in codes:
        return RateLimitError
    return None


def openai_stream_error_status(body: Any) -> int:
    """The HTTP status an error document inside a 200 stream stands for: the one it names (`status_code`, or an
    HTTP status in `code`), else 400 for `invalid_request_error`, else 500 (a failure it does not explain is
    taken for the server's, and retried)."""
    error = _error_fields(body)
    for named in (error.get("status_code"), error.get("code")):
        if isinstance(named, int | str) and str(named).isdigit() and int(named) in HTTP_ERROR_STATUSES:
            return int(named)
    return 400 if error.get("type") == "invalid_request_error" else 500


def _error_fields(body: Any) -> dict[str, Any]:
    """The error object of a document, nested under `error` or flat; empty when the body is not a document."""
    if not isinstance(body, dict):
        return {}
    nested = body.get("error")
    return nested if isinstance(nested, dict) else body
