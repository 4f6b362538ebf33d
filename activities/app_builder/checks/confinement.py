"""Whether `tsc` would read only the project: a tsconfig (or jsconfig) can name files anywhere (`files`,
`include`, `extends`, `references`, `baseUrl`, `paths`, `rootDirs`, `typeRoots`, ...) and a source file can pull
one in with `/// <reference path=...>`; tsc would then parse a file outside the project (the worker's `.env`, say)
and its error messages would quote it. A model writes these files, so the typecheck runs only when every such path
stays inside the project (`outside_paths` is empty). Package names (`extends: "@tsconfig/strictest"`) are
resolved inside the project's own `node_modules`, and allowed."""

import json
import posixpath
import re
from collections.abc import Iterator
from typing import Any

from activities.app_builder.checks.parsers import jsonc_as_json

CONFIG_NAME = re.compile(r"^(tsconfig|jsconfig)(\..+)?\.json$")
PATH_OPTIONS = ("baseUrl", "rootDir", "outDir", "declarationDir", "tsBuildInfoFile")
PATH_LIST_OPTIONS = ("rootDirs", "typeRoots")
TRIPLE_SLASH = re.compile(r"^\s*///\s*<reference\s+path\s*=\s*[\"']([^\"']+)[\"']", re.MULTILINE)
SOURCE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx")


def outside_paths(files: dict[str, str]) -> list[str]:
    """Every `file: path` that would let tsc read outside the project (none: it may run)."""
    found: list[str] = []
    for name, text in sorted(files.items()):
        if CONFIG_NAME.match(posixpath.basename(name)):
            found += [f"{name}: {path}" for path in _config_paths(text) if _escapes(name, path)]
        elif name.endswith(SOURCE_SUFFIXES):
            found += [f"{name}: {path}" for path in TRIPLE_SLASH.findall(text) if _escapes(name, path)]
    return found


def _config_paths(text: str) -> Iterator[str]:
    try:
        config = json.loads(jsonc_as_json(text))
    except ValueError:
        return  # unparsable: the parse check reports it, and tsc would refuse it too
    if not isinstance(config, dict):
        return
    extends = config.get("extends")
    for value in extends if isinstance(extends, list) else [extends]:
        if isinstance(value, str) and value.startswith((".", "/")):
            yield value
    yield from _strings(config.get("files"))
    yield from _strings(config.get("include"))
    yield from _strings(config.get("exclude"))
    for reference in config.get("references") or []:
        if isinstance(reference, dict):
            yield from _strings([reference.get("path")])
    options = config.get("compilerOptions")
    if isinstance(options, dict):
        yield from _strings([options.get(key) for key in PATH_OPTIONS])
        for key in PATH_LIST_OPTIONS:
            yield from _strings(options.get(key))
        paths = options.get("paths")
        if isinstance(paths, dict):
            for targets in paths.values():
                yield from _strings(targets)


def _strings(values: Any) -> Iterator[str]:
    for value in values if isinstance(values, list) else []:
        if isinstance(value, str):
            yield value


def _escapes(config_or_source: str, path: str) -> bool:
    """Whether `path`, relative to the file that names it, leaves the project (absolute, `~`, or above the root)."""
    if path.startswith(("/", "~")) or "\\" in path or re.match(r"^[A-Za-z]:", path):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(config_or_source), path))
    return joined == ".." or joined.startswith("../")
