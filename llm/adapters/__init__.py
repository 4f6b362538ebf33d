"""One wire adapter per protocol: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini."""
