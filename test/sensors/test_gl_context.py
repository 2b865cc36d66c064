"""The OpenGL context of the rendered sensors: a hardware EGL device is preferred to a software one, and a device
can be named; on this machine (no GPU) the context is Mesa's software renderer."""

from __future__ import annotations

import os
import subprocess
import sys

from gl_support import needs_gl
from mvsim_ros.sensors.gl_context import gl_renderer, is_software, pick_device

LLVMPIPE = "llvmpipe (LLVM 15.0.6, 256 bits)"


def test_a_gpu_is_preferred_wherever_egl_lists_it():
    assert pick_device([LLVMPIPE, "NVIDIA H100 80GB HBM3/PCIe/SSE2"]) == 1
    assert pick_device(["NVIDIA H100 80GB HBM3/PCIe/SSE2", LLVMPIPE]) == 0
    assert pick_device(["Mesa Intel(R) UHD Graphics 620 (KBL GT2)"]) == 0


def test_without_a_gpu_the_first_software_device_is_kept():
    assert pick_device([LLVMPIPE]) == 0
    assert pick_device(["softpipe", LLVMPIPE]) == 0
    assert all(is_software(name) for name in (LLVMPIPE, "softpipe", "Google SwiftShader", "llvmpipe"))
    assert not is_software("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 17.0.6, DRM 3.54)")


@needs_gl
def test_the_context_reports_its_renderer():
    renderer = gl_renderer()
    assert renderer  # a name, e.g. llvmpipe here
    probe = "from mvsim_ros.sensors.gl_context import gl_renderer; print(gl_renderer())"
    named = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "MVSIM_GL_DEVICE": "0"})
    assert named.returncode == 0 and named.stdout.strip(), named.stderr


def test_a_bad_device_name_is_one_clear_error():
    probe = "from mvsim_ros.sensors.gl_context import gl_context; gl_context()"
    for value, words in (("x", "must be an EGL device index"), ("99", "MVSIM_GL_DEVICE")):
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "MVSIM_GL_BACKEND": "egl", "MVSIM_GL_DEVICE": value})
        assert run.returncode != 0
        assert "GlUnavailable" in run.stderr and words in run.stderr
