"""The offline page agent: one module per component of the architect's tree (pages under `src/pages/`, the rest
under `src/components/`), each rendering its children as the tree composes them, and in `src/App.tsx` only the
page's import line and element line (the state agent changes the provider line of the same file in the same
wave).

The components show the store's state (read through the hook the state agent exports under the agreed name) but
do not change it yet: in the next wave the interaction agent rewrites them from the same templates (one a role,
in `components.py`) with the UX flows wired. A node whose id the offline agents do not know becomes a section
around its children.
"""

from activities.app_builder.offline.components import role_parts
from activities.app_builder.offline.conventions import (
    changed_files,
    component_name,
    component_path,
    find_document,
    relative_import,
    root_node,
)
from activities.app_builder.offline.scaffold import APP_PATH, PAGE_CONTENT_LINE, PAGE_ELEMENT_LINE, app_skeleton
from activities.app_builder.offline.tsx import (
    REACT_ELEMENT,
    ComponentSpec,
    Parts,
    component_source,
    component_specs,
    element,
)
from models.app_builder.documents import FrontendArchitectDocument, SessionDocument


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


def _parts(spec: ComponentSpec) -> Parts:
    if spec.node.type == "layout":
        return _layout(spec)
    if spec.node.type == "page":
        return _section(spec)
    unwired = role_parts(spec, wired=False)
    if unwired is not None:
        return unwired
    if spec.node.id == "counter-display" and spec.kind.item is None:
        return _counter_display(spec)
    return _section(spec)


def static_component(spec: ComponentSpec) -> str:
    """The component's module as the page agent writes it: its role's template unwired, the layout, a page or a
    section, or the counter's display (which no flow wires)."""
    imports, body, runtime_props = _parts(spec)
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
