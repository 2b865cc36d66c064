"""Live 3D viewer of the simulation in a web browser."""
