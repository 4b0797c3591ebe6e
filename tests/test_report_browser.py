"""The HTML report opened in a real browser: headless Chromium (Debian's ``chromium``, installed
by ``.ci/run``) driven by Playwright's Python package, with the network off.

Checked: no console error, every SVG and image drawn with a non-zero size, the headline
figures in the page equal those of the results JSON, no request leaves the file. The report of
the stand-in's 494 test walls (16 runs of the random baseline and 2 runs of the embedding
baseline that kept its clue vectors, both written by ``ocw-hub predict``, scored by
``ocw-hub evaluate``, plus 2 seeded WoTe runs) is kept as a screenshot in
``build/report-screenshot.png`` (a CI artifact; ``build/`` is git-ignored).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::UserWarning")]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REPO_ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = REPO_ROOT / "build" / "report-screenshot.png"
DATA = Path(__file__).parent / "data" / "report"
runner = CliRunner()


def _require_browser() -> None:
    """Skip (or, with OCW_HUB_REQUIRE_FULL_DATA=1, fail) when Chromium or Playwright is absent."""
    reason = None
    if not CHROMIUM.is_file():
        reason = f"{CHROMIUM} not found (Debian's chromium; .ci/run installs it)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError as err:  # pragma: no cover - playwright is a dev dependency
            reason = f"the playwright package is not installed ({err})"
    if reason is None:
        return
    if os.environ.get("OCW_HUB_REQUIRE_FULL_DATA") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def _cli(*args: str) -> None:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


@contextmanager
def offline_page(url: str, seen: dict[str, Any], **context_options: Any) -> Iterator[Any]:
    """A page of headless Chromium, offline, on which only ``url`` loads: every other request
    is refused and listed in ``seen["blocked"]``; console and page errors are listed in
    ``seen["errors"]``. ``context_options``: of ``Browser.new_context``."""
    from playwright.sync_api import sync_playwright

    seen.setdefault("errors", [])
    seen.setdefault("blocked", [])

    def route(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            seen["blocked"].append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(offline=True, **context_options)
            context.route("**/*", route)
            page = context.new_page()
            page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            yield page
        finally:
            browser.close()


def open_in_chromium(report: Path, screenshot: Path | None = None) -> dict[str, Any]:
    """Open the report offline; return what the page showed and what it asked for."""
    url = report.resolve().as_uri()
    seen: dict[str, Any] = {"errors": [], "requests": [], "blocked": []}
    with offline_page(url, seen, viewport={"width": 1280, "height": 900}) as page:
        page.on("request", lambda r: seen["requests"].append(r.url))
        page.goto(url, wait_until="load")
        seen["sizes"] = page.eval_on_selector_all(
            "svg, img",
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return [e.tagName, r.width, r.height]; })",
        )
        seen["tables"] = page.eval_on_selector_all(
            "table.headline",
            "ts => ts.map(t => ({config: t.dataset.config, split: t.dataset.split,"
            " header: [...t.querySelectorAll('thead th')].map(c => c.textContent),"
            " rows: [...t.querySelectorAll('tbody tr')].map("
            "r => [...r.children].map(c => c.textContent))}))",
        )
        seen["clue_boxes"] = page.eval_on_selector_all(
            "g[id^='clue-']",
            "gs => gs.map(g => { const r = g.getBoundingClientRect();"
            " return [g.id.replace(/-\\d+$/, ''), r.left, r.top, r.right, r.bottom]; })",
        )
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
    return seen


def _numbers(cell: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", cell)]


def _expected(results: dict[str, Any]) -> dict[tuple[str, str], tuple[list[float], int]]:
    """(task, figure) -> (the figures the cell must show, decimals) from the results JSON:
    one run's value, or the mean and population std of the runs' values, then ``ci95``."""
    import numpy as np

    runs = results.get("runs", [results])
    tasks = ("spans",) if results["config"] == "wote" else ("grouping", "connections")
    out: dict[tuple[str, str], tuple[list[float], int]] = {}
    for task in tasks:
        for key in runs[0].get(task, {}):
            if key in ("n_walls", "n_questions"):
                continue
            values = np.array([float(run[task][key]) for run in runs])
            figure = f"{key} (0-100)" if task == "spans" else key
            several = len(runs) > 1
            # as summary_rows prints them: 0-100 and counts (their spread over runs, their
            # interval) with 2 decimals
            counts = key in ("full_wall", "correct_groups")
            decimals = 2 if task == "spans" or counts else 4
            shown = [values.mean(), values.std()] if several else [values[0]]
            # then the 95 % bootstrap interval, on the figure's own scale, when recorded
            shown += results.get("ci95", {}).get(task, {}).get(key) or []
            out[(task, figure)] = ([float(v) for v in shown], decimals)
    size = "n_questions" if results["config"] == "wote" else "n_walls"
    task = "questions" if results["config"] == "wote" else "walls"
    out[(task, "in the split")] = ([float(results[size])], 0)
    return out


def _overlapping_labels(boxes: list[list[Any]]) -> list[tuple[Any, Any]]:
    """Pairs of clue labels of one projection whose boxes, as Chromium drew them, overlap."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            width = min(a[3], b[3]) - max(a[1], b[1])
            height = min(a[4], b[4]) - max(a[2], b[2])
            if a[0] == b[0] and width > 0.5 and height > 0.5:
                out.append((a, b))
    return out


