"""The offline interaction agent: the UX expert's flows wired into the page agent's components (which it sees:
it runs in the wave after them). Each flow names the component it drives: adding → the add form (Enter submits,
Esc clears, an empty entry shows the form's error), toggling and removing → the row (also Space and Delete on a
focused row), filtering and searching → their bars (Esc clears the search), clearing → the summary, browsing →
the list's empty states, counting, resetting and the step → the counter's controls (also ↑ ↓ 0 on the page) and
picker, the history → its empty state.

A component changes only when the page agent wrote it and a flow drives it; the rest stay as they are.
"""

from activities.app_builder.offline.architecture import ITEM_LIST, ITEM_ROW
from activities.app_builder.offline.conventions import changed_files
from activities.app_builder.offline.pages import (
    REACT_ELEMENT,
    counter_buttons,
    filter_options,
    history_entries,
    remaining_count,
    row_element,
    step_options,
)
from activities.app_builder.offline.tsx import (
    ComponentSpec,
    component_source,
    component_specs,
    row_class,
    row_details,
    row_text,
)
from models.app_builder.documents import SessionDocument

Parts = tuple[list[str], str, str]

FLOW_ROLES = {
    "flow-add": "add-form",
    "flow-toggle": ITEM_ROW,
    "flow-remove": ITEM_ROW,
    "flow-filter": "filter-bar",
    "flow-search": "search-box",
    "flow-clear": "summary-bar",
    "flow-browse": ITEM_LIST,
    "flow-count": "counter-controls",
    "flow-reset": "counter-controls",
    "flow-step": "step-picker",
    "flow-history": "history-list",
}
"""The flow id → the role of the component it drives."""


ABSENT = "\x00"
"""Stands for an optional part of a template that this component does not have (its line is dropped)."""

CTRL_ENTER = """
  /** Ctrl+Enter (⌘+Enter) in the body saves; Esc clears. */
  function saveOnCtrlEnter(event: KeyboardEvent<HTMLTextAreaElement>): void {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
    } else {
      clearOnEscape(event);
    }
  }"""


def _detail_field(spec: ComponentSpec) -> tuple[str, str, str, str, str]:
    """The add form's second field, if the items have one: its state line, its reset line, its value in the new
    item, its JSX and its key handler."""
    item, css = spec.item, spec.css
    if item.detail_type == "number":
        jsx = [
            "      <input",
            f'        className="{css}__quantity"',
            '        type="number"',
            "        min={1}",
            "        value={quantity}",
            "        aria-label={props.quantityLabel}",
            "        onChange={(event) => setQuantity(event.target.value)}",
            "        onKeyDown={clearOnEscape}",
            "      />",
        ]
        value = f", {item.detail}: Math.max(1, Math.round(Number(quantity)) || 1)"
        return "  const [quantity, setQuantity] = useState('1');", "    setQuantity('1');", value, "\n".join(jsx), ""
    if item.detail_type == "string":
        jsx = [
            "      <textarea",
            f'        className="{css}__body"',
            "        value={body}",
            "        placeholder={props.bodyPlaceholder}",
            "        aria-label={props.bodyPlaceholder}",
            "        onChange={(event) => setBody(event.target.value)}",
            "        onKeyDown={saveOnCtrlEnter}",
            "      />",
        ]
        value = f", {item.detail}: body.trim()"
        return "  const [body, setBody] = useState('');", "    setBody('');", value, "\n".join(jsx), CTRL_ENTER
    return ABSENT, ABSENT, "", ABSENT, ABSENT


