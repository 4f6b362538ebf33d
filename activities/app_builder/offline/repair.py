"""The offline repair agent: what rules can honestly fix of what the quality agent found.

For a finding in a script file (or a finding elsewhere whose message quotes the import): a relative import that
names no file gets the missing module, exporting stubs of the names imported from it (a component rendering
nothing for a capitalised name, a function returning `unknown` otherwise, `unknown` for a type-only name; an
empty stylesheet or JSON object for `.css`/`.json`); a package import that `package.json` does not list is added
to its dependencies as "latest". Everything else (syntax errors, type errors, an unparsable `package.json`) is
left alone, for the workflow to report as unresolved, and so is a dependency spec the quality agent refused
(a model wrote it: the offline agent does not guess which registry package was meant). Returns only the files it
changed or created.
"""

import json
import posixpath
import re
from dataclasses import dataclass, field

from activities.app_builder.offline.conventions import changed_files
from models.app_builder.quality import Finding

SCRIPT_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs")
RESOLVED_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".mjs")
PACKAGE_JSON = "package.json"
DEPENDENCY_KEYS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")

_FROM = re.compile(
    r"^[ \t]*(?:import|export)\s+(?P<type>type\s+)?(?P<clause>[\w$*{}\s,]+?)\s+from\s*['\"](?P<spec>[^'\"]+)['\"]",
    re.MULTILINE,
)
_BARE_IMPORT = re.compile(r"^[ \t]*import\s*['\"](?P<spec>[^'\"]+)['\"]", re.MULTILINE)
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass
class ImportStatement:
    """One `import … from` (or `export … from`, or bare `import '…'`) of a module."""

    specifier: str
    values: set[str] = field(default_factory=set)
    """Names imported as values (`default` for the default import)."""
    types: set[str] = field(default_factory=set)
    """Names imported only as types."""


def _is_script(path: str) -> bool:
    return path.endswith(SCRIPT_EXTENSIONS)


def parse_imports(source: str) -> list[ImportStatement]:
    """The module's static imports and re-exports with the names each takes."""
    statements = [ImportStatement(match["spec"]) for match in _BARE_IMPORT.finditer(source)]
    for match in _FROM.finditer(source):
        statement = ImportStatement(match["spec"])
        type_only = match["type"] is not None
        clause = match["clause"].strip()
        braces = re.search(r"\{([^}]*)\}", clause)
        default = re.sub(r"\{[^}]*\}|\*\s+as\s+[\w$]+", "", clause).strip(" ,")
        if default and _IDENTIFIER.fullmatch(default):
            (statement.types if type_only else statement.values).add("default")
        for part in braces.group(1).split(",") if braces else []:
            words = part.split()
            if not words:
                continue
            is_type = type_only or (words[0] == "type" and len(words) > 1)
            name = words[1] if words[0] == "type" and len(words) > 1 else words[0]
            if _IDENTIFIER.fullmatch(name):
                (statement.types if is_type else statement.values).add(name)
        statements.append(statement)
    return statements


def resolve(importer: str, specifier: str, files: dict[str, str]) -> str | None:
    """The project file a relative specifier names, else None."""
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    stem = base[: -len(posixpath.splitext(base)[1])] if base.endswith((".js", ".jsx", ".mjs")) else base
    candidates = [
        base,
        *(stem + ext for ext in RESOLVED_EXTENSIONS),
        *(f"{base}/index{ext}" for ext in RESOLVED_EXTENSIONS),
    ]
    return next((path for path in candidates if path in files), None)


def package_of(specifier: str) -> str | None:
    """The npm package a bare specifier imports (`@scope/name/sub` → `@scope/name`); None for relative, absolute
    and `node:` specifiers."""
    if specifier.startswith((".", "/", "node:")) or not specifier:
        return None
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") and len(parts) > 1 else parts[0]


