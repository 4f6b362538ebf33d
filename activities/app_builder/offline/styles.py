"""The offline style agent: `src/styles.css` from the UI expert's spec, and nothing else (`src/main.tsx`, written
by the scaffold, already imports it; App.tsx is the state and page agents').

The visual spec becomes CSS variables (`--color-<name>` from each `name #hex` of the color scheme, `--font-heading`,
`--font-body`, `--space-<name>`, `--radius`) and base rules for the page, headings, buttons and fields that use
them. Each component style is a rule on the component's class; a variant named `__part` styles `.<id>__part`, a
variant named after a breakpoint goes into that breakpoint's media query (min-width for mobile-first, max-width
for desktop-first), any other variant styles `.<id>--<name>`. Declarations CSS cannot hold are left out.
"""

import re

from activities.app_builder.offline.conventions import changed_files, css_class, find_document
from activities.app_builder.offline.scaffold import STYLES_PATH
from models.app_builder.documents import SessionDocument, UIExpertContent, UIExpertDocument

_COLOR = re.compile(r"([a-z][a-z0-9-]*)\s*[:=]?\s*(#[0-9a-f]{3,8})\b", re.IGNORECASE)
_PROPERTY = re.compile(r"-{0,2}[a-z][a-z0-9-]*")
_UNSAFE_VALUE = re.compile(r"[{};<>]")

BASE_RULES = """*,
*::before,
*::after {
  box-sizing: border-box;
}

body {
  margin: 0;
  min-height: 100vh;
  font-family: var(--font-body);
  line-height: 1.5;
  color: var(--color-text, #1f2937);
  background: var(--color-background, #f8fafc);
}

h1,
h2,
h3 {
  font-family: var(--font-heading);
  line-height: 1.25;
}

button,
input,
select,
textarea {
  font: inherit;
  color: inherit;
}

button {
  padding: var(--space-xs, 4px) var(--space-md, 16px);
  border: 1px solid var(--color-border, #d1d5db);
  border-radius: var(--radius);
  background: var(--color-surface, #ffffff);
  cursor: pointer;
}

button:hover:not(:disabled) {
  border-color: var(--color-primary, #2563eb);
}

button:disabled {
  opacity: 0.5;
  cursor: not-allowed;
}

button[type='submit'] {
  border-color: transparent;
  background: var(--color-primary, #2563eb);
  color: var(--color-on-primary, #ffffff);
}

input,
select,
textarea {
  padding: var(--space-sm, 8px);
  border: 1px solid var(--color-border, #d1d5db);
  border-radius: var(--radius);
  background: var(--color-surface, #ffffff);
}

input[type='checkbox'] {
  width: 1.125rem;
  height: 1.125rem;
  accent-color: var(--color-primary, #2563eb);
}

:focus-visible {
  outline: 2px solid var(--color-primary, #2563eb);
  outline-offset: 2px;
}
"""


def _declarations(styles: dict[str, str], indent: str) -> list[str]:
    return [
        f"{indent}{name}: {value};"
        for name, value in styles.items()
        if _PROPERTY.fullmatch(name) and value.strip() and not _UNSAFE_VALUE.search(value)
    ]


def _rule(selector: str, styles: dict[str, str], indent: str = "") -> list[str]:
    body = _declarations(styles, indent + "  ")
    return [f"{indent}{selector} {{", *body, f"{indent}}}", ""] if body else []


def _variables(content: UIExpertContent) -> list[str]:
    spec = content.visual_spec
    mode = spec.color_scheme.split(";")[0].strip().lower()
    variables = {"color-scheme": mode} if mode in ("light", "dark") else {}
    variables |= {f"--color-{name.lower()}": value for name, value in _COLOR.findall(spec.color_scheme)}
    variables |= {"--font-heading": spec.typography.heading, "--font-body": spec.typography.body}
    variables |= {f"--space-{css_class(name)}": value for name, value in spec.spacing.items()}
    variables["--radius"] = spec.border_radius
    return _rule(":root", variables)


def _media_query(width: int, mobile_first: bool) -> str:
    return f"@media (min-width: {width}px)" if mobile_first else f"@media (max-width: {width - 1}px)"


def stylesheet(content: UIExpertContent) -> str:
    breakpoints = content.responsive_layout.breakpoints
    mobile_first = content.responsive_layout.strategy == "mobile-first"
    rules = ["/* Generated offline from the UI expert's visual spec. */", "", *_variables(content), BASE_RULES]
    responsive: dict[str, list[str]] = {name: [] for name in breakpoints}
    for style in content.component_styles:
        base = "." + css_class(style.component_id)
        rules += _rule(base, style.styles)
        for name, styles in (style.variants or {}).items():
            if name in breakpoints:
                responsive[name] += _rule(base, styles, "  ")
            elif name.startswith("__"):
                rules += _rule(base + "__" + css_class(name[2:]), styles)
            else:
                rules += _rule(f"{base}--{css_class(name)}", styles)
    order = sorted(breakpoints, key=lambda name: breakpoints[name], reverse=not mobile_first)
    for name in order:
        if responsive[name]:
            rules += [f"{_media_query(breakpoints[name], mobile_first)} {{", *responsive[name][:-1], "}", ""]
    return "\n".join(rules).rstrip("\n") + "\n"


def style_files(documents: list[SessionDocument], files: dict[str, str], goal: str) -> dict[str, str]:
    ui = find_document(documents, UIExpertDocument)
    if ui is None:
        return {}
    return changed_files(files, {STYLES_PATH: stylesheet(ui.content)})
