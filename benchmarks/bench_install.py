"""Packages, disk and time of a core install and of ``[all]``, each into a fresh venv.

Run from the repository root with an interpreter that has hatchling (the dev extra)::

    python benchmarks/bench_install.py [--extras all] [--keep DIR]

The wheel is built once from this checkout (``pip wheel --no-deps --no-build-isolation``);
each install is ``pip install WHEEL[EXTRAS]`` into a new venv, timed from pip's start to its
end (with whatever pip's cache and the configured indexes hold: a warm cache is the common
case). Packages: ``pip list`` of the venv less pip and setuptools. MB: the venv's
``site-packages`` on disk (``du``-like, bytes of regular files) less that of an empty venv.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
#: In every fresh venv: not counted as installed by ocw-hub.
BASE_PACKAGES = {"pip", "setuptools", "wheel"}


def build_wheel(folder: Path) -> Path:
    """The wheel of this checkout, built offline into ``folder``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["-w", str(folder), str(REPO_ROOT)],
        check=True,
    )
    (wheel,) = folder.glob("ocw_hub-*.whl")
    return wheel


def tree_bytes(folder: Path) -> int:
    """Bytes of the regular files under ``folder`` (links not followed)."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(top) / name
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def site_packages(venv: Path) -> Path:
    (found,) = venv.glob("lib/python*/site-packages")
    return found


def install(wheel: Path, extras: str, venv: Path) -> dict[str, float]:
    """Install ``wheel[extras]`` into a new venv at ``venv``: seconds, packages, MB."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    empty = tree_bytes(site_packages(venv))
    python = venv / "bin" / "python"
    spec = f"{wheel}[{extras}]" if extras else str(wheel)
    start = time.perf_counter()
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", spec],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    )
    names = {p["name"].lower() for p in json.loads(listed.stdout)} - BASE_PACKAGES
    size = tree_bytes(site_packages(venv)) - empty
    return {"seconds": seconds, "packages": len(names), "mb": size / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="all", help="the extras of the second install")
    parser.add_argument("--keep", type=Path, help="leave the venvs in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        wheel = build_wheel(work / "wheel")
        rows = {
            "core": install(wheel, "", work / "venv-core"),
            f"[{args.extras}]": install(wheel, args.extras, work / f"venv-{args.extras}"),
        }
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"{'install':<10} {'packages':>8} {'MB':>8} {'seconds':>8}")
    for name, row in rows.items():
        print(f"{name:<10} {row['packages']:>8} {row['mb']:>8.0f} {row['seconds']:>8.1f}")


if __name__ == "__main__":
    main()
