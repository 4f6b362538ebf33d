"""The image agent's workflows on the time-skipping server."""
