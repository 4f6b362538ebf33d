"""The offline page agent: one module per component of the architect's tree (pages under `src/pages/`, the rest
under `src/components/`), each rendering its children as the tree composes them, and in `src/App.tsx` only the
page's import line and element line (the state agent changes the provider line of the same file in the same
wave).

The components show the store's state (read through the hook the state agent exports under the agreed name) but
do not change it yet: the interaction agent wires the UX flows into them in the next wave. A node whose id the
offline agents do not know becomes a section around its children.
"""

from activities.app_builder.offline.architecture import ITEM_LIST, ITEM_ROW
from activities.app_builder.offline.conventions import (
    changed_files,
    component_name,
    component_path,
    find_document,
    jsx_props,
    relative_import,
    root_node,
)
from activities.app_builder.offline.scaffold import APP_PATH, PAGE_CONTENT_LINE, PAGE_ELEMENT_LINE, app_skeleton
from activities.app_builder.offline.tsx import (
    ComponentSpec,
    component_source,
    component_specs,
    element,
    row_class,
    row_details,
    row_text,
)
from models.app_builder.documents import FrontendArchitectDocument, SessionDocument

REACT_ELEMENT = "import type { ReactElement } from 'react';"
STEPS = "[1, 5, 10]"

Parts = tuple[list[str], str, str]
"""A component's import lines, function body and runtime props."""


def _layout(spec: ComponentSpec) -> Parts:
    props, css = spec.node.props or {}, spec.css
    title = "{props.title}" if "title" in props else spec.name
    subtitle = [f'        <p className="{css}__subtitle">{{props.subtitle}}</p>'] if "subtitle" in props else []
    body = [
        "  return (",
        f'    <div className="{css}">',
        f'      <header className="{css}__header">',
        f'        <h1 className="{css}__title">{title}</h1>',
        *subtitle,
        "      </header>",
        f'      <main className="{css}__main">',
        *(f"        {element(child)}" for child in spec.children),
        "      </main>",
        "    </div>",
        "  );",
    ]
    return [REACT_ELEMENT, *spec.child_imports()], "\n".join(body), ""


def _section(spec: ComponentSpec) -> Parts:
    """A page, or a node the offline agents do not know: a section around its children."""
    children = [f"      {element(child)}" for child in spec.children]
    if not children:
        return [REACT_ELEMENT], f'  return <section className="{spec.css}" aria-label="{spec.name}" />;', ""
    body = ["  return (", f'    <section className="{spec.css}">', *children, "    </section>", "  );"]
    return [REACT_ELEMENT, *spec.child_imports()], "\n".join(body), ""


def _add_form(spec: ComponentSpec) -> Parts:
    item, css = spec.item, spec.css
    fields = [
        f'      <input className="{css}__input" name="{item.text}" placeholder={{props.placeholder}} '
        "aria-label={props.placeholder} />"
    ]
    if item.detail_type == "number":
        fields.append(
            f'      <input className="{css}__quantity" name="{item.detail}" type="number" min={{1}} defaultValue={{1}} '
            "aria-label={props.quantityLabel} />"
        )
    elif item.detail_type == "string":
        fields.append(
            f'      <textarea className="{css}__body" name="{item.detail}" placeholder={{props.bodyPlaceholder}} '
            "aria-label={props.bodyPlaceholder} />"
        )
    body = [
        "  return (",
        f'    <form className="{css}" onSubmit={{(event) => event.preventDefault()}}>',
        *fields,
        f'      <button className="{css}__submit" type="submit">',
        "        {props.submitLabel}",
        "      </button>",
        "    </form>",
        "  );",
    ]
    return [REACT_ELEMENT], "\n".join(body), ""


