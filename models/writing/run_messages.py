"""What a writing run itself tells the writer in its event stream (thoughts, `processing_check`, `check_result`,
`relationship_update`, `error` messages), in the request's language: one table per message family, each message a
Chinese and an English template. A request written in English (`models.writing.language.written_in_english`) gets
the English one; every other request gets the Chinese one, unchanged. Pure, so workflow code can use it."""

from typing import NamedTuple


class Message(NamedTuple):
    """One message in both languages; its `{fields}` are filled by `say`."""

    zh: str
    en: str

    def say(self, english: bool, **fields: object) -> str:
        return (self.en if english else self.zh).format(**fields)


def listed(items: list[str], english: bool) -> str:
    """Items as one list, in the request's language (甲、乙 / a, b)."""
    return (", " if english else "、").join(items)


class PreprocessingMessages:
    """Phase 1: the tasks started together, and a task that failed."""

    STARTED = Message(
        "并行预处理：{names}（{count} 个任务同时开始）", "Preprocessing in parallel: {names} ({count} tasks started)"
    )
    TASK_FAILED = Message(
        "预处理任务 {task} 失败，继续使用其余上下文",
        "Preprocessing task {task} failed; going on with the other context",
    )
    TASK_WARNING = Message("{task} 失败：{cause}", "{task} failed: {cause}")


class RouterMessages:
    """The router: a model route that failed for the keyword rules."""

    DEGRADED = Message("LLM 路由失败，改用关键词规则", "LLM routing failed; using the keyword rules instead")


class AgentMessages:
    """An agent's model that failed for the offline agent, and a turn the conversation memory could not keep."""

    DEGRADED = Message(
        "{agent} 的大模型调用失败，改用离线 Agent", "{agent}'s model call failed; the offline agent answers"
    )
    TURN_NOT_KEPT = Message(
        "这一轮没能记入对话记忆：{cause}", "This turn could not be kept in the conversation memory: {cause}"
    )


class SkillMessages:
    """The agent's thought about the skills it was given."""

    INJECTED = Message("注入技能：{reasons}", "Skills added: {reasons}")
    REASON = Message("{name}（{reason}）", "{name} ({reason})")
    REASON_SEPARATOR = Message("；", "; ")
    NONE = Message("没有适用的技能，使用 Agent 基础能力", "No skill applies; the agent answers with its base abilities")


class ChainMessages:
    """A chain's thoughts (each step, the writer's choice) and a failed step."""

    START = Message("开始", "start")
    STEP = Message(
        "链式执行：{before} → {agent}（第 {step}/{steps} 步）", "Chain: {before} → {agent} (step {step}/{steps})"
    )
    STEP_FAILED = Message(
        "链式步骤 {step}（{agent}）失败，链已中止：{cause}",
        "Chain step {step} ({agent}) failed; the chain stopped: {cause}",
    )
    CHOSEN = Message("作者选择了：{chosen}", "The writer chose: {chosen}")
    PAUSE_QUESTION = Message(
        "请选择一个方案（回答选项的 id），或直接写下你自己的想法，我会据此继续写下去",
        "Choose a direction (answer with its id), or write your own idea, and I will carry on from it",
    )
    OPTION_COLON = Message("：", ": ")
    """Between an option's title and its summary in the pause's labels."""
    PAUSE_EXPIRED = Message(
        "截止时间前没有收到选择，链已结束；带上 chain_summary 的 chainContext 重新发送即可继续",
        "No choice arrived before the deadline, so the chain has ended; send the chainContext from chain_summary "
        "again to continue it",
    )


