"""``python -m ocw_hub`` and the ``ocw-hub`` program: Ctrl-C is handled from the first import
on (:mod:`ocw_hub.interrupts`); ``import ocw_hub``, which Python runs first, imports nothing."""

from __future__ import annotations

import sys


def _cli() -> None:
    from .cli import app

    app()


def main() -> None:
    """Run the ``ocw-hub`` command line."""
    try:
        from .interrupts import run_interruptible

        run_interruptible(_cli)
    except KeyboardInterrupt:  # Python's own, before run_interruptible installed its handler
        sys.stderr.write("\ninterrupted\n")
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