def _search_box(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state }} = {spec.store.hook}();
  return (
    <div className="{css}">
      <input
        className="{css}__input"
        type="search"
        value={{state.query}}
        readOnly
        placeholder={{props.placeholder}}
        aria-label={{props.placeholder}}
      />
    </div>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def filter_options(spec: ComponentSpec) -> str:
    """The filter bar's `[value, label]` pairs."""
    state = spec.store.state_type
    return (
        f"  const filters: Array<[{state}['filter'], string]> = [\n"
        "    ['all', props.allLabel],\n"
        "    ['active', props.activeLabel],\n"
        "    ['done', props.doneLabel],\n"
        "  ];"
    )


def _filter_bar(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state }} = {spec.store.hook}();
{filter_options(spec)}
  return (
    <div className="{css}" role="group" aria-label={{props.label}}>
      {{filters.map(([filter, label]) => (
        <button
          key={{filter}}
          type="button"
          className={{filter === state.filter ? '{css}__button {css}__button--active' : '{css}__button'}}
          aria-pressed={{filter === state.filter}}
        >
          {{label}}
        </button>
      ))}}
    </div>
  );"""
    imports = [spec.store_import([spec.store.hook]), spec.store_import([spec.store.state_type], types=True)]
    return [REACT_ELEMENT, *imports], body, ""


def row_element(spec: ComponentSpec) -> list[str]:
    """The list's row element for each `item`, with the props the architect gave the row."""
    row = spec.tree.get(ITEM_ROW)
    if row is None:
        return []
    return [
        "      {items.map((item) => (",
        f"        <{component_name(row)} key={{item.id}} item={{item}}{jsx_props(row.props)} />",
        "      ))}",
    ]


def _item_list(spec: ComponentSpec) -> Parts:
    body = [
        f"  const {{ state }} = {spec.store.hook}();",
        "  const items = visibleItems(state);",
        "  return (",
        f'    <ul className="{spec.css}">',
        *row_element(spec),
        "    </ul>",
        "  );",
    ]
    imports = [REACT_ELEMENT, spec.store_import([spec.store.hook, "visibleItems"]), *spec.child_imports()]
    return imports, "\n".join(body), ""


def _item_row(spec: ComponentSpec) -> Parts:
    item, css = spec.item, spec.css
    checkbox = (
        [
            f'      <input className="{css}__toggle" type="checkbox" checked={{item.{item.flag}}} readOnly '
            "aria-label={props.toggleLabel} />"
        ]
        if item.flag_control == "checkbox"
        else []
    )
    body = [
        "  const { item } = props;",
        "  return (",
        f"    <li className={row_class(spec)}>",
        *checkbox,
        *row_text(spec),
        *row_details(spec),
        "    </li>",
        "  );",
    ]
    imports = [REACT_ELEMENT, spec.store_import([spec.store.item_type], types=True)]
    return imports, "\n".join(body), f"  item: {spec.store.item_type};"


def remaining_count(spec: ComponentSpec) -> str:
    """The summary's `remaining` constant and its label."""
    return (
        f"  const remaining = state.items.filter((item) => !item.{spec.item.flag}).length;\n"
        "  const label = props.remainingLabel.replace('{count}', String(remaining));"
    )


