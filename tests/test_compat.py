"""Every ``datasets`` era gives the same rows: 5.x Python API vs the 3.6.0 script path.

``.ci/run`` sets ``OCW_DATASETS3_PYTHON`` to the interpreter of its ``datasets==3.6.0``
environment; this test runs ``tests/compat3/fingerprint.py`` there and compares its per-split
fingerprints (Arrow schema and rows) with the ones of :func:`ocw_hub.load_dataset` here.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import datasets
import pytest
from compat3.fingerprint import sources, split_fingerprint

import ocw_hub


def test_datasets_5_refuses_the_script(repo_root: Path, ocw_dir: Path) -> None:
    """The breakage this package works around: datasets >= 4 will not run OCW.py."""
    if datasets.__version__.startswith("3."):
        pytest.skip("datasets 3.x still runs scripts")
    with pytest.raises(RuntimeError, match="[Ss]cripts? .*no longer supported"):
        datasets.load_dataset(str(repo_root / "OCW.py"), "default", data_dir=str(ocw_dir))


def test_same_rows_and_features_on_datasets_3_and_5(tmp_path: Path) -> None:
    python = os.environ.get("OCW_DATASETS3_PYTHON")
    if not python:
        if os.environ.get("CI"):
            pytest.fail("OCW_DATASETS3_PYTHON is not set: .ci/run must provide datasets==3.6.0")
        pytest.skip("set OCW_DATASETS3_PYTHON to a python with datasets==3.6.0 (as .ci/run does)")
    script = Path(__file__).parent / "compat3" / "fingerprint.py"
    done = subprocess.run(
        [python, str(script), str(tmp_path / "v3")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    v3 = json.loads(done.stdout.strip().splitlines()[-1])
    v5 = {}
    for config, data_dir in sources(tmp_path / "v5").items():
        dataset_dict = ocw_hub.load_dataset(
            config,
            data_dir=data_dir,
            cache_dir=tmp_path / "cache",
            verification_mode="no_checks",
        )
        v5[config] = {split: split_fingerprint(ds) for split, ds in dataset_dict.items()}
    assert set(v3) == {"default", "ocw_randomized", "ocw_wordnet", "wote"}
    assert v5 == v3
