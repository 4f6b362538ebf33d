"""The image family's activities over the worker's shared dependencies (its `Family` names this factory)."""

from collections.abc import Callable
from typing import Any

from activities.common.dependencies import WorkerDependencies
from activities.image.critic import ImageCritic
from activities.image.executor import DirectImageExecutor, ImageExecutor
from activities.image.hosted import HostedImageNodes
from activities.image.planner import Planner
from activities.image.rag import StyleRetriever
from activities.image.turns import TurnControl
from activities.image.validation import InputValidator
from stores.style_library import style_vocabulary


def build_activities(deps: WorkerDependencies) -> list[Callable[..., Any]]:
    """The image agent's nodes, its hosted-task steps and its session's turn control."""
    hosted = HostedImageNodes(deps.hosted_images, deps.resolver)
    turns = TurnControl()
    critic = ImageCritic(deps.resolver, deps.llm)
    return [
        InputValidator(deps.blobs, deps.image_fetcher).validate_input,
        Planner(style_vocabulary(deps.style_library), deps.llm).plan,
        StyleRetriever(deps.style_store).retrieve_styles,
        ImageExecutor(deps.image_provider, deps.resolver).execute,
        DirectImageExecutor(deps.direct_images or deps.image_provider, deps.resolver).execute_direct,
        critic.critique,
        critic.review_prompt,
        hosted.submit,
        hosted.poll,
        hosted.fetch,
        hosted.cancel,
        turns.start_turn,
        turns.report_turn,
        turns.look_up_turn,
        turns.look_up_session,
    ]
