"""The offline state agent: each store of the architect's state design as a typed React context + `useReducer`
module under `src/store/`, a `StoreProvider` that nests them all (`src/store/index.tsx`), and in `src/App.tsx`
only the store-provider import line (the page agent changes other lines of the same file in the same wave).

A store's state interface takes its fields' TypeScript types from the design. The kind's own store gets the
actions of the requirements asked for (add, toggle, remove, filter, search, clear; or increment, decrement,
reset, step), a `visibleItems` selector for a list and, when persistence is asked for, a copy in localStorage.
A store the offline agents do not know keeps its fields as `unknown` with one `set` action.
"""

from activities.app_builder.offline.app_kind import AppKind, ItemShape
from activities.app_builder.offline.conventions import (
    STORE_INDEX,
    StoreModule,
    capability_keys,
    changed_files,
    find_document,
    kind_of,
    relative_import,
)
from activities.app_builder.offline.scaffold import APP_PATH, STORE_PROVIDER_LINE, app_skeleton
from models.app_builder.documents import FrontendArchitectDocument, SessionDocument, StoreDesign

STORE_IMPORT_LINE = "import { StoreProvider } from './store';"
HISTORY_LIMIT = 20
INITIAL_VALUES = {"items": "[]", "filter": "'all'", "query": "''", "count": "0", "step": "1", "history": "[]"}


def _header(store: StoreDesign, persist: bool) -> list[str]:
    hooks = ", ".join(["createContext", "useContext", *(["useEffect"] if persist else []), "useMemo", "useReducer"])
    return [
        f"/** {store.name}: {store.description}. React context + useReducer, from the architect's state design. */",
        f"import {{ {hooks} }} from 'react';",
        "import type { Dispatch, ReactElement, ReactNode } from 'react';",
        "",
    ]


def _state_interface(module: StoreModule, fields: dict[str, str]) -> list[str]:
    return [f"export interface {module.state_type} {{", *(f"  {name}: {ts};" for name, ts in fields.items()), "}", ""]


def _initial_state(module: StoreModule, values: dict[str, str]) -> list[str]:
    body = ", ".join(f"{name}: {value}" for name, value in values.items())
    return [f"const initialState: {module.state_type} = {{ {body} }};", ""]


def _list_store(module: StoreModule, item: ItemShape, fields: dict[str, str], asked: set[str]) -> list[str]:
    s, i, flag = module.state_type, module.item_type, item.flag
    actions = [f"{{ type: 'add'; item: {i} }}"] if "add" in asked else []
    cases: list[str] = (
        ["case 'add':", "  return { ...state, items: [...state.items, action.item] };"] if "add" in asked else []
    )
    if "toggle" in asked:
        actions.append("{ type: 'toggle'; id: string }")
        cases += [
            "case 'toggle':",
            "  return {",
            "    ...state,",
            "    items: state.items.map((item) =>",
            f"      item.id === action.id ? {{ ...item, {flag}: !item.{flag} }} : item,",
            "    ),",
            "  };",
        ]
    if "remove" in asked:
        actions.append("{ type: 'remove'; id: string }")
        cases += [
            "case 'remove':",
            "  return { ...state, items: state.items.filter((item) => item.id !== action.id) };",
        ]
    if "filter" in fields:
        actions.append(f"{{ type: 'setFilter'; filter: {s}['filter'] }}")
        cases += ["case 'setFilter':", "  return { ...state, filter: action.filter };"]
    if "query" in fields:
        actions.append("{ type: 'setQuery'; query: string }")
        cases += ["case 'setQuery':", "  return { ...state, query: action.query };"]
    if "clear" in asked:
        actions.append("{ type: 'clearDone' }")
        cases += ["case 'clearDone':", f"  return {{ ...state, items: state.items.filter((item) => !item.{flag}) }};"]
    lines = [f"export type {i} = {s}['items'][number];", ""]
    lines += _action_type(module, actions)
    lines += [
        "/** A new item's id: unique enough for one browser's list. */",
        "export function createId(): string {",
        "  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;",
        "}",
        "",
    ]
    lines += _reducer(module, cases)
    lines += _visible_items(module, item, fields)
    return lines


