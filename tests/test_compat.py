"""Every ``datasets`` era gives the same rows: this environment's Python API vs the 3.6.0 script
path.

``.ci/run`` sets ``OCW_DATASETS3_PYTHON`` to the interpreter of its ``datasets==3.6.0``
environment; this test runs ``tests/compat3/fingerprint.py`` there and compares its per-split
fingerprints (Arrow schema and rows) with the ones of :func:`ocw_hub.load_dataset` here: on the
fixtures of ``tests/data`` (all four configs) and, as a ``full_data`` test, on the real data.
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


def test_datasets_5_refuses_the_script(repo_root: Path, ocw_fixture_dir: Path) -> None:
    """The breakage this package works around: datasets >= 4 will not run OCW.py."""
    if datasets.__version__.startswith("3."):
        pytest.skip("datasets 3.x still runs scripts")
    with pytest.raises(RuntimeError, match="[Ss]cripts? .*no longer supported"):
        datasets.load_dataset(str(repo_root / "OCW.py"), "default", data_dir=str(ocw_fixture_dir))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    ("scale", "configs"),
    [
        ("fixtures", {"default", "ocw_randomized", "ocw_wordnet", "wote"}),
        pytest.param("full", {"default", "wote"}, marks=pytest.mark.full_data),
    ],
    ids=["fixtures", "full"],
)
def test_same_rows_and_features_on_datasets_3_and_this_one(
    tmp_path: Path, scale: str, configs: set[str]
) -> None:
    python = os.environ.get("OCW_DATASETS3_PYTHON")
    if not python:
        if os.environ.get("CI") or os.environ.get("OCW_HUB_REQUIRE_FULL_DATA") == "1":
            pytest.fail("OCW_DATASETS3_PYTHON is not set: .ci/run must provide datasets==3.6.0")
        pytest.skip("set OCW_DATASETS3_PYTHON to a python with datasets==3.6.0 (as .ci/run does)")
    script = Path(__file__).parent / "compat3" / "fingerprint.py"
    done = subprocess.run(
        [python, str(script), str(tmp_path / "v3"), scale],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    v3 = json.loads(done.stdout.strip().splitlines()[-1])
    here = {}
    for config, data_dir in sources(tmp_path / "here", scale).items():
        dataset_dict = ocw_hub.load_dataset(
            config,
            data_dir=data_dir,
            cache_dir=tmp_path / "cache",
            verification_mode="no_checks",
        )
        here[config] = {split: split_fingerprint(ds) for split, ds in dataset_dict.items()}
    assert set(v3) == configs
    assert here == v3
