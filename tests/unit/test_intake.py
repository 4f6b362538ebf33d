"""The gateway's intake process (api/intake.py) does not outlive a gateway killed outright."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]
HOLDER = """
import asyncio, os, sys
from api.intake import Intake

async def main() -> None:
    intake = Intake()
    await intake.warm_up()
    print(await intake.run(os.getpid), flush=True)
    await asyncio.sleep(3600)

if __name__ == "__main__":
    asyncio.run(main())
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0] != "Z"


def test_the_intake_process_exits_when_its_gateway_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    with subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    ) as holder:
        assert holder.stdout is not None
        worker = int(holder.stdout.readline())
        assert worker != holder.pid and alive(worker)

        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        deadline = time.monotonic() + 10
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        orphaned = alive(worker)
        if orphaned:
            os.kill(worker, signal.SIGKILL)

        assert not orphaned, "the intake process outlived its gateway"
