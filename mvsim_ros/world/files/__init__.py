"""File formats a world names: occupancy grids, images, 3D models and remote resources."""
