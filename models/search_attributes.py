"""Typed search attributes every family sets, so runs can be listed by the gateway and filtered in the Web UI.

`Owner` is the principal that started a run or session (the gateway answers 404 to anyone else), `SessionId`
groups a session's runs, `IntentAction` says what a run was asked to do (an image action, a writing
intent, ...), `RunStatus` says how it is going (`running`, `waiting` for a person) and how it ended
(`completed`, `failed`, `timeout`, `cancelled`). The dev server registers them at start (`deploy/stack.py`); a
cluster registers them once with `temporal operator search-attribute create`.
"""

from temporalio.common import SearchAttributeKey

OWNER = SearchAttributeKey.for_keyword("Owner")
SESSION_ID = SearchAttributeKey.for_keyword("SessionId")
INTENT_ACTION = SearchAttributeKey.for_keyword("IntentAction")
RUN_STATUS = SearchAttributeKey.for_keyword("RunStatus")

ALL_KEYS = (OWNER, SESSION_ID, INTENT_ACTION, RUN_STATUS)


def dev_server_flags() -> list[str]:
    """`temporal server start-dev` arguments that register every key above."""
    flags: list[str] = []
    for key in ALL_KEYS:
        flags += ["--search-attribute", f"{key.name}=Keyword"]
    return flags
