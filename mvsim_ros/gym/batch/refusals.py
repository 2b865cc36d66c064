"""Why a world cannot be batched by MvsimBatchEnv: its steps need Python between steps, or its controlled
vehicle's lidars render through OpenGL (raytrace_3d) rather than ray cast in 2D through the Box2D shim."""

from __future__ import annotations

from mvsim_ros.gym.observe import Observer
from mvsim_ros.physics import Simulation, box2d_native


def batch_refusals(sim: Simulation, observer: Observer) -> tuple[str, ...]:
    """The reasons, one phrase each (() when the world can be batched): Simulation.compiled_steps_refusals, and
    each raytrace_3d lidar of the observed vehicle."""
    reasons = list(sim.compiled_steps_refusals)
    if not box2d_native.AVAILABLE and not reasons:
        reasons.append(box2d_native.UNAVAILABLE_REASON or "the Box2D shim is not loaded")
    reasons += [f"lidar '{lidar.spec.name}' has raytrace_3d (rendered with OpenGL)" for lidar in observer.lidars
                if lidar.params.raytrace_3d]
    return tuple(reasons)
