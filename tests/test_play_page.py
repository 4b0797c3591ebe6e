"""The play page's builder (``ocw-hub play-page``): what the HTML holds and what it never holds.

Checked on every wall of the OCW fixture: no connection text and no gold group anywhere in the
page (the clues only in the wall's own order, the groups only as digests that equal hashlib's),
the page outside its data block the same whatever the walls, data text that cannot close its
script element, the CSP hashes of the page's own script and style, the command's options and
its refusal of output paths that would destroy something. The page played in Chromium is
``tests/test_play_page_browser.py``.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import re
from collections import Counter
from importlib import resources
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.cli._common import load_split_rows
from ocw_hub.errors import OCWHubError, OptionError
from ocw_hub.play import rules
from ocw_hub.play.log import VERSION
from ocw_hub.views.play_page import build_play_page, group_digest

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
runner = CliRunner()
DATA_BLOCK = re.compile(r'<script type="application/json" id="walls">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def fixture_rows(
    ocw_fixture_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[dict[str, Any]]]:
    cache = tmp_path_factory.mktemp("cache")
    return {
        split: load_split_rows("default", split, ocw_fixture_dir, cache_dir=cache, no_checks=True)
        for split in ("train", "validation", "test")
    }


def page_data(page: str) -> dict[str, Any]:
    """The JSON data block of a play page (exactly one)."""
    blocks = DATA_BLOCK.findall(page)
    assert len(blocks) == 1
    return json.loads(blocks[0])


def gold_groups(row: dict[str, Any]) -> list[list[str]]:
    return [list(g["gt_words"]) for g in row["groups"].values()]


def _lists(value: Any) -> list[list[Any]]:
    """Every list anywhere in a JSON value."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in _lists(v)]
    if isinstance(value, list):
        return [value] + [x for v in value for x in _lists(v)]
    return []


@pytest.mark.parametrize("rules", ["show", "nyt"])
@pytest.mark.parametrize("split", ["train", "validation", "test"])
def test_page_holds_digests_not_groups(
    fixture_rows: dict[str, list[dict[str, Any]]], split: str, rules: str
) -> None:
    rows = fixture_rows[split]
    page = build_play_page(rows, config="default", split=split, rules=rules)
    data = page_data(page)
    assert [w["wall_id"] for w in data["walls"]] == [r["wall_id"] for r in rows]
    for row, wall in zip(rows, data["walls"], strict=True):
        expected_keys = {"wall_id", "clues", "salt", "digests"} | (
            {"near"} if rules == "nyt" else set()
        )
        assert set(wall) == expected_keys
        assert wall["clues"] == [str(c) for c in row["words"]]  # the wall's own shuffled order
        salt, groups = wall["salt"], gold_groups(row)
        assert len(salt) == 32 and len({w["salt"] for w in data["walls"]}) == len(rows)
        for group, digest in zip(groups, wall["digests"], strict=True):
            key = salt + "\n" + "\n".join(sorted(group))
            assert digest == hashlib.sha256(key.encode("utf-8")).hexdigest()
            assert digest == group_digest(salt, list(reversed(group)))  # any order, one digest
        if rules == "nyt":
            for group, near in zip(groups, wall["near"], strict=True):
                threes = {
                    hashlib.sha256((salt + "\n" + "\n".join(sorted(t))).encode()).hexdigest()
                    for t in combinations(group, 3)
                }
                assert set(near) == threes
        # no gold group as a unit anywhere in the data: no list of the data is one
        for found in _lists(data):
            for group in groups:
                assert Counter(map(str, found)) != Counter(group)
        for connection in row["gt_connections"]:
            assert connection not in page and html.escape(connection) not in page
            assert json.dumps(connection)[1:-1] not in page


def test_the_quirk_walls_digests_are_their_multisets(
    fixture_rows: dict[str, list[dict[str, Any]]],
) -> None:
    """A clue twice in one group (``Bask``, wall 654041) or in two groups (``Glamour``, b308e4):
    the group's digest is of its clues with the repeat, as the wall holds them."""
    rows = {r["wall_id"]: r for r in fixture_rows["test"]}
    data = page_data(build_play_page(list(rows.values()), config="default", split="test"))
    walls = {w["wall_id"]: w for w in data["walls"]}
    for wall_id, clue in (("654041", "Bask"), ("b308e4", "Glamour")):
        wall, groups = walls[wall_id], gold_groups(rows[wall_id])
        assert wall["clues"].count(clue) == 2
        for group, digest in zip(groups, wall["digests"], strict=True):
            assert digest == group_digest(wall["salt"], group)
        for group in groups:
            if group.count(clue) == 2:  # the repeat counts: one Bask and another clue is no group
                other = next(c for c in wall["clues"] if c not in group)
                once = [c for c in group if c != clue] + [clue, other]
                assert group_digest(wall["salt"], once) not in wall["digests"]