def _visible_items(module: StoreModule, item: ItemShape, fields: dict[str, str]) -> list[str]:
    body: list[str] = []
    if "filter" in fields:
        body += [
            "  items = items.filter(",
            f"    (item) => state.filter === 'all' || item.{item.flag} === (state.filter === 'done'),",
            "  );",
        ]
    if "query" in fields:
        searched = [item.text] + ([item.detail] if item.detail and item.detail_type == "string" else [])
        text = " ".join(f"${{item.{name}}}" for name in searched)
        body += [
            "  const query = state.query.trim().toLowerCase();",
            "  if (query !== '') {",
            f"    items = items.filter((item) => `{text}`.toLowerCase().includes(query));",
            "  }",
        ]
    if item.flag_control == "pin":
        flag = item.flag
        body += [
            "  items = [...items].sort(",
            f"    (a, b) => Number(b.{flag}) - Number(a.{flag}) || b.createdAt - a.createdAt,",
            "  );",
        ]
    lines = [
        "/** The items the list shows, in the order it shows them. */",
        f"export function visibleItems(state: {module.state_type}): {module.item_type}[] {{",
    ]
    lines += ["  let items = state.items;", *body, "  return items;"] if body else ["  return state.items;"]
    return [*lines, "}", ""]


def _counter_store(module: StoreModule, fields: dict[str, str], asked: set[str]) -> list[str]:
    actions: list[str] = []
    cases: list[str] = []
    if "count" in asked:
        actions += ["{ type: 'increment'; at: number }", "{ type: 'decrement'; at: number }"]
        cases += [
            "case 'increment':",
            "  return changeBy(state, state.step, action.at);",
            "case 'decrement':",
            "  return changeBy(state, -state.step, action.at);",
        ]
    if "reset" in asked:
        actions.append("{ type: 'reset'; at: number }")
        cases += ["case 'reset':", "  return state.count === 0 ? state : changeBy(state, -state.count, action.at);"]
    if "step" in asked:
        actions.append("{ type: 'setStep'; step: number }")
        cases += ["case 'setStep':", "  return { ...state, step: action.step };"]
    s = module.state_type
    if "history" in fields:
        change = [
            f"const HISTORY_LIMIT = {HISTORY_LIMIT};",
            "",
            "/** The count changed by `change` at `at` (ms), the newest change first in the history. */",
            f"function changeBy(state: {s}, change: number, at: number): {s} {{",
            "  const total = state.count + change;",
            "  const history = [{ change, total, at }, ...state.history].slice(0, HISTORY_LIMIT);",
            "  return { ...state, count: total, history };",
            "}",
        ]
    else:
        change = [
            f"function changeBy(state: {s}, change: number, _at: number): {s} {{",
            "  return { ...state, count: state.count + change };",
            "}",
        ]
    return [*_action_type(module, actions), *change, "", *_reducer(module, cases)]


def _generic_store(module: StoreModule) -> list[str]:
    return [
        *_action_type(module, [f"{{ type: 'set'; field: keyof {module.state_type}; value: unknown }}"]),
        *_reducer(module, ["case 'set':", "  return { ...state, [action.field]: action.value };"]),
    ]


def _action_type(module: StoreModule, actions: list[str]) -> list[str]:
    if not actions:
        return [f"export type {module.action_type} = never;", ""]
    return [
        f"export type {module.action_type} =",
        *(f"  | {action}" for action in actions[:-1]),
        f"  | {actions[-1]};",
        "",
    ]


def _reducer(module: StoreModule, cases: list[str]) -> list[str]:
    s, a = module.state_type, module.action_type
    if not cases:
        return [f"export function {module.reducer}(state: {s}, _action: {a}): {s} {{", "  return state;", "}", ""]
    signature = f"export function {module.reducer}(state: {s}, action: {a}): {s} {{"
    return [signature, "  switch (action.type) {", *(f"    {line}" for line in cases), "  }", "}", ""]


