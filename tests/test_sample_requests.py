"""K requests per wall with seeds (``prompts -n K --as-requests``,
``ocw_hub.llm.sample_requests``), for servers that ignore or refuse ``n``: the requests
written, then ``prompts -> run-llm -> parse --vote -> evaluate`` against the scripted
:class:`test_vote.SamplingServer` (a body with seed s gets PLAN's sample s), each sample's
figures and the vote's counted by hand from PLAN."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_parse import BY_ID, _cli
from typer.testing import CliRunner

from ocw_hub.llm.sample_requests import as_requests

runner = CliRunner()
SAMPLING = ["--profile", "custom", "--max-tokens", "144", "--temperature", "0.7", "-n", "3"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_request_becomes_k_in_order_with_consecutive_seeds() -> None:
    requests = [
        {"custom_id": w, "method": "POST", "body": {"messages": [], "n": 3, "seed": 7}}
        for w in ("a", "b")
    ]
    repeated = as_requests(requests, 3)
    assert [r["custom_id"] for r in repeated] == ["a#1", "a#2", "a#3", "b#1", "b#2", "b#3"]
    assert [r["body"].get("seed") for r in repeated] == [7, 8, 9, 7, 8, 9]
    assert all("n" not in r["body"] and r["method"] == "POST" for r in repeated)
    assert requests[0]["body"] == {"messages": [], "n": 3, "seed": 7}  # the input is kept
    unseeded = as_requests([{"custom_id": "a", "body": {"n": 2}}], 2)
    assert [r["body"] for r in unseeded] == [{}, {}]
    with pytest.raises(ValueError):
        as_requests(requests, 0)


def test_prompts_writes_k_requests_per_wall(tmp_path: Path, cache: Path) -> None:
    out, plain = tmp_path / "req.jsonl", tmp_path / "plain.jsonl"
    common = ["prompts", "--task", "grouping", "--shots", "1", *SAMPLING]
    _cli(*common, "--sampling-seed", "5", "--as-requests", "--out", str(out), cache=cache)
    _cli(*common, "--sampling-seed", "5", "--out", str(plain), cache=cache)
    one = {line["custom_id"]: line for line in _lines(plain)}
    lines = _lines(out)
    assert len(lines) == 3 * len(one) == 3 * len(BY_ID)
    for k, line in enumerate(lines):
        wall, i = line["custom_id"].split("#")
        assert int(i) == k % 3 + 1
        expected = {n: v for n, v in one[wall]["body"].items() if n != "n"}
        assert line["body"] == {**expected, "seed": 5 + k % 3}
    record = json.loads(Path(f"{out}.protocol.json").read_text(encoding="utf-8"))
    assert record["profile"] == "custom"
    assert record["generation"] == {"max_tokens": 144, "temperature": 0.7, "seed": [5, 6, 7]}


def test_as_requests_needs_n(tmp_path: Path, cache: Path) -> None:
    out = tmp_path / "req.jsonl"
    _cli(
        "prompts",
        "--task",
        "grouping",
        "--shots",
        "1",
        "--as-requests",
        "--out",
        str(out),
        cache=cache,
        code=1,
    )
    assert not out.exists()


def _scored(path: Path, tmp: Path, cache: Path) -> Any:
    out = tmp / (path.name + ".results.json")
    _cli("evaluate", str(path), "--out", str(out), cache=cache)
    return json.loads(out.read_text(encoding="utf-8"))
