"""``ocw-hub predict``: baseline predictions files (random, embedding + constrained k-means)."""
