"""CPU-bound nodes (`NodeOptions.cpu_bound`: a local render) run on their family's CPU queue, as many at once as
the worker has threads for them: more of them than that wait on the server's queue, not inside their start-to-close,
so none times out behind the others and is retried (the retry storm of 50 content runs at once)."""

from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from models.settings import Settings
from stores.blob_store import BlobStore
from tests.workflows.common.conftest import Tiny
from tests.workflows.common.tiny import CPU_ECHO_OPTIONS, CPU_FAN_OUT, CPU_WORK_SECONDS, TINY_ACTIVITIES, TINY_WORKFLOWS
from tests.workflows.common.tiny_models import ProbeInput
from tests.workflows.harness import running_family, settings_for
from workflows.common.registration import Registry
from workflows.policies import cpu_task_queue


async def test_more_cpu_bound_calls_than_threads_run_one_at_a_time_on_the_cpu_queue_each_at_its_first_attempt(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    # one thread for blocking work: four calls queued on it inside the worker would take 4 x 0.8 s, past the 2 s
    # start-to-close of the third and the fourth
    assert CPU_ECHO_OPTIONS.start_to_close.total_seconds() < CPU_FAN_OUT * CPU_WORK_SECONDS
    settings = settings_for(tmp_path, worker_threads=1)

    def harness(settings: Settings, blobs: BlobStore) -> Tiny:
        return Tiny(dev_env, settings)

    registry = Registry(TINY_WORKFLOWS)
    async with running_family(
        dev_env, tmp_path, harness, settings=settings, activities=TINY_ACTIVITIES, registry=registry
    ) as tiny:
        handle = await tiny.start("GraphProbeWorkflow", ProbeInput(behaviour="cpu_fan_out"))
        status = await handle.result()
        notes = [event.data["text"] for event in await tiny.events(handle.id) if event.node == "a"]

    queue = cpu_task_queue(settings.task_queue("test"))
    assert status == "completed"
    assert sorted(notes) == [f"cpu {i} on {queue}, attempt 1, 1 at once" for i in range(CPU_FAN_OUT)]