class PostprocessingMessages:
    """Phase 3: each post-processing step's start, result and failure."""

    CONSISTENCY_STARTED = Message(
        "正在进行一致性检查（人物状态、人名、设定）...", "Checking consistency (character status, names, setting)..."
    )
    REVIEW_UNREADABLE = Message(
        "模型审阅未能读取，只有规则检查的结果", "The model's review could not be read; only the rule checks' results"
    )
    REVIEW_FAILED = Message(
        "模型审阅失败，只有规则检查的结果", "The model's review failed; only the rule checks' results"
    )
    CHECK_FAILED = Message("一致性检查失败，草稿未经检查", "The consistency check failed; the draft was not checked")
    CHECK_NOT_DONE = Message(
        "一致性检查未能完成，草稿未经检查", "The consistency check could not finish; the draft was not checked"
    )
    RELATIONSHIPS_WAITING = Message(
        "关系图更新在自己的运行中进行，本次回答最多等它 {wait} 秒",
        "The relationship graph is updated in a run of its own; this answer waits for it up to {wait} s",
    )
    RELATIONSHIPS_BACKGROUND = Message(
        "关系图更新已在后台开始（不阻塞本次回答）",
        "The relationship graph update started in the background (this answer does not wait)",
    )
    RELATIONSHIPS_SCHEDULED = Message(
        "关系图更新在 {run_id} 中进行，完成后在它的事件流里发出 relationship_update",
        "The relationship graph is updated in {run_id}; its relationship_update is in that run's event stream",
    )
    RELATIONSHIPS_FAILED = Message("关系图更新失败", "The relationship graph update failed")
    RELATIONSHIPS_FAILED_BECAUSE = Message("关系图更新失败：{cause}", "The relationship graph update failed: {cause}")
    KNOWLEDGE_STARTED = Message(
        "正在把设定提交为待确认的提议（作者采纳后才写入项目知识库）...",
        "Filing the setting as a proposal (it joins the project's notes once the writer accepts it)...",
    )
    KNOWLEDGE_TITLE = Message("设定：{request}", "Setting: {request}")
    KNOWLEDGE_FAILED = Message("设定未能提交为提议", "The setting could not be filed as a proposal")
    KNOWLEDGE_FILED = Message("设定已提交为待确认的提议：{title}", "The setting was filed as a proposal: {title}")
    KNOWLEDGE_ALREADY_THERE = Message(
        "项目已有同样的{where}（{id}），这次的设定未重复提交",
        "The project already has the same {where} ({id}); this setting was not filed again",
    )
    WHERE_PROPOSAL = Message("提议", "proposal")
    WHERE_WORLD_NOTE = Message("世界设定", "world note")


class RelationshipMessages:
    """The relationship update's result (`relationship_update`, its `check_result`)."""

    UPDATED = Message(
        "关系图已更新：新增 {added}，修改 {changed}，共 {total} 条",
        "Relationship graph updated: {added} added, {changed} changed, {total} in all",
    )
    PROPOSED = Message(
        "关系图提议（待作者确认）：新增 {added}，修改 {changed}，新角色 {characters}",
        "Relationship proposals (for the writer to accept): {added} added, {changed} changed; "
        "new characters: {characters}",
    )
    UNKNOWN = Message(
        "；项目和设计里都没有的角色，关系未提议：{pairs}",
        "; not proposed, naming characters neither the project nor the design has: {pairs}",
    )
    PAIR = Message("{source}—{target}", "{source}–{target}")
    ALREADY_THERE = Message(
        "；已有同样的待确认提议，未重复提交：{labels}", "; already proposed, not filed again: {labels}"
    )
    UNKNOWN_ERROR = Message("未知错误", "unknown error")


class RevisionMessages:
    """Why a revision has no chapter to revise (CHAPTER_NOT_FOUND), and its offline placeholder's note."""

    NO_SUCH_NUMBER = Message(
        "第{number}章不存在：项目现有 {count} 章",
        "Chapter {number} does not exist: the project has {count} chapters",
    )
    NO_SUCH_TITLE = Message("没有标题为《{titles}》的章节", "No chapter is titled {titles}")
    TITLE_SEPARATOR = Message("》《", ", ")
    NOT_NAMED = Message(
        "没有指明要改写哪一章：请写明章号（如“第二章”）或章节标题",
        "Which chapter to revise was not said: name its number (as in 'chapter 2') or its title",
    )
    OFFLINE_NOTE = Message(
        "离线占位：第{position}章《{title}》没有被改写，以下是原文。",
        "Offline placeholder: no model is configured, so chapter {position} ({title}) was not rewritten; "
        "its current text follows unchanged.",
    )


class CheckSummaryMessages:
    """The consistency check's `check_result` message."""

    CHECKED = Message(
        "检查了 {characters} 个角色、{chapters} 章：", "Checked {characters} characters, {chapters} chapters: "
    )
    FOUND = Message("发现 {issues} 处问题（{errors} 个错误）", "{issues} issues found ({errors} errors)")
    CLEAN = Message("没有发现问题", "no issues found")
    REVIEW_UNREADABLE = Message(
        "；模型审阅的回答无法读取（{error}），只有规则检查的结果",
        "; the model's review could not be read ({error}), only the rule checks' results",
    )
