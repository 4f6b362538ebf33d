"""`tsc` runs only on a project whose configs and references stay inside it (`checks.confinement`): a model could
otherwise point it at the worker's own files and read them back in its error messages."""

import json

import pytest

from activities.app_builder.checks.confinement import outside_paths
from activities.app_builder.offline.scaffold import TSCONFIG

APP = "export default function App() {\n  return null;\n}\n"


def test_the_offline_scaffolds_config_and_relative_paths_inside_the_project_are_fine() -> None:
    files = {
        "tsconfig.json": json.dumps(TSCONFIG),
        "packages/ui/tsconfig.json": '{"extends": "../../tsconfig.json", "include": ["src", "../shared"]}',
        "tsconfig.node.json": '{"extends": "@tsconfig/node20/tsconfig.json", "include": ["vite.config.ts"]}',
        "src/App.tsx": '/// <reference path="./types.d.ts" />\n' + APP,
    }

    assert outside_paths(files) == []


@pytest.mark.parametrize(
    ("name", "text", "escape"),
    [
        ("tsconfig.json", '{"files": ["../../.env"]}', "../../.env"),
        ("tsconfig.json", '{"include": ["/etc/**/*"]}', "/etc/**/*"),
        ("tsconfig.json", '{"extends": "/work/main/tsconfig.json"}', "/work/main/tsconfig.json"),
        ("tsconfig.json", '{"references": [{"path": "../other"}]}', "../other"),
        ("tsconfig.json", '// JSONC\n{"compilerOptions": {"baseUrl": "..",}}', ".."),
        ("tsconfig.json", '{"compilerOptions": {"paths": {"@/*": ["~/secrets/*"]}}}', "~/secrets/*"),
        (
            "tsconfig.json",
            '{"compilerOptions": {"typeRoots": ["../../node_modules/@types"]}}',
            "../../node_modules/@types",
        ),
        ("jsconfig.json", '{"files": ["..\\\\.env"]}', "..\\.env"),
        ("src/env.d.ts", '/// <reference path="../../.env" />\n', "../../.env"),
    ],
)
def test_a_path_that_leaves_the_project_is_named(name: str, text: str, escape: str) -> None:
    files = {"tsconfig.json": json.dumps(TSCONFIG), "src/App.tsx": APP} | {name: text}

    assert outside_paths(files) == [f"{name}: {escape}"]


def test_an_unparsable_config_is_left_to_the_parse_check() -> None:
    assert outside_paths({"tsconfig.json": '{"files": ["../x"'}) == []
