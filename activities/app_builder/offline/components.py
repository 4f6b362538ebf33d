"""The TSX of the components the offline agents know by role, one template a role: the page agent writes each
unwired (it shows the store's state and changes nothing), the interaction agent rewrites it wired, with the
handlers of the UX flows that drive it.

A list app's roles are the add form, the search and filter bars, the list, its row and the summary; a counter
app's are the counter's controls, the step picker and the history. A row is wired for the flows the UX expert
wrote (toggling, removing or both), the counter's controls for counting and resetting.
"""

from collections.abc import Callable

from activities.app_builder.offline.architecture import ITEM_LIST, ITEM_ROW
from activities.app_builder.offline.conventions import component_name, jsx_props
from activities.app_builder.offline.tsx import REACT_ELEMENT, ComponentSpec, Parts

STEPS = "[1, 5, 10]"

ABSENT = "\x00"
"""Stands for an optional line of a template that this component does not have (the line is dropped)."""

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


def _when(condition: bool, *lines: str) -> list[str]:
    """The lines (or attributes) if the condition holds, else none."""
    return list(lines) if condition else []


def _react_types(*names: str) -> str:
    """The type import from React: `ReactElement` after the names."""
    return f"import type {{ {', '.join([*names, 'ReactElement'])} }} from 'react';"


def _reads_store(spec: ComponentSpec, wired: bool) -> str:
    """The line reading the store's state (and, once wired, its dispatch) through its hook."""
    store_value = "{ state, dispatch }" if wired else "{ state }"
    return f"  const {store_value} = {spec.store.hook}();"


def _field(tag: str, attributes: list[str], wired: bool) -> str:
    """A form field: on one line unwired, an attribute a line wired."""
    if not wired:
        return f"      <{tag} {' '.join(attributes)} />"
    return "\n".join([f"      <{tag}", *(f"        {attribute}" for attribute in attributes), "      />"])


def _detail_field(spec: ComponentSpec, wired: bool) -> tuple[list[str], str]:
    """The add form's second field, if the items have one: its JSX and the name of the state that holds it once
    wired."""
    item, css = spec.item, spec.css
    if item.detail_type == "number":
        attributes = [
            f'className="{css}__quantity"',
            *_when(not wired, f'name="{item.detail}"'),
            'type="number"',
            "min={1}",
            "value={quantity}" if wired else "defaultValue={1}",
            "aria-label={props.quantityLabel}",
            *_when(wired, "onChange={(event) => setQuantity(event.target.value)}", "onKeyDown={clearOnEscape}"),
        ]
        return [_field("input", attributes, wired)], "quantity"
    if item.detail_type == "string":
        attributes = [
            f'className="{css}__body"',
            "value={body}" if wired else f'name="{item.detail}"',
            "placeholder={props.bodyPlaceholder}",
            "aria-label={props.bodyPlaceholder}",
            *_when(wired, "onChange={(event) => setBody(event.target.value)}", "onKeyDown={saveOnCtrlEnter}"),
        ]
        return [_field("textarea", attributes, wired)], "body"
    return [], ""


def _form_logic(spec: ComponentSpec, detail: str) -> str:
    """The wired add form's state, its submit (an empty entry shows the error) and Esc (and, for a body,
    Ctrl+Enter), up to the blank line before its JSX."""
    item = spec.item
    initial = "'1'" if detail == "quantity" else "''"
    setter = f"set{detail.capitalize()}"
    detail_value = {"quantity": "Math.max(1, Math.round(Number(quantity)) || 1)", "body": "body.trim()"}.get(detail)
    value = f", {item.detail}: {detail_value}" if detail_value else ""
    new_item = f"{{ id: createId(), {item.text}: value{value}, {item.flag}: false, createdAt: Date.now() }}"
    logic = f"""  const {{ dispatch }} = {spec.store.hook}();
  const [text, setText] = useState('');
{f"  const [{detail}, {setter}] = useState({initial});" if detail else ABSENT}
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);

  function reset(): void {{
    setText('');
{f"    {setter}({initial});" if detail else ABSENT}
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
{CTRL_ENTER if detail == "body" else ABSENT}
"""
    return "\n".join(line for line in logic.split("\n") if line != ABSENT)


