"""The image agent's workflows: one turn (ImageAgentWorkflow) and a session of turns (ImageSessionWorkflow)."""
