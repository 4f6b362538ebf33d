"""Provider answers built in code, for tests that need a particular reply (an intent, a review) rather than one
of the recorded fixtures, and the settings of a worker whose LLM is the loopback server (OpenAI Chat protocol)."""

import json
from typing import Any

from tests.llm.loopback import Fixture


def chat_completion(content: str | dict[str, Any], *, prompt_tokens: int = 120, completion_tokens: int = 40) -> Fixture:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return Fixture.json(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1763700000,
            "model": "gpt-4.1-mini-2025-04-14",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def llm_settings(base_url: str) -> dict[str, Any]:
    """Settings fields configuring the OpenAI provider, over Chat Completions, at the loopback server."""
    return {
        "llm_provider": "openai",
        "llm_protocol": "chat",
        "openai_api_key": "test-key",
        "llm_base_url": f"{base_url}/v1",
    }
