"""A hosted model (`preferredModel: qwen-image`) on DashScope's task API, on the time-skipping server: one submit,
polls on durable timers by the declared schedule, the image copied into the blob store; moderation, throttling,
a spent quota (with and without the local fallback) and a task that never finishes, each through the error path
with its code, and the unfinished task cancelled; and OpenAI Images as the default, in one Executor call."""

import base64
from datetime import timedelta

from temporalio.api.enums.v1 import EventType

from imaging.rendering import encode_png, render_text_to_image
from tests.llm.loopback import Fixture, Loopback
from tests.workflows.image.dashscope_double import DashScopeDouble, error
from tests.workflows.image.harness import Harness
from workflows import policies

CAT = "生成一只赛博朋克风格的猫"


def double(loopback: Loopback, **options: object) -> DashScopeDouble:
    fake = DashScopeDouble(base_url=loopback.base_url, **options)  # type: ignore[arg-type]
    loopback.responder = fake
    return fake


async def test_a_task_is_submitted_once_polled_on_the_workflow_clock_and_its_image_stored(
    hosted: Harness, loopback: Loopback
) -> None:
    fake = double(loopback, running_polls=2)

    outcome = await hosted.run(CAT, preferred_model="qwen-image")

    assert outcome.result.status == "completed", outcome.error_code
    assert (fake.calls["submit"], fake.calls["poll"], fake.calls["fetch"]) == (1, 3, 1)
    result = outcome.state.execution_result
    assert result is not None and result.metadata["provider"] == "dashscope"
    assert result.metadata["preferredModel"] == "qwen-image"
    assert hosted.blobs.get(result.blob_key or "")[:8] == b"\x89PNG\r\n\x1a\n", "the image is in the blob store"
    history = await outcome.handle.fetch_history()
    timers = [
        event.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta()
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED
    ]
    assert timers[0] == policies.IMAGE_RUN_DEADLINE, "the run's deadline"
    assert timers[1:] == policies.IMAGE_TASK_POLL.waits()[:3], "the polls wait 2, 3 and 4.5 s on durable timers"
    scheduled = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert scheduled.count("image.submit") == 1 and scheduled.count("image.poll") == 3
    assert "image.executor" not in scheduled


async def test_a_model_without_a_configured_api_renders_locally(harness: Harness) -> None:
    outcome = await harness.run(CAT, preferred_model="qwen-image")

    result = outcome.state.execution_result
    assert result is not None and result.metadata["provider"] == "local-renderer"


async def test_a_moderation_refusal_is_an_error_the_user_understands_and_is_not_retried(
    hosted: Harness, loopback: Loopback
) -> None:
    fake = double(loopback, submit_errors=[error(400, "DataInspectionFailed", "Input data may contain inappropriate")])

    outcome = await hosted.run(CAT, preferred_model="qwen-image")

    assert outcome.result.status == "failed" and outcome.error_code == "IMAGE_CONTENT_REFUSED"
    [event] = outcome.of_type("error")
    assert "内容安全审核未通过" in event.data["message"]
    assert fake.calls["submit"] == 1, "a refusal is not retried"


async def test_a_throttled_submit_is_retried_after_the_providers_hint(hosted: Harness, loopback: Loopback) -> None:
    fake = double(
        loopback,
        submit_errors=[error(429, "Throttling.RateQuota", "Requests rate limit exceeded", {"retry-after": "7"})],
    )

    outcome = await hosted.run(CAT, preferred_model="qwen-image")

    assert outcome.result.status == "completed"
    assert (fake.calls["submit"], fake.calls["accepted"]) == (2, 1)
    history = await outcome.handle.fetch_history()
    [started] = [
        event
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and event.activity_task_started_event_attributes.attempt == 2
    ]
    scheduled = next(
        event
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == "image.submit"
    )
    gap = started.event_time.ToDatetime() - scheduled.event_time.ToDatetime()
    assert timedelta(seconds=7) <= gap < timedelta(seconds=10), f"retried after {gap}, not the node's 5 s"


async def test_a_spent_quota_falls_back_to_the_local_renderer_when_allowed(hosted: Harness, loopback: Loopback) -> None:
    fake = double(
        loopback,
        submit_errors=[error(400, "Arrearage", "Access denied, please make sure your account is in good standing")],
    )

    outcome = await hosted.run(CAT, preferred_model="qwen-image")

    assert outcome.result.status == "completed"
    result = outcome.state.execution_result
    assert result is not None and result.metadata["provider"] == "local-renderer"
    assert any(e.data.get("code") == "IMAGE_QUOTA_EXHAUSTED" for e in outcome.of_type("thought_log"))
    assert fake.calls["submit"] == 1, "a spent quota is not retried"


async def test_a_spent_quota_ends_the_turn_when_no_fallback_is_allowed(hosted: Harness, loopback: Loopback) -> None:
    double(loopback, submit_errors=[error(400, "Arrearage", "Access denied")])

    outcome = await hosted.run(CAT, preferred_model="qwen-image", allow_fallback=False)

    assert outcome.result.status == "failed" and outcome.error_code == "IMAGE_QUOTA_EXHAUSTED"


async def test_a_task_that_never_finishes_ends_with_a_clear_code_and_is_cancelled(
    hosted: Harness, loopback: Loopback
) -> None:
    fake = double(loopback, never_finishes=True)

    outcome = await hosted.run(CAT, preferred_model="qwen-image")

    assert outcome.result.status == "failed" and outcome.error_code == "IMAGE_TASK_TIMEOUT"
    assert fake.calls["poll"] == len(policies.IMAGE_TASK_POLL.waits())
    assert fake.calls["cancel"] == 1, "the provider's task is cancelled"
    assert outcome.types[-1] == "stream_end"


async def test_openai_images_answers_in_one_executor_call_with_a_timeout_that_fits(
    openai_images: Harness, loopback: Loopback
) -> None:
    png = encode_png(render_text_to_image("猫", seed=2, width=1024, height=1024, style_strength=0.5))
    loopback.queue(Fixture.json({"created": 1, "data": [{"b64_json": base64.b64encode(png).decode()}]}))

    outcome = await openai_images.run(CAT)

    assert outcome.result.status == "completed", outcome.error_code
    result = outcome.state.execution_result
    assert result is not None and result.metadata["provider"] == "openai-images"
    [sent] = loopback.requests
    assert sent.path == "/v1/images/generations" and sent.json()["model"] == "gpt-image-1"
    history = await outcome.handle.fetch_history()
    [scheduled] = [
        event.activity_task_scheduled_event_attributes
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == "image.direct_executor"
    ]
    assert scheduled.start_to_close_timeout.ToTimedelta() == policies.IMAGE_HOSTED_EXECUTOR.start_to_close


async def test_openai_images_moderation_is_refused_without_a_retry(openai_images: Harness, loopback: Loopback) -> None:
    body = {"error": {"message": "Your request was rejected by the safety system.", "code": "moderation_blocked"}}
    loopback.queue(Fixture.json(body, status=400))

    outcome = await openai_images.run(CAT)

    assert outcome.result.status == "failed" and outcome.error_code == "IMAGE_CONTENT_REFUSED"
    assert len(loopback.requests) == 1
