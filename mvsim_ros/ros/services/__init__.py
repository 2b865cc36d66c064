"""The node's services: simulation_interfaces (pause, step, spawn, ...) and CSV log control."""
