"""The imports check: every module a script imports, and every script `index.html` loads, must exist.

From the TS/TSX syntax trees (the grammars of `parsers`): `import ... from "x"`, `import "x"`, `import x =
require("x")`, `export ... from "x"` and `import("x")` with a literal. Relative specifiers resolve against the
importing file inside the project, the way Vite and TypeScript's bundler resolution do: the exact file, or with
a script/style/JSON extension added, or a folder's `index`, or `./a.js` written for `a.ts`; a Vite query
(`./logo.svg?react`) is ignored. A specifier starting with `/` is the project root, or Vite's `public/` folder.
A bare specifier names a package (`react-dom/client` → `react-dom`, `@vitejs/plugin-react/x` →
`@vitejs/plugin-react`) that package.json must declare; Node's builtins (`node:fs`, `fs`, ...) need no entry.
A `<script src>` in an HTML file must name a file of the project. Path aliases (`@/components`) are not read
from the configs: such a specifier is reported as a package.
"""

import json
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node, Tree

from activities.app_builder.checks.parsers import (
    HTML,
    SCRIPT_GRAMMARS,
    grammar_for,
    node_text,
    parse_tree,
    position,
    walk,
)
from models.app_builder.quality import Finding

NODE_BUILTINS = frozenset(
    {"assert", "buffer", "child_process", "crypto", "events", "fs", "http", "https", "os", "path", "process"}
    | {"stream", "url", "util", "worker_threads", "zlib"}
)
DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "peerDependencies")
ADDED_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".d.ts", ".css", ".json")
INDEX_FILES = ("index.ts", "index.tsx", "index.js")
TYPESCRIPT_FOR = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
"""TypeScript lets `./a.js` name the `a.ts` it compiles to."""


@dataclass(frozen=True)
class _Reference:
    """One specifier as written, and where: the string's node."""

    specifier: str
    node: Node


def import_findings(files: dict[str, str]) -> list[Finding]:
    """One finding per import or script source that names no file of the project or no declared package."""
    packages = _declared_packages(files)
    findings = []
    for path, text in sorted(files.items()):
        language = grammar_for(path)
        source = text.encode()
        if language in SCRIPT_GRAMMARS:
            references = _script_imports(source, parse_tree(language, source))
            problems = [(found, _import_problem(path, found.specifier, files, packages)) for found in references]
        elif language is HTML:
            references = _script_sources(source, parse_tree(language, source))
            problems = [(found, _file_problem(posixpath.dirname(path), found.specifier, files)) for found in references]
        else:
            continue
        for reference, problem in problems:
            if problem is not None:
                line, column = position(source, reference.node)
                findings.append(Finding(check="imports", message=problem, path=path, line=line, column=column))
    return findings


def package_name(specifier: str) -> str:
    """The npm package a bare specifier names: its first path part, or its first two when scoped."""
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") else parts[0]


def _declared_packages(files: dict[str, str]) -> set[str] | None:
    """Every package package.json declares; None without a package.json (an invalid one declares nothing)."""
    text = files.get("package.json")
    if text is None:
        return None
    try:
        manifest = json.loads(text)
    except ValueError:
        return set()
    if not isinstance(manifest, dict):
        return set()
    return {name for field in DEPENDENCY_FIELDS if isinstance(manifest.get(field), dict) for name in manifest[field]}


def _import_problem(importer: str, specifier: str, files: dict[str, str], packages: set[str] | None) -> str | None:
    if specifier.startswith((".", "/")):
        return _file_problem(posixpath.dirname(importer), specifier, files)
    if specifier.startswith("node:") or package_name(specifier) in NODE_BUILTINS:
        return None
    name = package_name(specifier)
    if packages is None:
        return f"`{specifier}`: package `{name}` is imported but the project has no package.json"
    if name not in packages:
        return f"`{specifier}`: package `{name}` is not in package.json dependencies"
    return None


def _file_problem(importer_dir: str, specifier: str, files: dict[str, str]) -> str | None:
    written = specifier.split("?", 1)[0].split("#", 1)[0]
    roots = ("", "public") if written.startswith("/") else (importer_dir,)
    targets = [posixpath.normpath(posixpath.join(root, written.lstrip("/"))) for root in roots]
    if any(target == ".." or target.startswith("../") for target in targets):
        return f"`{specifier}` resolves outside the project"
    if any(_exists(target, files) for target in targets):
        return None
    return f"`{specifier}`: no such file in the project"


def _exists(target: str, files: dict[str, str]) -> bool:
    stem, extension = posixpath.splitext(target)
    candidates = [target + suffix for suffix in ADDED_SUFFIXES]
    candidates += [posixpath.normpath(posixpath.join(target, index)) for index in INDEX_FILES]
    candidates += [stem + replacement for replacement in TYPESCRIPT_FOR.get(extension, ())]
    return any(candidate in files for candidate in candidates)


def _script_imports(source: bytes, tree: Tree) -> Iterator[_Reference]:
    for node in walk(tree):
        if node.type in ("import_statement", "export_statement"):
            string = node.child_by_field_name("source")
            if string is None and node.type == "import_statement":
                string = next((child for child in node.named_children if child.type == "import_require_clause"), None)
                string = None if string is None else next(_children_of_type(string, "string"), None)
        elif node.type == "call_expression" and _is_dynamic_import(node):
            arguments = node.child_by_field_name("arguments")
            strings = [] if arguments is None else arguments.named_children
            string = strings[0] if len(strings) == 1 and strings[0].type == "string" else None
        else:
            continue
        if string is not None:
            yield _Reference(node_text(source, string)[1:-1], string)


def _is_dynamic_import(call: Node) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and function.type == "import"


def _script_sources(source: bytes, tree: Tree) -> Iterator[_Reference]:
    """`src` of every `<script>` that loads a file of this site (not `https://...`, `//cdn...` or `data:`)."""
    for script in (node for node in walk(tree) if node.type == "script_element"):
        for attribute in (child for tag in _children_of_type(script, "start_tag") for child in tag.named_children):
            name = next(_children_of_type(attribute, "attribute_name"), None)
            value = _attribute_value(attribute)
            if name is None or value is None or node_text(source, name).lower() != "src":
                continue
            specifier = node_text(source, value).strip()
            if specifier and not specifier.startswith(("//", "data:")) and "://" not in specifier:
                yield _Reference(specifier, value)


def _attribute_value(attribute: Node) -> Node | None:
    quoted = next(_children_of_type(attribute, "quoted_attribute_value"), None)
    return next(_children_of_type(quoted or attribute, "attribute_value"), None)


def _children_of_type(node: Node, node_type: str) -> Iterator[Node]:
    return (child for child in node.named_children if child.type == node_type)
