"""The supervisor family's activities (seed 001): the Supervisor, the agents and their tools, as `supervisor.*`."""
