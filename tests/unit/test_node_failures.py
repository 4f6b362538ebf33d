"""Issue 50 #13: a node's failure says what happened. A worker killed mid-call made the image Planner fall back with
"LLM 调用失败"; a heartbeat timeout now says the worker stopped answering, a timeout says it timed out, and only an
error the model's call raised is called an LLM failure."""

from temporalio.exceptions import ApplicationError, TimeoutError, TimeoutType

from workflows.common.run import NodeFailed


def test_each_kind_of_failure_is_said_as_what_it_was() -> None:
    worker_gone = NodeFailed(
        TimeoutError("activity Heartbeat timeout", type=TimeoutType.HEARTBEAT, last_heartbeat_details=[])
    )
    too_slow = NodeFailed(
        TimeoutError("activity StartToClose timeout", type=TimeoutType.START_TO_CLOSE, last_heartbeat_details=[])
    )
    refused = NodeFailed(ApplicationError("openai: 500 server error", type="ServerError"))

    assert "worker" in worker_gone.what_happened() and "心跳超时" in worker_gone.what_happened()
    assert "LLM" not in worker_gone.what_happened() and "LLM" not in too_slow.what_happened()
    assert too_slow.what_happened().startswith("超时")
    assert refused.what_happened() == "LLM 调用失败：openai: 500 server error"
