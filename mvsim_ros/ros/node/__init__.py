"""The simulator node: its process, parameters, run loop and the session of one simulation."""
