"""Readers of the scenery of a world file: every ``<element class="...">`` (one module per class, dispatched by
element_classes.py; occupancy_grid.py is called by the loader directly), and the top-level ``<walls>`` and
``<marker>`` tags."""
