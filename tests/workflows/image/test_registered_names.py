"""The names `activities.image.turns` starts and signals the image workflows by are the names they register."""

from models.image.runs import IMAGE_AGENT_WORKFLOW, TURN_ENDED_SIGNAL
from workflows.image.session import ImageSessionWorkflow
from workflows.image.workflow import ImageAgentWorkflow


def test_turns_use_the_registered_names() -> None:
    assert ImageAgentWorkflow.__name__ == IMAGE_AGENT_WORKFLOW
    assert ImageSessionWorkflow.turn_ended.__name__ == TURN_ENDED_SIGNAL
