"""Side effects several families share: LLM calls under Temporal, failures, and the hosted image providers as
activities use them (the configured providers, their errors as Temporal failures)."""
