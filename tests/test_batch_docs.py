"""docs/experiment.md's conversion of ``ocw-hub prompts``'s requests for a Batch API, run as
written, and its output answered by a server that takes only ``max_completion_tokens``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from llm_answers import answer_requests, log_lines, make_requests

pytestmark = pytest.mark.usefixtures("local_only")


def test_batch_conversion_in_the_docs(
    repo_root: Path, tmp_path: Path, chat_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model set, ``max_completion_tokens`` for ``max_tokens``; what it writes is a requests
    file that a ``max_completion_tokens`` server answers at once."""
    text = (repo_root / "docs" / "experiment.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    (code,) = [b for b in blocks if b.startswith("# requests for a Batch API")]
    requests = make_requests(3)
    monkeypatch.chdir(tmp_path)
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    (tmp_path / "requests.jsonl").write_text(lines, encoding="utf-8")
    exec(code, {})
    converted = log_lines(tmp_path / "batch.jsonl")
    assert [r["custom_id"] for r in converted] == ["w0", "w1", "w2"]
    for before, after in zip(requests, converted, strict=True):
        assert (after["method"], after["url"]) == (before["method"], before["url"])
        body = dict(before["body"], model="o4-mini", max_completion_tokens=144)
        del body["max_tokens"]
        assert after["body"] == body
    server = chat_server(refuse_max_tokens=True)
    out = answer_requests(tmp_path / "batch.jsonl", tmp_path / "out.jsonl", server.url, "o4-mini")
    assert [line["response"]["status_code"] for line in log_lines(out)] == [200, 200, 200]
    assert len(server.bodies) == 3
