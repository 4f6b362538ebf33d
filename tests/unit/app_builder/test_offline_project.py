"""The offline writing agents composed in the plan's waves (scaffold; state, style and pages on one snapshot, merged
three-way; interaction), and the repair agent on what the quality agent would find.

The generated projects were also installed and built by hand (`npm install`, `tsc --noEmit`, `vite build`);
these tests check what can be checked without Node: every JSON file parses, App.tsx merges without a conflict,
every import names a file (or a listed package) that exports what is imported, and the pieces agree.
"""

import json
import posixpath
import re
from dataclasses import dataclass

import merge3
import pytest

from activities.app_builder.offline.analysis import analysis_document
from activities.app_builder.offline.interaction import interaction_files
from activities.app_builder.offline.pages import page_files
from activities.app_builder.offline.repair import repair_files
from activities.app_builder.offline.scaffold import scaffold_files
from activities.app_builder.offline.state import state_files
from activities.app_builder.offline.styles import style_files
from models.app_builder.agents import AppBrief
from models.app_builder.documents import (
    ANALYSIS_ORDER,
    FrontendArchitectDocument,
    SessionDocument,
    UIExpertDocument,
    UXExpertDocument,
)
from models.app_builder.quality import Finding

MESSAGES = {
    "todo": "做一个待办应用，叫“周末计划”",
    "shopping": "a shopping list app called Weekend Groceries",
    "notes": "帮我做一个笔记本应用",
    "counter": "build a click counter",
}
APP = "src/App.tsx"
SCRIPT = (".ts", ".tsx")
_IMPORT = re.compile(r"^import (type )?(?:\{ ([^}]*) \}|(\w+)) from '([^']+)';$", re.MULTILINE)
_SIDE_EFFECT = re.compile(r"^import '([^']+)';$", re.MULTILINE)


def documents_for(message: str) -> list[SessionDocument]:
    documents: list[SessionDocument] = []
    for agent in ANALYSIS_ORDER:
        documents.append(
            analysis_document(agent, AppBrief(message=message), documents, document_id=f"doc-{agent}", created_at=1)
        )
    return documents


def merged(base: dict[str, str], outputs: list[dict[str, str]]) -> dict[str, str]:
    """The snapshot after one wave: each output applied, a file two tasks changed merged three-way (no conflict)."""
    result = dict(base)
    for path in sorted({path for output in outputs for path in output}):
        versions = [output[path] for output in outputs if path in output]
        text = versions[0]
        for other in versions[1:]:
            merge = merge3.Merge3(base.get(path, "").splitlines(True), text.splitlines(True), other.splitlines(True))
            text = "".join(merge.merge_lines())
            assert "<<<<<<<" not in text, f"{path} conflicts:\n{text}"
        result[path] = text
    return result


@dataclass
class Project:
    """Each agent's output and the snapshots after wave two and after the interaction wave."""

    documents: list[SessionDocument]
    scaffold: dict[str, str]
    state: dict[str, str]
    style: dict[str, str]
    pages: dict[str, str]
    wave_two: dict[str, str]
    interaction: dict[str, str]
    files: dict[str, str]


def compose(message: str, documents: list[SessionDocument] | None = None) -> Project:
    documents = documents or documents_for(message)
    scaffold = scaffold_files(documents, {}, "scaffold")
    state = state_files(documents, scaffold, "state")
    style = style_files(documents, scaffold, "style")
    pages = page_files(documents, scaffold, "pages")
    wave_two = merged(scaffold, [state, style, pages])
    interaction = interaction_files(documents, wave_two, "interaction")
    files = merged(wave_two, [interaction])
    return Project(documents, scaffold, state, style, pages, wave_two, interaction, files)


def exports_of(source: str) -> set[str]:
    names = set(re.findall(r"^export (?:function|const|interface|type|class) (\w+)", source, re.MULTILINE))
    if re.search(r"^export default ", source, re.MULTILINE):
        names.add("default")
    return names