def _add_form(spec: ComponentSpec, wired: bool) -> Parts:
    css = spec.css
    detail_jsx, detail = _detail_field(spec, wired)
    text_attributes = [
        *_when(wired, "ref={input}"),
        f'className="{css}__input"',
        "value={text}" if wired else f'name="{spec.item.text}"',
        "placeholder={props.placeholder}",
        "aria-label={props.placeholder}",
        *_when(
            wired,
            "aria-invalid={error !== ''}",
            "onChange={(event) => {\n          setText(event.target.value);\n          setError('');\n        }}",
            "onKeyDown={clearOnEscape}",
            "autoFocus",
        ),
    ]
    logic = [_form_logic(spec, detail)] if wired else []
    on_submit = "{submit} noValidate" if wired else "{(event) => event.preventDefault()}"
    body = [
        *logic,
        "  return (",
        f'    <form className="{css}" onSubmit={on_submit}>',
        _field("input", text_attributes, wired),
        *detail_jsx,
        f'      <button className="{css}__submit" type="submit">',
        "        {props.submitLabel}",
        "      </button>",
        *_when(
            wired,
            "      {error !== '' && (",
            f'        <p className="{css}__error" role="alert">',
            "          {error}",
            "        </p>",
            "      )}",
        ),
        "    </form>",
        "  );",
    ]
    imports = [
        "import { useRef, useState } from 'react';",
        _react_types("FormEvent", "KeyboardEvent"),
        spec.store_import(["createId", spec.store.hook]),
    ]
    return imports if wired else [REACT_ELEMENT], "\n".join(body), ""


def _search_box(spec: ComponentSpec, wired: bool) -> Parts:
    css = spec.css
    role = ' role="search"' if wired else ""
    body = [
        _reads_store(spec, wired),
        *_when(wired, "  const search = (query: string): void => dispatch({ type: 'setQuery', query });"),
        "  return (",
        f'    <div className="{css}"{role}>',
        "      <input",
        f'        className="{css}__input"',
        '        type="search"',
        "        value={state.query}",
        *_when(not wired, "        readOnly"),
        "        placeholder={props.placeholder}",
        "        aria-label={props.placeholder}",
        *_when(
            wired,
            "        onChange={(event) => search(event.target.value)}",
            "        onKeyDown={(event: KeyboardEvent<HTMLInputElement>) => {",
            "          if (event.key === 'Escape') {",
            "            search('');",
            "          }",
            "        }}",
        ),
        "      />",
        *_when(
            wired,
            f'      <button type="button" className="{css}__clear" disabled={{state.query === \'\'}} '
            "onClick={() => search('')}>",
            "        {props.clearLabel}",
            "      </button>",
        ),
        "    </div>",
        "  );",
    ]
    react = _react_types("KeyboardEvent") if wired else REACT_ELEMENT
    return [react, spec.store_import([spec.store.hook])], "\n".join(body), ""


def _filter_bar(spec: ComponentSpec, wired: bool) -> Parts:
    css, state = spec.css, spec.store.state_type
    on_click = "\n          onClick={() => dispatch({ type: 'setFilter', filter })}" if wired else ""
    body = f"""{_reads_store(spec, wired)}
  const filters: Array<[{state}['filter'], string]> = [
    ['all', props.allLabel],
    ['active', props.activeLabel],
    ['done', props.doneLabel],
  ];
  return (
    <div className="{css}" role="group" aria-label={{props.label}}>
      {{filters.map(([filter, label]) => (
        <button
          key={{filter}}
          type="button"
          className={{filter === state.filter ? '{css}__button {css}__button--active' : '{css}__button'}}
          aria-pressed={{filter === state.filter}}{on_click}
        >
          {{label}}
        </button>
      ))}}
    </div>
  );"""
    imports = [spec.store_import([spec.store.hook]), spec.store_import([state], types=True)]
    return [REACT_ELEMENT, *imports], body, ""


def _empty_state(css: str, message: str) -> list[str]:
    """The list's early return of a status paragraph when it has no rows to show."""
    return [
        "    return (",
        f'      <p className="{css}__empty" role="status">',
        f"        {{props.{message}}}",
        "      </p>",
        "    );",
    ]


def _item_list(spec: ComponentSpec, wired: bool) -> Parts:
    """The list of visible items; wired, it says when there are none at all and when none match the filter or
    search (if the store has them)."""
    css, row = spec.css, spec.tree.get(ITEM_ROW)
    narrowed = bool(spec.store_fields & {"filter", "query"})
    live = ' aria-live="polite"' if wired else ""
    rows = (
        []
        if row is None
        else [
            "      {items.map((item) => (",
            f"        <{component_name(row)} key={{item.id}} item={{item}}{jsx_props(row.props)} />",
            "      ))}",
        ]
    )
    body = [
        f"  const {{ state }} = {spec.store.hook}();",
        "  const items = visibleItems(state);",
        *_when(wired, "  if (state.items.length === 0) {", *_empty_state(css, "emptyMessage"), "  }"),
        *_when(wired and narrowed, "  if (items.length === 0) {", *_empty_state(css, "noMatchMessage"), "  }"),
        "  return (",
        f'    <ul className="{css}"{live}>',
        *rows,
        "    </ul>",
        "  );",
    ]
    imports = [REACT_ELEMENT, spec.store_import([spec.store.hook, "visibleItems"]), *spec.child_imports()]
    return imports, "\n".join(body), ""