def _add_form(spec: ComponentSpec) -> Parts:
    item, css, store = spec.item, spec.css, spec.store
    detail_state, detail_reset, detail_value, detail_jsx, detail_keys = _detail_field(spec)
    new_item = f"{{ id: createId(), {item.text}: value{detail_value}, {item.flag}: false, createdAt: Date.now() }}"
    body = f"""  const {{ dispatch }} = {store.hook}();
  const [text, setText] = useState('');
{detail_state}
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);

  function reset(): void {{
    setText('');
{detail_reset}
    setError('');
  }}

  function submit(event?: FormEvent<HTMLFormElement>): void {{
    event?.preventDefault();
    const value = text.trim();
    if (value === '') {{
      setError(props.emptyError);
      input.current?.focus();
      return;
    }}
    dispatch({{
      type: 'add',
      item: {new_item},
    }});
    reset();
    input.current?.focus();
  }}

  /** Esc clears what was typed and the error. */
  function clearOnEscape(event: KeyboardEvent<HTMLElement>): void {{
    if (event.key === 'Escape') {{
      reset();
    }}
  }}
{detail_keys}

  return (
    <form className="{css}" onSubmit={{submit}} noValidate>
      <input
        ref={{input}}
        className="{css}__input"
        value={{text}}
        placeholder={{props.placeholder}}
        aria-label={{props.placeholder}}
        aria-invalid={{error !== ''}}
        onChange={{(event) => {{
          setText(event.target.value);
          setError('');
        }}}}
        onKeyDown={{clearOnEscape}}
        autoFocus
      />
{detail_jsx}
      <button className="{css}__submit" type="submit">
        {{props.submitLabel}}
      </button>
      {{error !== '' && (
        <p className="{css}__error" role="alert">
          {{error}}
        </p>
      )}}
    </form>
  );"""
    imports = [
        "import { useRef, useState } from 'react';",
        "import type { FormEvent, KeyboardEvent, ReactElement } from 'react';",
        spec.store_import(["createId", store.hook]),
    ]
    return imports, _without_empty_parts(body), ""


def _search_box(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state, dispatch }} = {spec.store.hook}();
  const search = (query: string): void => dispatch({{ type: 'setQuery', query }});
  return (
    <div className="{css}" role="search">
      <input
        className="{css}__input"
        type="search"
        value={{state.query}}
        placeholder={{props.placeholder}}
        aria-label={{props.placeholder}}
        onChange={{(event) => search(event.target.value)}}
        onKeyDown={{(event: KeyboardEvent<HTMLInputElement>) => {{
          if (event.key === 'Escape') {{
            search('');
          }}
        }}}}
      />
      <button type="button" className="{css}__clear" disabled={{state.query === ''}} onClick={{() => search('')}}>
        {{props.clearLabel}}
      </button>
    </div>
  );"""
    imports = ["import type { KeyboardEvent, ReactElement } from 'react';", spec.store_import([spec.store.hook])]
    return imports, body, ""


def _filter_bar(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state, dispatch }} = {spec.store.hook}();
{filter_options(spec)}
  return (
    <div className="{css}" role="group" aria-label={{props.label}}>
      {{filters.map(([filter, label]) => (
        <button
          key={{filter}}
          type="button"
          className={{filter === state.filter ? '{css}__button {css}__button--active' : '{css}__button'}}
          aria-pressed={{filter === state.filter}}
          onClick={{() => dispatch({{ type: 'setFilter', filter }})}}
        >
          {{label}}
        </button>
      ))}}
    </div>
  );"""
    imports = [spec.store_import([spec.store.hook]), spec.store_import([spec.store.state_type], types=True)]
    return [REACT_ELEMENT, *imports], body, ""


def _item_list(spec: ComponentSpec) -> Parts:
    css = spec.css
    narrowed = bool(spec.store_fields & {"filter", "query"})
    no_match = (
        f"""
  if (items.length === 0) {{
    return (
      <p className="{css}__empty" role="status">
        {{props.noMatchMessage}}
      </p>
    );
  }}"""
        if narrowed
        else ""
    )
    rows = "\n".join(row_element(spec))
    body = f"""  const {{ state }} = {spec.store.hook}();
  const items = visibleItems(state);
  if (state.items.length === 0) {{
    return (
      <p className="{css}__empty" role="status">
        {{props.emptyMessage}}
      </p>
    );
  }}{no_match}
  return (
    <ul className="{css}" aria-live="polite">
{rows}
    </ul>
  );"""
    imports = [REACT_ELEMENT, spec.store_import([spec.store.hook, "visibleItems"]), *spec.child_imports()]
    return imports, body, ""


