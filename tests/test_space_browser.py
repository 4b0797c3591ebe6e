"""The metric's Space as a Space runs it: ``python app.py`` from a flat copy of
``metrics/ocw_metric/``, in the environment its card and ``requirements.txt`` declare (gradio
``sdk_version`` plus the requirements, the venv .ci/run builds as ``.venv-space``), offline, on
127.0.0.1, opened in headless Chromium (Debian's ``chromium``, driven by Playwright from this
environment) with every request off 127.0.0.1 refused.

Checked: the server answers on 127.0.0.1 (no share link asked for), the page shows the widget
of the ``connections`` config (a table headed ``predictions`` / ``references``), and the
figures the page prints for examples typed into the table are the hand-computed ones.
``OCW_HUB_SPACE_PYTHON`` names the Space environment's interpreter; without it the test is
skipped. A screenshot is kept in ``build/space-screenshot.png`` (a CI artifact).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import ARGS, CHROMIUM, _require_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SPACE_PYTHON_ENV = "OCW_HUB_SPACE_PYTHON"
REPO_ROOT = Path(__file__).resolve().parents[1]
METRIC_DIR = REPO_ROOT / "metrics" / "ocw_metric"
SCREENSHOT = REPO_ROOT / "build" / "space-screenshot.png"
STARTUP_SECONDS = 180
# "famous mel" vs "famous mels": F 1/2; "tools" vs "household tools": F 2/3; the other two
# equal after lowercasing -> ROUGE-1 (1/2 + 2/3 + 1 + 1) / 4 = 19/24, exact match 2/4.
GOLD = ["Famous Mels", "Household tools", "Cocktails", "Monkey ___"]
PRED = ["Famous Mel", "tools", "cocktails", "MONKEY ___"]


def _card() -> dict[str, Any]:
    import yaml

    text = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    return dict(yaml.safe_load(text.split("---\n")[1]))


def _space_python() -> Path:
    value = os.environ.get(SPACE_PYTHON_ENV)
    if not value:
        pytest.skip(
            f"{SPACE_PYTHON_ENV} is not set: it names the python of the Space's pinned "
            "environment (gradio of the card's sdk_version + metrics/ocw_metric/requirements.txt; "
            ".ci/run builds it as .venv-space)"
        )
    path = Path(value)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{SPACE_PYTHON_ENV}={value}: no such interpreter")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until ``url`` answers 200, within STARTUP_SECONDS; an exited server fails at once."""
    deadline = time.monotonic() + STARTUP_SECONDS
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"app.py exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with opener.open(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    tail = log.read_text()[-3000:]
    pytest.fail(f"app.py did not answer on {url} within {STARTUP_SECONDS} s:\n{tail}")


@pytest.fixture
def space_url(tmp_path: Path) -> Iterator[str]:
    """``python app.py`` in a flat copy of the metric folder (a Space's root is e.g.
    ``/home/user/app``), offline with a private HF_HOME, on a free port of 127.0.0.1; stopped
    (its process group) at the end."""
    python = _space_python()
    _require_browser()
    root = tmp_path / "app"
    root.mkdir()
    for path in METRIC_DIR.iterdir():
        if path.is_file() and path.suffix not in (".pyc", ".pyo"):
            shutil.copy2(path, root / path.name)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and "proxy" not in k.lower()}
    env.update(
        HF_HOME=str(tmp_path / "hf"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        GRADIO_ANALYTICS_ENABLED="False",
        GRADIO_SERVER_NAME="127.0.0.1",
        GRADIO_SERVER_PORT=str(port),
        NO_PROXY="127.0.0.1,localhost",
    )
    log = tmp_path / "app.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(python), "app.py"],
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url, proc, log)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _fill_row(table: Any, row: int, values: list[list[str]]) -> None:
    """Type each JSON list into a cell of ``row`` (a double-click opens the cell's input)."""
    cells = table.locator("tbody tr").nth(row).locator("td")
    for i, value in enumerate(values):
        cells.nth(i).dblclick()
        field = cells.nth(i).locator("input")
        field.fill(json.dumps(value))
        field.press("Enter")


def _submit(page: Any) -> dict[str, Any]:
    """Submit, wait for a new text in the output box, read the figures it shows."""
    box = page.locator("textarea[data-testid=textbox]")
    before = box.input_value()
    page.get_by_role("button", name="Submit").click()
    page.wait_for_function(
        "before => { const v = document.querySelector('textarea[data-testid=textbox]').value;"
        " return v !== '' && v !== before; }",
        arg=before,
        timeout=60_000,
    )
    # the widget prints the dict compute returned (its repr: numbers and names only)
    return dict(ast.literal_eval(box.input_value()))


def test_card_and_environment_agree() -> None:
    # The environment under test is the one the card declares.
    python = _space_python()
    card = _card()
    code = "import gradio, sys; print(gradio.__version__, '%d.%d' % sys.version_info[:2])"
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    gradio_version, python_version = done.stdout.split()
    assert gradio_version == str(card["sdk_version"])
    assert python_version == str(card["python_version"])


def test_space_starts_and_computes_in_chromium(space_url: str) -> None:
    from playwright.sync_api import sync_playwright

    seen: dict[str, list[str]] = {"errors": [], "blocked": [], "served": []}

    def route(route: Any) -> None:
        if route.request.url.startswith(space_url):
            seen["served"].append(route.request.url)
            route.continue_()
        else:  # the page's Google fonts and iframe-resizer from a CDN: refused, as offline
            seen["blocked"].append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", route)
            page = context.new_page()
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.goto(space_url, wait_until="load")
            # the widget: the first table of the page, headed by the config's features
            table = page.locator("table").first
            table.wait_for(timeout=60_000)
            headers = [h.strip() for h in table.locator("thead th").all_text_contents()]
            assert headers == ["predictions", "references"]
            assert table.locator("tbody tr").count() == 1
            assert re.search(r"Metric: ocw_metric", page.content())

            _fill_row(table, 0, [PRED, GOLD])
            got = _submit(page)
            assert got["n_walls"] == 1 and got["exact_match"] == 0.5
            assert got["rouge1"] == pytest.approx(19 / 24)

            # a second wall answered perfectly: the means of the two walls
            page.get_by_role("button", name="New row").click()
            assert table.locator("tbody tr").count() == 2
            _fill_row(table, 1, [GOLD, GOLD])
            got = _submit(page)
            assert got["n_walls"] == 2 and got["exact_match"] == 0.75
            assert got["rouge1"] == pytest.approx((19 / 24 + 1) / 2)
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
        finally:
            browser.close()
    assert seen["errors"] == []
    assert all(url.startswith(space_url) for url in seen["served"])
    assert any("/assets/" in url or url.endswith(".js") for url in seen["served"])
