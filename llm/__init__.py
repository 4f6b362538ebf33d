"""The project's LLM client (seed 003 §4–7): four wire protocols over httpx, streaming, tools, typed errors.

    provider = configure_provider("deepseek", api_key=...)
    async with LLMClient(provider) as client:
        answer = await client.complete(LLMRequest(messages=(Message.user("你好"),)))

The library does not depend on Temporal; `activities/common/llm_calls.py` maps its errors onto Temporal retries.
"""

from llm.client import LLMClient, LLMStream
from llm.errors import LLMError
from llm.providers import PRESETS, Provider, configure_provider
from llm.retry import RetryConfig, RetryEngine
from llm.tools import ToolError, ToolExecutor
from llm.types import (
    Done,
    LLMRequest,
    LLMResponse,
    Message,
    StreamEvent,
    TextDelta,
    Thinking,
    TokenUsage,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolDefinition,
    ToolResultPart,
)

__all__ = [
    "PRESETS",
    "Done",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResponse",
    "LLMStream",
    "Message",
    "Provider",
    "RetryConfig",
    "RetryEngine",
    "StreamEvent",
    "TextDelta",
    "Thinking",
    "TokenUsage",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolDefinition",
    "ToolError",
    "ToolExecutor",
    "ToolResultPart",
    "configure_provider",
]
