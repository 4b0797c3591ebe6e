"""Re-prompting an invalid answer (``inspect eval ocw_hub/ocw_grouping -T reprompt=N``; the
paper's default is 0, no re-prompt; Missed Connections re-prompts up to 5 times).

An answer is invalid when robust parsing (:func:`.responses.parse_wall`, the style's answer
block) finds it ``unrecoverable`` (no partition of the 16 clues, 3 groups, a clue twice, a
truncated answer, ...). Follow-up ``k`` (1 ... N) is the conversation so far with the
assistant's answer and a user message of the package's own text, :func:`follow_up_text`: the
reason code and a fixed sentence (:data:`REASON_SENTENCES`); no server text goes into it.
:data:`FOLLOW_UP_VERSION` names that text; it is recorded with N in the protocol record, so
runs with another N or another text are other protocols.
"""

from __future__ import annotations

#: The version of :func:`follow_up_text` (recorded as ``follow_up_version``).
FOLLOW_UP_VERSION = 1

#: The fixed sentence said for each reason of an unrecoverable answer.
REASON_SENTENCES = {
    "no_answer": "no groups of clues were found in it",
    "refusal": "it gave no answer",
    "reasoning_only": "it held reasoning but no answer",
    "unclosed_reasoning": "it ended inside its reasoning",
    "truncated": "it was cut at the token limit",
    "group_count": "it did not give exactly four groups",
    "group_size": "a group did not hold exactly four clues",
    "duplicate": "a clue was given twice",
    "unknown_item": "it named an item that is not one of the clues",
    "ambiguous_item": "an item could be more than one clue",
    "incomplete": "it ended before it was complete",
    "no_final_answer": "it had no final answer block",
    "invalid_json": "its answer was not valid JSON",
    "schema_mismatch": "its JSON did not have the asked shape",
}
_OTHER = "it could not be read"


def follow_up_text(reason: str | None) -> str:
    """The user message of a follow-up: the package's text only (the reason code, when it
    is one of :data:`REASON_SENTENCES`, and its sentence)."""
    code = reason if reason in REASON_SENTENCES else "unreadable"
    sentence = REASON_SENTENCES.get(code, _OTHER)
    return (
        f"Your answer could not be used ({code}: {sentence}). Answer again, in exactly the "
        "format asked for above."
    )
