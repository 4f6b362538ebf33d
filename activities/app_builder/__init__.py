"""The app builder's activities (seed 003): analysis agents, the planner, execution agents, merging, quality."""
