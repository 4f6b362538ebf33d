"""The app builder family (seed 003): three layers as one durable workflow; its graph, plan checks and waves."""