def import_problems(files: dict[str, str]) -> list[str]:
    """Imports that name no project file, a name the file does not export, or a package package.json lacks."""
    manifest = json.loads(files["package.json"])
    packages = set(manifest.get("dependencies", {})) | set(manifest.get("devDependencies", {}))
    problems = []
    for path, source in files.items():
        if not path.endswith(SCRIPT):
            continue
        imports = [(m[2] or "", m[3] or "", m[4]) for m in _IMPORT.finditer(source)]
        imports += [("", "", spec) for spec in _SIDE_EFFECT.findall(source)]
        for named, default, specifier in imports:
            if not specifier.startswith("."):
                parts = specifier.split("/")
                package = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
                if package not in packages:
                    problems.append(f"{path}: package {package} is not in package.json")
                continue
            base = posixpath.normpath(posixpath.join(posixpath.dirname(path), specifier))
            candidates = [base, base + ".ts", base + ".tsx", base + "/index.ts", base + "/index.tsx"]
            target = next((candidate for candidate in candidates if candidate in files), None)
            if target is None:
                problems.append(f"{path}: {specifier} names no file")
                continue
            wanted = {name.strip().removeprefix("type ") for name in named.split(",") if name.strip()}
            wanted |= {"default"} if default else set()
            missing = wanted - exports_of(files[target]) if target.endswith(SCRIPT) else set()
            if missing:
                problems.append(f"{path}: {target} does not export {sorted(missing)}")
    return problems


@pytest.fixture(scope="module", params=sorted(MESSAGES))
def project(request: pytest.FixtureRequest) -> Project:
    return compose(MESSAGES[request.param])


def test_every_json_file_parses_and_package_json_pins_the_toolchain(project: Project) -> None:
    for path, text in project.files.items():
        if path.endswith(".json"):
            json.loads(text)
    manifest = json.loads(project.files["package.json"])
    assert manifest["dependencies"] == {"react": "18.3.1", "react-dom": "18.3.1"}
    assert manifest["devDependencies"]["typescript"] == "~5.6.3"
    assert manifest["devDependencies"]["vite"] == "^5.4.0"
    assert manifest["scripts"]["build"] == "tsc --noEmit && vite build"
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", manifest["name"])
    compiler = json.loads(project.files["tsconfig.json"])["compilerOptions"]
    assert (compiler["strict"], compiler["jsx"], compiler["moduleResolution"], compiler["noEmit"]) == (
        True,
        "react-jsx",
        "bundler",
        True,
    )
    assert '<script type="module" src="/src/main.tsx"></script>' in project.files["index.html"]
    assert "offline" in project.files["README.md"]


def test_imports_between_the_generated_files_resolve(project: Project) -> None:
    assert import_problems(project.files) == []
    assert import_problems(project.wave_two) == []


def test_state_and_page_agents_change_app_tsx_apart_and_the_merge_keeps_both(project: Project) -> None:
    base = project.scaffold[APP].splitlines()
    state = project.state[APP].splitlines()
    page = project.pages[APP].splitlines()
    assert APP not in project.style
    assert len(base) == len(state) == len(page)
    state_changed = [i for i, (a, b) in enumerate(zip(base, state, strict=True)) if a != b]
    page_changed = [i for i, (a, b) in enumerate(zip(base, page, strict=True)) if a != b]
    assert len(state_changed) == 1
    assert len(page_changed) == 2
    assert all(abs(s - p) > 1 for s in state_changed for p in page_changed)

    merge = merge3.Merge3(
        project.scaffold[APP].splitlines(True), project.state[APP].splitlines(True), project.pages[APP].splitlines(True)
    )
    text = "".join(merge.merge_lines())
    assert "<<<<<<<" not in text
    assert [region[0] for region in merge.merge_regions()].count("conflict") == 0
    assert text == project.files[APP]
    assert "import { StoreProvider } from './store';" in text
    assert "import { AppLayout } from './components/AppLayout';" in text
    assert "      <AppLayout title=" in text
    assert "Fragment" not in text
    assert "PageContent" not in text


