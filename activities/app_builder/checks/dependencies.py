"""Which packages a project may name: registry packages only, by a semver range or a dist-tag.

package.json can name a package anywhere, and npm would get it from there: a folder or tarball on disk (`file:`,
`link:`, `portal:`, `workspace:`, `../x`, `/x`, `~/x`, `x.tgz`), which npm links or unpacks into `node_modules`
so that tsc and vite then read outside the project; a git repository (`git:`, `git+ssh:`, `git+https:`,
`github:user/repo`, `user/repo`); a tarball URL (`http:`, `https:`); or an `npm:` alias of any of those. A model
writes package.json, so the policy is an allow-list (`spec_problem`): a spec is installed only when it is a range
in node-semver's grammar (`^1.2.3`, `>=1 <2 || 3.x`, `*`, empty) or a dist-tag (`latest`), that npm would not
read as a file name (`1.0.0-x.tgz`), or an `npm:` alias of a registry package by such a spec.

`manifest_findings` applies it wherever package.json names a package: `dependencies`, `devDependencies`,
`optionalDependencies`, `peerDependencies`, `overrides` (nested; `$name` refers to a dependency's own spec),
`resolutions`, and the names of `bundledDependencies`; `workspaces` (folders npm links into `node_modules`) is
refused outright. Each problem is a `dependencies` finding with the code DEPENDENCY_SPEC_REFUSED that says what
to write instead; a package.json that cannot be read is refused too, so nothing is installed from it.
"""

import json
import re
from collections.abc import Iterator
from typing import Any

from models.app_builder.errors import AppBuilderErrorCode
from models.app_builder.quality import Finding

PACKAGE_JSON = "package.json"
SPEC_FIELDS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "resolutions")
BUNDLED_FIELDS = ("bundledDependencies", "bundleDependencies")
MAX_SPEC_CHARS = 256
MAX_QUOTED_CHARS = 80
ADVICE = 'only registry packages are installed: write a semver range such as "^1.2.3", or a dist-tag such as "latest"'

_NUMBER = r"(?:[xX*]|[0-9]+)"
_IDENTIFIERS = r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
_PARTIAL = rf"v?{_NUMBER}(?:\.{_NUMBER}(?:\.{_NUMBER}(?:-{_IDENTIFIERS})?(?:\+{_IDENTIFIERS})?)?)?"
_COMPARATOR = rf"(?:(?:<=|>=|<|>|=|~>|~|\^)[ \t]*)?{_PARTIAL}"
_SET = rf"[ \t]*(?:{_PARTIAL}[ \t]+-[ \t]+{_PARTIAL}|{_COMPARATOR}(?:[ \t]+{_COMPARATOR})*)?[ \t]*"
SEMVER_RANGE = re.compile(rf"{_SET}(?:\|\|{_SET})*")
"""node-semver's range grammar (ASCII only): what npm looks up in the registry as a range."""
DIST_TAG = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
"""A dist-tag: no `/`, `:`, `#` or leading `.`/`~`, so npm can read it neither as a path, a URL nor a git host."""
FILE_NAME = re.compile(r"[.](?:tgz|tar.gz|tar)$", re.IGNORECASE | re.ASCII)
"""npm reads any spec (or alias target) that ends like this as a tarball on disk (npm-package-arg's `isFilename`)."""
PACKAGE_NAME = re.compile(r"(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*", re.IGNORECASE | re.ASCII)
MAX_NAME_CHARS = 214

_LOCAL = ("file:", "link:", "portal:", "workspace:", "patch:", "exec:", ".", "/", "~/")
_GIT = ("git:", "git+", "github:", "gitlab:", "bitbucket:", "gist:")


def spec_problem(spec: str) -> str | None:
    """Why npm would get `spec` from somewhere other than the registry (None: a registry range or tag)."""
    lowered = spec.strip().lower()
    if lowered.startswith("npm:"):
        return _alias_problem(spec.strip()[4:])
    if lowered.startswith(_LOCAL) or "\\" in lowered:
        return "a folder or file on disk"
    if lowered.startswith(_GIT) or "#" in lowered:
        return "a git repository"
    if "://" in lowered or lowered.startswith(("http:", "https:")):
        return "a URL"
    if "/" in lowered:
        return "a path or a git repository (user/repo)"
    if len(spec) > MAX_SPEC_CHARS or not (SEMVER_RANGE.fullmatch(spec) or DIST_TAG.fullmatch(spec)):
        return "not a semver range or a dist-tag"
    if FILE_NAME.search(spec.strip()):
        return "a tarball on disk (npm reads a spec ending in .tgz or .tar as a file)"
    return None


