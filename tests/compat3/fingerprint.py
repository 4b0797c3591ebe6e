"""Version-independent fingerprints of built datasets (run by both datasets 3.6.0 and 5.x).

The fingerprint of a split hashes its Arrow schema without metadata (``datasets`` 3.x and 5.x
write their ``Features`` differently into it: ``Sequence`` vs ``List``, the same Arrow types)
and its rows as canonical JSON. Equal fingerprints mean identical rows and Arrow types.

Run as a script under the datasets 3.6.0 environment::

    python tests/compat3/fingerprint.py OUT_DIR

It loads every config through the 3.x script path (``load_dataset("OCW.py", ...,
trust_remote_code=True)``) from ``../shared/data`` and the ablation fixtures, and prints
``{config: {split: fingerprint}}`` as JSON.
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


def sources(work_dir: Path) -> dict[str, Path]:
    """The local source of every config: real data, and fixtures for the two ablations."""
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from ocw_fixtures import write_ablation

    raw = SHARED_DATA / "ocw" / "raw" / "onlyconnect.json"
    return {
        "default": SHARED_DATA / "ocw" / "dataset",
        "ocw_randomized": write_ablation(raw, work_dir, "randomized"),
        "ocw_wordnet": write_ablation(raw, work_dir, "wordnet"),
        "wote": SHARED_DATA / "wote",
    }


SCRIPT_OF = {"default": "OCW", "ocw_randomized": "OCW", "ocw_wordnet": "OCW", "wote": "WoTe"}


def main(work_dir: str) -> None:
    import datasets

    out = {}
    for config, data_dir in sources(Path(work_dir)).items():
        dataset_dict = datasets.load_dataset(
            str(REPO_ROOT / f"{SCRIPT_OF[config]}.py"),
            config,
            data_dir=str(data_dir),
            trust_remote_code=True,
            cache_dir=str(Path(work_dir) / "cache"),
            verification_mode="no_checks" if config.startswith("ocw_") else None,
        )
        out[config] = {split: split_fingerprint(ds) for split, ds in dataset_dict.items()}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
