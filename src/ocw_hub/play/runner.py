"""``ocw-hub play``: every wall of a split played against OpenAI-compatible servers, one
conversation per wall, logged as a play log (:mod:`ocw_hub.play.log`).

The walls are played in rounds: each round sends the next request of every wall still in
play (one turn, or the connection round) through :func:`ocw_hub.llm.client.send_batch` (the
retries, deadline, failover and per-server concurrency of ``run-llm``), then writes the
round's records in the split's order. So the log is the same for the same answers whatever
the servers' timing, and a re-run resumes every unfinished wall from its last record (a round
cut by a kill is sent again; a finished wall is never sent again). A wall whose request
failed (after the retries) is left unfinished for a re-run; when the servers cannot be
used (``LLMServerError``) the answers of the round that came before are written first. One
run per log, under ``run-llm``'s lock (:func:`ocw_hub.llm.log.exclusive_log`).

Records add the optional fields ``text`` (the raw answer), ``finish_reason`` and ``usage``
(the server's token counts) to the contract; the requests themselves are not logged: they are
rebuilt from the log (:mod:`ocw_hub.play.conversation`), as a resumed run does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlayLogError
from ..llm.answer_text import content_text
from ..llm.client import LLMServerError, send_batch
from ..llm.log import LogWriter, exclusive_log, is_success, partial_tail
from .log import VERSION, read_play_log
from .turns import WallPlay, take_answer

#: Header fields a resumed log must share with the run (the rest may differ).
SAME_RUN = (
    "rules",
    "max_guesses",
    "max_invalid",
    "config",
    "split",
    "player",
    "max_tokens",
    "walls",
    "profile",
    "generation",
    "accepted_models",
)


@dataclass
class PlaySummary:
    """What :func:`play_walls` did: ``walls`` in the split, ``already_done`` (finished
    before this run), ``finished`` (by this run), ``requests`` sent and answered,
    ``failures`` (``(wall_id, message)``: left unfinished), the token counts the servers
    reported."""

    walls: int
    already_done: int = 0
    finished: int = 0
    requests: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


def _answer(line: Mapping[str, Any]) -> tuple[str, str | None, dict[str, Any]]:
    """(text, finish_reason, usage) of an answered line."""
    body = line["response"]["body"]
    choice = body["choices"][0]
    text = content_text(choice.get("message", {}).get("content")) or ""
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    keep = {k: usage[k] for k in ("prompt_tokens", "completion_tokens") if k in usage}
    return text, choice.get("finish_reason"), keep


def _header(header: Mapping[str, Any]) -> dict[str, Any]:
    return {"record": "play", "version": VERSION, **header}


def _check_resumed(path: Path, logged: Mapping[str, Any], header: Mapping[str, Any]) -> None:
    from .generation import with_implied_fields

    if logged.get("version") != VERSION:  # played by other rules (log.VERSIONS)
        raise PlayLogError(
            f"{path}: line 1: field version: the log is of version {logged.get('version')}, "
            f"this run writes {VERSION}: write to another file"
        )
    logged = with_implied_fields(logged)  # a log from before profiles: the paper's fields
    for name in SAME_RUN:
        if logged.get(name) != header.get(name):
            raise PlayLogError(
                f"{path}: line 1: field {name}: the log was played with {logged.get(name)!r}, "
                f"this run asks for {header.get(name)!r}: write to another file"
            )


@dataclass(frozen=True)
class Server:
    """Where and how requests are sent (``send_batch``'s arguments)."""

    base_urls: Sequence[str]
    model: str
    concurrency: int = 4
    max_retries: int = 5
    timeout: float = 600.0
    max_tokens_field: str | None = None
    seed: int | None = None
    max_tokens: int = 144
    #: The generation fields of every request (:func:`ocw_hub.play.generation.play_fields`);
    #: None: the paper's, ``max_tokens`` and ``temperature`` 0 (and ``seed`` when given).
    fields: Mapping[str, Any] | None = None
    #: Other names the model may answer as (``--accept-model``).
    accept_models: Sequence[str] = ()

    def body_fields(self) -> dict[str, Any]:
        """The generation fields sent in every request, in body order."""
        if self.fields is not None:
            return dict(self.fields)
        body: dict[str, Any] = {"max_tokens": self.max_tokens, "temperature": 0}
        if self.seed is not None:
            body["seed"] = self.seed
        return body


def play_walls(
    walls: Sequence[Mapping[str, Any]],
    log_path: str | os.PathLike[str],
    header: Mapping[str, Any],
    server: Server,
    *,
    on_round: Callable[[int, int], None] | None = None,
) -> PlaySummary:
    """Play ``walls`` (rows of a split) into the play log at ``log_path`` (created, or
    resumed when it exists).

    Args:
        header: the header's fields but ``record`` and ``version`` (``rules``,
            ``max_guesses``, ``max_invalid``, ``config``, ``split``, ``player``,
            ``player_kind``, ``max_tokens``, ...).
        on_round: called after each round with (walls finished in all, walls).

    Raises:
        PlayLogError: the log is another run's (another header) or cannot be replayed.
        OutputPathError: another run is writing the log.
        LLMServerError: as ``run-llm`` (records written before stay in the log).
    """
    path = Path(log_path)
    with exclusive_log(path):
        cut = partial_tail(path)  # cut only once the file is known to be this run's log
        if cut == 0:  # nothing but a header cut by a crash
            _truncate(path, cut)
        played = [WallPlay(row, header) for row in walls]
        summary = PlaySummary(walls=len(played))
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            log = read_play_log(path)
            if not log.walls:  # a header alone (the first round failed): nothing played yet
                _truncate(path, 0)
                fresh = True
        if not fresh:
            _check_resumed(path, log.header, header)
            known = {w.id for w in played}
            foreign = sorted(set(log.walls) - known)
            if foreign:
                raise PlayLogError(f"{path}: wall {foreign[0]} is not a wall of this split")
            for wall in played:
                if wall.id in log.walls:
                    wall.resume(path, log.walls[wall.id])
            if cut is not None:
                _truncate(path, cut)
        summary.already_done = sum(w.done for w in played)
        with LogWriter(path) as writer:
            if fresh:
                writer.write(_header(header))
            _rounds(played, writer, server, summary, on_round)
    return summary


def _truncate(path: Path, size: int) -> None:
    with path.open("r+b") as handle:
        handle.truncate(size)


def _request(wall: WallPlay, server: Server) -> dict[str, Any]:
    kind = "connections" if wall.state.ended is not None else str(wall.turn + 1)
    body: dict[str, Any] = {"messages": list(wall.messages), **server.body_fields()}
    return {"custom_id": f"{wall.id}:{kind}", "body": body}


def _rounds(
    played: list[WallPlay],
    writer: LogWriter,
    server: Server,
    summary: PlaySummary,
    on_round: Callable[[int, int], None] | None,
) -> None:
    field_name, auto = server.max_tokens_field, server.max_tokens_field is None
    for wall in played:  # a kill between the connections and the end record
        if not wall.done and wall.state.ended is not None and not wall.wants_connections:
            _end(wall, writer, summary)
    active = [w for w in played if not w.done]
    while active:
        requests = [_request(w, server) for w in active]
        field_name = _send_round(active, requests, server, (field_name, auto), writer, summary)
        active = [w for w in active if not w.done]
        if on_round is not None:
            on_round(summary.already_done + summary.finished, summary.walls)


def _send_round(
    active: Sequence[WallPlay],
    requests: Sequence[Mapping[str, Any]],
    server: Server,
    field_setting: tuple[str | None, bool],
    writer: LogWriter,
    summary: PlaySummary,
) -> str | None:
    """Send one round and write its records; on a server error, write the answers that came
    before it, then raise it. Returns the token-limit name to send next."""
    lines: dict[str, dict[str, Any]] = {}
    try:
        _, field_name = send_batch(
            requests,
            base_url=list(server.base_urls),
            model=server.model,
            concurrency=server.concurrency,
            max_retries=server.max_retries,
            timeout=server.timeout,
            max_tokens_field=field_setting[0],
            auto_field=field_setting[1],
            into=lines,
            accept_models=server.accept_models,
        )
    except LLMServerError:
        answered = [
            (w, r) for w, r in zip(active, requests, strict=True) if r["custom_id"] in lines
        ]
        _record_round([w for w, _ in answered], [r for _, r in answered], lines, writer, summary)
        raise
    _record_round(active, requests, lines, writer, summary)
    return field_name


def _record_round(
    active: Sequence[WallPlay],
    requests: Sequence[Mapping[str, Any]],
    lines: Mapping[str, Mapping[str, Any]],
    writer: LogWriter,
    summary: PlaySummary,
) -> None:
    """Write a round's records in the split's order; a failed wall waits for a re-run."""
    for wall, request in zip(active, requests, strict=True):
        line = lines.get(request["custom_id"])
        refused = None if line is None else _refused(line)
        if line is not None and refused is not None:  # no guess: the rules count it
            summary.requests += 1
            _write(take_answer(wall, "", refused, {}), writer, summary)
            continue
        if line is None or not is_success(line):
            error = line.get("error") if line is not None else None
            message = (error or {}).get("message", "no answer")
            summary.failures.append((wall.id, str(message)))
            wall.done = True  # for this run: a re-run sends it again
            continue
        summary.requests += 1
        _take(wall, line, writer, summary)


def _refused(line: Mapping[str, Any]) -> str | None:
    """Why an answer is no answer the model will ever give this conversation, else None: a
    request refused for itself (its prompt too long for the model's context, a content
    policy: ``error.scope`` ``request``), or an answer ended by the content filter. Sent
    again it fails alike, so it is an answer with no guess (``request_failed``,
    ``content_filter``), which the rules count, not a wall left unfinished for ever."""
    from ..llm.client import is_request_failure
    from ..llm.responses import first_choice

    if is_request_failure(line):
        return "request_failed"
    return "content_filter" if first_choice(line).get("finish_reason") == "content_filter" else None


def _take(wall: WallPlay, line: Mapping[str, Any], writer: LogWriter, summary: PlaySummary) -> None:
    """Write the records of one answer and advance the wall."""
    text, finish, usage = _answer(line)
    summary.prompt_tokens += int(usage.get("prompt_tokens", 0))
    summary.completion_tokens += int(usage.get("completion_tokens", 0))
    _write(take_answer(wall, text, finish, {"usage": usage}), writer, summary)


def _write(records: list[dict[str, Any]], writer: LogWriter, summary: PlaySummary) -> None:
    """Write the records of one answer; count the walls they end."""
    for record in records:
        writer.write(record)
        summary.finished += record["record"] == "end"


def _end(wall: WallPlay, writer: LogWriter, summary: PlaySummary) -> None:
    _write([wall.end_record()], writer, summary)
