"""Pieces of generated TSX that every component module shares: what one component needs to know (its node, file,
store and the kind of app), its props interface and signature, the import lines and a child's element with the
props the architect gave it.

A component's props are its node's props (UI text, all strings) plus what its parent hands it at run time (a
list row gets its `item`). The component's root element has the node's id as its class.
"""

import re
from dataclasses import dataclass

from activities.app_builder.offline.app_kind import AppKind, ItemShape
from activities.app_builder.offline.conventions import (
    StoreModule,
    component_name,
    component_path,
    css_class,
    find_document,
    jsx_props,
    kind_of,
    relative_import,
)
from models.app_builder.documents import ComponentNode, FrontendArchitectDocument, SessionDocument, UXExpertDocument

REACT_ELEMENT = "import type { ReactElement } from 'react';"

Parts = tuple[list[str], str, str]
"""A component's import lines, function body and runtime props."""


@dataclass(frozen=True)
class ComponentSpec:
    """One component of the tree and what its code depends on."""

    node: ComponentNode
    kind: AppKind
    store: StoreModule
    store_fields: frozenset[str]
    flows: frozenset[str]
    """The UX expert's flow ids."""
    tree: dict[str, ComponentNode]

    @property
    def name(self) -> str:
        return component_name(self.node)

    @property
    def path(self) -> str:
        return component_path(self.node)

    @property
    def css(self) -> str:
        return css_class(self.node.id)

    @property
    def item(self) -> ItemShape:
        if self.kind.item is None:
            raise ValueError(f"{self.node.id} needs a list app's items; the {self.kind.name} app has none")
        return self.kind.item

    @property
    def children(self) -> list[ComponentNode]:
        return [self.tree[child] for child in self.node.children if child in self.tree]

    def import_of(self, names: list[str], target: str, *, types: bool = False) -> str:
        keyword = "import type" if types else "import"
        return f"{keyword} {{ {', '.join(names)} }} from '{relative_import(self.path, target)}';"

    def store_import(self, names: list[str], *, types: bool = False) -> str:
        return self.import_of(names, self.store.path, types=types)

    def child_imports(self) -> list[str]:
        return [self.import_of([component_name(child)], component_path(child)) for child in self.children]


def component_specs(documents: list[SessionDocument]) -> list[ComponentSpec]:
    """Every component of the architect's tree (none without the architect's document)."""
    architect = find_document(documents, FrontendArchitectDocument)
    if architect is None:
        return []
    ux = find_document(documents, UXExpertDocument)
    kind = kind_of(documents)
    stores = architect.content.state_management.stores
    store = next((s for s in stores if s.name == kind.store), stores[0] if stores else None)
    tree = {node.id: node for node in architect.content.component_tree}
    return [
        ComponentSpec(
            node=node,
            kind=kind,
            store=StoreModule(store.name if store else kind.store),
            store_fields=frozenset(store.fields if store else ()),
            flows=frozenset(flow.id for flow in ux.content.interaction_flows) if ux else frozenset(),
            tree=tree,
        )
        for node in architect.content.component_tree
    ]


def element(child: ComponentNode, extra: str = "") -> str:
    """`<Child extra prop="…" />` with the props the architect gave the child."""
    return f"<{component_name(child)}{extra}{jsx_props(child.props)} />"


def component_source(spec: ComponentSpec, imports: list[str], body: str, *, runtime_props: str = "") -> str:
    """A component module: a doc comment, the imports, the props interface and the function whose body (the
    lines between its braces) is `body`. `runtime_props` are interface lines for what the parent hands over."""
    node = spec.node
    prop_lines = [f"  {name}: string;" for name in node.props or {}]
    if runtime_props:
        prop_lines = [runtime_props, *prop_lines]
    interface = [f"interface {spec.name}Props {{", *prop_lines, "}", ""] if prop_lines else []
    if not prop_lines:
        parameter = ""
    elif re.search(r"\bprops\b", body):
        parameter = f"props: {spec.name}Props"
    else:
        parameter = f"_props: {spec.name}Props"
    return "\n".join(
        [
            f"/** {spec.name} ({node.type} `{node.id}`): generated offline from the architect's component tree. */",
            *imports,
            "",
            *interface,
            f"export function {spec.name}({parameter}): ReactElement {{",
            body.rstrip("\n"),
            "}",
            "",
        ]
    )
