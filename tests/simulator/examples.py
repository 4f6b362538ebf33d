"""Pydantic models and tools the simulator's tests ask for: a review with nested objects, enums, a bounded score
and a list (a `$defs` schema, the shape of this project's agents' answers), a map with bounded values, and a
weather tool whose arguments are a model of their own."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from llm import ToolDefinition


class Section(BaseModel):
    """One section of a reviewed chapter."""

    heading: str = Field(max_length=40)
    content: str = Field(min_length=20)


class Review(BaseModel):
    """A review: nested sections (a `$ref`), an enum, a 0–1 score, a list with a minimum length."""

    title: str
    score: float = Field(ge=0, le=1)
    verdict: Literal["pass", "revise", "fail"]
    sections: list[Section] = Field(min_length=1, max_length=5)
    tags: set[str]
    priority: int = Field(gt=0, le=5)
    note: str | None = None


class Inventory(BaseModel):
    """A map (`additionalProperties`), a constant, a date-time, a patterned slug."""

    kind: Literal["inventory"]
    counts: dict[str, int]
    checked_at: datetime
    slug: str = Field(pattern=r"^[a-z0-9-]+$")


class WeatherArguments(BaseModel):
    """The arguments of the `get_weather` tool."""

    city: str
    unit: Literal["celsius", "fahrenheit"]
    days: int = Field(ge=1, le=7)


WEATHER = ToolDefinition(
    name="get_weather", description="The forecast for a city", input_schema=WeatherArguments.model_json_schema()
)
