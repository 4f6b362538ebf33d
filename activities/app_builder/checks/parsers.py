"""The parse check: every source file of the project through a real parser, each syntax error a `Finding`.

Why these parsers: tree-sitter's official grammars (TypeScript/TSX, CSS, HTML) ship as prebuilt wheels, so no
Node is needed; they are error-tolerant, so one broken file still yields a whole tree whose ERROR and MISSING
nodes point at each error (line and column). `.ts`/`.mts`/`.cts` use the TypeScript grammar; `.tsx`, `.jsx`,
`.js`, `.mjs` and `.cjs` use the TSX grammar: it is TypeScript's superset of JavaScript plus JSX, which React
code puts in `.js`/`.jsx` files too, while the plain TypeScript grammar reads `<T>x` as a type assertion and so
rejects JSX. JSON goes through the stdlib `json`, which is strict RFC 8259 (no comments, no trailing commas; we
also refuse its NaN/Infinity extension), except `tsconfig*.json`/`jsconfig*.json`: TypeScript reads those as
JSONC, so their comments and trailing commas are blanked out first (positions unchanged). Other files (`.md`,
`.svg`, `.txt`, ...) are not parsed.

The grammars accept any closing JSX tag name (`<h1>...</h2>`); such a mismatch is reported here too, as the
TypeScript compiler and Babel refuse it. Languages are built once here; a `Parser` is made per call (parsers
are not shared between threads).
"""

import json
import posixpath
import re
from collections.abc import Iterator

import tree_sitter_css
import tree_sitter_html
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser, Tree

from models.app_builder.quality import Finding

TYPESCRIPT = Language(tree_sitter_typescript.language_typescript())
TSX = Language(tree_sitter_typescript.language_tsx())
CSS = Language(tree_sitter_css.language())
HTML = Language(tree_sitter_html.language())

GRAMMARS: dict[str, Language] = {
    ".ts": TYPESCRIPT,
    ".mts": TYPESCRIPT,
    ".cts": TYPESCRIPT,
    ".tsx": TSX,
    ".jsx": TSX,
    ".js": TSX,
    ".mjs": TSX,
    ".cjs": TSX,
    ".css": CSS,
    ".html": HTML,
}
SCRIPT_GRAMMARS = (TYPESCRIPT, TSX)

MAX_ERRORS_PER_FILE = 5
MAX_QUOTE_CHARS = 60

_JSONC_NAME = re.compile(r"^(tsconfig|jsconfig)(\..+)?\.json$")
_JSON_STRING = r'"(?:\\.|[^"\\\n])*"'
_JSONC_COMMENT = re.compile(rf"{_JSON_STRING}|//[^\n]*|/\*[\s\S]*?\*/")
_JSONC_TRAILING_COMMA = re.compile(rf"{_JSON_STRING}|,(?=\s*[}}\]])")


def grammar_for(path: str) -> Language | None:
    """The tree-sitter language that parses `path`, by its extension; None for files not parsed that way."""
    return GRAMMARS.get(posixpath.splitext(path)[1].lower())


def parse_tree(language: Language, source: bytes) -> Tree:
    return Parser(language).parse(source)


def node_text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode(errors="replace")


def position(source: bytes, node: Node) -> tuple[int, int]:
    """The node's 1-based line and 1-based column in characters (tree-sitter counts bytes)."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    return node.start_point.row + 1, len(source[line_start : node.start_byte].decode(errors="replace")) + 1


def quote(text: str) -> str:
    """The first non-blank line of `text`, shortened, for a message."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= MAX_QUOTE_CHARS else line[: MAX_QUOTE_CHARS - 1] + "…"


def parse_findings(files: dict[str, str]) -> tuple[list[Finding], int]:
    """Syntax errors of every parsed file, and how many files were parsed."""
    findings: list[Finding] = []
    parsed = 0
    for path, text in sorted(files.items()):
        language = grammar_for(path)
        if language is not None:
            findings.extend(_tree_findings(path, text.encode(), language))
        elif path.lower().endswith(".json"):
            findings.extend(_json_findings(path, text))
        else:
            continue
        parsed += 1
    return findings, parsed


def walk(tree: Tree) -> Iterator[Node]:
    """Every node of the tree, in document order."""
    cursor = tree.walk()
    while True:
        if cursor.node is not None:
            yield cursor.node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _tree_findings(path: str, source: bytes, language: Language) -> list[Finding]:
    tree = parse_tree(language, source)
    problems = [(node, _syntax_message(source, node)) for node in _error_nodes(tree)]
    if language is TSX:
        problems += _mismatched_jsx_tags(source, tree)
    findings = []
    for node, message in sorted(problems, key=lambda problem: problem[0].start_byte)[:MAX_ERRORS_PER_FILE]:
        line, column = position(source, node)
        findings.append(Finding(check="parse", message=message, path=path, line=line, column=column))
    return findings


def _syntax_message(source: bytes, node: Node) -> str:
    if node.is_missing:
        return f"missing `{node.type}`"
    offending = quote(node_text(source, node))
    return f"syntax error at `{offending}`" if offending else "syntax error"


def _mismatched_jsx_tags(source: bytes, tree: Tree) -> list[tuple[Node, str]]:
    """`<h1>...</h2>`: the grammar accepts any closing name, the compilers do not (inside an ERROR node the
    syntax error already says it)."""
    mismatched = []
    for element in (node for node in walk(tree) if node.type == "jsx_element" and not _inside_error(node)):
        opening, closing = element.child_by_field_name("open_tag"), element.child_by_field_name("close_tag")
        if opening is None or closing is None:
            continue
        opened, closed = (_jsx_name(source, tag) for tag in (opening, closing))
        if opened != closed:
            message = f"closing tag `</{closed}>` does not match `<{opened}>` (line {opening.start_point.row + 1})"
            mismatched.append((closing, message))
    return mismatched


def _inside_error(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.is_error:
            return True
        parent = parent.parent
    return False


def _jsx_name(source: bytes, tag: Node) -> str:
    name = tag.child_by_field_name("name")
    return "" if name is None else "".join(node_text(source, name).split())


def _error_nodes(tree: Tree) -> list[Node]:
    """The top-most ERROR and MISSING nodes in document order (subtrees without errors are skipped)."""
    errors: list[Node] = []
    cursor = tree.walk()
    while len(errors) < MAX_ERRORS_PER_FILE:
        node = cursor.node
        if node is not None and (node.is_error or node.is_missing):
            errors.append(node)
        elif node is not None and node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return errors
    return errors


def _json_findings(path: str, text: str) -> list[Finding]:
    if _JSONC_NAME.match(posixpath.basename(path)):
        text = jsonc_as_json(text)
    try:
        json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        offending = quote(text.split("\n")[exc.lineno - 1][exc.colno - 1 :])
        message = f"invalid JSON: {exc.msg}" + (f" at `{offending}`" if offending else "")
        return [Finding(check="parse", message=message, path=path, line=exc.lineno, column=exc.colno)]
    except ValueError as exc:
        return [Finding(check="parse", message=f"invalid JSON: {exc}", path=path)]
    return []


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def jsonc_as_json(text: str) -> str:
    """JSONC with its comments and trailing commas blanked out, so every other character keeps its position."""

    def blank_comment(match: re.Match[str]) -> str:
        found = match.group()
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    def blank_comma(match: re.Match[str]) -> str:
        return " " if match.group() == "," else match.group()

    return _JSONC_TRAILING_COMMA.sub(blank_comma, _JSONC_COMMENT.sub(blank_comment, text))
