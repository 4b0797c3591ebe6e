"""The README's scoring example runs (from any folder: ``ocw_hub.load_metric``) and gives the
figures it shows (hand-checked here); its set-up commands are the two the project promises.

Grouping (wall 46fa44, groups 2 and 3 swap `Santa` and `Lag`): predicted labels per group,
clues sorted, are 0000 | 1211 | 2212 | 3333. Correct groups 2. WD: runs 0000 and 3333 match and
are dropped; W(1211, 1111) = W(2212, 2222) = 0.25, so (0.25 + 0.25) / 4 = 0.125. ARI: pair
counts sum C(n_ij, 2) = 6+6+3+3 = 18, rows 4 x 6 = 24, columns 24, expected 24 x 24 / 120 =
4.8, so (18 - 4.8) / (24 - 4.8) = 0.6875. FMS = 18 / sqrt(24 x 24) = 0.75.
Connections: exact match 2 of 4; ROUGE-1 F = (2/3 + 1 + 2/3 + 1) / 4 = 0.8333.
Spans: EM (100 + 0) / 2 = 50; F1 of "350 degrees" vs "bake at 350 degrees f" is 2 x 1 x 0.4 /
1.4 = 57.14, so (100 + 57.14) / 2 = 78.57.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest


def _block(readme: str, first_line: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    return next(b for b in blocks if b.startswith(first_line))


def test_scoring_example(repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # any folder: the metric is found through the install
    namespace: dict = {}
    exec(_block((repo_root / "README.md").read_text(), "import ocw_hub\n\n# task 1"), namespace)
    groups, names, answers = namespace["groups"], namespace["names"], namespace["answers"]
    assert groups["wd"] == 0.125
    assert groups["ari"] == 0.6875
    assert groups["fms"] == pytest.approx(0.75)
    assert groups["ami"] == pytest.approx(0.717, abs=5e-4)
    assert (groups["correct_groups"], groups["full_wall"]) == (2, 0)
    assert names["exact_match"] == 0.5
    assert names["rouge1"] == pytest.approx(5 / 6)
    assert answers["exact_match"] == 50.0
    assert answers["f1"] == pytest.approx((100 + 100 * 2 * 0.4 / 1.4) / 2)


def test_readme_gives_exactly_two_setup_commands(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text()
    dev = readme.split("## For developers")[1]
    bash = re.findall(r"```bash\n(.*?)```", dev, flags=re.S)
    assert len(bash) == 1
    commands = [line for line in bash[0].splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert "ocw-hub reproduce" in commands[0] and "../shared/data" in commands[0]
    assert commands[1] == "bash .ci/run"


def test_ci_requires_the_real_data_and_runs_both_datasets_versions(repo_root: Path) -> None:
    """`bash .ci/run` (the README's test command) turns a missing ../shared/data into failures
    (the variable conftest reads) and runs the suite on datasets 3.6.0 and on the newest."""
    from conftest import REQUIRE_ENV

    ci = (repo_root / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ENV}=1\n" in ci
    assert '"datasets==3.6.0"' in ci
    runs = re.findall(r"^suite (\S+)$", ci, flags=re.M)
    assert runs == [".venv-ds3/bin/python", ".venv/bin/python"]
