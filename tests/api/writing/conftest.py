"""The writing tests run against the same in-process gateway as the API tests."""

from tests.api.conftest import api_style_store, gateway

__all__ = ["api_style_store", "gateway"]
