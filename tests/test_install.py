"""A user's path after ``pip install .`` (a wheel, not editable), from another folder, offline:
load a config from local files, load the metric by name, score predictions with the CLI.

The wheel is built offline (``--no-build-isolation``, hatchling from the dev extra) and
installed with ``--target`` into a temporary folder that is put first on ``PYTHONPATH``, so the
checkout is not importable from the test's working directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_scoring import _perfect, _swapped, _wall

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ocw_hub`` installed from a wheel of this checkout into a folder of its own."""
    wheels = tmp_path_factory.mktemp("wheel")
    target = tmp_path_factory.mktemp("site")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(REPO_ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("ocw_hub-*.whl")
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    return target


def _run(installed: Path, cwd: Path, code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(installed), "HF_HUB_OFFLINE": "1"}
    env["HF_DATASETS_OFFLINE"] = "1"
    env["HF_HOME"] = str(cwd / "hf_home")
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_wheel_install_from_another_folder(installed: Path, tmp_path: Path) -> None:
    release = tmp_path / "data" / "dataset"
    release.mkdir(parents=True)
    for split, numbers in {"train": [1], "validation": [2], "test": [3, 4]}.items():
        payload = {"season_to_walls_map": {}, "dataset": [_wall(n, 1) for n in numbers]}
        (release / f"{split}.json").write_text(json.dumps(payload))
    walls = [_wall(3, 1), _wall(4, 1)]
    (tmp_path / "p.json").write_text(json.dumps([_perfect(walls[0]), _swapped(walls[1])]))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = """
        import json, sys
        from pathlib import Path
        import evaluate
        import ocw_hub
        from ocw_hub.resources import metric_dir

        assert Path(ocw_hub.__file__).is_relative_to(sys.argv[1]), ocw_hub.__file__
        test = ocw_hub.load_dataset(
            "default", "test", data_dir=sys.argv[2], verification_mode="no_checks"
        )
        gold = [[g["gt_words"] for g in w["groups"].values()] for w in test]
        by_name = ocw_hub.load_metric("grouping").compute(predictions=gold, references=gold)
        by_path = evaluate.load(str(metric_dir()), "grouping")
        by_path = by_path.compute(predictions=gold, references=gold)
        print(json.dumps({"n": test.num_rows, "name": by_name, "path": by_path}))
        """
    done = _run(installed, elsewhere, code, str(installed), str(release))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["n"] == 2
    assert out["name"]["full_wall"] == 2 and out["name"]["ami"] == 1.0
    assert out["path"] == out["name"]

    cli = "from ocw_hub.cli import app; app()"
    done = _run(
        installed,
        elsewhere,
        cli,
        "evaluate",
        str(tmp_path / "p.json"),
        "--data-dir",
        str(release),
        "--no-checks",
        "--out",
        str(tmp_path / "r.json"),
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["grouping"]["correct_groups"] == 4 + 2
    done = _run(installed, elsewhere, cli, "--version")
    assert done.returncode == 0 and done.stdout.strip() == "ocw-hub 0.1.0"


@pytest.mark.slow
def test_wheel_carries_every_file_of_the_metric_folder(installed: Path) -> None:
    # The metric script and each sibling module it imports, the card and the Space files.
    source = REPO_ROOT / "metrics" / "ocw_metric"
    copy = installed / "ocw_hub" / "_hub" / "metrics" / "ocw_metric"
    names = sorted(p.name for p in source.iterdir() if p.is_file())
    assert {"grouping.py", "connections.py", "spans.py", "inputs.py"} <= set(names)
    assert sorted(p.name for p in copy.iterdir() if p.is_file()) == names
    for name in names:
        assert (copy / name).read_bytes() == (source / name).read_bytes(), name


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel of this checkout and its core dependencies only (pip takes
    them from its cache and the configured indexes). Such a venv gets the newest ``datasets``
    whichever environment runs the suite, so only an environment with ``datasets`` 4 or later
    makes it (the other would repeat the same install)."""
    import datasets

    if int(datasets.__version__.split(".")[0]) < 4:
        pytest.skip("a fresh core venv is the same from every environment: run on the newest")
    wheels = tmp_path_factory.mktemp("core-wheel")
    venv = tmp_path_factory.mktemp("core") / "venv"
    pip = ["-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [sys.executable, *pip, "wheel", "--no-deps", "--no-build-isolation"]
        + ["-w", str(wheels), str(REPO_ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("ocw_hub-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = subprocess.run(
        [str(venv / "bin" / "python"), *pip, "install", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return venv


def _core(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(cwd / "hf_home"))
    return subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_core_install_loads_every_config_and_scores(core_venv: Path, tmp_path: Path) -> None:
    """Core dependencies only: every config from local files, a predictions file scored."""
    from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE, write_ablation

    sources = {
        "default": OCW_FIXTURE,
        "ocw_randomized": write_ablation(OCW_FIXTURE, tmp_path, "randomized"),
        "ocw_wordnet": write_ablation(OCW_FIXTURE, tmp_path, "wordnet"),
        "wote": WOTE_FIXTURE,
    }
    code = textwrap.dedent(
        """
        import json, sys
        import ocw_hub
        sizes = {}
        for pair in sys.argv[1:]:
            config, data_dir = pair.split("=", 1)
            loaded = ocw_hub.load_dataset(config, data_dir=data_dir, verification_mode="no_checks")
            sizes[config] = {split: ds.num_rows for split, ds in loaded.items()}
        heavy = ("k_means_constrained", "openai", "rapidfuzz", "matplotlib")
        installed = [m for m in heavy if __import__("importlib").util.find_spec(m)]
        print(json.dumps({"sizes": sizes, "installed": installed}))
        """
    )
    args = [f"{config}={path}" for config, path in sources.items()]
    done = _core(core_venv, tmp_path, "python", "-c", code, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["installed"] == []
    assert out["sizes"]["default"] == {"train": 4, "validation": 3, "test": 6}
    assert out["sizes"]["ocw_randomized"] == out["sizes"]["ocw_wordnet"]
    assert out["sizes"]["ocw_wordnet"] == {"train": 3, "validation": 2, "test": 4}
    assert out["sizes"]["wote"] == {"train": 3, "validation": 3, "test": 5}

    walls = [_wall(3, 1), _wall(4, 1)]
    release = tmp_path / "release"
    release.mkdir()
    for split, numbers in {"train": [1], "validation": [2], "test": [3, 4]}.items():
        payload = {"season_to_walls_map": {}, "dataset": [_wall(n, 1) for n in numbers]}
        (release / f"{split}.json").write_text(json.dumps(payload))
    (tmp_path / "p.json").write_text(json.dumps([_perfect(walls[0]), _swapped(walls[1])]))
    done = _core(
        core_venv,
        tmp_path,
        "ocw-hub",
        "evaluate",
        str(tmp_path / "p.json"),
        "--data-dir",
        str(release),
        "--no-checks",
        "--out",
        str(tmp_path / "r.json"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "r.json").read_text())["grouping"]["correct_groups"] == 4 + 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["predict", "--method", "embedding", "--out", "runs", "--data-dir", "DATA"], "baselines"),
        (["report", "results.json", "--out", "report.html"], "report"),
        (["parse", "answers.jsonl", "--out", "predictions.json"], "llm"),
    ],
)
def test_core_install_names_the_missing_extra(
    core_venv: Path, tmp_path: Path, command: list[str], extra: str
) -> None:
    """A command that needs an extra fails in one line with the pip command that adds it (the
    wheel's path: the package is installed from a file) and writes nothing."""
    from ocw_fixtures import OCW_FIXTURE

    args = [str(OCW_FIXTURE) if a == "DATA" else a for a in command]
    (tmp_path / "results.json").write_text("{}")
    (tmp_path / "answers.jsonl").write_text("")
    before = sorted(p.name for p in tmp_path.iterdir())
    done = _core(core_venv, tmp_path, "ocw-hub", *args)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert re.search(rf'pip install "\S*ocw_hub-\S+\.whl\[{extra}\]"', lines[0]), lines[0]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "hf_home") == before


@pytest.mark.parametrize(("cwd", "shown"), [("repo", "."), ("elsewhere", str(REPO_ROOT))])
def test_install_hint_from_a_checkout(tmp_path: Path, cwd: str, shown: str) -> None:
    """Run from a checkout's src/, the hint is the editable install the README spells."""
    code = "from ocw_hub.extras import install_command; print(install_command('llm'))"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT if cwd == "repo" else tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == f'pip install -e "{shown}[llm]"'


def test_missing_extra_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from ocw_hub.errors import MissingExtraError, OCWHubError
    from ocw_hub.extras import EXTRAS, require

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError) as caught:
        require("report", "report")
    assert isinstance(caught.value, OCWHubError)
    assert (caught.value.extra, caught.value.module) == ("report", EXTRAS["report"][0])
    assert "[report]" in str(caught.value) and "\n" not in str(caught.value)


def test_wheel_carries_the_lm_eval_tasks(installed: Path, tmp_path: Path) -> None:
    # `ocw-hub lm-eval-tasks` prints the installed folder, which holds every task file.
    source = REPO_ROOT / "src" / "ocw_hub" / "lm_eval_tasks"
    names = sorted(p.name for p in source.iterdir() if p.suffix in (".yaml", ".py"))
    assert {"ocw_grouping.yaml", "ocw_connections.yaml", "utils.py"} <= set(names)
    done = _run(installed, tmp_path, "from ocw_hub.cli import app; app()", "lm-eval-tasks")
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder == (installed / "ocw_hub" / "lm_eval_tasks").resolve()
    for name in names:
        assert (folder / name).read_bytes() == (source / name).read_bytes(), name


def test_wheel_carries_the_prompt_styles(installed: Path, tmp_path: Path) -> None:
    # Every template and schema file of ocw_hub/llm/prompt_styles, read by the installed
    # package through importlib.resources.
    source = REPO_ROOT / "src" / "ocw_hub" / "llm" / "prompt_styles"
    names = sorted(p.name for p in source.iterdir() if p.is_file())
    assert {"paper.txt", "ours.txt", "cot.txt", "json.txt", "json.grouping.schema.json"} <= set(
        names
    )
    copy = installed / "ocw_hub" / "llm" / "prompt_styles"
    assert sorted(p.name for p in copy.iterdir() if p.is_file()) == names
    code = """
        import json, sys
        import ocw_hub.llm.styles as styles
        assert styles.__file__.startswith(sys.argv[1]), styles.__file__
        print(json.dumps({n: styles.load_style(n).sections for n in styles.STYLE_NAMES}))
        """
    done = _run(installed, tmp_path, code, str(installed))
    assert done.returncode == 0, done.stderr
    from ocw_hub.llm.styles import STYLE_NAMES, load_style

    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown == {n: dict(load_style(n).sections) for n in STYLE_NAMES}
