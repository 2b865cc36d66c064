"""Wheel state for all vehicles as one struct of arrays; each vehicle owns a contiguous index range."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mvsim_ros.world.specs import VehicleSpec


@dataclass
class WheelArrays:
    """Per-wheel constants and state, all wheels of all vehicles together (length W).

    Geometry is in the vehicle frame (origin at the vehicle reference point): x, y [m], yaw [rad].
    vehicle: owning vehicle index; side: +1 left, -1 right, 0 other.
    State: omega [rad/s] spin rate, phi [rad] spin angle, torque [N m] last motor torque,
    normal_force [N] load, force_x/force_y [N] last ground force in the vehicle frame.
    """

    vehicle: np.ndarray
    side: np.ndarray
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    radius: np.ndarray
    mass: np.ndarray
    inertia_yy: np.ndarray
    mu: np.ndarray
    c_damping: np.ndarray
    c_rr: np.ndarray
    normal_force: np.ndarray
    omega: np.ndarray
    phi: np.ndarray
    torque: np.ndarray
    force_x: np.ndarray
    force_y: np.ndarray

    @property
    def count(self) -> int:
        """Number of wheels."""
        return int(self.vehicle.size)

    @classmethod
    def from_vehicles(cls, vehicles: list[VehicleSpec], gravity: float) -> "WheelArrays":
        """Build the arrays; loads are uniform: F_z = m_chassis * g / n_wheels (as MVSim)."""
        rows = []
        for index, vehicle in enumerate(vehicles):
            load = vehicle.chassis.mass * gravity / len(vehicle.wheels)
            params = vehicle.friction.params
            for wheel in vehicle.wheels:
                rows.append(
                    (index, wheel.side, wheel.x, wheel.y, wheel.yaw, wheel.radius, wheel.mass, wheel.inertia_yy,
                     params["mu"], params["C_damping"], params.get("C_rr", 0.0), load)
                )
        table = np.array(rows, dtype=float).reshape(-1, 12)
        zeros = np.zeros(len(rows))
        return cls(
            vehicle=table[:, 0].astype(np.intp),
            side=table[:, 1].astype(np.intp),
            x=table[:, 2].copy(),
            y=table[:, 3].copy(),
            yaw=table[:, 4].copy(),
            radius=table[:, 5].copy(),
            mass=table[:, 6].copy(),
            inertia_yy=table[:, 7].copy(),
            mu=table[:, 8].copy(),
            c_damping=table[:, 9].copy(),
            c_rr=table[:, 10].copy(),
            normal_force=table[:, 11].copy(),
            omega=zeros.copy(),
            phi=zeros.copy(),
            torque=zeros.copy(),
            force_x=zeros.copy(),
            force_y=zeros.copy(),
        )
