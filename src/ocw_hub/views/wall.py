"""One OCW wall (16 clues in 4 gold groups of 4, each with its connection and the contestants'
result), optionally with a predicted wall: the clues placed against the gold groups and the
wall's figures (AMI, ARI, FMS, WD, correct groups) by the metric's own code
(:func:`ocw_hub.resources.load_metric_module`). :mod:`.wall_render` draws it (terminal, HTML).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..configs import PathLike
from ..resources import load_metric_module
from .lookup import find_row, read_prediction


@dataclass(frozen=True)
class Group:
    """One gold group: 4 clues, the connection, and whether the contestants found them
    (``human_grouping``, ``human_connection``: 1 found, 0 not, None not recorded)."""

    clues: tuple[str, ...]
    connection: str
    human_grouping: int | None = None
    human_connection: int | None = None


@dataclass(frozen=True)
class PlacedClue:
    """A clue of a predicted row: its gold group (0-3, None when the clue is not in the wall)
    and whether it is misplaced (its gold group is not the one matched to its row)."""

    clue: str
    gold: int | None
    misplaced: bool


@dataclass(frozen=True)
class Wall:
    """One OCW wall, optionally with a prediction; ``rich`` and Jupyter draw it.

    Attributes:
        wall_id, season, episode: as in the dataset.
        words: the 16 clues in the dataset's order.
        groups: the 4 gold groups in gold group order.
        predicted_groups: 4 predicted groups of 4 clues (any order), or None.
        predicted_connections: 4 predicted connections in gold group order, or None.
        config, split: where the wall was read, for the heading (optional).
    """

    wall_id: str
    season: int | None
    episode: int | None
    words: tuple[str, ...]
    groups: tuple[Group, ...]
    predicted_groups: tuple[tuple[str, ...], ...] | None = None
    predicted_connections: tuple[str, ...] | None = None
    config: str | None = None
    split: str | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_row(
        cls,
        row: Mapping[str, Any],
        prediction: Any = None,
        *,
        config: str | None = None,
        split: str | None = None,
    ) -> Wall:
        """A wall from a row as the OCW builders yield it (``wall_id``, ``season``,
        ``episode``, ``words``, ``groups.group_1..group_4``), with an optional prediction: a
        :class:`ocw_hub.scoring.predictions.WallPrediction` or a dict in the official format
        (``{"predicted_groups": 4 lists of 4 | None, "predicted_connections": 4 strings |
        None}``).

        Raises:
            ValueError: the prediction's groups are not 4 lists of 4 clue strings (the metric's
                check, naming the position).
        """
        groups = []
        for key in sorted(row["groups"]):
            group = row["groups"][key]
            human = group.get("human_performance") or {}
            groups.append(
                Group(
                    clues=tuple(str(c) for c in group["gt_words"]),
                    connection=str(group["gt_connection"]),
                    human_grouping=human.get("grouping"),
                    human_connection=human.get("connection"),
                )
            )
        wall = cls(
            wall_id=str(row["wall_id"]),
            season=row.get("season"),
            episode=row.get("episode"),
            words=tuple(str(w) for w in row["words"]),
            groups=tuple(groups),
            config=config,
            split=split,
        )
        if prediction is None:
            return wall
        if isinstance(prediction, Mapping):
            predicted = prediction.get("predicted_groups")
            connections = prediction.get("predicted_connections")
        else:
            predicted, connections = prediction.groups, prediction.connections
        return wall.with_prediction(predicted, connections)

    def with_prediction(
        self,
        predicted_groups: Sequence[Sequence[str]] | None,
        predicted_connections: Sequence[str] | None = None,
    ) -> Wall:
        """The same wall with a prediction (either part may be None).

        Raises:
            ValueError: groups that are not 4 lists of 4 clue strings, or connections that are
                not 4 strings (the metric's checks, naming the position).
        """
        code = load_metric_module("inputs")
        groups = None
        if predicted_groups is not None:
            checked = code.validate_wall(predicted_groups, f"wall {self.wall_id}: predicted_groups")
            groups = tuple(tuple(g) for g in checked)
        connections = None
        if predicted_connections is not None:
            where = f"wall {self.wall_id}: predicted_connections"
            connections = tuple(code.validate_connections(predicted_connections, where))
        return replace(self, predicted_groups=groups, predicted_connections=connections, _cache={})

    @property
    def gold(self) -> list[list[str]]:
        """The gold wall: 4 groups of 4 clues, in gold group order."""
        return [list(g.clues) for g in self.groups]

    @property
    def scores(self) -> dict[str, Any] | None:
        """The predicted wall's figures from the metric's ``score_wall`` (``wd`` 0-1 lower is
        better; ``ami``, ``ari``, ``fms`` at most 1; ``correct_groups`` 0-4; ``full_wall``), or
        None without predicted groups."""
        if self.predicted_groups is None:
            return None
        if "scores" not in self._cache:
            self._cache["scores"] = load_metric_module("grouping").score_wall(
                [list(g) for g in self.predicted_groups], self.gold
            )
        return self._cache["scores"]

    def placed(self) -> list[list[PlacedClue]]:
        """The predicted rows, each clue with its gold group and whether it is misplaced
        (4 rows of 4; empty without predicted groups).

        A clue's gold group is the metric's label for it (``predicted_labels`` of the metric
        code, which also settles clues held by two gold groups). Each predicted row is matched
        to one gold group, one to one, maximising the clues in place
        (:func:`ocw_hub.scoring.groups.match_groups`, as the results' ``misplaced_clues``); a
        row equal to a gold group is always matched to it. A clue is misplaced when its gold
        group is not its row's match.
        """
        if self.predicted_groups is None:
            return []
        if "placed" not in self._cache:
            labels = _gold_labels(self.predicted_groups, self.gold)
            match = _match_rows(labels)
            self._cache["placed"] = [
                [
                    PlacedClue(clue, label, label != match[p])
                    for clue, label in zip(group, labels[p], strict=True)
                ]
                for p, group in enumerate(self.predicted_groups)
            ]
            self._cache["match"] = match
        return self._cache["placed"]

    def row_matches(self) -> list[int]:
        """The gold group (0-3) matched to each predicted row (see :meth:`placed`)."""
        self.placed()
        return list(self._cache.get("match", []))

    @property
    def title(self) -> str:
        """``wall ID · season S, episode E · config/split`` (the parts that are known)."""
        parts = [f"wall {self.wall_id}"]
        if self.season is not None:
            parts.append(
                f"season {self.season}"
                + (f", episode {self.episode}" if self.episode is not None else "")
            )
        if self.config:
            parts.append(f"{self.config}/{self.split}" if self.split else self.config)
        return " · ".join(parts)

    def __rich__(self) -> Any:
        from .wall_render import wall_renderable

        return wall_renderable(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_html(self) -> str:
        """The wall as a self-contained HTML snippet (inline styles, no script)."""
        from .wall_render import wall_html

        return wall_html(self)


def _gold_labels(
    predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]
) -> list[list[int | None]]:
    """Gold group (0-3, None if not in the wall) of each predicted clue, in the prediction's
    own order (:func:`ocw_hub.scoring.groups.gold_labels`, as the scores' ``groups``)."""
    from ..scoring.groups import gold_labels

    return gold_labels(predicted, gold)


def _match_rows(labels: Sequence[Sequence[int | None]]) -> list[int]:
    """One gold group per predicted row, one to one, maximising clues in place
    (:func:`ocw_hub.scoring.groups.match_groups`)."""
    from ..scoring.groups import match_groups

    return match_groups(labels)


def wall(
    config: str,
    split: str,
    wall_id: str,
    *,
    data_dir: PathLike | None = None,
    predictions: PathLike | None = None,
    cache_dir: PathLike | None = None,
    verification_mode: str | None = None,
) -> Wall:
    """One wall of a split as a :class:`Wall` (shown as a grid in Jupyter), with its prediction
    from a predictions file when one is given.

    The split is read with :func:`ocw_hub.data.sources.load_rows` (``data_dir``: raw files, an
    export folder or a Hub id; default the prepared cache, else the official download);
    ``verification_mode="no_checks"`` reads a copy whose split sizes are not the official ones.

    Raises:
        UnknownIdError: the split has no wall ``wall_id``.
        PredictionsError: the predictions file cannot be read.
        SourceUnavailableError: see :func:`ocw_hub.data.sources.load_split`.
    """
    from ..data.sources import load_rows

    rows = load_rows(
        config, split, data_dir, cache_dir=cache_dir, verification_mode=verification_mode
    ).rows
    row = find_row(rows, wall_id, config, split)
    prediction = read_prediction(predictions, config, wall_id) if predictions else None
    return Wall.from_row(row, prediction, config=config, split=split)
