"""`DATA_DIR/bench/llm.png`: per family, wall time beside the critical path of model time (LangGraph's writing
chain beside ours), and per level of concurrency the throughput as a fraction of the model-bound ideal."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def write_chart(report: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = list(report["families"].items()) + [(f"{k}\n(LangGraph)", v) for k, v in report["langgraph"].items()]
    levels = sorted(report["concurrency"], key=int)
    fig, axes = plt.subplots(1, 1 + len(levels), figsize=(5.5 * (1 + len(levels)), 5), squeeze=False)
    xs = range(len(entries))
    ax = axes[0][0]
    ax.bar([x - 0.2 for x in xs], [e["wall_s"] or 0 for _, e in entries], 0.4, label="wall (POST → end)")
    ax.bar([x + 0.2 for x in xs], [e["critical_path_s"] or 0 for _, e in entries], 0.4, label="model critical path")
    ax.set_xticks(list(xs), [name for name, _ in entries], fontsize=8)
    ax.set_ylabel("s")
    profile = report["profile"]
    ax.set_title(f"one run alone (median), time scale {profile['time_scale']:g}", fontsize=10)
    ax.legend(fontsize=8)
    for panel, level in zip(axes[0][1:], levels, strict=True):
        phase = report["concurrency"][level]
        names = list(phase)
        ys = range(len(names))
        panel.bar(list(ys), [phase[n]["of_ideal"] or 0 for n in names], 0.5)
        panel.axhline(1.0, color="grey", linewidth=0.8)
        panel.axhline(0.9, color="grey", linewidth=0.8, linestyle="--", label="0.9 × ideal (issue 31)")
        panel.set_xticks(list(ys), names, fontsize=8)
        panel.set_ylim(0, 1.1)
        scale = profile.get("concurrency_time_scale", profile["time_scale"])
        panel.set_title(f"{level} runs at once, time scale {scale:g}: throughput / model-bound ideal", fontsize=10)
        panel.legend(fontsize=8)
    fig.suptitle(
        f"Model-bound runs on the simulator ({profile['first_token_s'] * 1000:.0f} ms first token, "
        f"{profile['tokens_per_second']:g} tok/s)",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
