"""Fixtures of the simulator's own tests (the `simulator` fixture itself is registered in tests/conftest.py)."""

from tests.llm.conftest import http

__all__ = ["http"]
