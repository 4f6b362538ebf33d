"""The label every offline text of every family starts with (Chinese and English), so an answer made without a
language model is never taken for a model's."""


def offline_label(kind: str) -> str:
    """e.g. 【离线草稿·未接入大模型】."""
    return f"【离线{kind}·未接入大模型】"


def offline_label_en(kind: str) -> str:
    """e.g. [Offline outline: no language model is connected]."""
    return f"[Offline {kind}: no language model is connected]"