def test_the_style_agent_writes_the_stylesheet_from_the_ui_spec(project: Project) -> None:
    assert set(project.style) == {"src/styles.css"}
    css = project.style["src/styles.css"]
    ui = next(document for document in project.documents if isinstance(document, UIExpertDocument))
    for style in ui.content.component_styles:
        assert f".{style.component_id} {{" in css
    primary = re.search(r"primary (#[0-9a-f]+)", ui.content.visual_spec.color_scheme)
    assert primary is not None
    assert f"--color-primary: {primary.group(1)};" in css
    assert "--radius: 10px;" in css
    assert "@media (min-width: 768px) {" in css
    assert "import './styles.css';" in project.files["src/main.tsx"]


def test_the_interaction_agent_changes_only_the_page_agents_components(project: Project) -> None:
    assert project.interaction
    assert set(project.interaction) <= set(project.pages) - {APP}
    for path, text in project.interaction.items():
        assert text != project.pages[path]
        assert "dispatch" in text or "emptyMessage" in text


def test_every_dispatched_action_is_a_case_of_its_reducer(project: Project) -> None:
    cases = {
        case
        for path, text in project.files.items()
        if path.startswith("src/store/")
        for case in re.findall(r"case '(\w+)':", text)
    }
    used = set()
    for path, text in project.files.items():
        if path.startswith("src/components/"):
            used |= set(re.findall(r"dispatch\(\{ type: '(\w+)'", text))
            used |= set(re.findall(r"change\('(\w+)'\)", text))
    assert used
    assert used <= cases


def test_an_agent_returns_only_what_it_changes(project: Project) -> None:
    documents = project.documents
    assert scaffold_files(documents, project.scaffold, "scaffold") == {}
    assert state_files(documents, project.files, "state") == {}
    assert style_files(documents, project.files, "style") == {}
    assert interaction_files(documents, project.files, "interaction") == {}


def test_todo_rows_toggle_and_remove_and_the_list_shows_its_empty_states() -> None:
    project = compose(MESSAGES["todo"])
    row = project.files["src/components/TodoItem.tsx"]
    assert "onChange={toggle}" in row
    assert "onClick={remove}" in row
    assert "event.key === 'Delete'" in row
    assert "readOnly" in project.pages["src/components/TodoItem.tsx"]
    listing = project.files["src/components/TodoList.tsx"]
    assert "props.emptyMessage" in listing
    assert "props.noMatchMessage" in listing
    assert 'deleteLabel="删除"' in listing
    form = project.files["src/components/TodoForm.tsx"]
    assert "event.key === 'Escape'" in form
    assert "setError(props.emptyError)" in form
    store = project.files["src/store/todoStore.tsx"]
    assert "localStorage" in store
    assert "items: Array<{ id: string; text: string; done: boolean; createdAt: number }>;" in store


def test_only_the_flows_the_ux_expert_wrote_are_wired() -> None:
    documents = documents_for(MESSAGES["todo"])
    ux = documents[3]
    assert isinstance(ux, UXExpertDocument)
    flows = [flow for flow in ux.content.interaction_flows if flow.id != "flow-remove"]
    documents[3] = ux.model_copy(update={"content": ux.content.model_copy(update={"interaction_flows": flows})})
    project = compose(MESSAGES["todo"], documents)
    row = project.files["src/components/TodoItem.tsx"]
    assert "onChange={toggle}" in row
    assert "remove" not in row

    without_form = {path: text for path, text in project.wave_two.items() if not path.endswith("TodoForm.tsx")}
    assert "src/components/TodoForm.tsx" not in interaction_files(documents, without_form, "interaction")


