"""``ocw-hub show`` and ``report``: walls and results drawn, in the terminal and in HTML."""
