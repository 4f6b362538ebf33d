"""What Google's official `google-genai` SDK makes of a Gemini fixture: the peer the project's client is compared to.

The SDK has no stream accumulator: `generate_content_stream` yields one `GenerateContentResponse` per SSE event and
the documented way to consume it is to read each chunk (`chunk.text`, `chunk.function_calls`). So a stream is
combined here the way the docs do it: text is the concatenation of every chunk's `.text` (which already leaves out
`thought` parts), tool calls are every chunk's `function_calls` in order (Gemini sends each call whole), and usage is
the last chunk's `usage_metadata` (a running total, not a delta). Thought parts are marked `thought=True` and
`.text` skips them; `FunctionCall.id` is passed through (None when the wire has no `id`, as on the Developer API).

Retries are off (`HttpRetryOptions(attempts=1)`, also the SDK default) and so is `automatic_continuation`, the
SDK's own re-request of a stream that ends without a finish reason, so that one fixture answers exactly one call.
"""

from google import genai
from google.genai import types

from tests.llm.loopback import Loopback
from tests.llm.outcome import Outcome, ToolCallOutcome

MODEL = "gemini-2.5-flash"
PROMPTS = {
    "text": "用一句话介绍杭州。",
    "tools": "杭州现在天气怎么样？现在几点了？",
    "thought": "西湖有多大？",
}
TOOLS = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="Get the current weather for a city.",
            parameters_json_schema={
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. 杭州"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        ),
        # No parameters at all: the API rejects an OBJECT schema with empty `properties`.
        types.FunctionDeclaration(name="get_time", description="Get the current local time."),
    ]
)


def _client(loopback: Loopback) -> genai.Client:
    return genai.Client(
        vertexai=False,  # never the Vertex AI / ADC path, whatever the environment says
        api_key="test-key",
        http_options=types.HttpOptions(
            base_url=loopback.base_url,
            api_version="v1beta",
            retry_options=types.HttpRetryOptions(attempts=1),  # one attempt: no retries
        ),
    )


def _config(stem: str) -> types.GenerateContentConfig:
    config = types.GenerateContentConfig(automatic_continuation=False)
    if stem.startswith("tools"):
        config.tools = [TOOLS]
        config.automatic_function_calling = types.AutomaticFunctionCallingConfig(disable=True)
    if stem.startswith("thought"):
        config.thinking_config = types.ThinkingConfig(include_thoughts=True)
    return config


def _calls(response: types.GenerateContentResponse) -> list[ToolCallOutcome]:
    return [
        ToolCallOutcome(id=call.id, name=call.name or "", arguments=dict(call.args or {}))
        for call in response.function_calls or []
    ]


def _outcome(
    text: str, calls: list[ToolCallOutcome], usage: types.GenerateContentResponseUsageMetadata | None
) -> Outcome:
    """Usage: input = promptTokenCount, output = candidatesTokenCount + thoughtsTokenCount, total = totalTokenCount."""
    usage = usage or types.GenerateContentResponseUsageMetadata()
    output = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
    return Outcome(text, tuple(calls), usage.prompt_token_count or 0, output, usage.total_token_count or 0)


def official_outcome(loopback: Loopback, stem: str) -> Outcome:
    loopback.queue(f"gemini/{stem}")
    prompt = PROMPTS.get(stem.split("_")[0], PROMPTS["text"])
    with _client(loopback) as client:
        if "stream" not in stem:  # the `*_stream` fixtures, and `error_midstream`
            response = client.models.generate_content(model=MODEL, contents=prompt, config=_config(stem))
            return _outcome(response.text or "", _calls(response), response.usage_metadata)
        text = ""
        calls: list[ToolCallOutcome] = []
        usage: types.GenerateContentResponseUsageMetadata | None = None
        for chunk in client.models.generate_content_stream(model=MODEL, contents=prompt, config=_config(stem)):
            text += chunk.text or ""
            calls += _calls(chunk)
            usage = chunk.usage_metadata or usage
        return _outcome(text, calls, usage)