def _summary_bar(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state }} = {spec.store.hook}();
{remaining_count(spec)}
  return (
    <div className="{css}">
      <span className="{css}__count" aria-live="polite">
        {{label}}
      </span>
    </div>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def _counter_display(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state }} = {spec.store.hook}();
  return (
    <div className="{css}">
      <span className="{css}__label" id="{css}-label">
        {{props.label}}
      </span>
      <output className="{css}__value" aria-labelledby="{css}-label" aria-live="polite">
        {{state.count}}
      </output>
    </div>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def counter_buttons(spec: ComponentSpec, handlers: dict[str, str]) -> list[str]:
    """The counter's −, reset and + buttons (reset when the architect gave it a label); `handlers` adds each
    button's event attributes by its label prop."""
    props = spec.node.props or {}
    css = spec.css
    buttons = [("decrementLabel", "−"), ("resetLabel", "{props.resetLabel}"), ("incrementLabel", "+")]
    lines: list[str] = []
    for label, text in buttons:
        if label in props:
            extra = handlers.get(label, "")
            lines += [
                f'      <button className="{css}__button" type="button" aria-label={{props.{label}}}{extra}>',
                f"        {text}",
                "      </button>",
            ]
    return lines


def _counter_controls(spec: ComponentSpec) -> Parts:
    body = [
        "  return (",
        f'    <div className="{spec.css}" role="group">',
        *counter_buttons(spec, {}),
        "    </div>",
        "  );",
    ]
    return [REACT_ELEMENT], "\n".join(body), ""


def step_options(extra: str) -> str:
    """The step picker's select; `extra` adds attributes (its change handler)."""
    return f"""      <select value={{state.step}}{extra}>
        {{{STEPS}.map((step) => (
          <option key={{step}} value={{step}}>
            {{step}}
          </option>
        ))}}
      </select>"""


def _step_picker(spec: ComponentSpec) -> Parts:
    body = f"""  const {{ state }} = {spec.store.hook}();
  return (
    <label className="{spec.css}">
      <span>{{props.label}}</span>
{step_options(" disabled")}
    </label>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def history_entries(spec: ComponentSpec) -> str:
    """The history's ordered list of changes, newest first."""
    css = spec.css
    return f"""      <ol className="{css}__entries">
        {{state.history.map((entry, index) => (
          <li className="{css}__entry" key={{`${{entry.at}}-${{state.history.length - index}}`}}>
            <span>{{entry.change > 0 ? `+${{entry.change}}` : entry.change}}</span>
            <span>= {{entry.total}}</span>
            <time dateTime={{new Date(entry.at).toISOString()}}>{{new Date(entry.at).toLocaleTimeString()}}</time>
          </li>
        ))}}
      </ol>"""


def _history_list(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state }} = {spec.store.hook}();
  return (
    <section className="{css}" aria-label={{props.title}}>
      <h2 className="{css}__title">{{props.title}}</h2>
{history_entries(spec)}
    </section>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


LIST_ROLES = {
    "add-form": _add_form,
    "search-box": _search_box,
    "filter-bar": _filter_bar,
    ITEM_LIST: _item_list,
    ITEM_ROW: _item_row,
    "summary-bar": _summary_bar,
}
COUNTER_ROLES = {
    "counter-display": _counter_display,
    "counter-controls": _counter_controls,
    "step-picker": _step_picker,
    "history-list": _history_list,
}


def static_component(spec: ComponentSpec) -> str:
    """The component's module as the page agent writes it."""
    roles = LIST_ROLES if spec.kind.item is not None else COUNTER_ROLES
    if spec.node.type == "layout":
        build = _layout
    elif spec.node.type == "page":
        build = _section
    else:
        build = roles.get(spec.node.id, _section)
    imports, body, runtime_props = build(spec)
    return component_source(spec, imports, body, runtime_props=runtime_props)


def _app_with_page(app: str, documents: list[SessionDocument]) -> str:
    """App.tsx with the page placeholder's two lines (and only them) replaced by the tree's root component."""
    architect = find_document(documents, FrontendArchitectDocument)
    if architect is None:
        return app
    root = root_node(architect.content.component_tree)
    name = component_name(root)
    page_import = f"import {{ {name} }} from '{relative_import(APP_PATH, component_path(root))}';"
    replacements = {PAGE_CONTENT_LINE: page_import, PAGE_ELEMENT_LINE: f"      {element(root)}"}
    return "\n".join(replacements.get(line, line) for line in app.split("\n"))


def page_files(documents: list[SessionDocument], files: dict[str, str], goal: str) -> dict[str, str]:
    written = {spec.path: static_component(spec) for spec in component_specs(documents)}
    written[APP_PATH] = _app_with_page(files.get(APP_PATH, app_skeleton()), documents)
    return changed_files(files, written)