def check_page(seen: dict[str, Any], results: dict[str, dict[str, Any]]) -> None:
    """Assertions shared by the browser tests (``results``: label -> results JSON)."""
    assert _overlapping_labels(seen["clue_boxes"]) == []
    assert seen["errors"] == []
    assert seen["blocked"] == [] and len(set(seen["requests"])) == 1  # the file itself only
    assert seen["sizes"], "no svg or img in the page"
    for tag, width, height in seen["sizes"]:
        assert width > 0 and height > 0, (tag, width, height)
    checked = 0
    for table in seen["tables"]:
        header, rows = table["header"], {(r[0], r[1]): r for r in table["rows"]}
        for label, data in results.items():
            shown_as = f"{label} (stand-in)" if data.get("source", {}).get("stand_in") else label
            if shown_as not in header or data["config"] != table["config"]:
                continue
            column = header.index(shown_as)
            for key, (values, decimals) in _expected(data).items():
                assert key in rows, (label, key)
                shown = _numbers(rows[key][column])
                assert shown == pytest.approx(values, abs=0.5 * 10**-decimals), (label, key)
                checked += 1
            if data["config"] != "wote":  # the contestants' column
                human = data["human"]
                for key in ("full_wall", "correct_groups", "full_wall_rate"):
                    shown = _numbers(rows[("grouping", key)][header.index("human")])
                    if data["config"] == "ocw_randomized" and key.startswith("full_wall"):
                        assert shown == [], key  # its walls were never played as such: "-"
                        continue
                    # their figure, then its 95 % interval over the same walls when recorded
                    expected = [human[key], *(data.get("ci95", {}).get("human", {}).get(key) or [])]
                    digits = 4 if key.endswith("_rate") else 2
                    assert shown == pytest.approx(expected, abs=0.5 * 10**-digits), key
    assert checked >= 10


def test_fixture_report_in_chromium(tmp_path: Path) -> None:
    """The report of the small fixtures (no ../shared needed): 4 results files, 3 configs."""
    _require_browser()
    files = ["model-a.json", "model-b.json", "randomized-a.json", "wote-spans.json"]
    out = tmp_path / "report.html"
    _cli(
        "report",
        *(str(DATA / f) for f in files),
        "--out",
        str(out),
        "--no-checks",
        "--data-dir",
        f"default={DATA / 'ocw' / 'dataset'}",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--data-dir",
        f"ocw_randomized={DATA / 'ocw' / 'dataset'}",
    )
    seen = open_in_chromium(out)
    check_page(seen, {Path(f).stem: json.loads((DATA / f).read_text()) for f in files})
    assert len(seen["tables"]) == 3
    assert len(seen["clue_boxes"]) == 32  # model-a's clue embeddings: 16 labels, 2 projections


def _wote_runs(folder: Path, wote_dir: Path, n_runs: int) -> None:
    """Seeded WoTe span predictions: the gold answer for some questions, a line of the
    context for the others."""
    from ocw_hub.data.sources import load_split

    rows = load_split("wote", "validation", wote_dir).to_list()
    folder.mkdir(parents=True)
    for r in range(n_runs):
        rng = random.Random(f"wote-{r}")
        predictions = [
            {
                "id": q["id"],
                "prediction_text": (
                    q["answers"]["text"][0]
                    if rng.random() < 0.4 + 0.2 * r
                    else q["context"].splitlines()[0]
                ),
            }
            for q in rows
        ]
        (folder / f"run-{r:02d}.json").write_text(json.dumps(predictions))


