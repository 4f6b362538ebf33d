"""The offline UX expert: one interaction flow per requirement (`flow-<key>`, plus browsing the list with its
empty states), the user's journey through the architect's components, and usability recommendations for the
components the tree has. Steps quote the UI text the architect gave the components, so the flows describe the
app that will be generated (keyboard keys, error messages, empty-state messages).
"""

from activities.app_builder.offline.app_kind import AppKind
from activities.app_builder.offline.architecture import ITEM_LIST, ITEM_ROW, LAYOUT, PAGE
from activities.app_builder.offline.conventions import capabilities_of
from models.app_builder.documents import (
    FlowStep,
    FrontendArchitectDocument,
    InteractionFlow,
    Priority,
    ProductManagerDocument,
    UsabilityRecommendation,
    UserJourney,
    UXExpertContent,
)

BROWSE_FLOW = "flow-browse"

Step = tuple[str, str, str | None]


def _steps(key: str, kind: AppKind, text: dict[str, dict[str, str]]) -> list[Step]:
    """A capability's steps; `text` is each component's props (role → prop → text)."""
    noun = kind.noun
    form, row, summary = text.get("add-form", {}), text.get(ITEM_ROW, {}), text.get("summary-bar", {})
    empty_error = form.get("emptyError", "内容不能为空")
    steps: dict[str, list[Step]] = {
        "add": [
            (f"在输入框输入{noun}内容", "输入框显示输入的文字", None),
            (
                f"按 Enter 或点击「{form.get('submitLabel', '添加')}」",
                f"新{noun}出现在列表中，输入框清空并保持焦点",
                f"内容为空时显示「{empty_error}」，不添加",
            ),
            ("按 Esc", "清空输入框和错误提示", None),
        ],
        "toggle": [
            (f"点击「{row.get('pinLabel', '置顶')}」", "笔记移到最前面并高亮，按钮变为取消置顶", None)
            if kind.item is not None and kind.item.flag_control == "pin"
            else (f"点击{noun}前的复选框，或聚焦该{noun}后按空格", f"{noun}切换状态，已完成的划线显示", None)
        ],
        "remove": [
            (f"点击「{row.get('deleteLabel', '删除')}」，或聚焦该{noun}后按 Delete", f"该{noun}从列表移除", None)
        ],
        "filter": [("点击一个筛选按钮", f"列表只显示该状态的{noun}，当前按钮高亮", None)],
        "search": [
            ("在搜索框输入关键词", f"列表实时只显示标题或正文包含关键词的{noun}", None),
            ("按 Esc 或点击清空按钮", f"恢复显示全部{noun}", None),
        ],
        "clear": [
            (
                f"点击「{summary.get('clearLabel', '清除')}」",
                f"已完成的{noun}全部移除，剩余数量随之更新",
                "没有可清除的项时按钮不可用",
            )
        ],
        "count": [
            ("点击「+」或按 ↑", "计数增加一个步长，并记一条变化", None),
            ("点击「−」或按 ↓", "计数减少一个步长，并记一条变化", None),
        ],
        "reset": [("点击归零按钮或按 0", "计数变为 0", "计数已经是 0 时按钮不可用")],
        "step": [("在步长下拉框选择 1、5 或 10", "之后每次按新的步长增减", None)],
        "history": [
            ("查看操作记录", "最新的变化排在最前，最多保留 20 条", None),
            ("还没有任何操作时", f"显示「{text.get('history-list', {}).get('emptyMessage', '暂无记录')}」", None),
        ],
        "persist": [("刷新或重新打开页面", f"之前的{noun}仍然在", "浏览器不允许本地存储时从空白开始，不报错")],
    }
    return steps.get(key, [])


def _browse_steps(kind: AppKind, text: dict[str, dict[str, str]], narrowed: bool) -> list[Step]:
    messages = text.get(ITEM_LIST, {})
    steps: list[Step] = [
        ("打开应用", f"看到全部{kind.noun}", None),
        (f"还没有任何{kind.noun}时", f"显示「{messages.get('emptyMessage', '列表为空')}」", None),
    ]
    if narrowed:
        steps.append(("筛选或搜索没有结果时", f"显示「{messages.get('noMatchMessage', '没有匹配项')}」", None))
    return steps


def _flow(flow_id: str, name: str, steps: list[Step]) -> InteractionFlow:
    return InteractionFlow(
        id=flow_id,
        name=name,
        steps=[
            FlowStep(action=action, expected_result=result, error_handling=error) for action, result, error in steps
        ],
    )


def _recommendations(kind: AppKind, roles: set[str], asked: set[str]) -> list[UsabilityRecommendation]:
    advice: list[tuple[str, str, Priority, bool]] = [
        ("键盘操作", "输入框自动获得焦点；Enter 提交、Esc 清空，提交后焦点留在输入框", "high", "add-form" in roles),
        (
            "键盘操作",
            f"每条{kind.noun}可用 Tab 聚焦，空格切换状态、Delete 删除",
            "medium",
            ITEM_ROW in roles and bool(asked & {"toggle", "remove"}),
        ),
        ("键盘操作", "↑ / ↓ 增减、0 归零；焦点在输入控件上时不拦截按键", "high", "counter-controls" in roles),
        ("空状态", "列表为空和筛选无结果时分别给出提示，引导下一步操作", "high", ITEM_LIST in roles),
        ("空状态", "没有记录时显示提示而不是一片空白", "medium", "history-list" in roles),
        ("可访问性", "按钮和输入框都有可读的标签（aria-label），焦点轮廓清晰可见", "medium", True),
        ("数据", "数据保存在本地，刷新后不丢失；存储不可用时静默降级", "low", "persist" in asked),
    ]
    return [
        UsabilityRecommendation(area=area, recommendation=text, priority=priority)
        for area, text, priority, applies in advice
        if applies
    ]


def flows_content(
    kind: AppKind, product: ProductManagerDocument, architect: FrontendArchitectDocument
) -> UXExpertContent:
    capabilities = capabilities_of(product, kind)
    asked = {capability.key for capability in capabilities}
    tree = architect.content.component_tree
    roles = {node.id for node in tree}
    text = {node.id: node.props or {} for node in tree}
    flows = [_flow(f"flow-{c.key}", c.title, _steps(c.key, kind, text)) for c in capabilities]
    if ITEM_LIST in roles:
        flows.append(_flow(BROWSE_FLOW, "浏览列表", _browse_steps(kind, text, bool(asked & {"filter", "search"}))))
    flows = [flow for flow in flows if flow.steps]
    pains = [step.error_handling for flow in flows for step in flow.steps if step.error_handling]
    journeys = [
        UserJourney(
            id="journey-main",
            persona=kind.persona,
            touchpoints=[node.name for node in tree if node.id not in (LAYOUT, PAGE)],
            pain_points=pains,
        )
    ]
    if "persist" in asked:
        journeys.append(
            UserJourney(
                id="journey-return",
                persona=f"第二天再次打开应用的{kind.persona}",
                touchpoints=[node.name for node in tree if node.id == PAGE],
                pain_points=["担心刷新或关闭页面后内容丢失"],
            )
        )
    return UXExpertContent(
        interaction_flows=flows,
        user_journeys=journeys,
        usability_recommendations=_recommendations(kind, roles, asked),
    )
