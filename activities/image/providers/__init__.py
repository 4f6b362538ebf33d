"""Hosted image APIs behind `preferredModel` (seed 000 §2.1): one module per provider, over httpx.

A hosted API that works by task (DashScope) implements `HostedImageProvider`: submit, poll, fetch, cancel, each
one short call that a workflow runs as its own activity with a durable timer between polls. A synchronous API
(OpenAI Images) implements the Executor's `ImageProvider.generate`. Both raise the errors of `errors.py`.
"""
