"""OpenGL in the rendering tests: whether a context can be made on this machine, and camera placement."""

from __future__ import annotations

import numpy as np
import pytest

from mvsim_ros.sensors.gl_context import GlUnavailable, gl_context

try:
    gl_context()
    GL_REASON = ""
except GlUnavailable as exc:
    GL_REASON = str(exc)

#: Skips a test (or, as `pytestmark`, a module) where no OpenGL context can be made, saying why.
needs_gl = pytest.mark.skipif(bool(GL_REASON), reason=f"no OpenGL context: {GL_REASON}")


def optical_pose(position, forward, right) -> np.ndarray:
    """4x4 world pose of an optical frame (z forward, x right, y down) at `position`."""
    z = np.asarray(forward, float) / np.linalg.norm(forward)
    x = np.asarray(right, float) / np.linalg.norm(right)
    m = np.eye(4)
    m[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    m[:3, 3] = position
    return m
