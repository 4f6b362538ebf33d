"""The supervisor family's workflow (seed 001): ContentSupervisorWorkflow, its graph and its routing."""
