"""The security tests run against the same in-process gateway as the API tests (one principal, or two: `keyed`)."""

from tests.api.conftest import api_style_store, gateway, keyed

__all__ = ["api_style_store", "gateway", "keyed"]
