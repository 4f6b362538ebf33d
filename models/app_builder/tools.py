"""The tool registry of the execution layer: every tool a plan's task may list, and what it does.

The planner may only give a task tools from `TOOL_REGISTRY`. The writing agents' tool loops (ARCHITECTURE rule
11) offer the workspace tools to the model; the quality tools are the checks of the quality agent.
"""

from typing import Literal

ToolId = Literal["list_files", "read_file", "write_file", "parse_files", "resolve_imports", "typecheck", "build"]

TOOL_REGISTRY: dict[str, str] = {
    "list_files": "List the workspace's files (paths and sizes).",
    "read_file": "Read one workspace file as text.",
    "write_file": "Write one workspace file (the whole new text): recorded as a patch intent, merged after the wave.",
    "parse_files": "Parse every file with its language's parser (TypeScript/TSX, JSON, CSS, HTML).",
    "resolve_imports": "Check that every relative import names a project file and every package is a dependency.",
    "typecheck": "Run `tsc --noEmit` in the project (when Node and npm are available).",
    "build": "Run the project's build (when Node and npm are available).",
}

WRITE_TOOL = "write_file"
"""The tool a task writes the project's files with: a writing agent's task cannot do without it."""
WORKSPACE_TOOLS = ("list_files", "read_file", WRITE_TOOL)
"""The tools a writing agent's model can call in its tool loop."""
QUALITY_TOOLS = ("parse_files", "resolve_imports", "typecheck", "build")
