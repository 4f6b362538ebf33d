"""What the offline agents agree on without seeing each other's output: where a document is found in the list,
which kind of app and which capabilities the documents describe, where each component and store module lives and
what it exports, and how a string prop is written in JSX.

Agents of one wave never see each other's files (the page agent imports the state agent's hook before it
exists), so these names are the contract between them.
"""

import json
import re
from dataclasses import dataclass
from typing import TypeVar

from activities.app_builder.offline.app_kind import (
    CAPABILITY_WORDS,
    KINDS,
    AppKind,
    Capability,
    recognise_kind,
)
from models.app_builder.documents import (
    ComponentNode,
    FrontendArchitectDocument,
    ProductManagerDocument,
    SessionDocument,
    SessionDocumentBase,
)

DocumentT = TypeVar("DocumentT", bound=SessionDocumentBase)

_WORDS = re.compile(r"[A-Za-z0-9]+")
_PLAIN_ATTRIBUTE = re.compile(r"[^\"{}<>&\\\n]*")


def find_document(documents: list[SessionDocument], model: type[DocumentT]) -> DocumentT | None:
    """The last document of that model in the list."""
    found = [document for document in documents if isinstance(document, model)]
    return found[-1] if found else None


def require_document(documents: list[SessionDocument], model: type[DocumentT], reader: str) -> DocumentT:
    """The document `reader` needs; `ValueError` naming both when the list has none."""
    document = find_document(documents, model)
    if document is None:
        needed = model.model_fields["agent_id"].default
        raise ValueError(f"{reader} needs the {needed} document, which the documents given do not include")
    return document


def pascal(text: str) -> str:
    """`todo-list` → `TodoList`; a name that starts with a digit gets an `X`."""
    words = _WORDS.findall(text)
    name = "".join(word[:1].upper() + word[1:] for word in words) or "Component"
    return f"X{name}" if name[0].isdigit() else name


def camel(text: str) -> str:
    name = pascal(text)
    return name[:1].lower() + name[1:]


def component_name(node: ComponentNode) -> str:
    return pascal(node.name)


def component_path(node: ComponentNode) -> str:
    """Pages under `src/pages/`, every other node under `src/components/`."""
    folder = "pages" if node.type == "page" else "components"
    return f"src/{folder}/{component_name(node)}.tsx"


def relative_import(from_path: str, to_path: str) -> str:
    """The import specifier of the module at `to_path` (no extension) from the module at `from_path`."""
    source = from_path.split("/")[:-1]
    target = to_path.rsplit(".", 1)[0].split("/")
    common = 0
    while common < min(len(source), len(target) - 1) and source[common] == target[common]:
        common += 1
    ups = len(source) - common
    prefix = "./" if ups == 0 else "../" * ups
    return prefix + "/".join(target[common:])


@dataclass(frozen=True)
class StoreModule:
    """One store's module under `src/store/` and the names it exports."""

    name: str

    @property
    def path(self) -> str:
        return f"src/store/{camel(self.name)}.tsx"

    @property
    def provider(self) -> str:
        return f"{pascal(self.name)}Provider"

    @property
    def hook(self) -> str:
        return f"use{pascal(self.name)}"

    @property
    def state_type(self) -> str:
        return f"{pascal(self.name)}State"

    @property
    def item_type(self) -> str:
        return f"{pascal(self.name)}Item"

    @property
    def action_type(self) -> str:
        return f"{pascal(self.name)}Action"

    @property
    def value_type(self) -> str:
        return f"{pascal(self.name)}Value"

    @property
    def context(self) -> str:
        return f"{pascal(self.name)}Context"

    @property
    def reducer(self) -> str:
        return f"{camel(self.name)}Reducer"


STORE_INDEX = "src/store/index.tsx"
"""The module whose `StoreProvider` wraps the app in every store provider."""


def jsx_attribute(name: str, value: str) -> str:
    """`name="value"`, or `name={"…"}` when the text cannot sit between JSX quotes as it is."""
    if _PLAIN_ATTRIBUTE.fullmatch(value):
        return f'{name}="{value}"'
    return f"{name}={{{json.dumps(value, ensure_ascii=False)}}}"


def jsx_props(props: dict[str, str] | None) -> str:
    """A node's string props as JSX attributes, each after a space."""
    return "".join(f" {jsx_attribute(name, value)}" for name, value in (props or {}).items())


def root_node(tree: list[ComponentNode]) -> ComponentNode:
    """The first node no other node lists as its child."""
    children = {child for node in tree for child in node.children}
    return next((node for node in tree if node.id not in children), tree[0])


def documents_title(documents: list[SessionDocument]) -> str:
    """The title the architect gave the root component, else the kind's Chinese or English default."""
    architect = find_document(documents, FrontendArchitectDocument)
    if architect is not None:
        title = (root_node(architect.content.component_tree).props or {}).get("title", "").strip()
        if title:
            return title
    return kind_of(documents).titles["en"]


def kind_of(documents: list[SessionDocument]) -> AppKind:
    """The kind whose store the architect designed, else the kind the requirements' titles name; `ValueError` when
    the documents are of no kind the offline agents build (they never build another kind instead)."""
    architect = find_document(documents, FrontendArchitectDocument)
    if architect is not None:
        names = {store.name for store in architect.content.state_management.stores}
        for kind in KINDS:
            if kind.store in names:
                return kind
    product = find_document(documents, ProductManagerDocument)
    titles = " ".join(req.title for req in product.content.functional_requirements) if product else ""
    named = recognise_kind(titles)
    if named is None:
        raise ValueError("the documents describe none of the kinds of app the offline agents build")
    return named


def _capability_named(title: str, kind: AppKind) -> Capability | None:
    """The capability whose word occurs first in a requirement's title."""
    lowered = title.lower()
    hits: list[tuple[int, int, Capability]] = []
    for order, capability in enumerate(kind.capabilities):
        positions = [lowered.find(word) for word in CAPABILITY_WORDS.get(capability.key, ()) if word in lowered]
        if positions:
            hits.append((min(positions), order, capability))
    return min(hits, key=lambda hit: (hit[0], hit[1]))[2] if hits else None


def capabilities_of(product: ProductManagerDocument, kind: AppKind) -> list[Capability]:
    """The kind's capabilities the product manager asked for (by requirement id `req-<key>`, else by a word of
    the requirement's title), in the kind's order."""
    by_id = {capability.requirement_id: capability for capability in kind.capabilities}
    asked: set[str] = set()
    for requirement in product.content.functional_requirements:
        capability = by_id.get(requirement.id) or _capability_named(requirement.title, kind)
        if capability is not None:
            asked.add(capability.key)
    return [capability for capability in kind.capabilities if capability.key in asked]


def capability_keys(documents: list[SessionDocument], kind: AppKind) -> set[str]:
    """The capability keys of the documents' requirements (none without a product manager document)."""
    product = find_document(documents, ProductManagerDocument)
    return {capability.key for capability in capabilities_of(product, kind)} if product else set()


def changed_files(files: dict[str, str], written: dict[str, str]) -> dict[str, str]:
    """The written files whose text differs from the snapshot's (what an agent returns)."""
    return {path: text for path, text in written.items() if files.get(path) != text}


def css_class(component_id: str) -> str:
    """The class of a component's root element: its id, with anything a class name cannot hold as `-`."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", component_id).strip("-") or "component"
