"""The ``ocw-hub`` program's structure: a lazy command table (``--help`` imports no command
module, a command imports only its own), help as prose, errors turned into a line and an exit
code in one place, ``import ocw_hub`` light with its submodules as attributes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import COMMANDS, app, load_command
from ocw_hub.errors import OCWHubError, SourceUnavailableError

runner = CliRunner()
#: The command modules, as ``sys.modules`` names them.
COMMAND_MODULES = sorted({f"ocw_hub.cli.{t.split(':')[0]}" for t, _ in COMMANDS.values()})


def _modules_after(code: str) -> list[str]:
    """The command modules loaded after ``code`` ran in a fresh interpreter."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m in {COMMAND_MODULES!r})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cli(*args: str) -> str:
    """Code that runs ``ocw-hub ARGS`` and goes on (help output on stdout, ignored)."""
    call = f"app({list(args)!r})"
    return f"from ocw_hub.cli import app\ntry:\n    {call}\nexcept SystemExit:\n    pass"


def test_top_level_help_imports_no_command_module() -> None:
    assert _modules_after(_cli("--help")) == []


def test_a_command_imports_only_its_own_module() -> None:
    assert _modules_after(_cli("evaluate", "--help")) == ["ocw_hub.cli.evaluate"]
    assert _modules_after(_cli("derive", "randomized", "--help")) == ["ocw_hub.cli.derive"]


def test_top_level_help_lists_every_command_with_its_summary() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for name, (_, summary) in COMMANDS.items():
        assert f"{name} {summary}" in text


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_texts_are_prose(name: str) -> None:
    """No hard line break inside a paragraph of a command's help or epilog."""
    command = load_command(name)
    commands = [command, *getattr(command, "commands", {}).values()]
    texts = [t for c in commands for t in (c.help, c.epilog) if t]
    assert texts
    assert all("\n" not in paragraph for t in texts for paragraph in t.split("\n\n"))


def test_import_ocw_hub_gives_its_submodules_lazily() -> None:
    code = (
        "import sys, ocw_hub\n"
        "loaded = 'ocw_hub.resources' in sys.modules\n"
        "print(loaded, ocw_hub.resources.metric_dir().name, 'datasets' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "ocw_metric", "False"]


class _Unusual(OCWHubError):
    exit_code = 3


def test_errors_become_one_line_and_their_exit_code(monkeypatch: pytest.MonkeyPatch) -> None:
    import ocw_hub.data.infos as infos

    def stale() -> bool:
        raise _Unusual("the infos are odd")

    monkeypatch.setattr(infos, "dataset_infos_is_current", stale)
    result = runner.invoke(app, ["infos", "--check"])
    assert result.exit_code == 3 and result.output == "error: the infos are odd\n"


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import ocw_hub.data.infos as infos

    def broken() -> bool:
        raise KeyError("bug")

    monkeypatch.setattr(infos, "dataset_infos_is_current", broken)
    result = runner.invoke(app, ["infos", "--check"])
    assert isinstance(result.exception, KeyError) and "error:" not in result.output


def test_a_core_error_is_written_in_cli_words() -> None:
    from ocw_hub.cli._errors import user_message

    err = SourceUnavailableError("no data_dir given: pass data_dir=DIR", config="wote")
    assert user_message(err) == "no --data-dir given: pass --data-dir wote=DIR"
    assert user_message(RuntimeError("bug")) is None


def _blas_after(code: str, env: dict[str, str]) -> tuple[str | None, list[int]]:
    """``OPENBLAS_NUM_THREADS`` and OpenBLAS's thread counts after ``code`` then NumPy loaded,
    in a fresh interpreter with ``env`` added to an environment without a thread count."""
    probe = (
        f"{code}\nimport json, os\nimport numpy\nfrom threadpoolctl import threadpool_info\n"
        "threads = [p['num_threads'] for p in threadpool_info() if p['internal_api'] == "
        "'openblas']\nprint(json.dumps([os.environ.get('OPENBLAS_NUM_THREADS'), threads]))"
    )
    base = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env={**base, **env}
    )
    assert done.returncode == 0, done.stderr
    value, threads = json.loads(done.stdout.strip().splitlines()[-1])
    return value, threads


def test_evaluate_sets_one_blas_thread_before_numpy_loads() -> None:
    value, threads = _blas_after(_cli("evaluate", "--help"), {})
    assert value == "1"
    assert threads and set(threads) == {1}


def test_a_thread_count_the_user_set_is_kept() -> None:
    assert _blas_after(_cli("evaluate", "--help"), {"OPENBLAS_NUM_THREADS": "2"})[0] == "2"
    assert _blas_after(_cli("evaluate", "--help"), {"OMP_NUM_THREADS": "2"})[0] is None


def test_other_commands_leave_blas_threads_alone() -> None:
    assert _blas_after(_cli("predict", "--help"), {})[0] is None


def test_evaluate_imports_no_llm_log_nor_play_modules(
    ocw_fixture_dir: Path, tmp_path: Path
) -> None:
    """Scoring a predictions file needs neither the LLM response log, its parsing, nor the play
    log's reader (a play log is told by its first line)."""
    walls = json.loads((ocw_fixture_dir / "test.json").read_text(encoding="utf-8"))["dataset"]
    preds = [
        {
            "wall_id": w["wall_id"],
            "predicted_groups": [g["gt_words"] for g in w["groups"].values()],
            "predicted_connections": w["gt_connections"],
        }
        for w in walls
    ]
    path = tmp_path / "preds.json"
    path.write_text(json.dumps(preds), encoding="utf-8")
    args = ["evaluate", str(path), "--data-dir", str(ocw_fixture_dir), "--no-checks"]
    code = (
        "import json, sys, warnings\nwarnings.simplefilter('ignore')\n"
        f"{_cli(*args)}\n"
        "names = ('ocw_hub.llm.log', 'ocw_hub.llm.parsing', 'ocw_hub.llm.prompts')\n"
        "print(json.dumps(sorted(m for m in names if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "full_wall" in done.stdout
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
