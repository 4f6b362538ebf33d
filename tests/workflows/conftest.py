"""Fixtures for workflow tests: one embedded style store for the session."""

import pytest

from stores.style_library import load_style_library
from stores.style_store import LanceStyleStore


@pytest.fixture(scope="session")
def style_store(tmp_path_factory: pytest.TempPathFactory) -> LanceStyleStore:
    return LanceStyleStore.open(tmp_path_factory.mktemp("lancedb"), library=load_style_library())
