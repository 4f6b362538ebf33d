"""The generated app's UI text, per kind, language and component role.

The front-end architect gives each component these strings as its props (`ComponentNode.props`), so the text a
user reads is part of the design documents and the writing agents only pass it on. `{count}` in a label is
replaced by a number in the app.
"""

from activities.app_builder.offline.app_kind import Language
from models.app_builder.app_kinds import KindName

Copy = dict[str, dict[str, str]]
"""Component role → prop name → text."""

_TODO: dict[Language, Copy] = {
    "zh": {
        "app-layout": {"subtitle": "记下要做的事，完成一件勾掉一件"},
        "add-form": {"placeholder": "写下要做的事…", "submitLabel": "添加", "emptyError": "请先输入待办内容"},
        "filter-bar": {"label": "筛选", "allLabel": "全部", "activeLabel": "未完成", "doneLabel": "已完成"},
        "item-list": {"emptyMessage": "还没有待办，在上面添加第一条吧", "noMatchMessage": "没有符合当前筛选的待办"},
        "item-row": {"toggleLabel": "标记完成", "deleteLabel": "删除"},
        "summary-bar": {"remainingLabel": "还剩 {count} 项未完成", "clearLabel": "清除已完成"},
    },
    "en": {
        "app-layout": {"subtitle": "Write down what to do, check it off when it is done"},
        "add-form": {"placeholder": "What needs to be done?", "submitLabel": "Add", "emptyError": "Type a task first"},
        "filter-bar": {"label": "Filter", "allLabel": "All", "activeLabel": "Active", "doneLabel": "Done"},
        "item-list": {
            "emptyMessage": "Nothing here yet: add your first task above",
            "noMatchMessage": "No tasks match this filter",
        },
        "item-row": {"toggleLabel": "Mark as done", "deleteLabel": "Delete"},
        "summary-bar": {"remainingLabel": "{count} left to do", "clearLabel": "Clear completed"},
    },
}

_SHOPPING: dict[Language, Copy] = {
    "zh": {
        "app-layout": {"subtitle": "要买的东西一条条记下来，买到就勾掉"},
        "add-form": {
            "placeholder": "商品名称",
            "quantityLabel": "数量",
            "submitLabel": "加入清单",
            "emptyError": "请先输入商品名称",
        },
        "filter-bar": {"label": "筛选", "allLabel": "全部", "activeLabel": "待购买", "doneLabel": "已购买"},
        "item-list": {"emptyMessage": "清单还是空的，先加一件要买的东西吧", "noMatchMessage": "没有符合当前筛选的商品"},
        "item-row": {"toggleLabel": "标记已购买", "deleteLabel": "删除"},
        "summary-bar": {"remainingLabel": "还有 {count} 件待购买", "clearLabel": "清除已购买"},
    },
    "en": {
        "app-layout": {"subtitle": "Write down what to buy, tick it off in the store"},
        "add-form": {
            "placeholder": "Item name",
            "quantityLabel": "Quantity",
            "submitLabel": "Add to list",
            "emptyError": "Type an item name first",
        },
        "filter-bar": {"label": "Filter", "allLabel": "All", "activeLabel": "To buy", "doneLabel": "Bought"},
        "item-list": {
            "emptyMessage": "Your list is empty: add something to buy",
            "noMatchMessage": "No items match this filter",
        },
        "item-row": {"toggleLabel": "Mark as bought", "deleteLabel": "Delete"},
        "summary-bar": {"remainingLabel": "{count} left to buy", "clearLabel": "Clear bought"},
    },
}

_NOTES: dict[Language, Copy] = {
    "zh": {
        "app-layout": {"subtitle": "随手记下想法，重要的置顶"},
        "add-form": {
            "placeholder": "标题",
            "bodyPlaceholder": "写点什么…（Ctrl+Enter 保存）",
            "submitLabel": "保存笔记",
            "emptyError": "请先输入标题",
        },
        "search-box": {"placeholder": "搜索笔记", "clearLabel": "清空搜索"},
        "item-list": {"emptyMessage": "还没有笔记，写下第一条吧", "noMatchMessage": "没有找到匹配的笔记"},
        "item-row": {"pinLabel": "置顶", "unpinLabel": "取消置顶", "deleteLabel": "删除"},
    },
    "en": {
        "app-layout": {"subtitle": "Jot down ideas, pin the important ones"},
        "add-form": {
            "placeholder": "Title",
            "bodyPlaceholder": "Write something… (Ctrl+Enter to save)",
            "submitLabel": "Save note",
            "emptyError": "Type a title first",
        },
        "search-box": {"placeholder": "Search notes", "clearLabel": "Clear search"},
        "item-list": {"emptyMessage": "No notes yet: write your first one", "noMatchMessage": "No notes match"},
        "item-row": {"pinLabel": "Pin", "unpinLabel": "Unpin", "deleteLabel": "Delete"},
    },
}

_COUNTER: dict[Language, Copy] = {
    "zh": {
        "app-layout": {"subtitle": "点击按钮或按 ↑ ↓ 计数，按 0 归零"},
        "counter-display": {"label": "当前计数"},
        "counter-controls": {"decrementLabel": "减少", "incrementLabel": "增加", "resetLabel": "归零"},
        "step-picker": {"label": "步长"},
        "history-list": {"title": "操作记录", "emptyMessage": "还没有操作记录"},
    },
    "en": {
        "app-layout": {"subtitle": "Click or press ↑ ↓ to count, 0 to reset"},
        "counter-display": {"label": "Current count"},
        "counter-controls": {"decrementLabel": "Decrease", "incrementLabel": "Increase", "resetLabel": "Reset"},
        "step-picker": {"label": "Step"},
        "history-list": {"title": "History", "emptyMessage": "No changes yet"},
    },
}

APP_COPY: dict[KindName, dict[Language, Copy]] = {
    "todo": _TODO,
    "shopping": _SHOPPING,
    "notes": _NOTES,
    "counter": _COUNTER,
}
