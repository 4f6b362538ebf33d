"""Deleting a writer's project with everything that hangs off it (issue 28): the project's own database rows (its
items, its chapters' versions and summaries and its proposals go with it: ON DELETE CASCADE), its conversations'
turns (`stores.writing_sessions`) and its passages in the search index with the record of their revision
(`stores.writing_index` on LanceDB, `stores.weaviate_writing_index` on Weaviate, as `stores.vector_stores`
chooses). Blocking: the gateway runs it in a thread.

A run still working on the project meanwhile ends with `PROJECT_NOT_FOUND` where it next reads the project; a
proposal it files, a draft applied from it or its index are refused the same way (the project is not found), and
the turn it records at its end is not kept (`SessionStore.record` asks whether the project exists inside its
transaction, and the turns are deleted after the project, so a turn recorded before that is deleted with them)."""

import logging

from stores.vector_stores import IndexRemoval
from stores.writing_projects import ProjectStore
from stores.writing_sessions import SessionStore

log = logging.getLogger(__name__)


class ProjectRemoval:
    """Deletes a project from the project store, the sessions store and the search index, in that order."""

    def __init__(self, projects: ProjectStore, sessions: SessionStore, remove_index: IndexRemoval) -> None:
        self._projects = projects
        self._sessions = sessions
        self._remove_index = remove_index

    def delete(self, owner: str, project_id: str, if_match: int | None = None) -> None:
        """The owner's project and all of it; `if_match` is its revision as the caller saw it (`StaleVersionError`
        otherwise, and nothing is deleted)."""
        self._projects.delete_project(owner, project_id, if_match)
        turns = self._sessions.forget_project(owner, project_id)
        removed = self._remove_index.remove(project_id)
        log.info("deleted project %s: %d turns, from the index %s", project_id, turns, removed)

    def close(self) -> None:
        """Closes the index's connection (the stores it was given are closed by their owner)."""
        self._remove_index.close()
