"""Side effects several families share: LLM calls under Temporal, image references, failures."""
