"""Chapter summaries (seed 002 Req 5.2): extractive, deterministic, bounded, in the chapter's own words."""

from stores.chapter_summaries import SUMMARY_CHARS, summarize

SCENE = (
    "林舟走进码头的第七号仓库，雨水顺着铁皮屋顶往下淌。他在角落里找到了那只锈迹斑斑的铁皮箱。\n"
    "箱子上的锁已经坏了。苏念在门口喊他的名字，声音被雨声吞没。林舟打开铁皮箱，里面是一叠发黄的信。\n"
    "信上的字迹他认得，是父亲的。他把信塞进怀里，转身走进雨里。"
)


def test_req_5_2_a_summary_opens_with_the_chapter_and_keeps_its_recurring_matter_in_order() -> None:
    summary = summarize(SCENE)

    assert summary.startswith("林舟走进码头的第七号仓库")
    assert "铁皮箱" in summary
    assert len(summary) <= SUMMARY_CHARS
    picked = [sentence + "。" for sentence in summary.split("。") if sentence]
    assert all(sentence in SCENE for sentence in picked), "only the chapter's own sentences"
    assert [SCENE.index(sentence) for sentence in picked] == sorted(SCENE.index(sentence) for sentence in picked)
    assert summarize(SCENE) == summary


def test_english_chapters_are_cut_at_full_stops_and_blank_ones_have_no_summary() -> None:
    text = "The keeper climbed the stairs. He trimmed the wick. The keeper watched the whales. It cost 3.5 coins."

    summary = summarize(text)

    assert summary.startswith("The keeper climbed the stairs. ")
    assert "3.5 coins" not in summary or summary.endswith("3.5 coins.")
    assert summarize("  \n ") == ""


def test_a_sentence_too_long_for_the_budget_is_cut_with_an_ellipsis() -> None:
    summary = summarize("风吹过山岗" * 100)

    assert len(summary) == SUMMARY_CHARS and summary.endswith("…")
