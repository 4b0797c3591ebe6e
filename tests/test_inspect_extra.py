"""``ocw-hub evaluate LOG.eval`` without inspect-ai installed: the one-line error naming the
``[inspect]`` extra, in a fresh interpreter where importing ``inspect_ai`` fails as it does
when the package is absent (``sys.modules['inspect_ai'] = None``); runs with or without the
extra installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ocw_fixtures import OCW_FIXTURE

SCRIPT = """
import sys
sys.modules["inspect_ai"] = None  # import inspect_ai raises ModuleNotFoundError, as if absent
from ocw_hub.__main__ import main
sys.argv = ["ocw-hub", *sys.argv[1:]]
main()
"""


def test_an_inspect_log_without_inspect_ai_names_the_extra(tmp_path: Path) -> None:
    log = tmp_path / "2026-01-01_ocw-grouping.eval"
    log.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: never read without the extra
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            "evaluate",
            str(log),
            "--data-dir",
            str(OCW_FIXTURE),
            "--no-checks",
            "--bootstrap",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    err = done.stderr.strip()
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    (line,) = err.splitlines()
    assert f"evaluate {log.name} (an inspect log) needs inspect-ai, of the [inspect] extra" in line
    assert "pip install" in line and "[inspect]" in line
