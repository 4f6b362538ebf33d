"""The offline scaffold agent: the Vite + React 18 + TypeScript project around the app, named after the title the
architect gave it.

`src/App.tsx` keeps a line for the store providers and lines for the page apart, each between unchanged lines,
so that the state agent and the page agent of the next wave can both change it and their changes merge
three-way without overlapping: the state agent replaces `STORE_PROVIDER_LINE`, the page agent
`PAGE_CONTENT_LINE` and `PAGE_ELEMENT_LINE`. `src/main.tsx` imports `src/styles.css`, which the style agent
rewrites.
"""

import json
import re

from activities.app_builder.offline.conventions import changed_files, documents_title, find_document, kind_of
from models.app_builder.documents import FrontendArchitectDocument, ProductManagerDocument, SessionDocument

APP_PATH = "src/App.tsx"
STYLES_PATH = "src/styles.css"
STORE_PROVIDER_LINE = "import { Fragment as StoreProvider } from 'react';"
PAGE_CONTENT_LINE = 'const PageContent = (): ReactElement => <p className="app-loading">Loading…</p>;'
PAGE_ELEMENT_LINE = "      <PageContent />"

DEPENDENCIES = {"react": "18.3.1", "react-dom": "18.3.1"}
DEV_DEPENDENCIES = {
    "@types/react": "^18.3.0",
    "@types/react-dom": "^18.3.0",
    "@vitejs/plugin-react": "^4.3.0",
    "typescript": "~5.6.3",
    "vite": "^5.4.0",
}
TSCONFIG = {
    "compilerOptions": {
        "target": "ES2020",
        "useDefineForClassFields": True,
        "lib": ["ES2020", "DOM", "DOM.Iterable"],
        "module": "ESNext",
        "skipLibCheck": True,
        "moduleResolution": "bundler",
        "isolatedModules": True,
        "moduleDetection": "force",
        "noEmit": True,
        "jsx": "react-jsx",
        "strict": True,
        "noUnusedLocals": True,
        "noUnusedParameters": True,
        "noFallthroughCasesInSwitch": True,
    },
    "include": ["src"],
}

_CJK = re.compile(r"[\u3400-\u9fff]")


def app_skeleton() -> str:
    """`src/App.tsx` before the state and page agents: an empty provider around a placeholder."""
    return "\n".join(
        [
            "import type { ReactElement } from 'react';",
            "// Store providers: every store's context around the app.",
            STORE_PROVIDER_LINE,
            "// The page the app shows.",
            PAGE_CONTENT_LINE,
            "",
            "export default function App(): ReactElement {",
            "  return (",
            "    <StoreProvider>",
            PAGE_ELEMENT_LINE,
            "    </StoreProvider>",
            "  );",
            "}",
            "",
        ]
    )


def package_name(title: str, fallback: str) -> str:
    """An npm package name from the title's latin letters and digits, else the fallback."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:60].strip("-") or fallback


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _index_html(title: str, language: str) -> str:
    escaped = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"""<!doctype html>
<html lang="{language}">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>{escaped}</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
"""


MAIN_TSX = """import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import './styles.css';

const container = document.getElementById('root');
if (container === null) {
  throw new Error('index.html has no #root element');
}
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
"""

VITE_CONFIG = """import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
});
"""

PLACEHOLDER_CSS = """body {
  margin: 0;
  font-family: system-ui, sans-serif;
}
"""


def _readme(title: str, documents: list[SessionDocument]) -> str:
    product = find_document(documents, ProductManagerDocument)
    features = (
        [f"- **{req.title}**: {req.description}" for req in product.content.functional_requirements] if product else []
    )
    return "\n".join(
        [
            f"# {title}",
            "",
            "Generated offline by the app builder: deterministic rules, no LLM, from the four design documents "
            "(requirements, architecture, UI spec, UX flows). React 18 + TypeScript + Vite; state in React context.",
            "",
            *(["## Features", "", *features, ""] if features else []),
            "## Run",
            "",
            "```sh",
            "npm install",
            "npm run dev      # development server",
            "npm run build    # type check and production build into dist/",
            "```",
            "",
        ]
    )


def scaffold_files(documents: list[SessionDocument], files: dict[str, str], goal: str) -> dict[str, str]:
    title = documents_title(documents)
    architect = find_document(documents, FrontendArchitectDocument)
    texts = (
        [value for node in architect.content.component_tree for value in (node.props or {}).values()]
        if architect
        else []
    )
    language = "zh-CN" if _CJK.search(" ".join([title, *texts])) else "en"
    package = {
        "name": package_name(title, f"{kind_of(documents).name}-app"),
        "private": True,
        "version": "0.1.0",
        "type": "module",
        "scripts": {"dev": "vite", "build": "tsc --noEmit && vite build", "preview": "vite preview"},
        "dependencies": DEPENDENCIES,
        "devDependencies": DEV_DEPENDENCIES,
    }
    written = {
        "package.json": _json(package),
        "tsconfig.json": _json(TSCONFIG),
        "vite.config.ts": VITE_CONFIG,
        "index.html": _index_html(title, language),
        "src/main.tsx": MAIN_TSX,
        APP_PATH: app_skeleton(),
        STYLES_PATH: PLACEHOLDER_CSS,
        "src/vite-env.d.ts": '/// <reference types="vite/client" />\n',
        ".gitignore": "node_modules\ndist\n",
        "README.md": _readme(title, documents),
    }
    return changed_files(files, written)
