"""Hosted image APIs behind `preferredModel` (seed 000 §2.1): one module per provider, over httpx. Shared by the
image and content families' activities, so it sits outside both.

A hosted API that works by task (DashScope) implements `HostedImageProvider` (`activities.common.hosted_providers`):
submit, poll, fetch, cancel, each one short call that a workflow runs as its own activity with a durable timer
between polls. A synchronous API (OpenAI Images) implements the Executor's `ImageProvider.generate`
(`imaging.image_provider`). Both raise the errors of `errors.py`; `activities.common.provider_failures` turns them
into Temporal failures.
"""
