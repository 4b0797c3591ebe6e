"""Intervals in ``ocw-hub evaluate`` (ci95 beside every headline figure, the two-level
bootstrap over runs), evaluate's refusal to blend systems, and ``ocw-hub compare`` (ranking,
paired p-values, formats, sources), on a hand-made release of 60 test walls. Runs from a
plain clone (no ../shared)."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from ocw_hub.baselines.protocol import random_groups
from ocw_hub.cli import app
from ocw_hub.evaluation import evaluate_files
from ocw_hub.scoring import binomial, bootstrap
from ocw_hub.scoring.compare import compare_systems

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

N_TEST = 60


def _wall(n: int) -> dict:
    """Wall ``w<n>``: group g holds clues "w<n>g<g>c<c>"; the contestants found a pattern of
    groups that changes with n (so their figures vary over walls)."""
    groups = {
        f"group_{g}": {
            "group_id": f"w{n}-{g}",
            "gt_words": [f"w{n}g{g}c{c}" for c in range(1, 5)],
            "gt_connection": f"connection {g} of wall {n}",
            "human_performance": {"grouping": int((n + g) % 3 != 0), "connection": int(g == 1)},
        }
        for g in range(1, 5)
    }
    return {
        "wall_id": f"w{n}",
        "season": 1 + n % 3,
        "episode": n + 1,
        "words": [c for group in groups.values() for c in group["gt_words"]][::-1],
        "gt_connections": [g["gt_connection"] for g in groups.values()],
        "groups": groups,
        "overall_human_performance": {
            "grouping": [g["human_performance"]["grouping"] for g in groups.values()],
            "connections": [g["human_performance"]["connection"] for g in groups.values()],
        },
    }


WALLS = {"train": [0, 1], "validation": [2], "test": list(range(3, 3 + N_TEST))}
TEST_WALLS = [_wall(n) for n in WALLS["test"]]


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release") / "dataset"
    root.mkdir()
    for split, numbers in WALLS.items():
        payload = {"season_to_walls_map": {}, "dataset": [_wall(n) for n in numbers]}
        (root / f"{split}.json").write_text(json.dumps(payload), encoding="utf-8")
    return root


def _perfect(wall: dict) -> dict:
    return {
        "wall_id": wall["wall_id"],
        "predicted_groups": [g["gt_words"][::-1] for g in wall["groups"].values()][::-1],
        "predicted_connections": list(wall["gt_connections"]),
    }


def _swapped(wall: dict) -> dict:
    """Clue 0 of groups 1 and 2 swapped (2 correct groups); connection 4 wrong."""
    pred = _perfect(wall)
    groups = [list(g["gt_words"]) for g in wall["groups"].values()]
    groups[0][0], groups[1][0] = groups[1][0], groups[0][0]
    pred["predicted_groups"] = groups
    pred["predicted_connections"] = [*wall["gt_connections"][:3], "wrong"]
    return pred


def _random(wall: dict, seed: int) -> dict:
    """A uniform random partition (the random baseline's draw) and wrong connections."""
    groups = random_groups(wall["words"], random.Random(f"{seed}:{wall['wall_id']}"))
    return {
        "wall_id": wall["wall_id"],
        "predicted_groups": groups,
        "predicted_connections": ["?"] * 4,
    }


def _write(path: Path, predictions: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(predictions), encoding="utf-8")
    return path


def _invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _data(release: Path, cache: Path) -> list[object]:
    return ["--data-dir", release, "--cache-dir", cache, "--no-checks"]


def _scored(out: Path, *args: object) -> dict:
    """``evaluate ARGS --out OUT`` (it must succeed): the results JSON."""
    result = _invoke("evaluate", *args, "--out", out)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


# -- evaluate: ci95 --------------------------------------------------------------------------


def test_every_headline_figure_has_its_interval(tmp_path: Path, release: Path, cache: Path) -> None:
    preds = [(_swapped if i % 2 else _perfect)(w) for i, w in enumerate(TEST_WALLS)]
    preds[5] = _random(TEST_WALLS[5], 1)
    path = _write(tmp_path / "p.json", preds)
    out = tmp_path / "r.json"
    result = _invoke("evaluate", path, "--out", out, "--bootstrap", 500, *_data(release, cache))
    assert result.exit_code == 0, result.output
    res = json.loads(out.read_text())
    method = res["bootstrap"].pop("method")
    assert res["bootstrap"] == {
        "resamples": 500,
        "seed": 0,
        "confidence": 0.95,
        "resampled": "walls",
    }
    for task in ("grouping", "connections"):
        figures = {k for k in res[task] if k != "n_walls"}
        assert set(res["ci95"][task]) == figures == set(method[task])
    counted = "clopper-pearson, effective n over walls"
    assert method["grouping"] == {
        "wd": "percentile",
        "ami": "percentile",
        "ari": "percentile",
        "fms": "percentile",
        "full_wall": "clopper-pearson",
        "full_wall_rate": "clopper-pearson",
        "correct_groups": counted,
        "correct_groups_rate": counted,
    }
    assert method["connections"]["exact_match"] == counted
    assert method["connections"]["rouge1"] == "percentile"
    assert method["human"]["full_wall_rate"] == "clopper-pearson"
    # the same interval by hand from the per-wall values: means, rates and totals
    per_wall = res["per_wall"]
    ami = [w["grouping"]["ami"] for w in per_wall]
    assert res["ci95"]["grouping"]["ami"] == pytest.approx(bootstrap.bootstrap_ci(ami, 500, 0))
    groups = [w["grouping"]["correct_groups"] for w in per_wall]
    low, high = map(float, binomial.rate_interval(groups, 4))  # counted: not resampled
    assert res["ci95"]["grouping"]["correct_groups"] == pytest.approx(
        [N_TEST * low * 4, N_TEST * high * 4]
    )
    assert res["ci95"]["grouping"]["correct_groups_rate"] == pytest.approx([low, high])
    full = [w["grouping"]["full_wall"] for w in per_wall]
    ci = stats.binomtest(int(sum(full)), N_TEST).proportion_ci(method="exact")
    assert res["ci95"]["grouping"]["full_wall_rate"] == pytest.approx([ci.low, ci.high])
    rouge = [w["connections"]["rouge1"] for w in per_wall]
    assert res["ci95"]["connections"]["rouge1"] == pytest.approx(
        bootstrap.bootstrap_ci(rouge, 500, 0)
    )
    found = [w["human"]["correct_groups"] for w in per_wall]
    low, high = map(float, binomial.rate_interval(found, 4))
    assert res["ci95"]["human"]["correct_groups"] == pytest.approx(
        [N_TEST * 4 * low, N_TEST * 4 * high]
    )
    for task in ("grouping", "connections"):  # each figure inside its interval here
        for key, (lo, hi) in res["ci95"][task].items():
            assert lo - 1e-12 <= res[task][key] <= hi + 1e-12, (task, key)
    # shown as value [low, high]
    lo, hi = res["ci95"]["grouping"]["ami"]
    assert f"{res['grouping']['ami']:.4f} [{lo:.4f}, {hi:.4f}]" in result.output
    # --bootstrap 0: no interval, the paper's figures unchanged
    plain = tmp_path / "plain.json"
    again = _invoke("evaluate", path, "--out", plain, "--bootstrap", 0, *_data(release, cache))
    assert again.exit_code == 0, again.output
    without = json.loads(plain.read_text())
    assert "ci95" not in without and "bootstrap" not in without
    assert without["grouping"] == res["grouping"] and without["per_wall"] == res["per_wall"]
    assert "[" not in "".join(line for line in again.output.splitlines() if "ami" in line)


def test_runs_get_the_two_level_interval(tmp_path: Path, release: Path, cache: Path) -> None:
    folder = tmp_path / "runs"  # one folder of runs, no record: one system
    for s in range(3):
        _write(folder / f"run-{s:02d}.json", [_random(w, s) for w in TEST_WALLS])
    res = evaluate_files(
        [folder],
        "default",
        "test",
        release,
        cache_dir=cache,
        verification_mode="no_checks",
        bootstrap=400,
        bootstrap_seed=5,
    )
    assert (
        res["n_runs"] == 3 and res["bootstrap"]["resampled"] == "walls, then runs within each wall"
    )
    cube = np.array(
        [[run["per_wall"][i]["grouping"]["ami"] for run in res["runs"]] for i in range(N_TEST)]
    )
    walls, runs = bootstrap.run_indices(N_TEST, 3, 400, seed=5)
    expected = bootstrap.percentile_interval(bootstrap.two_level_means(cube, walls, runs))
    assert res["ci95"]["grouping"]["ami"] == pytest.approx(list(expected), abs=1e-15)
    assert res["mean"]["grouping"]["ami"] == pytest.approx(cube.mean())
    assert all("ci95" not in run for run in res["runs"])  # the interval is of the mean
    found = [w["human"]["correct_groups"] for w in res["runs"][0]["per_wall"]]
    low, high = map(float, binomial.rate_interval(found, 4))  # the first run's walls
    assert res["ci95"]["human"]["correct_groups"] == pytest.approx(
        [N_TEST * 4 * low, N_TEST * 4 * high]
    )
    # a rate of the mean over runs: each wall's successes over its 3 runs, clustered by wall
    full = np.array(
        [
            [run["per_wall"][i]["grouping"]["full_wall"] for run in res["runs"]]
            for i in range(N_TEST)
        ]
    )
    low, high = map(float, binomial.rate_interval(full.sum(1), 3))
    assert res["ci95"]["grouping"]["full_wall_rate"] == pytest.approx([low, high])
    assert high > 0  # random groupings solve no wall: a rate of 0, not a point


# -- evaluate: no blending -------------------------------------------------------------------


def test_evaluate_refuses_to_blend_two_methods(tmp_path: Path, release: Path, cache: Path) -> None:
    for method in ("random", "embedding"):
        made = _invoke(
            "predict",
            "--method",
            method,
            "--runs",
            "1",
            "--out",
            tmp_path / method,
            *_data(release, cache),
        )
        assert made.exit_code == 0, made.output
    files = [tmp_path / m / "run-00.json" for m in ("random", "embedding")]
    result = _invoke("evaluate", *files, *_data(release, cache))
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert message.startswith("error:") and len(result.output.strip().splitlines()) == 1
    assert str(files[0]) in message and str(files[1]) in message
    assert "ocw-hub compare" in message and "--as-runs" in message
    blended = _invoke("evaluate", *files, "--as-runs", *_data(release, cache))
    assert blended.exit_code == 0, blended.output


def test_runs_of_one_protocol_are_scored_together(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    # two folders of the random baseline with different seeds: one protocol, other seed
    for seed in (1, 2):
        made = _invoke(
            "predict",
            "--method",
            "random",
            "--runs",
            "2",
            "--seed",
            seed,
            "--out",
            tmp_path / f"s{seed}",
            *_data(release, cache),
        )
        assert made.exit_code == 0, made.output
    out = tmp_path / "r.json"
    result = _invoke(
        "evaluate", tmp_path / "s1", tmp_path / "s2", "--out", out, *_data(release, cache)
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["n_runs"] == 4
    # hand-made files without records: refused, unless --as-runs
    a = _write(tmp_path / "a.json", [_perfect(w) for w in TEST_WALLS])
    b = _write(tmp_path / "b.json", [_swapped(w) for w in TEST_WALLS])
    refused = _invoke("evaluate", a, b, *_data(release, cache))
    assert refused.exit_code == 1 and "no protocol record" in refused.output
    assert _invoke("evaluate", a, b, "--as-runs", *_data(release, cache)).exit_code == 0


# -- compare ---------------------------------------------------------------------------------


def _systems(tmp_path: Path) -> list[Path]:
    return [
        _write(tmp_path / "random.json", [_random(w, 3) for w in TEST_WALLS]),
        _write(tmp_path / "perfect.json", [_perfect(w) for w in TEST_WALLS]),
        _write(tmp_path / "swapped.json", [_swapped(w) for w in TEST_WALLS]),
    ]


def test_compare_ranks_perfect_swapped_random(tmp_path: Path, release: Path, cache: Path) -> None:
    random_file, perfect, swapped = _systems(tmp_path)
    results = tmp_path / "swapped-results.json"  # a results file is a system too
    scored = _invoke("evaluate", swapped, "--out", results, *_data(release, cache))
    assert scored.exit_code == 0, scored.output
    result = _invoke(
        "compare", random_file, perfect, results, "--format", "json", *_data(release, cache)
    )
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    assert table["figure"] == "ami" and table["bootstrap"]["resamples"] == 10_000
    rows = table["systems"]
    assert [r["system"] for r in rows] == [str(perfect), str(results), str(random_file)]
    best, second, last = rows
    assert best["value"] == 1.0 and best["ci95"] == [1.0, 1.0] and best["p_value"] is None
    # every wall swapped alike: one AMI on every wall, an interval of one point
    assert second["ci95"] == pytest.approx([second["value"]] * 2)
    # perfect is better on every wall: no resample comes near 0, the least p-value
    assert last["p_value"] == pytest.approx(1 / 10_001) and last["p_value"] < 0.001
    assert second["p_value"] < 0.001
    assert all(r["in_common"] == N_TEST and r["missing"] == 0 for r in rows)
    # the contestants as a row where the dataset records the figure
    by_groups = _invoke(
        "compare",
        random_file,
        perfect,
        swapped,
        "--by",
        "correct_groups",
        "--format",
        "json",
        *_data(release, cache),
    )
    rows = json.loads(by_groups.output)["systems"]
    assert [r["system"] for r in rows][0] == str(perfect)
    contestants = next(r for r in rows if r["system"] == "contestants")
    total = sum(
        g["human_performance"]["grouping"] for w in TEST_WALLS for g in w["groups"].values()
    )
    assert contestants["value"] == total
    assert rows[0]["value"] == 4 * N_TEST


def test_compare_formats(tmp_path: Path, release: Path, cache: Path) -> None:
    files = _systems(tmp_path)
    args = [*files, "--bootstrap", 200, "--by", "wd", *_data(release, cache)]
    markdown = _invoke("compare", *args, "--format", "markdown")
    assert markdown.exit_code == 0, markdown.output
    lines = markdown.output.strip().split("\n\n")[0].splitlines()  # then the source lines
    assert len(lines) == 2 + 3 and lines[1].startswith("| --- |")
    assert lines[0].split("|")[3].strip() == "wd (lower is better)"
    assert str(files[1]) in lines[2]  # perfect first: WD 0
    table = list(csv.reader(io.StringIO(_invoke("compare", *args, "--format", "csv").output)))
    assert len(table) == 4 and table[0][1] == "system" and table[1][0] == "1"
    shown = _invoke("compare", *args)
    assert shown.exit_code == 0 and "ranked by wd" in shown.output
    bad = _invoke("compare", *args, "--format", "html")
    assert bad.exit_code == 1 and "--format html" in bad.output
    unknown = _invoke("compare", *files, "--by", "bleu", *_data(release, cache))
    assert unknown.exit_code == 1 and "--by bleu" in unknown.output


def test_compare_refuses_other_splits_unless_told(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    test_file = tmp_path / "test.json"
    _invoke("evaluate", _systems(tmp_path)[1], "--out", test_file, *_data(release, cache))
    validation = _write(tmp_path / "val.json", [_perfect(_wall(2))])
    val_file = tmp_path / "val-results.json"
    scored = _invoke(
        "evaluate", validation, "--split", "validation", "--out", val_file, *_data(release, cache)
    )
    assert scored.exit_code == 0, scored.output
    refused = _invoke("compare", test_file, val_file)
    assert refused.exit_code == 1 and "--allow-different-sources" in refused.output
    allowed = _invoke(
        "compare", test_file, val_file, "--allow-different-sources", "--format", "json"
    )
    assert allowed.exit_code == 0, allowed.output
    rows = json.loads(allowed.output)["systems"]
    assert rows[1]["in_common"] == 0 and rows[1]["p_value"] is None


def test_two_random_systems_are_rarely_told_apart(tmp_path: Path) -> None:
    """40 pairs of random prediction sets (different seeds) on 60 walls: the paired test at
    level 0.05 finds no difference in most pairs. The sign-flip test is exact: under the null
    P(p <= 0.05) <= 0.05, so P(p > 0.05) is q >= 0.95. Asking for at least 32 of 40 (80 %)
    fails a correct test with probability at most P(Binomial(40, 0.95) < 32), computed below
    (about 1e-4)."""
    q = 0.95
    p_fail = sum(math.comb(40, k) * q**k * (1 - q) ** (40 - k) for k in range(32))
    assert p_fail < 1e-3

    def score(path: Path) -> dict:  # the split given as rows: nothing to load
        return evaluate_files([path], "default", rows=TEST_WALLS, bootstrap=0)

    kept = 0
    for pair in range(40):
        files = [
            _write(tmp_path / f"random-{seed}.json", [_random(w, seed) for w in TEST_WALLS])
            for seed in (2 * pair + 100, 2 * pair + 101)
        ]
        table = compare_systems(files, score, n_resamples=2000)
        assert len(table["systems"]) == 2  # no contestants' row for AMI
        kept += table["systems"][1]["p_value"] > 0.05
    assert kept >= 32


def test_wote_questions_get_intervals_and_compare(tmp_path: Path, cache: Path) -> None:
    report = Path(__file__).parent / "data" / "report"
    runs = report / "predictions" / "wote"
    data = ["--config", "wote", "--data-dir", report / "wote", "--cache-dir", cache, "--no-checks"]
    out = tmp_path / "r.json"
    scored = _invoke("evaluate", runs / "run-01.json", "--out", out, *data)
    assert scored.exit_code == 0, scored.output
    res = json.loads(out.read_text())
    f1 = [q["f1"] for q in res["per_question"]]
    assert res["ci95"]["spans"]["f1"] == pytest.approx(bootstrap.bootstrap_ci(f1, 1000, 0))
    shown = _invoke(
        "compare", runs / "run-02.json", runs / "run-01.json", "--format", "markdown", *data
    )
    assert shown.exit_code == 0, shown.output
    header, _, first, second = shown.output.strip().split("\n\n")[0].splitlines()
    assert "questions in common" in header and "walls" not in header
    assert str(runs / "run-01.json") in first and str(runs / "run-02.json") in second


def test_compare_sees_raw_files_and_their_export_as_one_source(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """The source compared is the rows scored (``rows_sha256``), not the files read: the raw
    release and its export are one source, though their files differ; a release with one
    connection edited is another."""
    hub = tmp_path / "hub"
    built = _invoke(
        "build",
        "-c",
        "ocw",
        "--data-dir",
        release,
        "--out",
        hub,
        "--cache-dir",
        cache,
        "--no-checks",
    )
    assert built.exit_code == 0, built.output
    edited = tmp_path / "edited"
    edited.mkdir()
    for split in WALLS:
        payload = json.loads((release / f"{split}.json").read_text(encoding="utf-8"))
        if split == "test":
            payload["dataset"][7]["groups"]["group_2"]["gt_connection"] += " (edited)"
            payload["dataset"][7]["gt_connections"][1] += " (edited)"
        (edited / f"{split}.json").write_text(json.dumps(payload), encoding="utf-8")
    random_file, perfect, _ = _systems(tmp_path)
    scored, sources = {}, {}
    for name, preds, data in [
        ("raw", random_file, release),
        ("export", perfect, hub / "ocw"),
        ("edited", perfect, edited),
    ]:
        scored[name] = tmp_path / f"{name}-results.json"
        args = ["--data-dir", data, "--cache-dir", cache, "--no-checks"]
        sources[name] = _scored(scored[name], preds, *args)["source"]
    assert sources["raw"]["sha256"] != sources["export"]["sha256"]
    assert sources["raw"]["rows_sha256"] == sources["export"]["rows_sha256"]
    assert sources["raw"]["rows_sha256"] != sources["edited"]["rows_sha256"]
    same = _invoke("compare", scored["raw"], scored["export"], "--format", "json")
    assert same.exit_code == 0, same.output
    assert [r["in_common"] for r in json.loads(same.output)["systems"]] == [N_TEST, N_TEST]
    other = _invoke("compare", scored["raw"], scored["edited"])
    assert other.exit_code == 1 and "--allow-different-sources" in other.output


def test_runs_that_scored_different_walls_are_refused(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """A mean over runs of figures on different walls has no one interval: the interval was
    drawn on the walls every run scored, and did not hold its own figure."""
    half = [
        _perfect(w) if i < N_TEST // 2 else {**_perfect(w), "predicted_groups": None}
        for i, w in enumerate(TEST_WALLS)
    ]
    _write(tmp_path / "runs" / "run-00.json", half)
    _write(tmp_path / "runs" / "run-01.json", [_random(w, 1) for w in TEST_WALLS])
    refused = _invoke("evaluate", tmp_path / "runs", *_data(release, cache))
    assert refused.exit_code == 1 and "run-01.json" in refused.output
    same = [
        {**p, "predicted_groups": None} if i >= N_TEST // 2 else p
        for i, p in enumerate(_random(w, 1) for w in TEST_WALLS)
    ]
    _write(tmp_path / "runs" / "run-01.json", same)
    out = tmp_path / "results.json"
    results = _scored(out, tmp_path / "runs", *_data(release, cache))
    low, high = results["ci95"]["grouping"]["ami"]
    assert low <= results["mean"]["grouping"]["ami"] <= high
    assert (
        _invoke("compare", out, tmp_path / "runs" / "run-00.json", *_data(release, cache)).exit_code
        == 0
    )


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_too_few_resamples_or_a_negative_seed_are_refused(
    tmp_path: Path, release: Path, cache: Path, command: str
) -> None:
    """Below 100 resamples a percentile interval may miss its own figure (then a file
    ``evaluate`` wrote was refused by ``compare`` and ``report``); a seed is non-negative."""
    preds = _systems(tmp_path)[: 2 if command == "compare" else 1]
    for n in (1, 5, 99):
        few = _invoke(command, *preds, "--bootstrap", n, *_data(release, cache))
        assert few.exit_code == 1 and "--bootstrap" in few.output
    seed = _invoke(command, *preds, "--bootstrap-seed", -1, *_data(release, cache))
    assert seed.exit_code == 2  # a usage error
    assert _invoke(command, *preds, "--bootstrap", 100, *_data(release, cache)).exit_code == 0


def test_a_deeply_nested_file_is_one_line(tmp_path: Path, release: Path, cache: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = _invoke("evaluate", deep, *_data(release, cache))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and str(deep) in result.output


def test_the_difference_shown_is_the_one_tested(tmp_path: Path, release: Path, cache: Path) -> None:
    """A system that scored half the walls (``null`` for the task on the rest) against one
    that scored all: its difference from the best is on the walls both scored, by hand."""
    half = [
        _perfect(w) if i < N_TEST // 2 else {**_perfect(w), "predicted_groups": None}
        for i, w in enumerate(TEST_WALLS)
    ]
    mixed = [_swapped(w) if i < N_TEST // 2 else _random(w, 4) for i, w in enumerate(TEST_WALLS)]
    files = [_write(tmp_path / "half.json", half), _write(tmp_path / "mixed.json", mixed)]
    shown = _invoke(
        "compare",
        *files,
        "--by",
        "correct_groups_rate",
        "--format",
        "json",
        "--bootstrap",
        100,
        *_data(release, cache),
    )
    assert shown.exit_code == 0, shown.output
    rows = {row["system"]: row for row in json.loads(shown.output)["systems"]}
    other = rows[str(files[1])]
    assert rows[str(files[0])]["rank"] == 1 and other["in_common"] == N_TEST // 2
    scored = tmp_path / "mixed-results.json"
    per_wall = {
        w["wall_id"]: w
        for w in _scored(scored, files[1], "--bootstrap", 0, *_data(release, cache))["per_wall"]
    }
    first = [w["wall_id"] for w in TEST_WALLS[: N_TEST // 2]]
    by_hand = np.mean([per_wall[i]["grouping"]["correct_groups"] / 4 - 1 for i in first])
    assert other["difference"] == pytest.approx(by_hand) == pytest.approx(-0.5)
    assert other["value"] - 1 != pytest.approx(by_hand)  # the whole split's would differ


def test_systems_of_different_configs_share_no_wall(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """``ocw_randomized`` keeps the test walls' ids for walls of other clues: no pairing."""
    derived = tmp_path / "randomized"
    made = _invoke("derive", "randomized", "--data-dir", release, "--out", derived)
    assert made.exit_code == 0, made.output
    files = []
    for config, data in (("ocw_randomized", derived), ("default", release)):
        out = tmp_path / f"{config}.json"
        walls = (
            TEST_WALLS
            if config == "default"
            else json.loads((derived / "test.json").read_text(encoding="utf-8"))["dataset"]
        )
        preds = _write(tmp_path / f"{config}-preds.json", [_random(w, 2) for w in walls])
        _scored(out, preds, "-c", config, "--data-dir", data, "--cache-dir", cache, "--no-checks")
        files.append(out)
    shown = _invoke("compare", *files, "--allow-different-sources", "--format", "json")
    assert shown.exit_code == 0, shown.output
    other = json.loads(shown.output)["systems"][1]
    assert other["in_common"] == 0 and other["p_value"] is None


def test_a_results_file_edited_by_hand_is_refused(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """compare pairs per-wall values: a headline that is not their mean, or a wall twice,
    is a file edited by hand (range checks alone let both through)."""
    random_file, perfect, _ = _systems(tmp_path)
    scored = tmp_path / "random-results.json"
    results = _scored(scored, random_file, "--bootstrap", 0, *_data(release, cache))
    assert _invoke("compare", scored, perfect, *_data(release, cache)).exit_code == 0
    headline = {**results, "grouping": {**results["grouping"], "ami": 0.5}}
    twice = {**results, "per_wall": [*results["per_wall"], results["per_wall"][0]]}
    for name, edited in (("headline", headline), ("twice", twice)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(edited), encoding="utf-8")
        refused = _invoke("compare", path, perfect, "--by", "ami", *_data(release, cache))
        assert refused.exit_code == 1 and str(path) in refused.output, refused.output


def test_the_interval_of_several_runs_does_not_depend_on_their_order(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    runs = [_write(tmp_path / f"r{i}.json", [_random(w, i) for w in TEST_WALLS]) for i in range(3)]
    found = []
    for order in (runs, runs[::-1], [runs[1], runs[0], runs[2]]):
        out = tmp_path / "results.json"
        args = [*order, "--as-runs", "--bootstrap", 200, *_data(release, cache)]
        found.append(_scored(out, *args)["ci95"])
    assert found[0] == found[1] == found[2]


@pytest.mark.parametrize(
    ("given", "absent"), [("groups", "connections"), ("connections", "grouping")]
)
def test_a_missing_wall_is_wrong_only_for_the_tasks_the_file_predicts(
    tmp_path: Path, release: Path, cache: Path, given: str, absent: str
) -> None:
    """With --allow-missing a missing wall is scored as wrong, but only for a task the file
    predicts: a file of groups only had a connections row of its missing walls alone."""
    other = "predicted_connections" if given == "groups" else "predicted_groups"
    preds = [{**_perfect(w), other: None} for w in TEST_WALLS[1:]]  # the first wall missing
    out = tmp_path / "results.json"
    args = [_write(tmp_path / "p.json", preds), "--allow-missing", "--bootstrap", 0]
    results = _scored(out, *args, *_data(release, cache))
    assert absent not in results and results["n_missing"] == 1
    present = "grouping" if given == "groups" else "connections"
    assert results[present]["n_walls"] == N_TEST


def test_walls_in_common_are_walls_both_predicted(
    tmp_path: Path, release: Path, cache: Path
) -> None:
    """A file predicting 1 wall (the rest missing, scored as wrong) and one predicting 5:
    the walls in common with a full random system are the walls predicted, and the test is
    on them: 1 wall can show nothing (p = 1), 5 walls better on each no less than 2/32; with
    three systems p is Holm-adjusted over the 3 pairs beside the unadjusted one."""
    full = _write(tmp_path / "random.json", [_random(w, 3) for w in TEST_WALLS])
    one = _write(tmp_path / "one.json", [_perfect(TEST_WALLS[0])])
    five = _write(tmp_path / "five.json", [_perfect(w) for w in TEST_WALLS[:5]])
    args = ["--allow-missing", "--bootstrap", 200, *_data(release, cache)]
    shown = _invoke("compare", full, one, *args, "--format", "json")
    assert shown.exit_code == 0, shown.output
    table = json.loads(shown.output)
    rows = {r["system"]: r for r in table["systems"]}
    assert rows[str(one)]["missing"] == N_TEST - 1 and rows[str(one)]["scored"] == N_TEST
    assert rows[str(full)]["in_common"] == rows[str(one)]["in_common"] == 1
    assert [r["p_value"] for r in table["systems"]][1] == 1.0
    assert table["test"]["family"] == 1 and table["test"]["adjustment"] == "none"
    three = _invoke("compare", full, one, five, *args, "--format", "json")
    rows = {r["system"]: r for r in json.loads(three.output)["systems"]}
    assert rows[str(five)]["in_common"] == 5 and rows[str(one)]["in_common"] == 1
    assert json.loads(three.output)["test"]["family"] == 3
    other = [r for r in rows.values() if r["rank"] > 1]
    assert all(r["p_value"] >= 2 / 32 and r["p_value"] <= r["p_holm"] for r in other)
    markdown = _invoke("compare", full, one, five, *args, "--format", "markdown").output
    assert "p (Holm, 3 pairs)" in markdown and "Holm-adjusted over the 3 pairs" in markdown
    csv_header = _invoke("compare", full, one, five, *args, "--format", "csv").output
    assert 'p (sign-flip),"p (Holm, 3 pairs)"' in csv_header.splitlines()[0]
    assert "Holm" not in _invoke("compare", full, one, *args, "--format", "csv").output
