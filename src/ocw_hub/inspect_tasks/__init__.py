"""inspect-ai tasks of this package (the ``[inspect]`` extra): ``ocw_play``, the wall played
one group at a time (:mod:`ocw_hub.play`), for inspect's multi-turn solvers."""