def _provider(module: StoreModule, persist: bool) -> list[str]:
    value, context, state = module.value_type, module.context, module.state_type
    lines = [
        f"interface {value} {{",
        f"  state: {state};",
        f"  dispatch: Dispatch<{module.action_type}>;",
        "}",
        "",
        f"const {context} = createContext<{value} | null>(null);",
        "",
    ]
    if persist:
        lines += [
            f"const STORAGE_KEY = '{module.name}.v1';",
            "",
            "/** The state saved by an earlier visit, else the initial state (also when storage is unavailable). */",
            f"function loadState(): {state} {{",
            "  try {",
            "    const saved = window.localStorage.getItem(STORAGE_KEY);",
            "    if (saved === null) {",
            "      return initialState;",
            "    }",
            f"    return {{ ...initialState, ...(JSON.parse(saved) as Partial<{state}>) }};",
            "  } catch {",
            "    return initialState;",
            "  }",
            "}",
            "",
        ]
    lines += [
        f"export function {module.provider}({{ children }}: {{ children: ReactNode }}): ReactElement {{",
        f"  const [state, dispatch] = useReducer({module.reducer}, initialState{', loadState' if persist else ''});",
    ]
    if persist:
        lines += [
            "  useEffect(() => {",
            "    try {",
            "      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(state));",
            "    } catch {",
            "      // Storage full or disabled: the app keeps working in memory.",
            "    }",
            "  }, [state]);",
        ]
    lines += [
        "  const value = useMemo(() => ({ state, dispatch }), [state]);",
        f"  return <{context}.Provider value={{value}}>{{children}}</{context}.Provider>;",
        "}",
        "",
        f"export function {module.hook}(): {value} {{",
        f"  const value = useContext({context});",
        "  if (value === null) {",
        f"    throw new Error('{module.hook} must be used inside <{module.provider}>');",
        "  }",
        "  return value;",
        "}",
        "",
    ]
    return lines


def store_source(store: StoreDesign, kind: AppKind, asked: set[str]) -> str:
    """One store's module."""
    module = StoreModule(store.name)
    known = store.name == kind.store and set(store.fields) <= set(INITIAL_VALUES)
    persist = known and "persist" in asked
    fields = store.fields if known else {name: "unknown" for name in store.fields}
    lines = [*_header(store, persist), *_state_interface(module, fields)]
    lines += _initial_state(module, {name: INITIAL_VALUES[name] if known else "null" for name in fields})
    if not known:
        lines += _generic_store(module)
    elif kind.item is not None:
        lines += _list_store(module, kind.item, fields, asked)
    else:
        lines += _counter_store(module, fields, asked)
    return "\n".join([*lines, *_provider(module, persist)]).rstrip("\n") + "\n"


def store_index(stores: list[StoreDesign]) -> str:
    modules = [StoreModule(store.name) for store in stores]
    imports = [f"import {{ {m.provider} }} from '{relative_import(STORE_INDEX, m.path)}';" for m in modules]
    opening = [f"{'  ' * (depth + 2)}<{m.provider}>" for depth, m in enumerate(modules)]
    closing = [f"{'  ' * (depth + 2)}</{m.provider}>" for depth, m in reversed(list(enumerate(modules)))]
    inner = f"{'  ' * (len(modules) + 2)}{{children}}"
    body = ["  return (", *opening, inner, *closing, "  );"] if modules else ["  return <>{children}</>;"]
    return "\n".join(
        [
            "import type { ReactElement, ReactNode } from 'react';",
            *imports,
            "",
            "/** Every store's provider around the app, the first store outermost. */",
            "export function StoreProvider({ children }: { children: ReactNode }): ReactElement {",
            *body,
            "}",
            "",
        ]
    )


def _app_with_stores(app: str) -> str:
    """App.tsx with the store-provider line (and only it) replaced; unchanged when the line is not there."""
    lines = app.split("\n")
    return "\n".join(STORE_IMPORT_LINE if line == STORE_PROVIDER_LINE else line for line in lines)


def state_files(documents: list[SessionDocument], files: dict[str, str], goal: str) -> dict[str, str]:
    architect = find_document(documents, FrontendArchitectDocument)
    stores = architect.content.state_management.stores if architect else []
    kind = kind_of(documents)
    asked = capability_keys(documents, kind)
    written = {StoreModule(store.name).path: store_source(store, kind, asked) for store in stores}
    written[STORE_INDEX] = store_index(stores)
    written[APP_PATH] = _app_with_stores(files.get(APP_PATH, app_skeleton()))
    return changed_files(files, written)