def is_package_name(name: str) -> bool:
    """A name npm would accept for a registry package (`react`, `@types/react`), never a path."""
    return len(name) <= MAX_NAME_CHARS and PACKAGE_NAME.fullmatch(name) is not None and not FILE_NAME.search(name)


def manifest_findings(files: dict[str, str]) -> list[Finding]:
    """A finding per place the project's package.json names a package outside the registry (none: npm may run)."""
    text = files.get(PACKAGE_JSON)
    if text is None:
        return []
    try:
        manifest = json.loads(text.removeprefix("\ufeff"))  # npm drops a byte-order mark too
    except ValueError:
        return [_finding("package.json cannot be read as JSON, so nothing is installed from it")]
    if not isinstance(manifest, dict):
        return [_finding("package.json is not a JSON object, so nothing is installed from it")]
    return [_finding(problem) for problem in _manifest_problems(manifest)]


def _manifest_problems(manifest: dict[str, Any]) -> Iterator[str]:
    for field in SPEC_FIELDS:
        yield from _map_problems(field, manifest.get(field))
    yield from _override_problems("overrides", manifest.get("overrides"))
    for field in BUNDLED_FIELDS:
        names = manifest.get(field)
        if names is None or isinstance(names, bool):
            continue
        if not isinstance(names, list):
            yield f"{field} must be a list of package names"
            continue
        for name in names:
            if not isinstance(name, str) or not is_package_name(name):
                yield f"{field} names {_quoted(name)}: not a package name"
    if "workspaces" in manifest:
        yield "workspaces: npm would link those folders into node_modules; the app is one package, remove it"


def _map_problems(field: str, specs: Any) -> Iterator[str]:
    if specs is None:
        return
    if not isinstance(specs, dict):
        yield f"{field} must be an object of package names and versions"
        return
    for name, spec in specs.items():
        where = f"{field}[{_quoted(name)}]"
        if field != "resolutions" and not is_package_name(name):
            yield f"{where}: not a package name"
        elif not isinstance(spec, str):
            yield f"{where} = {_quoted(spec)}: not a version string"
        elif (problem := spec_problem(spec)) is not None:
            yield f"{where} = {_quoted(spec)} is {problem}"


def _override_problems(where: str, overrides: Any) -> Iterator[str]:
    """npm's `overrides`: a spec, `$name` (that dependency's own spec) or, nested, the overrides under a package
    (its own spec under `.`), keyed by `name` or `name@spec`."""
    if overrides is None:
        return
    if not isinstance(overrides, dict):
        yield f"{where} must be an object"
        return
    for key, value in overrides.items():
        inner = f"{where}[{_quoted(key)}]"
        name, _, selector = key[1:].partition("@") if key.startswith("@") else key.partition("@")
        name = "@" + name if key.startswith("@") else name
        if key != "." and (not is_package_name(name) or (selector and spec_problem(selector) is not None)):
            yield f"{inner}: not a package name or name@range"
        elif isinstance(value, dict):
            yield from _override_problems(inner, value)
        elif not isinstance(value, str):
            yield f"{inner} = {_quoted(value)}: not a version string"
        elif value.startswith("$"):
            if not is_package_name(value[1:]):
                yield f"{inner} = {_quoted(value)}: not a reference to a dependency ($name)"
        elif (problem := spec_problem(value)) is not None:
            yield f"{inner} = {_quoted(value)} is {problem}"


def _alias_problem(target: str) -> str | None:
    """`npm:name@spec`: another name from the registry, by a registry spec."""
    at = target.find("@", 1)
    name, spec = (target, "") if at < 0 else (target[:at], target[at + 1 :])
    if not is_package_name(name):
        return "an npm: alias of something that is not a registry package"
    problem = spec_problem(spec) if not spec.lower().startswith("npm:") else "an alias"
    return None if problem is None else f"an npm: alias of {problem}"


def _quoted(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 1] + "…"


def _finding(problem: str) -> Finding:
    return Finding(
        check="dependencies",
        message=f"{AppBuilderErrorCode.DEPENDENCY_SPEC_REFUSED}: {problem}; {ADVICE}",
        path=PACKAGE_JSON,
    )
