"""The content run's images from a hosted model (`imageGenProvider: qwen-image`) on DashScope's task API, played by
the loopback server: each planned image is submitted once, polled on durable timers and copied into the blob
store; a moderation refusal is an `error` event with its code and the refused prompt is not submitted again; a
spent quota falls back to the local renderer; a model this deployment has no key for is drawn locally and the run
says so; a task that never finishes is cancelled when its wait is spent, and every task still running when the
run's deadline passes is cancelled through the error path; a synchronous model (OpenAI Images) draws each image in
one call with the timeout that fits it."""

import base64

from temporalio.api.enums.v1 import EventType

from imaging.rendering import encode_png, render_text_to_image
from models.blobs import key_of
from tests.llm.loopback import Fixture, Loopback, RecordedRequest
from tests.workflows.content.harness import ContentHarness, ContentOutcome
from tests.workflows.image.dashscope_double import DashScopeDouble, error
from workflows import policies

TOPIC = "打工人的咖啡续命指南"
REFUSAL = error(400, "DataInspectionFailed", "Input data may contain inappropriate content")
NO_QUOTA = error(400, "Arrearage", "Access denied, please make sure your account is in good standing")


def double(loopback: Loopback, **options: object) -> DashScopeDouble:
    fake = DashScopeDouble(base_url=loopback.base_url, **options)  # type: ignore[arg-type]
    loopback.responder = fake
    return fake


def answered_by_openai_images(loopback: Loopback) -> list[RecordedRequest]:
    """OpenAI Images played by the loopback server (every call answers one PNG); the requests it was sent."""
    png = encode_png(render_text_to_image("咖啡", seed=2, width=1024, height=1024, style_strength=0.5))
    asked: list[RecordedRequest] = []

    def openai(request: RecordedRequest) -> Fixture:
        asked.append(request)
        return Fixture.json({"created": 1, "data": [{"b64_json": base64.b64encode(png).decode()}]})

    loopback.responder = openai
    return asked