def test_page_outside_its_data_is_the_same_for_any_walls(
    fixture_rows: dict[str, list[dict[str, Any]]],
) -> None:
    """Nothing of the walls leaks into the markup, script or style: only the data block and the
    title differ between the pages of two splits."""
    pages = [
        DATA_BLOCK.sub("", build_play_page(fixture_rows[s], config="default", split="x", title="t"))
        for s in ("train", "test")
    ]
    assert pages[0] == pages[1]
    assert pages[0].count("<script") == 1  # the page's own script, the data block taken out


def test_data_text_never_closes_its_script_element(
    fixture_rows: dict[str, list[dict[str, Any]]],
) -> None:
    row = json.loads(json.dumps(fixture_rows["train"][0]))
    nasty = "</script><script>alert(1)</script><!--"
    old = row["words"][0]
    row["words"][0] = nasty
    for group in row["groups"].values():
        group["gt_words"] = [nasty if c == old else c for c in group["gt_words"]]
    row["wall_id"] = "@SCRIPT@"  # a slot name in the data stays text
    page = build_play_page([row], config="default", split="train", title="<b>&")
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert nasty not in page and "<b>&" not in page
    data = page_data(page)
    assert data["walls"][0]["clues"][0] == nasty and data["walls"][0]["wall_id"] == "@SCRIPT@"


