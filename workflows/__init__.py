"""Deterministic orchestration: workflow definitions, their declared graphs and node options.

No I/O, clock, randomness or environment here; activities and models come in through
`workflow.unsafe.imports_passed_through()`.
"""
