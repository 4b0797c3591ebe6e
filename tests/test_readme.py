"""The README is the dataset card and its snippets run as written: the records it shows are
the rows its load snippet returns (the Hub lines on an export with the same config names: no
test reaches the Hub), and its "Use the package" section gives exactly the two set-up
commands, the second being the one `.ci/run` is (the tie CI relies on). The snippets moved to
``docs/`` are run by ``test_docs.py``.
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from doc_snippets import block, code_blocks, section, unknown_options

README = "README.md"
#: The Hub repository the README's one-line load names (the OCW authors' copy).
HUB_REPO = "TaatiTeam/OCW"


def _record(first_line: str) -> dict:
    """A record the card shows: the Python literal of the block starting with ``first_line``."""
    return ast.literal_eval(block(README, first_line))


@pytest.fixture(scope="module")
def card_root(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A folder laid out as the README assumes (``../shared/data`` beside it) after the main
    job built the exports in ``build/hub``: ``default``, the ``ocw_randomized`` it derives and
    ``wote``."""
    from typer.testing import CliRunner

    from ocw_hub.cli import app

    work = tmp_path_factory.mktemp("card")
    (work / "shared").symlink_to(shared_data.parent)
    root = work / "repo"
    root.mkdir()
    runner = CliRunner()
    derived = root / "build" / "ocw_randomized"
    ocw = shared_data / "ocw" / "dataset"
    result = runner.invoke(
        app, ["derive", "randomized", "--data-dir", str(ocw), "--out", str(derived)]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app,
        [
            "build",
            "--data-dir",
            f"default={ocw}",
            "--data-dir",
            f"ocw_randomized={derived}",
            "--data-dir",
            f"wote={shared_data / 'wote'}",
            "--out",
            str(root / "build" / "hub"),
            "--no-checks",
        ],
    )
    assert result.exit_code == 0, result.output
    return root


