"""Pictures of an environment: the top-down picture of `render_mode='rgb_array'` (top_view.py) and the window of
`render_mode='human'` (window.py)."""

from mvsim_ros.gym.rendering.top_view import TopView, path_points
from mvsim_ros.gym.rendering.window import HumanWindow, display_available

__all__ = ["HumanWindow", "TopView", "display_available", "path_points"]
