"""The image agent's pure logic: keyword planner, masks, quality checks, renderer."""
