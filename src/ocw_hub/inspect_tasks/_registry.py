"""What inspect-ai finds through this package's ``inspect_ai`` entry point
(``inspect eval ocw_hub/ocw_grouping``, ``ocw_hub/ocw_connections``, ``ocw_hub/wote``,
``ocw_hub/ocw_play``)."""

from .ocw import ocw_connections, ocw_grouping
from .ocw.ocw import ocw_vote
from .ocw_play import ocw_play
from .wote import wote

__all__ = ["ocw_connections", "ocw_grouping", "ocw_play", "ocw_vote", "wote"]
