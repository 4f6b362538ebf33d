"""A model that can code, for the app builder's runs on the model simulator: the simulator's `write_file` calls
carry the files of a real React + TypeScript + Vite project under tests/fixtures/apps (a todo app, then a dark
mode toggle on it) instead of made-up text. The simulator still makes up everything else (the documents, the
plan, every other answer), so the run's own layers, merge, quality gate, toolchain and preview meet a project that
type-checks and builds, as they would with a model that writes working code."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.simulator.requests import SimRequest, Tool

APPS = Path(__file__).parents[2] / "fixtures" / "apps"
TODO_APP = APPS / "todo"
"""A todo app: add, complete and delete todos."""
DARK_MODE = APPS / "todo-dark-mode"
"""The files a dark mode toggle changes or adds to the todo app (App.tsx, styles.css, ThemeToggle.tsx)."""


def project_files(folder: Path) -> dict[str, str]:
    """Every file under `folder` by its path relative to it."""
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    return {path.relative_to(folder).as_posix(): path.read_text() for path in files}


@dataclass(frozen=True)
class ProjectAuthor:
    """Writes the files of the first round whose words the request's user text holds (the most specific first)."""

    rounds: tuple[tuple[str, dict[str, str]], ...]

    def __call__(self, request: SimRequest, tool: Tool) -> list[dict[str, Any]] | None:
        if tool.name != "write_file":
            return None
        asked = " ".join(text for role, text in request.messages if role == "user")
        for words, files in self.rounds:
            if words in asked:
                return [{"path": path, "content": text} for path, text in files.items()]
        return None


def todo_then_dark_mode() -> ProjectAuthor:
    """The todo app for a request about todos (待办), the dark mode files for one that asks for a dark mode (in
    English or Chinese)."""
    dark_mode = project_files(DARK_MODE)
    return ProjectAuthor(rounds=(("dark mode", dark_mode), ("深色模式", dark_mode), ("待办", project_files(TODO_APP))))