@pytest.fixture(scope="module")
def stand_in_report(
    tmp_path_factory: pytest.TempPathFactory, ocw_dir: Path, wote_dir: Path
) -> tuple[Path, dict[str, dict[str, Any]]]:
    """The report of the stand-in test split: the real baselines (random, 16 runs; embedding
    with its clue vectors, 2 runs), the human figures, and 2 WoTe runs."""
    _require_browser()
    root = tmp_path_factory.mktemp("stand-in")
    cache = str(root / "cache")
    common = ["--data-dir", str(ocw_dir), "--cache-dir", cache]
    _cli("predict", "-m", "random", "--runs", "16", "--out", str(root / "random"), *common)
    _cli(
        "predict",
        "-m",
        "embedding",
        "--runs",
        "2",
        "--keep-vectors",
        "--out",
        str(root / "embedding"),
        *common,
    )
    _wote_runs(root / "wote", wote_dir, 2)
    for name in ("random", "embedding"):
        _cli("evaluate", str(root / name), "--out", str(root / f"{name}.json"), *common)
    _cli(
        "evaluate",
        str(root / "wote"),
        "-c",
        "wote",
        "-s",
        "validation",
        "--data-dir",
        str(wote_dir),
        "--cache-dir",
        cache,
        "--out",
        str(root / "wote-validation.json"),
    )
    names = ["random", "embedding", "wote-validation"]
    out = root / "report.html"
    _cli(
        "report",
        *(str(root / f"{n}.json") for n in names),
        "--out",
        str(out),
        "--data-dir",
        f"default={ocw_dir}",
        "--cache-dir",
        cache,
    )
    return out, {n: json.loads((root / f"{n}.json").read_text()) for n in names}


@pytest.mark.full_data
def test_stand_in_report_in_chromium(stand_in_report: tuple[Path, dict]) -> None:
    report, results = stand_in_report
    assert results["random"]["n_runs"] == 16 and results["random"]["n_walls"] == 494
    page = report.read_text()
    assert 'id="embeddings-embedding-' in page  # the kept vectors are plotted
    assert page.count('class="ocw-wall"') == 10  # the 5 hardest walls of each OCW file, drawn
    assert page.count('data-stand-in="true"><strong>stand-in</strong>') == 2  # random, embedding
    seen = open_in_chromium(report, SCREENSHOT)
    check_page(seen, results)
    assert len(seen["clue_boxes"]) == 32  # one wall's 16 clue labels in 2 projections
    assert SCREENSHOT.stat().st_size > 10_000


#: Compares, in the page, each character of a label drawn in the legend's own font with a code
#: point no font has (U+10FFFD, private use): equal pixels mean the missing-glyph box.
_BOXED_CHARACTERS = """([label, text]) => {
  const items = [...document.querySelectorAll('ul.legend li')];
  const item = items.find(li => li.textContent.includes(label));
  if (!item) return null;
  const font = getComputedStyle(item).font;
  const draw = (s) => {
    const c = document.createElement('canvas'); c.width = 64; c.height = 64;
    const g = c.getContext('2d'); g.font = font; g.fillText(s, 4, 48);
    return Array.from(g.getImageData(0, 0, 64, 64).data).join(',');
  };
  const box = draw(String.fromCodePoint(0x10FFFD));
  return [...text].filter(ch => draw(ch) === box);
}"""


def test_cjk_label_is_drawn_with_real_glyphs(tmp_path: Path) -> None:
    """A run label in CJK shows its characters in the legend, not missing-glyph boxes (the
    legends are HTML text; .ci/run installs a CJK font beside Chromium)."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    label = "模型-甲"
    source = tmp_path / f"{label}.json"
    source.write_bytes((DATA / "model-a.json").read_bytes())
    out = tmp_path / "report.html"
    _cli(
        "report",
        str(source),
        "--out",
        str(out),
        "--no-checks",
        "--data-dir",
        f"default={DATA / 'ocw' / 'dataset'}",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_context(offline=True).new_page()
            page.goto(out.resolve().as_uri(), wait_until="load")
            boxed = page.evaluate(_BOXED_CHARACTERS, [label, "模型甲"])
            control = page.evaluate(_BOXED_CHARACTERS, [label, "\U0010fffe"])
        finally:
            browser.close()
    assert control == ["\U0010fffe"]  # the comparison does see a box where there is one
    assert boxed == []
