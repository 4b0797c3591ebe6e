"""Time to echo a huge value from the data: ``evaluate`` of a predictions file whose first
predicted clue is N MB and not a clue of its wall (a warning names it), on the OCW fixture.

Run from the repository root::

    python benchmarks/bench_echo.py [--mb 1 2 4 8]

After one run that prepares the split, prints, per size, the seconds of the whole command and
the length of the warning line: the clue is cut to a preview, so the warning stays short and
the time does not grow with N beyond reading the file. Measured on the 2-core machine: 0.27,
0.29, 0.31, 0.37 s for 1, 2, 4, 8 MB (before the preview: 3.1, 8.2, 39 s for 1, 2, 4 MB).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE = REPO_ROOT / "tests" / "data" / "ocw" / "dataset"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, nargs="+", default=[1, 2, 4, 8])
    args = parser.parse_args()
    from typer.testing import CliRunner

    from ocw_hub.cli import app

    rows = json.loads((FIXTURE / "test.json").read_text(encoding="utf-8"))["dataset"]
    base = [
        {
            "wall_id": r["wall_id"],
            "predicted_groups": [list(g["gt_words"]) for g in r["groups"].values()],
            "predicted_connections": None,
        }
        for r in rows
    ]
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.json"
        warm.write_text(json.dumps(base), encoding="utf-8")  # the split prepared once first
        CliRunner().invoke(app, ["evaluate", str(warm), "--data-dir", str(FIXTURE), "--no-checks"])
        for mb in args.mb:
            predictions = json.loads(json.dumps(base))
            predictions[0]["predicted_groups"][0][0] = "z" * (mb * 2**20)
            path = Path(tmp) / f"p{mb}.json"
            path.write_text(json.dumps(predictions), encoding="utf-8")
            command = ["evaluate", str(path), "--data-dir", str(FIXTURE), "--no-checks"]
            start = time.perf_counter()
            result = CliRunner().invoke(app, command)
            seconds = time.perf_counter() - start
            warning = [ln for ln in result.output.splitlines() if "not clues of" in ln]
            length = len(warning[0]) if warning else 0
            print(f"{mb} MB clue: {seconds:.2f} s, exit {result.exit_code}, warning {length} chars")


if __name__ == "__main__":
    main()
