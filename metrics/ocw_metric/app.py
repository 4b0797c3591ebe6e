"""Hugging Face Space of the OCW metric: a Gradio widget for the ``connections`` config.

A Space holds the files of ``metrics/ocw_metric/`` at its root, in a folder of any name, so
the metric is loaded from the script next to this file (``evaluate.load`` of a folder needs
the folder to be named like its script; a bare name such as ``"ocw_metric"`` would be looked
up on the Hub).

``launch_gradio_widget`` calls gradio's ``launch()`` with no arguments: the address comes
from ``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` (127.0.0.1:7860 when unset; a Space sets
0.0.0.0) and no share link is made. The card's gradio 3.19.1 needs the pins of
``requirements.txt`` to serve its first page (tests/test_space_browser.py).
"""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

METRIC_SCRIPT = Path(__file__).resolve().parent / "ocw_metric.py"

#: The config the widget shows: its inputs are flat lists of strings, which the widget's
#: table can hold (the nested walls of ``grouping`` are easier to use from Python).
WIDGET_CONFIG = "connections"


def load_module(config_name: str = WIDGET_CONFIG) -> evaluate.EvaluationModule:
    """``evaluate.load`` of ``ocw_metric.py`` beside this file, for ``config_name``
    (``grouping``, ``connections`` or ``spans``)."""
    return evaluate.load(str(METRIC_SCRIPT), config_name)


if __name__ == "__main__":
    launch_gradio_widget(load_module())
