"""Live Foxglove: the node's topics served over the Foxglove WebSocket protocol (foxglove-sdk), see docs/foxglove.md."""