def test_csp_allows_exactly_the_pages_own_script_and_style(
    fixture_rows: dict[str, list[dict[str, Any]]],
) -> None:
    page = build_play_page(fixture_rows["train"], config="default", split="train")
    csp = html.unescape(
        re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)[1]
    )
    script = re.findall(r"<script>(.*?)</script>", page, re.S)
    style = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(script) == 1 and len(style) == 1

    def sha(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == sha(script[0])
    assert directives["style-src"] == sha(style[0])
    assert "http" not in page.replace("http-equiv", "")  # no address to fetch anything from


def test_script_sets_data_as_text_only() -> None:
    """The page's script never parses text as markup or code: no innerHTML, outerHTML,
    insertAdjacentHTML, document.write, eval or Function; every text goes in by textContent."""
    from importlib import resources

    script = resources.files("ocw_hub.views").joinpath("play_page.js").read_text(encoding="utf-8")
    sinks = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(")
    sinks += ("Function(", 'setAttribute("on', "fetch(", "XMLHttpRequest", "import(")
    for sink in sinks:
        assert sink not in script, sink
    assert script.count("textContent") >= 2


def test_options_reach_the_page(fixture_rows: dict[str, list[dict[str, Any]]]) -> None:
    rows = fixture_rows["test"]
    show = page_data(build_play_page(rows, config="default", split="test"))
    assert show["rule_set"] == rules.page_rules("show") and show["log_version"] == VERSION == 2
    assert (show["rule_set"]["max_guesses"], show["rule_set"]["clock_seconds"]) == (20, 150)
    nyt = page_data(build_play_page(rows, config="default", split="test", rules="nyt"))
    assert nyt["rule_set"] == rules.page_rules("nyt")
    # the NYT game has no clock, no connection round and no lives: mistakes
    assert nyt["rule_set"]["clock_seconds"] is None and not nyt["rule_set"]["connection_round"]
    assert nyt["rule_set"]["lives_label"] == "Mistakes left"
    assert "lives" not in nyt["rule_set"]["summary"]
    assert (nyt["rule_set"]["max_guesses"], nyt["rule_set"]["repeat"]) == (7, "already guessed")
    no_clock = page_data(build_play_page(rows, config="default", split="test", clock=False))
    assert no_clock["rule_set"]["clock_seconds"] is None
    assert "2\u00a0min" in show["rule_set"]["summary"]
    assert "min" not in no_clock["rule_set"]["summary"]
    capped = page_data(build_play_page(rows, config="default", split="test", max_guesses=9))
    assert capped["rule_set"]["max_guesses"] == 9
    with pytest.raises(OptionError):
        build_play_page(rows, config="default", split="test", rules="chess")
    with pytest.raises(OptionError):
        build_play_page(rows, config="default", split="test", max_guesses=0)
    bad = json.loads(json.dumps(rows[0]))
    bad["words"][0] = "not a clue of the groups"
    with pytest.raises(OCWHubError, match=rows[0]["wall_id"]):
        build_play_page([bad], config="default", split="test")


def _cli(*args: str) -> Any:
    return runner.invoke(app, ["play-page", *args])


def test_command_writes_the_first_walls(ocw_fixture_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "wall.html"
    common = ["--data-dir", str(ocw_fixture_dir), "--no-checks", "--cache-dir", str(tmp_path / "c")]
    done = _cli(*common, "--walls", "2", "--rules", "nyt", "--no-clock", "--out", str(out))
    assert done.exit_code == 0, done.output
    data = page_data(out.read_text(encoding="utf-8"))
    assert [w["wall_id"] for w in data["walls"]] == ["46fa44", "740d45"]
    assert (data["rules"], data["split"]) == ("nyt", "test")
    assert data["rule_set"]["clock_seconds"] is None
    assert _cli(*common, "--rules", "chess", "--out", str(tmp_path / "x.html")).exit_code != 0
    assert not (tmp_path / "x.html").exists()
    assert _cli("-c", "wote", "--out", str(tmp_path / "x.html")).exit_code != 0


def test_command_refuses_output_paths_that_destroy(ocw_fixture_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for f in ocw_fixture_dir.iterdir():
        (data / f.name).write_bytes(f.read_bytes())
    before = {f.name: f.read_bytes() for f in data.iterdir()}
    link = tmp_path / "link.html"
    link.symlink_to(tmp_path / "elsewhere.html")
    common = ["--data-dir", str(data), "--no-checks", "--cache-dir", str(tmp_path / "c")]
    for out in (data / "test.json", data / "new.html", tmp_path, link):
        done = _cli(*common, "--out", str(out))
        assert done.exit_code == 1 and "--out" in done.output, (out, done.output)
    assert {f.name: f.read_bytes() for f in data.iterdir()} == before
    assert not (tmp_path / "elsewhere.html").exists()


def test_the_script_holds_no_rule_of_its_own() -> None:
    """The page's script reads the rule set the package writes (no rule set named, no count of
    lives, mistakes, guesses or seconds): one definition, :data:`ocw_hub.play.rules.RULE_SETS`."""
    script = resources.files("ocw_hub.views").joinpath("play_page.js").read_text(encoding="utf-8")
    code = re.sub(r"//[^\n]*", "", script)  # comments may name them
    assert not re.search(r"[\"'](show|nyt)[\"']", code)
    numbers = {int(n) for n in re.findall(r"\b\d+\b", code)}
    # 0 and 1, hex (16, 2), SHA-256, ms and s (10, 100, 1000, 60), the tick, the URL revoke delay
    assert numbers <= {0, 1, 2, 10, 16, 60, 100, 200, 256, 1000, 10000}, numbers
    fields = {f.name for f in dataclasses.fields(rules.RuleSet)}
    used = set(re.findall(r"\bR\.([a-z_]+)", code))
    assert used - {"max_invalid", "group_size", "summary"} <= fields
    assert {"lives", "free_until", "repeat", "one_away", "connection_round"} <= used


def test_one_definition_changes_engine_and_page(
    fixture_rows: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule set changed in :mod:`ocw_hub.play.rules` changes the engine and the page alike."""
    from ocw_hub.play.log import gold_groups

    changed = dataclasses.replace(rules.RULE_SETS["show"], lives=1, free_until=0, clock_seconds=90)
    monkeypatch.setitem(rules.RULE_SETS, "show", changed)
    row = fixture_rows["test"][0]
    data = page_data(build_play_page([row], config="default", split="test"))
    assert (data["rule_set"]["lives"], data["rule_set"]["free_until"]) == (1, 0)
    assert data["rule_set"]["clock_seconds"] == 90
    assert "One mistake in all. " in data["rule_set"]["summary"]
    g = gold_groups(row)
    state = rules.new_wall("show", g)
    after = rules.apply(state, g[0][:2] + g[1][:2]).state
    assert after.ended == "frozen_lives" and after.lives == 0
