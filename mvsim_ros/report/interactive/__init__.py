"""The page's interactive figures (Plotly, imported when a figure is made): the map (map_figure.py), each
vehicle's time plots (vehicle_figure.py), and what they share, plotly.js written into the page included
(plotly_support.py)."""
