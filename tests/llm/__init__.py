"""Tests of the LLM client library (`llm/`) against recorded provider traffic replayed on a loopback server."""
