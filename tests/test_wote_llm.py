"""WoTe with LLMs: the requests of ``prompts --config wote``, the span parser's laws, and the
round trip prompts -> run-llm (a scripted local server) -> parse -> evaluate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer as FakeServer
from hypothesis import example, given, settings
from hypothesis import strategies as st
from llm_answers import answer_requests
from ocw_fixtures import WOTE_FIXTURE
from typer.testing import CliRunner

from ocw_hub.cli import app
from ocw_hub.errors import PredictionsError
from ocw_hub.llm.answer_text import drop_reasoning
from ocw_hub.llm.prompts import PromptError
from ocw_hub.llm.responses import Response
from ocw_hub.llm.wote import (
    MAX_TOKENS,
    REASONS,
    STATUSES,
    SYSTEM,
    SpanParse,
    build_wote_requests,
    in_context,
    parse_wote_answer,
    parse_wote_responses,
    wote_messages,
    wote_request,
)

runner = CliRunner()


@pytest.fixture(scope="module")
def wote_test(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    from ocw_hub.data.sources import load_split

    cache = tmp_path_factory.mktemp("wote-cache")
    rows = load_split("wote", "test", WOTE_FIXTURE, cache_dir=cache, verification_mode="no_checks")
    return rows.to_list()


def _row(rows: list[dict[str, Any]], question_id: str) -> dict[str, Any]:
    return next(r for r in rows if r["question_id"] == question_id)


def test_messages_of_a_row_with_history(wote_test: list[dict[str, Any]]) -> None:
    """diy-908-4, checked by hand against tests/data/wote/test.json: no ingredients, so the
    context is title, description and the 3 steps; 4 history turns."""
    row = _row(wote_test, "diy-908-4")
    assert wote_messages(row) == [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": "Task:\nFix a Squeaky Door Hinge\nSilence a door in ten minutes.\n"
            "Close the door and tap the hinge pin up with a nail.\n"
            "Wipe the pin and coat it with petroleum jelly.\n"
            "Tap the pin back in and swing the door a few times.\n\n"
            "Conversation so far:\nstudent: The pin is out.\nteacher: Wipe it clean first.\n"
            "student: What do I put on the pin?\nteacher: Some Vaseline.\n\n"
            "Question: And then?",
        },
    ]


def test_requests_of_the_fixture_split(wote_test: list[dict[str, Any]]) -> None:
    requests = build_wote_requests(wote_test, model="m")
    assert [r["custom_id"] for r in requests] == [r["id"] for r in wote_test]
    first = requests[0]
    assert first["custom_id"] == "Wizard-of-Task-food-906/food-906-0"
    assert (first["method"], first["url"]) == ("POST", "/v1/chat/completions")
    assert first["body"] == {
        "model": "m",
        "messages": [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": "Task:\nCucumber Salad\n\n2 cucumbers, sliced\n1 tablespoon rice "
                "vinegar\n1 teaspoon sugar\nToss everything together.\nChill for 30 minutes "
                "before serving.\n\nQuestion: How long should it chill?",
            },
        ],
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
    }
    for row, request in zip(wote_test, requests, strict=True):  # the context is copied whole
        assert row["context"] in request["body"]["messages"][1]["content"]


def test_rows_read_with_pandas(wote_test: list[dict[str, Any]]) -> None:
    """A Parquet export read with pandas gives arrays for the lists: same messages."""
    import datasets

    frame = datasets.Dataset.from_list(wote_test).to_pandas()
    rows = frame.to_dict("records")
    assert type(rows[3]["history"]).__name__ == "ndarray"
    assert [wote_messages(r) for r in rows] == [wote_messages(r) for r in wote_test]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"context": None}, "context"),
        ({"history": "student: hi"}, "history"),
        ({"history": [{"role": "student"}]}, "history"),
        ({"question": 3}, "question"),
        ({"id": None}, "id"),
    ],
)
def test_malformed_rows(wote_test: list[dict[str, Any]], change: dict, field: str) -> None:
    row = {**wote_test[0], **change}
    with pytest.raises(PromptError, match=f"field {field}"):
        wote_request(row)


# --------------------------------------------------------------------------------------
# Parsing laws
# --------------------------------------------------------------------------------------

#: Spans as a task text holds them: no quotes or reasoning tags at the ends, no refusal.
_WORD = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\"'“”‘’«»`<>*_"),
    min_size=1,
    max_size=12,
).filter(lambda w: w.strip() == w and w)
SPANS = (
    st.lists(_WORD, min_size=1, max_size=8)
    .map(" ".join)
    .filter(lambda s: not s.casefold().startswith(("answer", "sorry", "i", "as an ai")))
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.sampled_from([None, "stop", "length"]), st.booleans())
def test_any_text_parses_without_inventing(text: str, finish: str | None, allow: bool) -> None:
    parsed = parse_wote_answer(text, finish, allow_truncated=allow)
    assert parsed.status in STATUSES
    assert (parsed.prediction_text == "") == (parsed.status == "unrecoverable")
    assert (parsed.reason is None) == (parsed.status != "unrecoverable")
    assert parsed.reason is None or parsed.reason in REASONS
    if "<think>" not in text.lower() and "</think>" not in text.lower():
        assert parsed.prediction_text in text  # a part of the answer, never new text
    if finish == "length" and not allow:
        assert parsed.status == "unrecoverable"


@settings(max_examples=100, deadline=None)
@given(SPANS, st.text(max_size=40).filter(lambda r: "think>" not in r.lower()))
def test_repairs_give_the_span_back(span: str, thought: str) -> None:
    assert parse_wote_answer(f"  {span}\n") == parse_wote_answer(span)
    assert parse_wote_answer(span) == SpanParse("clean", span)
    cases = {
        f'"{span}"': ["quotes"],
        f"“{span}”.": ["quotes"],
        f"Answer: {span}": ["answer_prefix"],
        f"**Answer:** '{span}'": ["answer_prefix", "quotes"],
        f"<think>{thought}</think>\n{span}": ["reasoning_dropped"],
        f"<THINK>{thought}</think>Answer: {span}": ["reasoning_dropped", "answer_prefix"],
    }
    for text, kinds in cases.items():
        parsed = parse_wote_answer(text)
        assert (parsed.status, parsed.prediction_text) == ("repaired", span), text
        assert [r["kind"] for r in parsed.repairs] == kinds
    unclosed = parse_wote_answer(f"<think>{thought} {span}")
    assert (unclosed.status, unclosed.reason) == ("unrecoverable", "unclosed_reasoning")
    cut = parse_wote_answer(span, "length")
    assert (cut.status, cut.reason, cut.prediction_text) == ("unrecoverable", "truncated", "")
    kept = parse_wote_answer(span, "length", allow_truncated=True)
    assert (kept.status, kept.prediction_text) == ("truncated", span)


_NO_TAG = st.text(max_size=30).filter(lambda t: "think>" not in t.lower())


@settings(max_examples=200, deadline=None)
@given(_NO_TAG, _NO_TAG, _NO_TAG)
@example("İİ", "x", "Tap the pin")  # lower() makes İ two characters: offsets are the text's
def test_reasoning_blocks_end_at_their_tags(before: str, thought: str, after: str) -> None:
    text = f"{before}<Think>{thought}</THINK>{after}"
    assert drop_reasoning(text) == (before + after, None, True)
    assert drop_reasoning(f"{before}<think>{thought}") == (before, "unclosed_reasoning", True)
    assert drop_reasoning(f"{thought}</think>{after}") == (after, None, True)
    assert drop_reasoning(before) == (before, None, False)


@pytest.mark.parametrize(
    ("text", "reasoning", "reason"),
    [
        ("", None, "no_answer"),
        (" \n ", "", "no_answer"),
        ("", "The step says 30", "reasoning_only"),
        ("<think>the third step</think>", None, "no_answer"),
        ("<think>the third step</think>", "the third step", "reasoning_only"),
        ("Answer:", None, "no_answer"),
        ("I'm sorry, the task text does not say.", None, "refusal"),
        ("I can’t find that in the recipe.", None, "refusal"),
        ("Answer: I cannot tell from the task.", None, "refusal"),
        ("reasoning</think>", None, "no_answer"),
    ],
)
def test_no_answer_kinds(text: str, reasoning: str | None, reason: str) -> None:
    parsed = parse_wote_answer(text, reasoning=reasoning)
    assert (parsed.status, parsed.reason, parsed.prediction_text) == ("unrecoverable", reason, "")


@pytest.mark.parametrize(
    "text",
    ['"Chop" the "onions"', "'Don't stir it'", '"30 minutes', "«»", "``", 'Answers: "x"'],
)
def test_ambiguous_wrappers_are_kept(text: str) -> None:
    """Quotes inside, an unmatched quote, nothing inside, a prefix that is not ``Answer:``:
    the answer is kept as it is (clean), never cut at a guess."""
    parsed = parse_wote_answer(text)
    assert (parsed.status, parsed.prediction_text, parsed.repairs) == ("clean", text, [])


@pytest.mark.parametrize(
    "text",
    [
        " " * 200_000,
        "<think>" * 20_000,
        "</think>" * 100_000,
        "<think></think>" * 50_000,
        "[" * 100_000 + "]" * 100_000,
        '"' * 50_001,
        "Answer:" * 30_000,
        "**" * 50_000 + "answer",
        "\u2028" * 10_000 + "x",
    ],
)
def test_hostile_text(text: str) -> None:
    parsed = parse_wote_answer(text, "stop", reasoning=text)
    assert parsed.status in STATUSES


def _response(qid: str, text: str | None, **extra: Any) -> Response:
    return Response(qid, text, 1, **extra)


def test_report_counts_and_order() -> None:
    questions = [{"id": q} for q in ("q1", "q2", "q3", "q4", "q5", "q6")]
    responses = {
        "q5": _response("q5", None, problem="request failed (status 500): boom"),
        "q1": _response("q1", "30 minutes"),
        "q2": _response("q2", '"petroleum jelly"'),
        "q3": _response("q3", "", reasoning="thinking only"),
        "q4": _response("q4", "Tap the pin", finish_reason="length"),
    }
    predictions, report = parse_wote_responses(responses, questions)
    assert predictions == [
        {"id": "q1", "prediction_text": "30 minutes"},
        {"id": "q2", "prediction_text": "petroleum jelly"},
        {"id": "q3", "prediction_text": ""},
        {"id": "q4", "prediction_text": ""},
        {"id": "q5", "prediction_text": ""},
    ]
    assert report["counts"] == {
        "clean": 1,
        "repaired": 1,
        "truncated": 0,
        "unrecoverable": 2,
        "no_response": 1,
        "missing": 1,
    }
    assert report["unrecoverable"] == {"reasoning_only": 1, "truncated": 1}
    assert report["repairs"] == {"no_response": 1, "quotes": 1}
    assert report["missing"] == ["q6"]
    assert report["questions"][2]["reasoning"] == "thinking only"
    assert report["in_context"] == 0 and report["questions"][0]["in_context"] is None
    assert [q["id"] for q in report["questions"]] == ["q1", "q2", "q3", "q4", "q5"]
    predictions, report = parse_wote_responses(responses, questions, allow_truncated=True)
    assert predictions[3]["prediction_text"] == "Tap the pin"
    assert report["counts"]["truncated"] == 1 and report["allow_truncated"] is True


def test_responses_for_other_questions() -> None:
    with pytest.raises(PredictionsError, match="x/1"):
        parse_wote_responses({"x/1": _response("x/1", "a")}, [{"id": "q1"}], source="r.jsonl")


def test_report_is_json(tmp_path: Path) -> None:
    _, report = parse_wote_responses({"q1": _response("q1", "a\u2028b")}, [{"id": "q1"}])
    assert json.loads(json.dumps(report))["questions"][0]["text"] == "a\u2028b"


# --------------------------------------------------------------------------------------
# prompts -> run-llm (a scripted local server) -> parse -> evaluate
# --------------------------------------------------------------------------------------

#: The scripted model: question -> (content, finish_reason, reasoning_content).
SCRIPT = {
    "How long should it chill?": ('Answer: "30 minutes"', "stop", None),  # gold: EM 1, F1 1
    # "it doesn't need stock" against "doesn't need stock": EM 0, F1 2·(3/4)·1 / (7/4) = 6/7
    "Do I need stock?": (
        "<think>The description says so.</think>it doesn't need stock",
        "stop",
        None,
    ),
    "What do I put on the pin?": ("petroleum jelly", "stop", "Step 2 names it."),  # 0, 0
    # cut: unrecoverable (0, 0); with --allow-truncated "Tap the pin" against "Tap the pin
    # back in": tokens tap, pin of tap, pin, back, in: F1 2·1·(1/2) / (3/2) = 2/3
    "And then?": ("Tap the pin", "length", None),
    "Do I need a primer?": ("No", "stop", None),  # gold "No" (the word, not in "not"): 1, 1
}


def _question(body: dict[str, Any]) -> str:
    return body["messages"][-1]["content"].rsplit("Question: ", 1)[1]


class ScriptedServer(FakeServer):
    """The fake server answering :data:`SCRIPT`, with its finish reasons and reasoning."""

    def __init__(self) -> None:
        super().__init__(lambda body: SCRIPT[_question(body)][0], key=_question)

    def _reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        status, payload, headers = super()._reply(body)
        _, finish, reasoning = SCRIPT[_question(body)]
        choice = payload["choices"][0]
        choice["finish_reason"] = finish
        if reasoning is not None:
            choice["message"]["reasoning_content"] = reasoning
        return status, payload, headers


def _cli(*args: str, code: int = 0) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def wote_log(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("wote-e2e")
    data = ["--data-dir", str(WOTE_FIXTURE), "--cache-dir", str(folder / "cache"), "--no-checks"]
    requests, log = folder / "requests.jsonl", folder / "responses.jsonl"
    _cli("prompts", "--config", "wote", "--out", str(requests), *data)
    server = ScriptedServer()
    try:
        answer_requests(requests, log, server.url)
        bodies = list(server.bodies)
    finally:
        server.close()
    return {"folder": folder, "data": data, "requests": requests, "log": log, "bodies": bodies}


def test_requests_file_is_sent_unchanged(
    wote_log: dict[str, Any], wote_test: list[dict[str, Any]]
) -> None:
    lines = wote_log["requests"].read_text(encoding="utf-8").splitlines()
    written = [json.loads(line) for line in lines]
    assert written == build_wote_requests(wote_test)
    sent = sorted(wote_log["bodies"], key=lambda b: _question(b))
    expected = sorted((r["body"] for r in written), key=lambda b: _question(b))
    assert [{**b, "model": "fake"} for b in expected] == sent


@pytest.mark.parametrize(
    ("flags", "f1", "counts"),
    [
        ([], (2 + 6 / 7) / 5 * 100, {"repaired": 2, "clean": 2, "unrecoverable": 1}),
        (
            ["--allow-truncated"],
            (2 + 6 / 7 + 2 / 3) / 5 * 100,
            {"repaired": 2, "clean": 2, "truncated": 1},
        ),
    ],
)
def test_round_trip_scores(
    wote_log: dict[str, Any], tmp_path: Path, flags: list[str], f1: float, counts: dict
) -> None:
    """The 4 (5 with the cut one) predicted spans all occur in their task text."""
    predictions, results = tmp_path / "predictions.json", tmp_path / "results.json"
    data = wote_log["data"]
    _cli(
        "parse", str(wote_log["log"]), "--config", "wote", "--out", str(predictions), *flags, *data
    )
    written = json.loads(predictions.read_text())
    assert written[0] == {
        "id": "Wizard-of-Task-food-906/food-906-0",
        "prediction_text": "30 minutes",
    }
    assert [p["prediction_text"] for p in written[1:3]] == [
        "it doesn't need stock",
        "petroleum jelly",
    ]
    report = json.loads((tmp_path / "predictions.json.parse.json").read_text())
    assert {k: v for k, v in report["counts"].items() if v} == counts
    assert report["questions"][2]["reasoning"] == "Step 2 names it."
    assert report["config"] == "wote" and report["task"] == "spans"
    assert report["in_context"] == 4 + bool(flags)
    assert report["questions"][3]["in_context"] is (True if flags else None)
    _cli("evaluate", str(predictions), "--config", "wote", "--out", str(results), *data)
    scores = json.loads(results.read_text())["spans"]
    assert scores["exact_match"] == pytest.approx(40.0)
    assert scores["f1"] == pytest.approx(f1)


def test_wote_option_errors(wote_log: dict[str, Any], tmp_path: Path) -> None:
    """Each error names the option (or the question ids) and writes nothing."""
    data, out, log = wote_log["data"], tmp_path / "out.json", str(wote_log["log"])
    cases = [
        (["prompts", "--config", "wote", "--shots", "3"], "--shots"),
        (["prompts", "--config", "wote", "--prompt-style", "paper"], "--prompt-style"),
        (["prompts"], "--task"),  # the OCW configs need --task and --shots
        (["parse", log, "--config", "wote", "--mode", "paper"], "--mode"),
        (["parse", log, "--config", "wote", "--split", "train"], "Wizard-of-Task-food-906"),
    ]
    for args, named in cases:
        result = _cli(*args, "--out", str(out), *data, code=1)
        assert named in result.output
    assert not out.exists()


def test_plain_answer_lines(tmp_path: Path) -> None:
    from ocw_hub.llm.responses import read_responses

    path = tmp_path / "answers.jsonl"
    records = [
        {"id": "c/q1", "text": "'Stir'"},
        {"id": "c/q2", "text": "Whisk", "finish_reason": "length"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    predictions, report = parse_wote_responses(
        read_responses(path), [{"id": "c/q1"}, {"id": "c/q2"}]
    )
    assert predictions == [
        {"id": "c/q1", "prediction_text": "Stir"},
        {"id": "c/q2", "prediction_text": ""},
    ]
    assert report["unrecoverable"] == {"truncated": 1}
    path.write_text(json.dumps({"id": 7, "text": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(PredictionsError, match="field id"):
        read_responses(path)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_gold_answer_reads_back(wote_dir: Path, tmp_path: Path) -> None:
    """The 829 answers of the release, each given as the model's answer, plain and wrapped in
    a reasoning block and an ``Answer:`` prefix: every one reads back as itself."""
    from ocw_hub.data.sources import load_split

    golds = [
        row["answers"]["text"][0]
        for split in ("train", "validation", "test")
        for row in load_split("wote", split, wote_dir, cache_dir=tmp_path).to_list()
    ]
    assert len(golds) == 829
    for gold in golds:
        assert parse_wote_answer(gold) == SpanParse("clean", gold)
        wrapped = parse_wote_answer(f"<think>Step 2.</think>\nAnswer: {gold}")
        assert (wrapped.status, wrapped.prediction_text) == ("repaired", gold)


@pytest.mark.parametrize(
    ("span", "found"),
    [
        ("TAP  the\npin", True),
        ("pin back in and", True),
        ("Vaseline", False),
        ("tap-the pin", False),
    ],
)
def test_in_context(span: str, found: bool) -> None:
    assert in_context(span, "Wipe the pin.\nTap the pin back in and swing the door.") is found
