"""Peak RSS of reading a response log that is one huge line (issue 22's 1 GiB one-line JSONL):
``json_records`` reads one bounded line at a time, so the line over ``MAX_LINE_BYTES`` is an
error after at most that many bytes in memory.

Run: ``.venv/bin/python benchmarks/bench_huge_line.py [MiB]`` (default 256); each reading runs in
a child process and its peak RSS (``ru_maxrss``) is printed beside a child's that reads
nothing.

Measured (2 shared cores, a 256 MiB one-line log): 787 MiB peak RSS before (the file read whole,
then parsed), 148 MiB after (an error once 64 MiB of the line are read).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import sys, warnings
from ocw_hub.errors import PredictionsError
from ocw_hub.llm.log import json_records
warnings.simplefilter("ignore")
if sys.argv[1] != "-":
    try:
        sum(1 for _ in json_records(sys.argv[1], PredictionsError))
    except PredictionsError as err:
        print(str(err)[-80:])
"""


def _peak_mib(path: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([sys.executable, "-c", CHILD, path], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(before, after) / 1024


def main() -> None:
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "one-line.jsonl"
        with path.open("w", encoding="utf-8") as out:
            out.write('{"custom_id": "w1", "text": "')
            for _ in range(mib):
                out.write("x" * 2**20)
            out.write('"}')
        baseline = _peak_mib("-")
        peak = _peak_mib(str(path))
        print(
            json.dumps(
                {"file_mib": mib, "baseline_rss_mib": round(baseline), "peak_rss_mib": round(peak)}
            )
        )


if __name__ == "__main__":
    main()
