"""`make bench`: this project's stack against a LangGraph + AsyncSqliteSaver baseline running the same nodes.

`python -m tests.bench` runs it (see `tests.bench.__main__` for exactly what is compared).
"""
