"""The imports check: relative modules resolve inside the project, packages are declared in package.json, and
index.html's scripts exist."""

import json

from activities.app_builder.checks.imports import import_findings, package_name
from models.app_builder.quality import Finding

PACKAGE_JSON = json.dumps(
    {
        "dependencies": {"react": "^18.3.1", "react-dom": "^18.3.1"},
        "devDependencies": {"@vitejs/plugin-react": "^4.3.0", "vite": "^5.4.0"},
    }
)


def project(sources: dict[str, str]) -> dict[str, str]:
    """A small project: package.json, an App, a components folder, a stylesheet, a public asset, and `sources`."""
    return {
        "package.json": PACKAGE_JSON,
        "src/App.tsx": "export default function App() { return null }\n",
        "src/components/index.tsx": "export const Button = () => null\n",
        "src/theme.ts": "export const theme = {}\n",
        "src/index.css": "body { margin: 0 }\n",
        "public/vite.svg": "<svg/>",
        **sources,
    }


def places(findings: list[Finding]) -> list[tuple[str | None, int | None, int | None]]:
    return [(finding.path, finding.line, finding.column) for finding in findings]


def test_resolvable_imports_give_no_finding() -> None:
    main = (
        "import { createRoot } from 'react-dom/client'\n"
        "import App from './App'\n"
        "import { Button } from './components'\n"
        "import { theme } from './theme.js'\n"
        "import './index.css'\n"
        "import viteLogo from '/vite.svg'\n"
        "import { readFileSync } from 'node:fs'\n"
        "import path from 'path'\n"
        "export * from './theme'\n"
        "const Lazy = import('./App.tsx')\n"
    )
    config = "import { defineConfig } from 'vite'\nimport react from '@vitejs/plugin-react'\n"

    assert import_findings(project({"src/main.tsx": main, "vite.config.ts": config})) == []


def test_a_missing_relative_module_is_a_finding_at_its_specifier() -> None:
    main = "import App from './App'\nimport { Header } from './components/Header'\n"

    findings = import_findings(project({"src/main.tsx": main}))

    assert places(findings) == [("src/main.tsx", 2, 24)]
    assert "./components/Header" in findings[0].message


def test_dynamic_imports_and_re_exports_are_checked() -> None:
    main = "export { a } from './gone'\nconst page = () => import(\"./pages/Home\")\n"

    findings = import_findings(project({"src/main.tsx": main}))

    assert places(findings) == [("src/main.tsx", 1, 19), ("src/main.tsx", 2, 27)]


def test_a_package_missing_from_package_json_is_a_finding() -> None:
    findings = import_findings(project({"src/main.tsx": "import { z } from 'zod'\nimport React from 'react'\n"}))

    assert places(findings) == [("src/main.tsx", 1, 19)]
    assert "`zod`" in findings[0].message


def test_package_names_keep_the_scope_and_drop_the_subpath() -> None:
    assert package_name("react-dom/client") == "react-dom"
    assert package_name("@vitejs/plugin-react") == "@vitejs/plugin-react"
    assert package_name("@tanstack/react-query/devtools") == "@tanstack/react-query"


def test_a_scoped_package_must_be_declared_under_its_scope() -> None:
    config = "import react from '@vitejs/plugin-react'\nimport swc from '@vitejs/plugin-react-swc'\n"

    findings = import_findings(project({"vite.config.ts": config}))

    assert places(findings) == [("vite.config.ts", 2, 17)]


def test_without_package_json_every_bare_import_is_a_finding() -> None:
    main = "import React from 'react'\nimport fs from 'node:fs'\nimport App from './App'\n"
    files = project({"src/main.tsx": main})
    del files["package.json"]

    findings = import_findings(files)

    assert places(findings) == [("src/main.tsx", 1, 19)]
    assert "no package.json" in findings[0].message


def test_a_specifier_escaping_the_project_is_a_finding() -> None:
    findings = import_findings(project({"src/main.tsx": "import secrets from '../../outside'\n"}))

    assert places(findings) == [("src/main.tsx", 1, 21)]
    assert "outside the project" in findings[0].message


def test_index_html_module_script_must_exist() -> None:
    html = (
        "<!doctype html>\n<html>\n  <body>\n"
        '    <script type="module" src="/src/main.tsx"></script>\n'
        '    <script src="https://cdn.example.com/analytics.js"></script>\n'
        "  </body>\n</html>\n"
    )

    assert import_findings(project({"index.html": html, "src/main.tsx": "import './index.css'\n"})) == []
    findings = import_findings(project({"index.html": html}))
    assert places(findings) == [("index.html", 4, 32)]
    assert "/src/main.tsx" in findings[0].message
