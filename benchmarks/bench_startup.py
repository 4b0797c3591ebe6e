"""CPU seconds of ``ocw-hub`` start-up as whole processes: ``ocw-hub --help`` (no command module
imported) and one command's help (``ocw-hub evaluate --help``: its module only).

Run: ``.venv/bin/python benchmarks/bench_startup.py [--repeat 9]``.

Each figure is the median, over ``--repeat`` fresh processes after one warm-up, of the
process's user + system CPU time (``os.wait4``'s resource usage: what ``/usr/bin/time -f
%U+%S`` prints), so a loaded machine changes it less than wall time. Target (issue 21):
``ocw-hub --help`` <= 0.2 s of CPU; for scale, ``python -c pass`` and ``import typer`` are
measured alongside.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

OCW_HUB = shutil.which("ocw-hub", path=str(Path(sys.executable).parent)) or "ocw-hub"
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import typer'": [sys.executable, "-c", "import typer"],
    "ocw-hub --help": [OCW_HUB, "--help"],
    "ocw-hub evaluate --help": [OCW_HUB, "evaluate", "--help"],
}


def cpu_seconds(args: list[str]) -> float:
    """User + system CPU seconds of one run of ``args`` in a fresh process."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read() if process.stderr else b""
    if process.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{stderr.decode(errors='replace')[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="fresh processes per case")
    options = parser.parse_args()
    env_note = f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    print(f"CPU seconds (user + system), median of {options.repeat} runs; {env_note}")
    for name, args in CASES.items():
        cpu_seconds(args)  # warm-up: the OS file cache, the .pyc files
        runs = [cpu_seconds(args) for _ in range(options.repeat)]
        print(
            f"{name:28} {statistics.median(runs):.3f} s  (min {min(runs):.3f}, max {max(runs):.3f})"
        )


if __name__ == "__main__":
    main()
