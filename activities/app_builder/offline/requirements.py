"""The offline product manager: the kind's capabilities as functional requirements, one user story each, and the
requirement ids ordered by priority (high first, the kind's order within a priority)."""

from activities.app_builder.offline.app_kind import AppKind
from models.app_builder.documents import FunctionalRequirement, ProductManagerContent, UserStory

PRIORITY_RANK = {"high": 0, "medium": 1, "low": 2}


def product_content(kind: AppKind) -> ProductManagerContent:
    requirements = [
        FunctionalRequirement(
            id=capability.requirement_id,
            title=capability.title,
            description=capability.description,
            priority=capability.priority,
        )
        for capability in kind.capabilities
    ]
    stories = [
        UserStory(id=f"story-{capability.key}", persona=kind.persona, goal=capability.goal, benefit=capability.benefit)
        for capability in kind.capabilities
    ]
    ordered = sorted(requirements, key=lambda requirement: PRIORITY_RANK[requirement.priority])
    return ProductManagerContent(
        functional_requirements=requirements,
        user_stories=stories,
        priority_order=[requirement.id for requirement in ordered],
    )
