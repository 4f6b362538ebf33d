"""The offline section rewrite: it shortens and makes text more spoken, in the post's language, and keeps the text
(saying so) for an instruction it cannot follow; never a made-up rewrite."""

from activities.content.section_rewrite import rewrite_offline

ENGLISH = "Cold brew is smooth. However, it is not for everyone. Do not drink it after 3 pm. Water helps too."


def test_shorter_keeps_the_first_sentences_and_says_how_many() -> None:
    result = rewrite_offline(ENGLISH, "make it shorter", english=True)

    assert result.applied and result.offline
    assert result.text == "Cold brew is smooth. However, it is not for everyone."
    assert result.note == "Offline rewrite (no model configured): shorter: kept the first 2 of 4 sentences"


def test_more_casual_uses_spoken_forms_in_english_and_in_chinese() -> None:
    english = rewrite_offline(ENGLISH, "more casual please", english=True)
    chinese = rewrite_offline("因此您可以先喝水。", "更口语一点")

    assert (
        english.text == "Cold brew is smooth. But it's not for everyone. Do not drink it after 3 pm. Water helps too."
    )
    assert chinese.applied and chinese.text == "所以你可以先喝水。"
    assert chinese.note == "离线改写（未配置大模型）：改成口语：替换了 2 处书面词"


def test_an_instruction_it_cannot_follow_keeps_the_text_and_says_so() -> None:
    english = rewrite_offline(ENGLISH, "add a metaphor", english=True)
    chinese = rewrite_offline("只有一句。", "精简一点")

    assert not english.applied and english.text == ENGLISH
    assert 'cannot do "add a metaphor"' in english.note and "Configure an LLM" in english.note
    assert not chinese.applied and chinese.text == "只有一句。"
    assert (
        chinese.note
        == "离线改写（未配置大模型）没有改动这一段：只有一句，无法再精简。保留原文；配置 LLM 后可按要求改写"
    )


def test_after_the_model_failed_the_note_says_so_not_that_none_is_configured() -> None:
    done = rewrite_offline(
        "We do not know: it is late and we are tired.", "more spoken", english=True, model_failed=True
    )
    kept = rewrite_offline("只有这一句。", "精简一点", model_failed=True)

    assert done.note == "The model failed; rewritten offline: more spoken: 3 written words replaced"
    assert kept.note == "大模型调用失败，离线改写没有改动这一段：只有一句，无法再精简。保留原文；稍后可再试"
