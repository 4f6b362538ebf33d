"""Each LLM node's output limit (`models.output_limits`) names a node that exists, and the cap comes from the
provider's preset unless `LLM_MAX_OUTPUT_TOKENS` says otherwise."""

import importlib

import pytest

from llm.providers import configure_provider
from models.nodes import ActivitySpec
from models.output_limits import DEFAULT_OUTPUT_TOKENS, OUTPUT_TOKENS, output_tokens
from workflows.registry import FAMILIES


def activity_names() -> set[str]:
    names: set[str] = set()
    for family in FAMILIES:
        try:
            module = importlib.import_module(f"models.{family.name}.nodes")
        except ModuleNotFoundError:
            continue
        for value in vars(module).values():
            specs = value.values() if isinstance(value, dict) else [value]
            names |= {spec.name for spec in specs if isinstance(spec, ActivitySpec)}
    return names


def test_every_limit_names_a_registered_node() -> None:
    assert set(OUTPUT_TOKENS) <= activity_names(), set(OUTPUT_TOKENS) - activity_names()


def test_a_node_not_named_gets_the_default_and_documents_get_more() -> None:
    assert output_tokens("content.supervisor_turn") == DEFAULT_OUTPUT_TOKENS
    assert output_tokens("app_builder.product_manager") > output_tokens("writing.writer") > DEFAULT_OUTPUT_TOKENS


@pytest.mark.parametrize(("name", "cap"), [("openai", 16384), ("deepseek", 8192), ("openai-compatible", 8192)])
def test_the_cap_is_the_presets_unless_configured(name: str, cap: int) -> None:
    def configured(limit: int | None) -> int:
        provider = configure_provider(
            name, api_key="k", base_url="http://127.0.0.1:1/v1", model="m", max_output_tokens=limit
        )
        return provider.max_output_tokens

    assert configured(None) == cap
    assert configured(3000) == 3000
