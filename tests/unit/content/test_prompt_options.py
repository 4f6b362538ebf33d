"""The model path's prompt states the tone and length the user asked for (issue 29 item 3): the writer's input
names the tone in the user's words and the length as the body's range on the brief's platform."""

from activities.content.prompts import agent_input
from models.content.agents import AgentName, AgentRequest, ContentView


def test_the_writers_prompt_states_the_users_tone_and_length() -> None:
    view = ContentView(topic="打工人的咖啡续命指南", platform="xiaohongshu", tone="轻松幽默", length="long")

    prompt = agent_input(AgentRequest(agent=AgentName.WRITER, view=view))

    assert "用户要求的语气：轻松幽默" in prompt
    assert "用户要求的篇幅：长，正文 716–1000 字" in prompt


def test_without_options_the_prompt_names_none() -> None:
    view = ContentView(topic="打工人的咖啡续命指南", platform="xiaohongshu")

    prompt = agent_input(AgentRequest(agent=AgentName.WRITER, view=view))

    assert "用户要求" not in prompt