def test_an_unknown_component_becomes_a_section_around_its_children() -> None:
    documents = documents_for(MESSAGES["todo"])
    architect = documents[1]
    assert isinstance(architect, FrontendArchitectDocument)
    tree = architect.content.component_tree
    extra = tree[2].model_copy(update={"id": "tips-panel", "name": "TipsPanel", "children": [], "props": None})
    page = tree[1].model_copy(update={"children": [*tree[1].children, "tips-panel"]})
    content = architect.content.model_copy(update={"component_tree": [tree[0], page, *tree[2:], extra]})
    documents[1] = architect.model_copy(update={"content": content})
    project = compose(MESSAGES["todo"], documents)
    assert '<section className="tips-panel"' in project.files["src/components/TipsPanel.tsx"]
    assert "<TipsPanel />" in project.files["src/pages/TodoPage.tsx"]
    assert import_problems(project.files) == []


def test_unsafe_style_declarations_are_left_out() -> None:
    documents = documents_for(MESSAGES["todo"])
    ui = documents[2]
    assert isinstance(ui, UIExpertDocument)
    first = ui.content.component_styles[0]
    hostile = first.model_copy(update={"styles": {"color": "red; } body { display: none", "margin": "0"}})
    content = ui.content.model_copy(update={"component_styles": [hostile, *ui.content.component_styles[1:]]})
    documents[2] = ui.model_copy(update={"content": content})
    css = style_files(documents, {}, "style")["src/styles.css"]
    assert "display: none" not in css
    assert f".{first.component_id} {{\n  margin: 0;\n}}" in css


# ---- repair ----


def test_repair_recreates_a_deleted_component_from_what_its_importer_takes() -> None:
    files = dict(compose(MESSAGES["todo"]).files)
    del files["src/components/TodoSummary.tsx"]
    assert import_problems(files) != []
    finding = Finding(
        check="imports", message="cannot resolve '../components/TodoSummary'", path="src/pages/TodoPage.tsx"
    )
    fixed = repair_files(files, [finding])
    assert set(fixed) == {"src/components/TodoSummary.tsx"}
    assert (
        "export function TodoSummary(_props: Record<string, unknown>): null" in fixed["src/components/TodoSummary.tsx"]
    )
    assert import_problems({**files, **fixed}) == []


def test_repair_stubs_every_name_all_importers_take_from_a_deleted_store() -> None:
    files = dict(compose(MESSAGES["todo"]).files)
    del files["src/store/todoStore.tsx"]
    findings = [
        Finding(check="imports", message="unresolved import", path=path) for path in files if path.endswith(".tsx")
    ]
    fixed = repair_files(files, findings)
    assert set(fixed) == {"src/store/todoStore.tsx"}
    stub = fixed["src/store/todoStore.tsx"]
    assert "export function TodoStoreProvider(_props: Record<string, unknown>): null" in stub
    for value in ("useTodoStore", "createId", "visibleItems"):
        assert f"export function {value}(..._args: unknown[]): unknown" in stub
    assert "export type TodoStoreItem = unknown;" in stub
    assert "export type TodoStoreState = unknown;" in stub
    assert import_problems({**files, **fixed}) == []


def test_repair_adds_a_missing_package_and_leaves_what_it_cannot_fix() -> None:
    files = dict(compose(MESSAGES["counter"]).files)
    page = "src/pages/CounterPage.tsx"
    files[page] = "import { clsx } from 'clsx';\nimport { format } from 'date-fns/format';\n" + files[page]
    quoting = Finding(check="imports", message="package 'clsx' is not listed in package.json", path="package.json")
    fixed = repair_files(files, [quoting])
    assert set(fixed) == {"package.json"}
    dependencies = json.loads(fixed["package.json"])["dependencies"]
    assert dependencies["clsx"] == "latest"
    assert "date-fns" not in dependencies
    located = repair_files(files, [Finding(check="typecheck", message="TS2307", path=page)])
    assert json.loads(located["package.json"])["dependencies"]["date-fns"] == "latest"

    broken = {**files, "package.json": '{"name": "x", '}
    assert repair_files(broken, [quoting]) == {}
    assert repair_files(files, [Finding(check="parse", message="unexpected token", path=page)]) == {}
    assert (
        repair_files(compose(MESSAGES["counter"]).files, [Finding(check="typecheck", message="TS2322", path=page)])
        == {}
    )
