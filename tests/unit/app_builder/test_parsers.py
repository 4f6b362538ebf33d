"""The parse check: valid TS/TSX/CSS/HTML/JSON pass; each kind of broken file gives a finding at its place."""

import pytest

from activities.app_builder.checks.parsers import MAX_ERRORS_PER_FILE, parse_findings

VALID = {
    "src/main.tsx": (
        "import { StrictMode } from 'react'\n"
        "import { createRoot } from 'react-dom/client'\n"
        "import App from './App'\n\n"
        "createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>)\n"
    ),
    "src/App.tsx": (
        "import { useState } from 'react'\n\n"
        "export default function App() {\n"
        "  const [count, setCount] = useState<number>(0)\n"
        "  return <button onClick={() => setCount((c) => c + 1)}>count is {count}</button>\n"
        "}\n"
    ),
    "src/util.ts": "export function cast<T>(value: unknown): T {\n  return <T>value\n}\n",
    "src/Layout.tsx": "export const Layout = () => <><Nav.Bar tone='dark'>menu</Nav.Bar ></>\n",
    "src/legacy.js": "export const Hello = () => <p>hi</p>\n",
    "src/index.css": ":root { color: #222; }\n@media (max-width: 600px) { .a { margin: 0 auto; } }\n",
    "index.html": (
        '<!doctype html>\n<html lang="en">\n  <head><meta charset="UTF-8" /><title>App</title></head>\n'
        '  <body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body>\n</html>\n'
    ),
    "package.json": '{\n  "name": "app",\n  "dependencies": {"react": "^18.3.1"}\n}\n',
    "tsconfig.json": (
        '{\n  // TypeScript reads JSONC\n  "compilerOptions": {\n    "strict": true, /* on */\n'
        '    "paths": {"//,}": ["./x"]},\n  },\n}\n'
    ),
    "README.md": "# App\n{ not parsed\n",
}


def test_a_valid_project_has_no_finding_and_counts_only_parsed_files() -> None:
    findings, parsed = parse_findings(VALID)

    assert findings == []
    assert parsed == len(VALID) - 1  # the README is not parsed


@pytest.mark.parametrize(
    ("path", "text", "line", "quoted"),
    [
        ("src/App.tsx", "export function App() {\n  return <div><span>hi</div>\n}\n", 2, "return <div><span>hi</div>"),
        ("src/B.jsx", "export const B = () => (\n  <h1>\n    Hi\n  </h2>\n)\n", 4, "`</h2>` does not match `<h1>`"),
        ("src/a.ts", "export function f(a: number) {\n  return a\n\nexport const x = 1\n", 4, "missing `}`"),
        ("src/a.css", ".a { color: red;\n", 1, "missing `}`"),
        ("src/b.css", ".ok { margin: 0; }\n.a { : }\n", 2, "`:`"),
        ("index.html", "<!doctype html>\n<html><body><div\n</body></html>\n", 2, "missing `>`"),
        ("package.json", '{\n  "name": "app",\n}\n', 3, "`}`"),
        ("data.json", '{"a": NaN}', None, "NaN is not JSON"),
        ("tsconfig.json", '{\n  "compilerOptions": {\n    "strict": true\n  \n', 5, "Expecting"),
    ],
)
def test_a_broken_file_gives_a_finding_at_its_place(path: str, text: str, line: int | None, quoted: str) -> None:
    findings, parsed = parse_findings({path: text})

    assert parsed == 1
    assert len(findings) == 1
    assert findings[0].check == "parse"
    assert findings[0].path == path
    assert findings[0].line == line
    assert quoted in findings[0].message


def test_columns_count_characters_not_bytes() -> None:
    findings, _ = parse_findings({"src/a.css": "/* é */ .a { : }\n"})

    assert findings[0].column == 14  # byte 15: `é` is two bytes


def test_errors_per_file_are_capped() -> None:
    broken = "".join(f".a{index} {{ : }}\n" for index in range(MAX_ERRORS_PER_FILE + 3))

    findings, _ = parse_findings({"src/a.css": broken})

    assert [finding.line for finding in findings] == list(range(1, MAX_ERRORS_PER_FILE + 1))


def test_strict_json_outside_tsconfig_refuses_comments() -> None:
    findings, _ = parse_findings({"package.json": '{\n  // a comment\n  "name": "app"\n}\n'})

    assert [(finding.path, finding.line) for finding in findings] == [("package.json", 2)]