def _row_text(spec: ComponentSpec) -> list[str]:
    """The row's text and (a number) detail, as JSX lines inside the row."""
    item, css = spec.item, spec.css
    lines = [f'      <span className="{css}__text">{{item.{item.text}}}</span>']
    if item.detail is not None and item.detail_type == "number":
        lines.append(f'      <span className="{css}__detail">× {{item.{item.detail}}}</span>')
    return lines


def _row_details(spec: ComponentSpec) -> list[str]:
    """The row's (a text) detail and, for pinned notes, when it was written: the lines below the row's controls."""
    item, css = spec.item, spec.css
    lines = []
    if item.detail is not None and item.detail_type == "string":
        lines.append(f'      <p className="{css}__body">{{item.{item.detail}}}</p>')
    if item.flag_control == "pin":
        lines += [
            f'      <time className="{css}__time" dateTime={{new Date(item.createdAt).toISOString()}}>',
            "        {new Date(item.createdAt).toLocaleString()}",
            "      </time>",
        ]
    return lines


def _item_row(spec: ComponentSpec, wired: bool) -> Parts:
    """One item; wired, it toggles and is removed (by its controls, and by Space and Delete while focused) as the
    flows the UX expert wrote ask."""
    item, css = spec.item, spec.css
    toggle, remove = wired and "flow-toggle" in spec.flows, wired and "flow-remove" in spec.flows
    handlers, keys, leading, trailing = [], [], [], []
    if toggle:
        handlers.append("  const toggle = (): void => dispatch({ type: 'toggle', id: item.id });")
        keys.append(("event.key === ' ' || event.key === 'Enter'", "toggle"))
    if remove:
        handlers.append("  const remove = (): void => dispatch({ type: 'remove', id: item.id });")
        keys.append(("event.key === 'Delete' || event.key === 'Backspace'", "remove"))
    if item.flag_control == "checkbox":
        change = "onChange={toggle}" if toggle else "readOnly"
        label = f"{{`${{props.toggleLabel}}: ${{item.{item.text}}}`}}" if wired else "{props.toggleLabel}"
        leading = [
            f'      <input className="{css}__toggle" type="checkbox" checked={{item.{item.flag}}} {change} '
            f"aria-label={label} />"
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
    on_keys = [
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
    ]
    focusable = " tabIndex={0} onKeyDown={onKeyDown}" if wired else ""
    body = [
        "  const { item } = props;",
        *_when(wired, *on_keys),
        "  return (",
        f"    <li className={{item.{item.flag} ? '{css} {css}--{item.flag}' : '{css}'}}{focusable}>",
        *leading,
        *_row_text(spec),
        *trailing,
        *_row_details(spec),
        "    </li>",
        "  );",
    ]
    imports = [_react_types("KeyboardEvent"), spec.store_import([spec.store.hook])] if wired else [REACT_ELEMENT]
    imports.append(spec.store_import([spec.store.item_type], types=True))
    return imports, "\n".join(body), f"  item: {spec.store.item_type};"


def _summary_bar(spec: ComponentSpec, wired: bool) -> Parts:
    css = spec.css
    body = [
        _reads_store(spec, wired),
        f"  const remaining = state.items.filter((item) => !item.{spec.item.flag}).length;",
        "  const label = props.remainingLabel.replace('{count}', String(remaining));",
        *_when(wired, "  const finished = state.items.length - remaining;"),
        "  return (",
        f'    <div className="{css}">',
        f'      <span className="{css}__count" aria-live="polite">',
        "        {label}",
        "      </span>",
        *_when(
            wired,
            "      <button",
            '        type="button"',
            f'        className="{css}__clear"',
            "        disabled={finished === 0}",
            "        onClick={() => dispatch({ type: 'clearDone' })}",
            "      >",
            "        {props.clearLabel}",
            "      </button>",
        ),
        "    </div>",
        "  );",
    ]
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], "\n".join(body), ""


