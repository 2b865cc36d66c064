"""Grid files an ``<element class="occupancy_grid">`` names (elements/scenery/occupancy_grid.py): an image
(image.py), a ROS map_server YAML map (ros_map.py) or an MRPT ``.gridmap(.gz)`` (mrpt_gridmap.py)."""
