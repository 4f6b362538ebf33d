"""The dependency spec policy (issue 26 row 8): registry ranges and dist-tags pass; every spelling npm would read
as a folder, a file, a git repository or a URL (directly or through an `npm:` alias) is refused, in every field
of package.json that names packages."""

import json
from typing import Any

import pytest

from activities.app_builder.checks.dependencies import is_package_name, manifest_findings, spec_problem

REGISTRY_SPECS = [
    "18.3.1",
    "^18.3.1",
    "~5.4.0",
    "~5",
    ">=1.2.3 <2.0.0",
    "> 1.2 <= 2",
    "1.2.3 - 2.3.4",
    "1.x || >=2.5.0 || 5.0.0 - 7.2.3",
    "*",
    "x",
    "",
    "v1.2.3",
    "=1.2.3",
    "~>1.2",
    "^1.0.0-beta.2",
    "1.0.0-rc.1+build.5",
    "latest",
    "next",
    "beta-2",
    "npm:react@^18.3.1",
    "npm:@types/react@18.3.1",
    "npm:lodash",
    "npm:@scope/pkg",
]

REFUSED_SPECS = [
    "file:../x",
    "file:/etc",
    "FILE:../x",
    "file:x.tgz",
    "link:../x",
    "portal:../x",
    "workspace:*",
    "workspace:^1.0.0",
    "../x",
    "./x",
    ".",
    "..",
    "/etc/passwd",
    "~/x",
    "C:\\x",
    "..\\x",
    " ../x",
    "x.tgz",
    "pkg.tar.gz",
    "pkg.TAR",
    "1.0.0-a.tgz",
    "1.0.0+b.tar",
    "git:github.com/user/repo",
    "git://github.com/user/repo.git",
    "git+ssh://git@github.com:user/repo.git",
    "git+https://github.com/user/repo.git#v1",
    "git+http://example.com/repo.git",
    "git+file:///tmp/repo",
    "github:user/repo",
    "gitlab:user/repo",
    "bitbucket:user/repo",
    "gist:11081aaa",
    "user/repo",
    "user/repo#main",
    "git@github.com:user/repo.git",
    "http://example.com/x.tgz",
    "https://example.com/x.tgz",
    "HTTPS://example.com/x",
    "https://registry.npmjs.org/react/-/react-18.3.1.tgz",
    "//example.com/x.tgz",
    "npm:x@file:../x",
    "npm:x@link:../x",
    "npm:x@github:user/repo",
    "npm:x@https://example.com/x.tgz",
    "npm:x@../x",
    "npm:x@workspace:*",
    "npm:y@npm:x@1",
    "npm:../x",
    "npm:x.tgz",
    "npm:",
    "patch:react@18#./p.patch",
    "exec:./gen.js",
    "^1.2.3 ../x",
    "1.2.3\n",
    "１.２.３",  # fullwidth digits: not node-semver's ASCII grammar
    "latest:x",
    "a" * 300,
]


@pytest.mark.parametrize("spec", REGISTRY_SPECS)
def test_registry_ranges_tags_and_registry_aliases_are_allowed(spec: str) -> None:
    assert spec_problem(spec) is None


@pytest.mark.parametrize("spec", REFUSED_SPECS)
def test_paths_files_git_urls_and_aliases_of_them_are_refused(spec: str) -> None:
    assert spec_problem(spec) is not None


@pytest.mark.parametrize("name", ["react", "@types/react", "JSONStream", "lodash.merge", "a-b_c~d"])
def test_package_names(name: str) -> None:
    assert is_package_name(name)


@pytest.mark.parametrize("name", ["../x", "@scope/../x", "/x", ".x", "_x", "a/b", "x.tgz", "\u212a", "", "a" * 215])
def test_not_package_names(name: str) -> None:
    assert not is_package_name(name)


def findings_for(manifest: Any) -> list[str]:
    return [finding.message for finding in manifest_findings({"package.json": json.dumps(manifest)})]


@pytest.mark.parametrize(
    "field", ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "resolutions"]
)
def test_every_dependency_field_is_checked(field: str) -> None:
    [message] = findings_for({field: {"react": "^18.3.1", "secret": "file:../../outside"}})

    assert message.startswith("DEPENDENCY_SPEC_REFUSED: ")
    assert f'{field}["secret"] = "file:../../outside" is a folder or file on disk' in message
    assert '"^1.2.3"' in message and '"latest"' in message, "the message says what to write instead"


def test_overrides_are_checked_at_every_depth_with_references_and_selectors() -> None:
    overrides = {
        "react": "$react",
        "foo": {".": "1.0.0", "bar": "link:../bar"},
        "baz@^2": "github:user/baz",
        "qux@file:../q": "1.0.0",
        "ok@^1": "1.2.3",
    }

    messages = findings_for({"dependencies": {"react": "^18.3.1"}, "overrides": overrides})

    assert len(messages) == 3
    assert 'overrides["foo"]["bar"] = "link:../bar" is a folder or file on disk' in messages[0]
    assert 'overrides["baz@^2"] = "github:user/baz" is a git repository' in messages[1]
    assert 'overrides["qux@file:../q"]: not a package name or name@range' in messages[2]


def test_bundled_names_workspaces_and_shapes() -> None:
    manifest = {
        "bundledDependencies": ["react", "../outside"],
        "bundleDependencies": True,
        "workspaces": ["../outside"],
        "devDependencies": ["file:../x"],
        "peerDependencies": {"../x": "1.0.0", "react": 18},
    }

    messages = findings_for(manifest)

    assert len(messages) == 5 and all(m.startswith("DEPENDENCY_SPEC_REFUSED: ") for m in messages)
    assert any('peerDependencies["../x"]: not a package name' in m for m in messages)
    assert any('peerDependencies["react"] = 18: not a version string' in m for m in messages)
    assert any("devDependencies must be an object" in m for m in messages)
    assert any('bundledDependencies names "../outside"' in m for m in messages)
    assert any(m.startswith("DEPENDENCY_SPEC_REFUSED: workspaces:") for m in messages)


def test_a_package_json_that_cannot_be_read_is_refused_and_a_bom_is_read_as_npm_reads_it() -> None:
    unreadable = manifest_findings({"package.json": '{"dependencies": {"x": "file:../x"'})
    not_an_object = manifest_findings({"package.json": "[]"})
    with_bom = manifest_findings({"package.json": '\ufeff{"dependencies": {"x": "file:../x"}}'})

    assert [f.message.split(":")[0] for f in unreadable + not_an_object] == ["DEPENDENCY_SPEC_REFUSED"] * 2
    assert [(f.check, f.path) for f in with_bom] == [("dependencies", "package.json")]
    assert "file:../x" in with_bom[0].message


def test_a_registry_only_package_json_and_a_project_without_one_have_no_findings() -> None:
    manifest = {
        "dependencies": {"react": "^18.3.1", "react-dom": "18.3.1", "alias": "npm:preact@^10"},
        "devDependencies": {"vite": "latest", "typescript": "~5.4"},
        "overrides": {"foo": {".": "1.0.0"}},
    }

    assert findings_for(manifest) == []
    assert manifest_findings({"src/App.tsx": "export {}"}) == []
