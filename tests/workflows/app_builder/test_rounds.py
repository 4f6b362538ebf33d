"""Follow-up rounds in the workflow (issue 27 item 2), with a scripted model under time skipping: a round with a
base starts from the base's final workspace (its writers' first turn lists the base's files), updates each
document (version 2), changes only what its tasks wrote, has the whole result checked after its last wave and
counts its changes; a round that changed nothing is checked too and is no success."""

from models.app_builder.documents import ANALYSIS_ORDER
from models.app_builder.rounds import AppRoundBase, RoundChanges
from tests.llm.loopback import Loopback
from tests.workflows.app_builder.harness import TODO_APP, AppHarness, AppOutcome
from tests.workflows.app_builder.scripts import SCAFFOLD_FILES, ScriptedModel, task
from tests.workflows.app_builder.test_llm_runs import gated

DARK = "export default function App() {\n  return <main className='dark'>scripted</main>;\n}\n"
DARK_MODE = "加一个深色模式切换按钮"


def base_of(outcome: AppOutcome, messages: list[str]) -> AppRoundBase:
    state = outcome.state
    return AppRoundBase(
        run_id=outcome.handle.id,
        round=state.round,
        workspace=state.workspace,
        documents=state.documents,
        messages=messages,
    )


async def test_a_follow_up_round_changes_its_base_and_keeps_the_rest(scripted: AppHarness, loopback: Loopback) -> None:
    loopback.responder = ScriptedModel(plans=[gated()])
    first = await scripted.run()
    assert first.result.success and first.files == SCAFFOLD_FILES
    model = ScriptedModel(plans=[[task("dark", "page-agent")]], writes={"dark": {"src/App.tsx": DARK}})
    loopback.responder = model

    second = await scripted.run(DARK_MODE, base_of(first, [TODO_APP]))

    state = second.state
    assert second.result.success, state.unresolved_issues
    assert (state.round, state.base_run_id, state.earlier_messages) == (2, first.handle.id, [TODO_APP])
    assert second.files == SCAFFOLD_FILES | {"src/App.tsx": DARK}
    assert [d.version for d in state.documents] == [2] * len(ANALYSIS_ORDER)
    assert all(event.data["update"] for event in second.of_type("document_ready"))
    listing = model.turns["dark"][0]["messages"][1]["content"]
    assert "Project files now: index.html, package.json, src/App.tsx, src/main.tsx" in listing
    assert TODO_APP in listing and DARK_MODE in listing
    assert second.path.count("quality_gate") == 1, "the whole result, after the last wave"
    assert state.quality and state.quality[-1].files_checked == len(SCAFFOLD_FILES)
    [ready] = second.of_type("app_ready")
    assert ready.data["changes"] == {"added": 0, "modified": 1, "removed": 0} and ready.data["round"] == 2
    assert state.changes == RoundChanges(modified=1)
    assert first.state.changes == RoundChanges(added=len(SCAFFOLD_FILES))


async def test_a_round_that_changes_nothing_is_checked_and_is_no_success(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = ScriptedModel(plans=[gated()])
    first = await scripted.run()
    loopback.responder = ScriptedModel(plans=[[task("dark", "page-agent")]])  # its task writes nothing

    second = await scripted.run(DARK_MODE, base_of(first, [TODO_APP]))

    assert second.result.status == "completed" and not second.result.success
    assert second.state.changes == RoundChanges()
    assert second.of_type("quality_result") and second.state.quality[-1].passed
    assert second.files == first.files
    assert any("没有改动任何文件" in event.data["message"] for event in second.of_type("thought_log"))