def test_card_records_and_load_snippet(card_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wall and the question the card shows are the rows its load snippet returns; its
    Hub lines, run on the export (the Hub repo id mapped to its folder), give the main walls
    by default and ``ocw_randomized`` by name."""
    import datasets

    real_load = datasets.load_dataset
    calls: list[tuple[tuple, Any]] = []

    def load(path: str, *args: Any, **kwargs: Any) -> Any:
        local = str(card_root / "build" / "hub" / "ocw") if path == HUB_REPO else path
        result = real_load(local, *args, **kwargs)
        calls.append(((path, *args), result))
        return result

    monkeypatch.setattr(datasets, "load_dataset", load)
    monkeypatch.chdir(card_root)
    namespace: dict = {}
    exec(block(README, "from datasets import load_dataset\n"), namespace)
    assert namespace["wall"] == _record('{"wall_id": "46fa44"')
    question = _record('{"id": "Wizard-of-Task-food-171/food-171-1"')
    assert {key: namespace["question"][key] for key in question} == question
    assert len(namespace["question"]) == 17
    hub = {args: result for args, result in calls if args[0] == HUB_REPO}
    assert set(hub) == {(HUB_REPO,), (HUB_REPO, "ocw_randomized")}
    assert hub[(HUB_REPO,)].to_list() == namespace["walls"].to_list()  # the default config
    main = {w["wall_id"]: w for w in namespace["walls"]}
    randomized = {w["wall_id"]: w for w in namespace["randomized"]}
    assert randomized.keys() == main.keys()  # the same test walls, rebuilt from other groups
    assert all(w["gt_connections"] != main[i]["gt_connections"] for i, w in randomized.items())


def _commands(bash: str) -> list[str]:
    """The commands of a bash block: its lines that are neither blank nor comments."""
    return [line for line in bash.splitlines() if line.strip() and not line.startswith("#")]


def test_use_the_package_gives_the_two_set_up_commands(repo_root: Path, shared_data: Path) -> None:
    """Exactly two commands: the main job (a venv, extras that exist, `reproduce` on the real
    data with options it has, writing the exports the load snippet reads) and `bash .ci/run`."""
    import tomllib

    (bash,) = code_blocks(section(README, "Use the package"), "bash")
    main_job, tests = _commands(bash)
    assert tests == "bash .ci/run"
    venv, install, reproduce = (shlex.split(part) for part in main_job.split(" && "))
    assert venv == ["python3", "-m", "venv", ".venv"]
    assert install[:3] == [".venv/bin/pip", "install", "-e"]
    extras = re.fullmatch(r"\.\[(.*)\]", install[3]).group(1).split(",")  # type: ignore[union-attr]
    pyproject = tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(extras) <= set(pyproject["project"]["optional-dependencies"])
    assert reproduce[:2] == [".venv/bin/ocw-hub", "reproduce"]
    assert unknown_options(reproduce[1:]) == []
    data = [reproduce[i + 1].split("=")[-1] for i, a in enumerate(reproduce) if a == "--data-dir"]
    assert [Path(d).resolve() for d in data] == [
        (shared_data / "ocw" / "dataset").resolve(),
        (shared_data / "wote").resolve(),
    ]  # ../shared/data beside the repository root
    out = reproduce[reproduce.index("--out") + 1]
    loads = re.findall(r'load_dataset\("([^"]+)"', block(README, "from datasets import"))
    assert [p for p in loads if "/hub/" in p] == [f"{out}/hub/ocw", f"{out}/hub/wote"]


def test_ci_requires_the_real_data_and_runs_both_datasets_versions(repo_root: Path) -> None:
    """`bash .ci/run` (the README's test command) turns a missing ../shared/data into failures
    (the variable conftest reads) and runs the datasets_era tests on datasets 3.6.0 and the
    whole suite on the newest."""
    from conftest import REQUIRE_ENV

    ci = (repo_root / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ENV}=1\n" in ci
    assert '"datasets==3.6.0"' in ci
    runs = re.findall(r"^suite (\S+) ?(\S*)$", ci, flags=re.M)
    assert runs == [(".venv-ds3/bin/python", "datasets_era"), (".venv/bin/python", "")]


#: The card's sections, in order (the issue's list; the export cards take the two datasets').
CARD_SECTIONS = [
    "Load",
    "OCW: the Only Connect Wall dataset",
    "WoTe: Wizard-of-Tasks Extractive",
    "Limitations",
    "Results",
    "Citation",
    "Use the package",
]


def test_readme_is_a_dataset_card(repo_root: Path) -> None:
    """YAML the Hub reads, the card's sections in order, about 200 lines, links to ``docs/``
    (``test_docs.py`` checks that every link resolves)."""
    from huggingface_hub import DatasetCard

    path = repo_root / README
    text = path.read_text(encoding="utf-8")
    card = DatasetCard.load(path)
    assert card.data.license == "other" and card.data.pretty_name
    assert {"text-classification", "question-answering"} <= set(card.data.task_categories)
    assert re.findall(r"^## (.+)$", text, flags=re.M) == CARD_SECTIONS
    assert len(text.splitlines()) <= 200
    targets = re.findall(r"\]\(((?!https?:)[^)#]+)", text)
    assert {"docs/usage.md", "docs/development.md"} <= set(targets)


@pytest.mark.parametrize("heading", CARD_SECTIONS[1:3])
def test_dataset_sections_stand_alone_in_an_export_card(heading: str) -> None:
    """``ocw-hub build`` copies the two datasets' sections into each export's card, which is
    published without this repository: no relative link, no local path, nothing of the other
    dataset, and the export cards' own card text (``card.readme_section``) is this section."""
    from ocw_hub.data.card import readme_section

    text = section(README, heading)
    assert readme_section(f"## {heading}") == f"## {heading}\n{text}".strip() + "\n"
    assert re.findall(r"\]\((?!https?:)([^)]+)\)", text) == []
    assert "../" not in text and "shared/data" not in text
    other = "WoTe" if heading.startswith("OCW") else "Only Connect"
    assert other not in text
