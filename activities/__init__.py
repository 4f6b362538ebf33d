"""Activities: every side effect: LLM calls, retrieval, image rendering, storage."""