def _item_row(spec: ComponentSpec) -> Parts:
    item, css = spec.item, spec.css
    toggle, remove = "flow-toggle" in spec.flows, "flow-remove" in spec.flows
    handlers, keys, leading, trailing = [], [], [], []
    if toggle:
        handlers.append("  const toggle = (): void => dispatch({ type: 'toggle', id: item.id });")
        keys.append(("event.key === ' ' || event.key === 'Enter'", "toggle"))
    if remove:
        handlers.append("  const remove = (): void => dispatch({ type: 'remove', id: item.id });")
        keys.append(("event.key === 'Delete' || event.key === 'Backspace'", "remove"))
    if item.flag_control == "checkbox":
        change = "onChange={toggle}" if toggle else "readOnly"
        leading = [
            f'      <input className="{css}__toggle" type="checkbox" checked={{item.{item.flag}}} {change} '
            f"aria-label={{`${{props.toggleLabel}}: ${{item.{item.text}}}`}} />"
        ]
    elif toggle:
        trailing = [
            f'      <button type="button" className="{css}__pin" aria-pressed={{item.{item.flag}}} onClick={{toggle}}>',
            f"        {{item.{item.flag} ? props.unpinLabel : props.pinLabel}}",
            "      </button>",
        ]
    if remove:
        trailing += [
            f'      <button type="button" className="{css}__remove" onClick={{remove}} '
            f"aria-label={{`${{props.deleteLabel}}: ${{item.{item.text}}}`}}>",
            "        {props.deleteLabel}",
            "      </button>",
        ]
    key_lines = [
        line
        for condition, action in keys
        for line in (f"    if ({condition}) {{", "      event.preventDefault();", f"      {action}();", "    }")
    ]
    body = [
        "  const { item } = props;",
        f"  const {{ dispatch }} = {spec.store.hook}();",
        *handlers,
        "",
        "  /** Keys pressed on the focused row itself (not inside its controls). */",
        "  function onKeyDown(event: KeyboardEvent<HTMLLIElement>): void {",
        "    if (event.target !== event.currentTarget) {",
        "      return;",
        "    }",
        *key_lines,
        "  }",
        "",
        "  return (",
        f"    <li className={row_class(spec)} tabIndex={{0}} onKeyDown={{onKeyDown}}>",
        *leading,
        *row_text(spec),
        *trailing,
        *row_details(spec),
        "    </li>",
        "  );",
    ]
    imports = [
        "import type { KeyboardEvent, ReactElement } from 'react';",
        spec.store_import([spec.store.hook]),
        spec.store_import([spec.store.item_type], types=True),
    ]
    return imports, "\n".join(body), f"  item: {spec.store.item_type};"