def _counter_controls(spec: ComponentSpec, wired: bool) -> Parts:
    """The −, reset and + buttons (reset when the architect gave it a label); wired, they count and reset as the
    flows ask, and so do ↑ ↓ 0 anywhere on the page."""
    props = spec.node.props or {}
    counting = wired and "flow-count" in spec.flows
    resetting = wired and "flow-reset" in spec.flows and "resetLabel" in props
    actions = (["increment", "decrement"] if counting else []) + (["reset"] if resetting else [])
    key_conditions = {
        "increment": "event.key === 'ArrowUp' || event.key === '+'",
        "decrement": "event.key === 'ArrowDown' || event.key === '-'",
        "reset": "event.key === '0'",
    }
    buttons: list[str] = []
    for label, action, text in [
        ("decrementLabel", "decrement", "−"),
        ("resetLabel", "reset", "{props.resetLabel}"),
        ("incrementLabel", "increment", "+"),
    ]:
        if label in props:
            disabled = " disabled={state.count === 0}" if action == "reset" else ""
            handler = f" onClick={{() => change('{action}')}}{disabled}" if action in actions else ""
            buttons += [
                f'      <button className="{spec.css}__button" type="button" aria-label={{props.{label}}}{handler}>',
                f"        {text}",
                "      </button>",
            ]
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
    effect = [
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
    ]
    body = [
        *_when(wired, *effect),
        "  return (",
        f'    <div className="{spec.css}" role="group">',
        *buttons,
        "    </div>",
        "  );",
    ]
    imports = [
        *_when(wired, "import { useCallback, useEffect } from 'react';"),
        REACT_ELEMENT,
        *_when(wired, spec.store_import([spec.store.hook])),
    ]
    return imports, "\n".join(body), ""


def _step_picker(spec: ComponentSpec, wired: bool) -> Parts:
    """The step's select: disabled, or wired to set the step."""
    change = " onChange={(event) => dispatch({ type: 'setStep', step: Number(event.target.value) })}"
    body = f"""{_reads_store(spec, wired)}
  return (
    <label className="{spec.css}">
      <span>{{props.label}}</span>
      <select value={{state.step}}{change if wired else " disabled"}>
        {{{STEPS}.map((step) => (
          <option key={{step}} value={{step}}>
            {{step}}
          </option>
        ))}}
      </select>
    </label>
  );"""
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], body, ""


def _history_list(spec: ComponentSpec, wired: bool) -> Parts:
    """The ordered list of changes, newest first; wired, a status message while there are none."""
    css = spec.css
    entries = [
        f'<ol className="{css}__entries">',
        "  {state.history.map((entry, index) => (",
        f'    <li className="{css}__entry" key={{`${{entry.at}}-${{state.history.length - index}}`}}>',
        "      <span>{entry.change > 0 ? `+${entry.change}` : entry.change}</span>",
        "      <span>= {entry.total}</span>",
        "      <time dateTime={new Date(entry.at).toISOString()}>{new Date(entry.at).toLocaleTimeString()}</time>",
        "    </li>",
        "  ))}",
        "</ol>",
    ]
    if wired:
        listing = [
            "      {state.history.length === 0 ? (",
            f'        <p className="{css}__empty" role="status">',
            "          {props.emptyMessage}",
            "        </p>",
            "      ) : (",
            *(f"        {line}" for line in entries),
            "      )}",
        ]
    else:
        listing = [f"      {line}" for line in entries]
    body = [
        f"  const {{ state }} = {spec.store.hook}();",
        "  return (",
        f'    <section className="{css}" aria-label={{props.title}}>',
        f'      <h2 className="{css}__title">{{props.title}}</h2>',
        *listing,
        "    </section>",
        "  );",
    ]
    return [REACT_ELEMENT, spec.store_import([spec.store.hook])], "\n".join(body), ""


Template = Callable[[ComponentSpec, bool], Parts]

LIST_TEMPLATES: dict[str, Template] = {
    "add-form": _add_form,
    "search-box": _search_box,
    "filter-bar": _filter_bar,
    ITEM_LIST: _item_list,
    ITEM_ROW: _item_row,
    "summary-bar": _summary_bar,
}
COUNTER_TEMPLATES: dict[str, Template] = {
    "counter-controls": _counter_controls,
    "step-picker": _step_picker,
    "history-list": _history_list,
}


def role_parts(spec: ComponentSpec, *, wired: bool) -> Parts | None:
    """The component's imports, body and runtime props from its role's template, unwired or wired; None when its
    kind of app has no template for its role."""
    templates = LIST_TEMPLATES if spec.kind.item is not None else COUNTER_TEMPLATES
    template = templates.get(spec.node.id)
    return None if template is None else template(spec, wired)
