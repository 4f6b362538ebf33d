"""GenUI components of the image agent (seed 004 §4.3–4.4, §7): SmartCanvas, ActionPanel, AgentMessage.

Pure functions of the state, used by the Executor, GenUI and ErrorHandler nodes.
"""

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorInfo
    from models.image.genui import GenUIComponent
    from models.image.state import ExecutionResult, ImageAgentState, QualityCheck

EXCELLENT_SCORE = 0.8


def smart_canvas(result: ExecutionResult) -> GenUIComponent:
    return GenUIComponent(
        id="canvas",
        widget_type="SmartCanvas",
        update_mode="replace",
        props={
            "imageUrl": result.image_url,
            "width": result.width,
            "height": result.height,
            "taskType": result.task_type,
            "prompt": result.prompt,
            "seed": result.seed,
        },
    )


def action_panel(state: ImageAgentState) -> GenUIComponent:
    """Actions after a result; a retry action and the Critic's suggestions when it did not pass."""
    check = state.quality_check
    result = state.execution_result
    actions: list[dict[str, Any]] = []
    if check is not None and not check.passed:
        actions.append({"id": "retry", "label": "重新生成", "message": state.user_input.text})
    actions.append({"id": "adjust", "label": "调整参数", "message": "再调整一下"})
    if result is not None:
        actions.append({"id": "download", "label": "下载图片", "url": result.image_url})
    props: dict[str, Any] = {"actions": actions}
    if check is not None:
        props |= {"score": check.score, "passed": check.passed, "suggestions": check.suggestions}
    return GenUIComponent(id="actions", widget_type="ActionPanel", update_mode="replace", props=props)


def result_message(state: ImageAgentState) -> GenUIComponent:
    return GenUIComponent(
        widget_type="AgentMessage",
        update_mode="append",
        props={"state": "success", "text": _summary(state), "isThinking": False},
    )


def error_message(error: ErrorInfo) -> GenUIComponent:
    return GenUIComponent(
        widget_type="AgentMessage",
        update_mode="append",
        props={"state": "failed", "text": error.message, "code": error.code, "isThinking": False},
    )


def _summary(state: ImageAgentState) -> str:
    intent = state.intent
    check = state.quality_check
    done = {
        "inpainting": "已完成局部重绘",
        "adjust_parameters": "已按要求调整图片",
    }.get(intent.action if intent else "", "图片已生成")
    if check is None:
        return done
    return f"{done}，{_verdict(check)}（评分 {round(check.score * 100)}/100）。"


def _verdict(check: QualityCheck) -> str:
    if check.degraded:
        return "质量审查暂不可用，已直接返回结果"
    if not check.passed:
        return "质量仍未达标，可参考建议重试"
    if check.score >= EXCELLENT_SCORE:
        return "质量优秀"
    return "质量尚可，可参考优化建议"