def _summary_bar(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state, dispatch }} = {spec.store.hook}();
{remaining_count(spec)}
  const finished = state.items.length - remaining;
  return (
    <div className="{css}">
      <span className="{css}__count" aria-live="polite">
        {{label}}
      </span>
      <button
        type="button"
        className="{css}__clear"
        disabled={{finished === 0}}
        onClick={{() => dispatch({{ type: 'clearDone' }})}}
      >
        {{props.clearLabel}}
      </button>
    </div>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def _counter_controls(spec: ComponentSpec) -> Parts:
    counting, resetting = "flow-count" in spec.flows, "flow-reset" in spec.flows
    has_reset = "resetLabel" in (spec.node.props or {})
    actions = (["increment", "decrement"] if counting else []) + (["reset"] if resetting and has_reset else [])
    key_conditions = {
        "increment": "event.key === 'ArrowUp' || event.key === '+'",
        "decrement": "event.key === 'ArrowDown' || event.key === '-'",
        "reset": "event.key === '0'",
    }
    handlers = {"incrementLabel": "increment", "decrementLabel": "decrement", "resetLabel": "reset"}
    attributes = {
        label: f" onClick={{() => change('{action}')}}" + (" disabled={state.count === 0}" if action == "reset" else "")
        for label, action in handlers.items()
        if action in actions
    }
    key_lines = [
        line
        for action in actions
        for line in (
            f"      if ({key_conditions[action]}) {{",
            "        event.preventDefault();",
            f"        change('{action}');",
            "      }",
        )
    ]
    kinds = " | ".join(f"'{action}'" for action in actions) or "never"
    store_value = "{ state, dispatch }" if "reset" in actions else "{ dispatch }"
    body = [
        f"  const {store_value} = {spec.store.hook}();",
        f"  const change = useCallback((type: {kinds}): void => dispatch({{ type, at: Date.now() }}), [dispatch]);",
        "",
        "  useEffect(() => {",
        "    /** Counting keys anywhere on the page, except while typing in a field. */",
        "    function onKeyDown(event: KeyboardEvent): void {",
        "      if (event.target instanceof HTMLElement && event.target.closest('input, select, textarea') !== null) {",
        "        return;",
        "      }",
        *key_lines,
        "    }",
        "    window.addEventListener('keydown', onKeyDown);",
        "    return () => window.removeEventListener('keydown', onKeyDown);",
        "  }, [change]);",
        "",
        "  return (",
        f'    <div className="{spec.css}" role="group">',
        *counter_buttons(spec, attributes),
        "    </div>",
        "  );",
    ]
    imports = [
        "import { useCallback, useEffect } from 'react';",
        REACT_ELEMENT,
        spec.store_import([spec.store.hook]),
    ]
    return imports, "\n".join(body), ""


def _step_picker(spec: ComponentSpec) -> Parts:
    handler = " onChange={(event) => dispatch({ type: 'setStep', step: Number(event.target.value) })}"
    body = f"""  const {{ state, dispatch }} = {spec.store.hook}();
  return (
    <label className="{spec.css}">
      <span>{{props.label}}</span>
{step_options(handler)}
    </label>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def _history_list(spec: ComponentSpec) -> Parts:
    css = spec.css
    body = f"""  const {{ state }} = {spec.store.hook}();
  return (
    <section className="{css}" aria-label={{props.title}}>
      <h2 className="{css}__title">{{props.title}}</h2>
      {{state.history.length === 0 ? (
        <p className="{css}__empty" role="status">
          {{props.emptyMessage}}
        </p>
      ) : (
{_indented(history_entries(spec), 2)}
      )}}
    </section>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def _indented(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line if line else line for line in text.split("\n"))


def _without_empty_parts(text: str) -> str:
    """The text without the lines of absent optional parts."""
    return "\n".join(line for line in text.split("\n") if line != ABSENT)


INTERACTIVE = {
    "add-form": _add_form,
    "search-box": _search_box,
    "filter-bar": _filter_bar,
    ITEM_LIST: _item_list,
    ITEM_ROW: _item_row,
    "summary-bar": _summary_bar,
    "counter-controls": _counter_controls,
    "step-picker": _step_picker,
    "history-list": _history_list,
}
LIST_ONLY = {"add-form", "search-box", "filter-bar", ITEM_LIST, ITEM_ROW, "summary-bar"}


def interaction_files(documents: list[SessionDocument], files: dict[str, str], goal: str) -> dict[str, str]:
    written: dict[str, str] = {}
    for spec in component_specs(documents):
        role = spec.node.id
        driven = any(FLOW_ROLES.get(flow) == role for flow in spec.flows)
        fits = (role in LIST_ONLY) == (spec.kind.item is not None)
        if not driven or not fits or role not in INTERACTIVE or spec.path not in files:
            continue
        imports, body, runtime_props = INTERACTIVE[role](spec)
        written[spec.path] = component_source(spec, imports, body, runtime_props=runtime_props)
    return changed_files(files, written)
