"""The app builder's offline agents (seed 003): what answers when no LLM is configured, labelled offline.

Deterministic rules, no model: the analysis agents recognise which small app the message asks for (a todo list by
default, a shopping list, notes or a counter) and write the four Session_Documents for it; the planner lays out the
seed's wave graph; the writing agents turn the documents into a real React + TypeScript + Vite project (each
returns only the files it creates or changes); the repair agent fixes what rules can fix. Every function is pure.
"""
