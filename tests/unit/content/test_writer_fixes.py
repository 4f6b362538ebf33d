"""The offline writer run as a quality fallback (`AgentRequest.fix`, `activities.content.offline.fixes`): on the
review's readability findings it rewrites headings that repeat a stem, cuts long statistics at their clauses and
breaks paragraphs, so the offline review (the real one) scores readability higher; on platform fit it keeps the
body inside the range's margin; without a fix it writes what it always wrote."""

from activities.content.offline.fixes import PARAGRAPH_CHARS, RANGE_MARGIN, plainer_headings
from activities.content.offline.review import review_post
from models.content.agents import AgentName, AgentRequest, QualityFix
from models.content.artifacts import BODY_LENGTH, BodyBlock, EvidenceItem, GeneratedContent, QualityDimension
from tests.unit.content.test_writer import content, many_statistics, request

SAME_STEM = [
    BodyBlock(id="b1", heading="早上喝咖啡最好在起床后 90 分钟以后", points=["皮质醇回落后提神更持久。"]),
    BodyBlock(id="b2", heading="早上喝咖啡之前先喝一杯温水", points=["补充一夜流失的水分。"]),
    BodyBlock(id="b3", heading="早上喝咖啡不要空腹", points=["搭配全麦面包，血糖更平稳。"]),
]
READABILITY = QualityDimension.READABILITY


def readability(req: AgentRequest, post: GeneratedContent, evidence: list[EvidenceItem]) -> float:
    view = req.view.model_copy(update={"generated_content": post})
    scores = review_post(AgentRequest(agent=AgentName.REVIEW, view=view), evidence, {}).patch.quality_scores
    assert scores is not None
    return scores.readability


def fixing(req: AgentRequest, dimension: QualityDimension, findings: list[str]) -> AgentRequest:
    return req.model_copy(update={"fix": QualityFix(dimension=dimension, score=0.4, findings=findings)})


def test_headings_that_repeat_a_stem_are_rewritten_when_the_findings_name_them() -> None:
    req = request("xiaohongshu", blocks=SAME_STEM, topic="早上喝咖啡的正确时间")
    before = content(req, [])
    assert readability(req, before, []) < 0.6

    after = content(fixing(req, READABILITY, ["平均句长 20 字（9 句）", "小标题开头重复同一词干（早上喝咖）"]), [])

    assert [block.heading for block in after.blocks] == ["最好在起床后 90 分钟以后", "之前先喝一杯温水", "不要空腹"]
    assert readability(req, after, []) > readability(req, before, [])
    unnamed = content(fixing(req, READABILITY, ["平均句长 64 字"]), [])
    assert [block.heading for block in unnamed.blocks] == [block.heading for block in before.blocks]


def test_long_statistics_are_cut_at_their_clauses_and_paragraphs_broken() -> None:
    req = request("wechat")
    evidence = many_statistics()
    before = content(req, evidence)

    after = content(fixing(req, READABILITY, ["平均句长 48 字（30 句）"]), evidence)

    longest = max(len(line) for block in after.blocks for line in block.text.split("\n"))
    assert longest <= PARAGRAPH_CHARS < max(len(block.text) for block in before.blocks)
    assert readability(req, after, evidence) > readability(req, before, evidence)


def test_a_platform_fit_fix_keeps_the_body_inside_the_range_s_margin() -> None:
    req = request("xiaohongshu")
    evidence = many_statistics()
    low, high = BODY_LENGTH["xiaohongshu"]

    post = content(fixing(req, QualityDimension.PLATFORM_FIT, ["正文 1020 字（建议 150–1000 字）"]), evidence)

    assert len(post.body) <= high - int((high - low) * RANGE_MARGIN) < len(content(req, evidence).body)


def test_without_a_fix_or_with_another_dimension_the_post_is_the_same() -> None:
    req = request("weibo")
    other = fixing(req, QualityDimension.INFO_DENSITY, ["没有证据条目可核对"])
    assert content(other) == content(req)


def test_a_heading_left_too_short_stays_as_it_was() -> None:
    assert plainer_headings(["咖啡因的上限", "咖啡因的上"], "") == ["咖啡因的上限", "咖啡因的上"]
    assert plainer_headings(["打工人咖啡：早上喝", "打工人咖啡：午后别喝"], "打工人咖啡") == ["早上喝", "午后别喝"]


def test_english_headings_lose_whole_words_only() -> None:
    headings = ["Roll your clothes to save space", "Rolling bags fit the overhead bin", "Roll socks into shoes"]
    assert plainer_headings(headings, "") == ["Your clothes to save space", headings[1], "Socks into shoes"]
