"""The image agent's activities (seeds 000, 004): ValidateInput, Planner, RAG, Executor, Critic."""
