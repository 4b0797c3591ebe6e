"""``ocw-hub derive``: derived copies of the data (the ``ocw_randomized`` ablation)."""
