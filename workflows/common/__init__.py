"""Run machinery every family shares: graphs, event logs, the graph runner, ask-and-wait, search attributes."""
