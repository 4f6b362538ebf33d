"""A writer's project as the API shows it: the project, its chapters and its characters (seed 002's material
that every answer is grounded in), and the request bodies that create or change them."""

from datetime import datetime

from pydantic import Field

from models.base import CamelModel, RequestModel

MAX_NAME = 200
MAX_CHAPTER_CHARS = 100_000
"""A long chapter is 10 000 to 20 000 characters; five times that is a mistake, not a chapter."""
MAX_DESCRIPTION_CHARS = 20_000


class ProjectIn(RequestModel):
    """`POST /v1/writing/projects`."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    genre: str | None = Field(default=None, max_length=MAX_NAME)


class ChapterIn(RequestModel):
    """A chapter to add or the new text of one."""

    title: str = Field(min_length=1, max_length=MAX_NAME)
    content: str = Field(default="", max_length=MAX_CHAPTER_CHARS)


class CharacterIn(RequestModel):
    """A character to add or the new description of one."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)


class Project(CamelModel):
    """A project as the API shows it, with how many chapters and characters it has."""

    project_id: str
    name: str
    genre: str | None
    created_at: datetime
    chapters: int = 0
    characters: int = 0


class Chapter(CamelModel):
    """One chapter of a project."""

    chapter_id: str
    project_id: str
    position: int
    """1 for the first chapter added, and so on (the chapter number a writer refers to)."""
    title: str
    content: str
    updated_at: datetime


class Character(CamelModel):
    """One character of a project."""

    character_id: str
    project_id: str
    name: str
    description: str
    updated_at: datetime
