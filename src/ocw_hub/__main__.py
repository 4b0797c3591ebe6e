"""``python -m ocw_hub`` and the ``ocw-hub`` program: Ctrl-C is handled from the first import
on (:mod:`ocw_hub.interrupts`)."""

from __future__ import annotations

from .interrupts import run_interruptible


def _cli() -> None:
    from .cli import app

    app()


def main() -> None:
    """Run the ``ocw-hub`` command line."""
    run_interruptible(_cli)


if __name__ == "__main__":
    main()
