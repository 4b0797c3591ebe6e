"""inspect-ai tasks of this package (the ``[inspect]`` extra): ``ocw_grouping`` and
``ocw_connections`` (:mod:`.ocw`, the paper's one-shot protocols), ``wote`` (:mod:`.wote`) and
``ocw_play``, the wall played one group at a time (:mod:`ocw_hub.play`); :mod:`.logs` reads
their logs for ``ocw-hub evaluate`` (without importing inspect-ai until it reads one)."""
