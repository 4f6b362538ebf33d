"""The double's fixtures (tests/weaviate_double/fixtures.py) for the double's own tests."""

from tests.weaviate_double.fixtures import weaviate_client, weaviate_double

__all__ = ["weaviate_client", "weaviate_double"]
