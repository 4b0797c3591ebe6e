"""HTML output escapes everything it did not write: markup in every field of a predictions file
and of results files (clues, connections, run names, labels, WoTe predictions and answers, the
title) executes nothing in headless Chromium and shows as the literal text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import ARGS, CHROMIUM, _require_browser
from typer.testing import CliRunner

from ocw_hub.cli import app

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::UserWarning")]

DATA = Path(__file__).parent / "data" / "report"
OCW_DIR = DATA / "ocw" / "dataset"
#: Breaks out of an attribute and a text node, runs a script, an event handler, a link.
PAYLOAD = (
    '"\'><script>window.__owned = 1</script><img src=x onerror="window.__owned = 2">'
    '<a href="javascript:window.__owned = 3">x</a><svg onload="window.__owned = 4">&amp;'
)
#: Strings the report needs as they are: they name the config, the split and files.
KEEP = {"config", "split", "predictions"}

runner = CliRunner()


def _inject(value: Any, key: str = "") -> Any:
    """Every string of a JSON value (but those under :data:`KEEP`) with the payload added."""
    if isinstance(value, dict):
        return {k: _inject(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_inject(v, key) for v in value]
    if isinstance(value, str) and key not in KEEP:
        return value + PAYLOAD
    return value


def _cli(*args: str) -> None:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _hostile_files(tmp_path: Path) -> list[Path]:
    run = json.loads((DATA / "predictions" / "model-b" / "run-01.json").read_text())
    for entry in run:
        entry["predicted_groups"][0][0] += PAYLOAD  # not a clue of the wall: shown as given
        entry["predicted_connections"] = [PAYLOAD + c for c in entry["predicted_connections"]]
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps(run), encoding="utf-8")
    results = tmp_path / "scored.json"
    args = ["--data-dir", str(OCW_DIR), "--no-checks", "--out", str(results)]
    _cli("evaluate", str(predictions), *args)
    data = json.loads(results.read_text(encoding="utf-8"))
    for wall in data["per_wall"]:
        wall["clues_not_in_wall"] = [PAYLOAD]
    hostile = tmp_path / "<img src=x onerror=alert(1)>.json"  # the file name is its label
    hostile.write_text(json.dumps(_inject(data)), encoding="utf-8")
    wote = tmp_path / "wote-<b onmouseover=alert(1)>.json"
    wote.write_text(json.dumps(_inject(json.loads((DATA / "wote-spans.json").read_text()))))
    return [hostile, wote]


def test_markup_in_every_field_is_inert_in_chromium(tmp_path: Path) -> None:
    _require_browser()
    from playwright.sync_api import sync_playwright

    files = _hostile_files(tmp_path)
    out = tmp_path / "report.html"
    _cli(
        "report",
        *map(str, files),
        "--out",
        str(out),
        "--no-checks",
        "--title",
        "T" + PAYLOAD,
        "--data-dir",
        f"default={OCW_DIR}",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(offline=True, java_script_enabled=True)
            page = context.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(out.resolve().as_uri(), wait_until="load")
            page.mouse.move(10, 10)
            owned = page.evaluate("() => window.__owned")
            scripts = page.eval_on_selector_all("script", "els => els.length")
            handlers = page.evaluate(
                "() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
                ".filter(a => a.name.startsWith('on') || a.value.trim().startsWith('javascript:'))"
                ".map(a => e.tagName + ' ' + a.name))"
            )
            text = page.evaluate("() => document.body.innerText")
            title = page.title()
        finally:
            browser.close()
    assert owned is None and dialogs == [] and scripts == 0 and handlers == []
    assert "<script>window.__owned = 1</script>" in text  # shown as the text it is
    assert "<img src=x onerror=alert(1)>" in text  # the hostile file's label
    assert title.startswith("T" + PAYLOAD[:10])
