"""The English names of the platforms, the review's dimensions and the agents, for what an English post is told
(an English topic by `models.writing.language.written_in_english`: the offline review's findings and the run's
cannot-improve message); any other topic is told in Chinese."""

from models.content.agents import AgentName
from models.content.artifacts import QualityDimension

PLATFORM_LABELS_EN: dict[str, str] = {
    "xiaohongshu": "Xiaohongshu",
    "weibo": "Weibo",
    "wechat": "WeChat Official Account",
    "douyin": "Douyin",
}
DIMENSION_LABELS_EN: dict[QualityDimension, str] = {
    QualityDimension.INFO_DENSITY: "information density",
    QualityDimension.TEXT_IMAGE_ALIGNMENT: "text-image alignment",
    QualityDimension.STYLE_CONSISTENCY: "style consistency",
    QualityDimension.READABILITY: "readability",
    QualityDimension.PLATFORM_FIT: "platform fit",
}
AGENT_LABELS_EN: dict[AgentName, str] = {
    AgentName.BRIEF_COMPILER: "brief compiler",
    AgentName.RESEARCH_EVIDENCE: "research",
    AgentName.REFERENCE_INTELLIGENCE: "reference analysis",
    AgentName.LAYOUT_PLANNER: "layout planner",
    AgentName.IMAGE_PLANNER: "image planner",
    AgentName.WRITER: "writer",
    AgentName.IMAGE: "image generator",
    AgentName.REVIEW: "review",
}