async def scheduled(outcome: ContentOutcome) -> list[str]:
    history = await outcome.handle.fetch_history()
    return [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


async def test_each_planned_image_is_submitted_once_polled_and_copied_into_the_blob_store(
    hosted: ContentHarness, loopback: Loopback
) -> None:
    fake = double(loopback, running_polls=1)

    outcome = await hosted.run(TOPIC, image_gen_provider="qwen-image")

    assert outcome.result.status == "completed" and outcome.state.image_gen_provider == "qwen-image"
    plans = len(outcome.state.image_plans)
    assert plans >= 2 and fake.calls["accepted"] == plans == fake.calls["fetch"]
    activities = await scheduled(outcome)
    assert activities.count("content.image_submit") == plans == activities.count("content.image_fetch")
    polls = activities.count("content.image_poll")
    assert polls == fake.calls["poll"] > plans, "polled until done, on the workflow clock"
    assert "content.image_tool" not in activities
    for image in outcome.state.generated_image_asset_ids.values():
        assert hosted.blobs.get(key_of(image) or "")[:8] == b"\x89PNG\r\n\x1a\n"
    made_by = [e.data["summary"] for e in outcome.of_type("tool_result") if e.data["tool"] == "generate_image"]
    assert made_by and all("dashscope qwen-image" in summary for summary in made_by)


async def test_a_refused_prompt_is_an_error_event_and_is_not_submitted_again(
    hosted: ContentHarness, loopback: Loopback
) -> None:
    fake = double(loopback, submit_errors=[REFUSAL] * 40)

    outcome = await hosted.run(TOPIC, image_gen_provider="qwen-image", max_iterations=8)

    plans = len(outcome.state.image_plans)
    refusals = [e for e in outcome.of_type("error") if e.data["code"] == "IMAGE_CONTENT_REFUSED"]
    assert len(refusals) == plans and all("内容安全审核未通过" in e.data["message"] for e in refusals)
    assert fake.calls["submit"] == plans, "each refused prompt was submitted once, never retried or resubmitted"
    assert outcome.state.generated_image_asset_ids == {}
    assert outcome.result.post is not None and not outcome.result.post.complete


async def test_a_spent_quota_draws_the_images_locally_when_the_run_allows_it(
    hosted: ContentHarness, loopback: Loopback
) -> None:
    fake = double(loopback, submit_errors=[NO_QUOTA] * 40)

    outcome = await hosted.run(TOPIC, image_gen_provider="qwen-image")

    assert outcome.result.status == "completed" and outcome.result.post and outcome.result.post.complete
    plans = len(outcome.state.image_plans)
    assert fake.calls["submit"] == plans and fake.calls["accepted"] == 0
    warnings = [e.data["message"] for e in outcome.of_type("thought_log") if "额度已用完" in e.data["message"]]
    assert len(warnings) == plans
    assert (await scheduled(outcome)).count("content.image_tool") == plans


async def test_a_spent_quota_without_the_fallback_leaves_the_images_missing_and_says_why(
    hosted: ContentHarness, loopback: Loopback
) -> None:
    double(loopback, submit_errors=[NO_QUOTA] * 40)

    outcome = await hosted.run(TOPIC, image_gen_provider="qwen-image", allow_fallback=False, max_iterations=8)

    assert {e.data["code"] for e in outcome.of_type("error")} >= {"IMAGE_QUOTA_EXHAUSTED"}
    assert outcome.state.generated_image_asset_ids == {}


async def test_a_model_without_a_configured_api_is_drawn_locally_and_the_run_says_so(content: ContentHarness) -> None:
    outcome = await content.run(TOPIC, image_gen_provider="qwen-image")

    assert outcome.result.status == "completed" and outcome.result.post and outcome.result.post.complete
    [warning] = [e for e in outcome.of_type("thought_log") if "没有配置 qwen-image" in e.data["message"]]
    assert warning.data["level"] == "warning"
    assert "content.image_submit" not in await scheduled(outcome)


async def test_a_task_that_never_finishes_is_cancelled_when_its_wait_is_spent(
    hosted: ContentHarness, loopback: Loopback
) -> None:
    fake = double(loopback, never_finishes=True)

    outcome = await hosted.run(TOPIC, image_gen_provider="qwen-image", max_iterations=6)

    timeouts = [e for e in outcome.of_type("error") if e.data["code"] == "IMAGE_TASK_TIMEOUT"]
    assert timeouts and fake.calls["cancel"] == fake.calls["accepted"] == len(timeouts)
    assert fake.calls["poll"] == len(timeouts) * len(policies.IMAGE_TASK_POLL.waits())


async def test_a_run_whose_deadline_passes_while_tasks_run_cancels_them_at_the_provider(
    hosted_on_a_dev_server: ContentHarness, loopback: Loopback
) -> None:
    fake = double(loopback, never_finishes=True)

    outcome = await hosted_on_a_dev_server.run(
        TOPIC, image_gen_provider="qwen-image", deadline_seconds=20, max_clarifications=0
    )

    assert outcome.result.status == "timeout"
    assert fake.calls["accepted"] >= 1 and fake.calls["cancel"] == fake.calls["accepted"], "every task cancelled"
    cancelled = [e for e in outcome.of_type("thought_log") if "已取消图片服务的任务" in e.data["message"]]
    assert len(cancelled) == fake.calls["cancel"]


async def test_a_synchronous_model_draws_each_image_in_one_call_with_a_timeout_that_fits(
    openai_images: ContentHarness, loopback: Loopback
) -> None:
    asked = answered_by_openai_images(loopback)

    outcome = await openai_images.run(TOPIC, image_gen_provider="gpt-image-1")

    assert outcome.result.status == "completed" and outcome.result.post and outcome.result.post.complete
    plans = len(outcome.state.image_plans)
    assert len(asked) == plans and all(r.path == "/v1/images/generations" for r in asked)
    history = await outcome.handle.fetch_history()
    timeouts = [
        event.activity_task_scheduled_event_attributes.start_to_close_timeout.ToTimedelta()
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == "content.image_tool"
    ]
    assert timeouts == [policies.IMAGE_HOSTED_EXECUTOR.start_to_close] * plans


async def test_the_users_reference_images_go_with_each_image_to_a_model_that_takes_them(
    openai_images: ContentHarness, loopback: Loopback
) -> None:
    asked = answered_by_openai_images(loopback)
    references = [openai_images.reference("水彩 花园"), openai_images.reference("复古 胶片", seed=9)]

    outcome = await openai_images.run(TOPIC, image_gen_provider="gpt-image-1", references=references)

    assert outcome.result.status == "completed" and outcome.result.post and outcome.result.post.complete
    assert asked and all(r.path == "/v1/images/edits" for r in asked), "text to image with references is an edit"
    sent = [openai_images.blobs.get(key_of(ref) or "") for ref in references]
    for request in asked:
        assert all(photo in request.body for photo in sent), "both reference photos, byte for byte"
    made_by = [e.data["summary"] for e in outcome.of_type("tool_result") if e.data["tool"] == "generate_image"]
    assert made_by and all("参考图 2 张已一并发送" in summary for summary in made_by)


async def test_a_model_that_takes_no_reference_images_is_not_sent_them_and_the_timeline_says_so(
    hosted: ContentHarness, loopback: Loopback
) -> None:
    fake = double(loopback)

    outcome = await hosted.run(TOPIC, image_gen_provider="qwen-image", references=[hosted.reference("水彩 花园")])

    assert outcome.result.status == "completed" and fake.calls["accepted"] >= 2
    made_by = [e.data["summary"] for e in outcome.of_type("tool_result") if e.data["tool"] == "generate_image"]
    assert made_by and all("参考图没有发给它（它不接受参考图）" in summary for summary in made_by)
