"""The writing family (InkFlow, seed 002): `WritingWorkflow` per request and the relationship update it schedules."""
