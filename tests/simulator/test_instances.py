"""How the simulator writes references inside one answer (tests/simulator/instances.py): ids unique, and a list
named like a reference to siblings naming only objects written before it."""

import random

import pytest
from pydantic import BaseModel, Field

from tests.simulator.instances import Sizes, instance


class Step(BaseModel):
    """A step of a plan, waiting for earlier ones."""

    id: str
    title: str
    depends_on: list[str] = Field(default_factory=list)


class Steps(BaseModel):
    """A plan of steps."""

    steps: list[Step] = Field(min_length=1)


class CamelStep(BaseModel):
    """A step with a short id, the steps it comes `after`, and notes that are no references."""

    id: str = Field(max_length=8)
    after: list[str]
    notes: list[str]


class CamelSteps(BaseModel):
    """Steps under another name."""

    items: list[CamelStep]


@pytest.mark.parametrize("seed", range(40))
def test_a_reference_list_names_only_objects_completed_earlier(seed: int) -> None:
    made = Steps.model_validate(
        instance(Steps.model_json_schema(), random.Random(seed), "zh", Sizes((5, 10), (1, 3), (3, 6)))
    )

    ids = [step.id for step in made.steps]
    assert len(set(ids)) == len(ids)
    for index, step in enumerate(made.steps):
        assert step.depends_on == [earlier for earlier in ids[:index] if earlier in step.depends_on]
    assert made.steps[0].depends_on == []


def test_across_seeds_references_are_sometimes_made_and_sometimes_not() -> None:
    counts = set()
    for seed in range(40):
        made = CamelSteps.model_validate(instance(CamelSteps.model_json_schema(), random.Random(seed), "en"))
        counts |= {len(step.after) for step in made.items[1:]}
        ids = [step.id for step in made.items]
        assert len(set(ids)) == len(ids) and all(len(made_id) <= 8 for made_id in ids)
        assert all(note not in ids for step in made.items for note in step.notes)
    assert 0 in counts and max(counts) >= 2


class ImagePlan(BaseModel):
    """A plan with a patterned id named after it, as the content family's image plans have (`p1`, `p2`)."""

    plan_id: str = Field(pattern=r"^p[0-9]{1,2}$")
    prompt: str


class Plans(BaseModel):
    """Several plans."""

    plans: list[ImagePlan] = Field(min_length=4, max_length=6)


@pytest.mark.parametrize("seed", range(20))
def test_patterned_ids_are_numbered_on_and_never_repeat(seed: int) -> None:
    made = Plans.model_validate(instance(Plans.model_json_schema(), random.Random(seed), "zh"))

    ids = [plan.plan_id for plan in made.plans]
    assert len(set(ids)) == len(ids) >= 4


class Tools(BaseModel):
    """At most two tools, one of them `write`."""

    tools: list[str] = Field(
        max_length=2, json_schema_extra={"items": {"enum": ["read", "list", "write"]}, "contains": {"const": "write"}}
    )


@pytest.mark.parametrize("seed", range(20))
def test_an_array_with_contains_has_an_item_for_it(seed: int) -> None:
    made = instance(Tools.model_json_schema(), random.Random(seed), "en")

    assert "write" in made["tools"] and len(made["tools"]) <= 2
