"""The content run's deterministic offline agents: what answers when no LLM is configured (labelled offline)."""
