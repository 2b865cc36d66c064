"""Kinematic twist control (the twist_ideal controller): the vehicle's body follows its commanded twist exactly,
whatever the wheels and the ground would do."""

from __future__ import annotations

import math

import Box2D
import numpy as np


def follow_twists(bodies: list[Box2D.b2Body], com_local: np.ndarray, pose: np.ndarray, v: np.ndarray,
                  omega: np.ndarray, vehicles: np.ndarray, dt: float) -> None:
    """Give the Box2D body of each vehicle in `vehicles` the velocity that moves its reference point over the next
    step of dt [s] along the exact arc of its twist: forward speed v[k] [m/s], yaw rate omega[k] [rad/s].

    bodies[k]: vehicle k's Box2D body; com_local[k]: its centre of mass in its own frame [m]; pose[k]: (x, y, yaw)
    of its reference point now [m, m, rad]. The centre-of-mass velocity is the chord of length v dt sinc(omega dt /
    2) at the mid-step heading, plus the centre of mass's swing about the reference point, whatever its offset.
    The chassis damping of Box2D's step is compensated, so that the body moves at exactly that velocity.
    """
    for k in vehicles.tolist():
        speed, rate = float(v[k]), float(omega[k])
        yaw = float(pose[k, 2])
        half = 0.5 * rate * dt
        chord = speed * (math.sin(half) / half if abs(half) > 1e-12 else 1.0)
        cx, cy = com_local[k]
        c0, s0, c1, s1 = math.cos(yaw), math.sin(yaw), math.cos(yaw + rate * dt), math.sin(yaw + rate * dt)
        vx = chord * math.cos(yaw + half) + ((c1 - c0) * cx - (s1 - s0) * cy) / dt
        vy = chord * math.sin(yaw + half) + ((s1 - s0) * cx + (c1 - c0) * cy) / dt
        body = bodies[k]
        # Box2D's step scales the velocities by max(0, 1 - dt c) for the body's damping c: set them that much
        # higher (a factor of 0 cannot be made up for).
        linear, angular = 1.0 - dt * body.linearDamping, 1.0 - dt * body.angularDamping
        linear, angular = (1.0 / linear if linear > 0 else 1.0), (1.0 / angular if angular > 0 else 1.0)
        body.linearVelocity = (vx * linear, vy * linear)
        body.angularVelocity = rate * angular


__all__ = ["follow_twists"]
