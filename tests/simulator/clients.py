"""The project's own LLM client pointed at the simulator, for the simulator's tests: built from Settings as
runtime/llm_client.py builds a worker's (Temporal-style: no retries of its own), and the streamed twin of what
`chat_with_json` sends."""

from typing import Any

import httpx
from pydantic import BaseModel

from llm import LLMClient, LLMRequest, Message
from llm.json_output import json_instructions
from llm.types import JsonOutput
from models.settings import Settings
from runtime.llm_client import build_llm_client
from tests.simulator.fixtures import simulator_settings
from tests.simulator.requests import Protocol
from tests.simulator.server import Simulator

PROTOCOLS: list[Protocol] = ["openai_chat", "anthropic"]


def client_for(simulator: Simulator, protocol: Protocol, http: httpx.AsyncClient, **fields: Any) -> LLMClient:
    """The client of a worker configured with the simulator as its model (`fields` override settings)."""
    settings = Settings(_env_file=None, **(simulator_settings(simulator, protocol) | fields))
    client = build_llm_client(settings, http)
    assert client is not None
    return client


def json_request(schema: type[BaseModel], text: str, client: LLMClient) -> LLMRequest:
    """What `chat_with_json` sends, for a streamed call: the schema in JSON mode or in the prompt."""
    system = ""
    if client.provider.adapter.json_mode != "json_schema":
        system = json_instructions(schema.model_json_schema())
    output = JsonOutput(name=schema.__name__, schema=schema.model_json_schema())
    return LLMRequest(messages=(Message.user(text),), system=system, json_output=output)
