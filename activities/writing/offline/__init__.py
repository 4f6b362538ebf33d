"""The writing agents' deterministic offline answers, one module per agent, over one `Grounding` of the request
and the project; `activities.writing.offline_agents.compose` picks the agent."""
