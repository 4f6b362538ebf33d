"""Pydantic v2 models shared by workflows, activities and the gateway.

Python code uses snake_case; JSON on the API uses the seeds' camelCase names (see `models.base.CamelModel`).
"""
