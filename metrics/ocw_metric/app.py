import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("ocw_metric", "connections")
launch_gradio_widget(module)
