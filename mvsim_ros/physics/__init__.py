"""Physics: Box2D rigid bodies for chassis and blocks, with vectorised wheel-ground models on top (no ROS, no XML)."""

from mvsim_ros.physics.simulation import Simulation, SimulationDiverged

__all__ = ["Simulation", "SimulationDiverged"]
