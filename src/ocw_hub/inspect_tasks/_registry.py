"""What inspect-ai finds through this package's ``inspect_ai`` entry point
(``inspect eval ocw_hub/ocw_play``)."""

from .ocw_play import ocw_play

__all__ = ["ocw_play"]
