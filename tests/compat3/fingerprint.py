"""Version-independent fingerprints of built datasets (run by both datasets 3.6.0 and 5.x).

The fingerprint of a split hashes its Arrow schema without metadata (``datasets`` 3.x and 5.x
write their ``Features`` differently into it: ``Sequence`` vs ``List``, the same Arrow types)
and its rows as canonical JSON. Equal fingerprints mean identical rows and Arrow types.

Run as a script under the datasets 3.6.0 environment::

    python tests/compat3/fingerprint.py OUT_DIR [fixtures|full]

It loads configs through the 3.x script path (``load_dataset("OCW.py", ...,
trust_remote_code=True)``) and prints ``{config: {split: fingerprint}}`` as JSON:
``fixtures`` (the default) builds all four configs from ``tests/data`` (the ablations from
stand-ins written from its walls); ``full`` builds ``default`` and ``wote`` from
``../shared/data``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def split_fingerprint(dataset) -> str:  # noqa: ANN001 - a datasets.Dataset of any version
    """SHA-256 of a split's Arrow schema (no metadata) and rows (canonical JSON)."""
    table = dataset.data.table
    digest = hashlib.sha256(str(table.schema.remove_metadata()).encode())
    digest.update(json.dumps(table.to_pylist(), sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()


SCALES = ("fixtures", "full")


def sources(work_dir: Path, scale: str = "fixtures") -> dict[str, Path]:
    """The local source of each config compared at ``scale``.

    ``fixtures``: all four configs from ``tests/data`` (no ``../shared`` needed); ``full``:
    ``default`` and ``wote`` from the real data in ``../shared/data``.

    Raises:
        ValueError: ``scale`` is not one of :data:`SCALES`.
    """
    if scale == "full":
        return {"default": SHARED_DATA / "ocw" / "dataset", "wote": SHARED_DATA / "wote"}
    if scale != "fixtures":
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from ocw_fixtures import OCW_FIXTURE, WOTE_FIXTURE, write_ablation

    return {
        "default": OCW_FIXTURE,
        "ocw_randomized": write_ablation(OCW_FIXTURE, work_dir, "randomized"),
        "ocw_wordnet": write_ablation(OCW_FIXTURE, work_dir, "wordnet"),
        "wote": WOTE_FIXTURE,
    }


SCRIPT_OF = {"default": "OCW", "ocw_randomized": "OCW", "ocw_wordnet": "OCW", "wote": "WoTe"}


def main(work_dir: str, scale: str = "fixtures") -> None:
    import datasets

    out = {}
    for config, data_dir in sources(Path(work_dir), scale).items():
        dataset_dict = datasets.load_dataset(
            str(REPO_ROOT / f"{SCRIPT_OF[config]}.py"),
            config,
            data_dir=str(data_dir),
            trust_remote_code=True,
            cache_dir=str(Path(work_dir) / "cache"),
            verification_mode="no_checks" if scale == "fixtures" else None,
        )
        out[config] = {split: split_fingerprint(ds) for split, ds in dataset_dict.items()}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(*sys.argv[1:3])