def _missing_module(importer: str, specifier: str) -> str | None:
    """Where a missing module goes: the specifier's own path inside the project (its extension, when it has
    one this agent can write, else none yet); None when it cannot be created."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    if path.startswith("../") or path == "..":
        return None
    extension = posixpath.splitext(path)[1]
    return path if not extension or extension in (".css", ".json", *SCRIPT_EXTENSIONS) else None


def _module_path(path: str, values: set[str]) -> str:
    """A module path without an extension gets `.tsx` when a capitalised value (a component) is imported from it."""
    if posixpath.splitext(path)[1]:
        return path
    components = any(name[:1].isupper() for name in values if name != "default")
    return path + (".tsx" if components else ".ts")


def stub_module(path: str, specifier: str, values: set[str], types: set[str]) -> str:
    """The missing module: stubs that let its imports resolve (and say that they are stubs)."""
    if path.endswith(".css"):
        return f"/* Created by the offline repair agent: {specifier} was imported but missing. */\n"
    if path.endswith(".json"):
        return "{}\n"
    lines = [f"/** Created by the offline repair agent: `{specifier}` was imported but missing. Stubs only. */"]
    for name in sorted(values):
        exported = "export default function Default" if name == "default" else f"export function {name}"
        if name == "default" or name[:1].isupper():
            lines.append(f"{exported}(_props: Record<string, unknown>): null {{\n  return null;\n}}")
        else:
            lines.append(f"{exported}(..._args: unknown[]): unknown {{\n  return undefined;\n}}")
    lines += [f"export type {name} = unknown;" for name in sorted(types - values - {"default"})]
    if len(lines) == 1:
        lines.append("export {};")
    return "\n".join(lines) + "\n"


def _scripts_to_check(finding: Finding, files: dict[str, str]) -> tuple[list[str], str | None]:
    """The script files a finding points at, and (when it points at none directly) the message whose quoted
    specifiers are the only ones to fix."""
    if finding.check in ("parse", "dependencies"):  # nothing a script's imports can fix
        return [], None
    if finding.path in files and _is_script(finding.path):
        return [finding.path], None
    named = [path for path in files if _is_script(path) and path in finding.message]
    return (named or [path for path in files if _is_script(path)]), finding.message


def _with_dependencies(package_json: str, packages: set[str]) -> str:
    """package.json with the packages added as "latest"; unchanged when it does not parse."""
    try:
        manifest = json.loads(package_json)
    except json.JSONDecodeError:
        return package_json
    if not isinstance(manifest, dict):
        return package_json
    dependencies = manifest.setdefault("dependencies", {})
    if not isinstance(dependencies, dict):
        return package_json
    for package in sorted(packages):
        dependencies[package] = "latest"
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def _listed_packages(package_json: str | None) -> set[str] | None:
    """Every package package.json lists; None when it is missing or does not parse."""
    if package_json is None:
        return None
    try:
        manifest = json.loads(package_json)
    except json.JSONDecodeError:
        return None
    if not isinstance(manifest, dict):
        return None
    return {name for key in DEPENDENCY_KEYS if isinstance(manifest.get(key), dict) for name in manifest[key]}


def repair_files(files: dict[str, str], findings: list[Finding]) -> dict[str, str]:
    listed = _listed_packages(files.get(PACKAGE_JSON))
    stubs: dict[str, tuple[str, set[str], set[str]]] = {}
    packages: set[str] = set()
    for finding in findings:
        scripts, quoted_in = _scripts_to_check(finding, files)
        for importer in scripts:
            for statement in parse_imports(files[importer]):
                specifier = statement.specifier
                package = package_of(specifier)
                mentioned = quoted_in is None or specifier in quoted_in or (package or specifier) in quoted_in
                if not mentioned:
                    continue
                if package is not None:
                    if listed is not None and package not in listed:
                        packages.add(package)
                    continue
                if not specifier.startswith(".") or resolve(importer, specifier, files) is not None:
                    continue
                module = _missing_module(importer, specifier)
                if module is not None:
                    _, values, types = stubs.setdefault(module, (specifier, set(), set()))
                    values |= statement.values
                    types |= statement.types
    written: dict[str, str] = {}
    for module, (specifier, values, types) in stubs.items():
        path = _module_path(module, values)
        written[path] = stub_module(path, specifier, values, types)
    if packages:
        written[PACKAGE_JSON] = _with_dependencies(files[PACKAGE_JSON], packages)
    return changed_files(files, written)
