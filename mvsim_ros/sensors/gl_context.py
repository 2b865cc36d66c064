"""One standalone OpenGL context (moderngl) shared by every rendered sensor, created on first use.

The backend comes from the environment variable MVSIM_GL_BACKEND (default 'egl': headless, works on a GPU's
EGL driver or on Mesa's llvmpipe without a display). Set it to an empty string to let moderngl pick (X11/GLX).

With EGL, every device the EGL library lists is tried in turn and the first one that renders in hardware is
kept (a GPU), else the first one (Mesa's software renderer, llvmpipe); MVSIM_GL_DEVICE=<index> uses that EGL
device instead. `gl_renderer()` says which renderer the sensors draw with.
"""

from __future__ import annotations

import os
from typing import Sequence

_CONTEXT = None

#: Words in GL_RENDERER that name a software renderer (Mesa's llvmpipe/softpipe/swrast, lavapipe, SwiftShader).
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "lavapipe", "swiftshader", "software")
#: EGL devices tried at most.
MAX_EGL_DEVICES = 16


class GlUnavailable(RuntimeError):
    """No OpenGL 3.3 context could be created (no moderngl, no EGL/GL library, no driver)."""


def is_software(renderer: str) -> bool:
    """Whether a GL_RENDERER string names a software renderer."""
    name = renderer.lower()
    return any(word in name for word in SOFTWARE_RENDERERS)


def pick_device(renderers: Sequence[str]) -> int:
    """The index of the first hardware renderer among the EGL devices' GL_RENDERER strings, else 0."""
    return next((i for i, name in enumerate(renderers) if not is_software(name)), 0)


def _egl_context(moderngl, forced: str):
    """A context on the EGL device MVSIM_GL_DEVICE names (`forced`), else on the one `pick_device` prefers."""
    if forced:
        try:
            index = int(forced)
        except ValueError:
            raise GlUnavailable(f"MVSIM_GL_DEVICE must be an EGL device index (0, 1, ...), not {forced!r}") from None
        return moderngl.create_standalone_context(require=330, backend="egl", device_index=index)
    contexts = []
    first_error = None
    for index in range(MAX_EGL_DEVICES):
        try:
            contexts.append(moderngl.create_standalone_context(require=330, backend="egl", device_index=index))
        except Exception as exc:  # noqa: BLE001 (glcontext raises plain Exceptions: no more devices, or a bad one)
            if index == 0:
                first_error = exc
            if "found" in str(exc) and "device" in str(exc):
                break  # past the last device
            continue
        if not is_software(contexts[-1].info["GL_RENDERER"]):
            break  # a hardware renderer: no need to look further
    if not contexts:
        raise first_error or RuntimeError("no EGL device")
    chosen = contexts[pick_device([ctx.info["GL_RENDERER"] for ctx in contexts])]
    for ctx in contexts:
        if ctx is not chosen:
            ctx.release()
    return chosen


def gl_context():
    """The shared moderngl context; raises GlUnavailable with the reason when none can be made."""
    global _CONTEXT
    if _CONTEXT is None:
        backend = os.environ.get("MVSIM_GL_BACKEND", "egl").strip()
        try:
            import moderngl
        except ImportError as exc:
            raise GlUnavailable(f"moderngl is not installed ({exc}); pip install moderngl glcontext") from exc
        try:
            if backend == "egl":
                _CONTEXT = _egl_context(moderngl, os.environ.get("MVSIM_GL_DEVICE", "").strip())
            else:
                kwargs = {"backend": backend} if backend else {}
                _CONTEXT = moderngl.create_standalone_context(require=330, **kwargs)
        except GlUnavailable:
            raise
        except Exception as exc:  # glcontext raises plain Exceptions for missing libraries / displays
            raise GlUnavailable(
                f"cannot create an OpenGL 3.3 context with backend '{backend or 'default'}': {exc}. "
                "Headless: install libegl1 libegl-mesa0 libgl1-mesa-dri (Mesa llvmpipe) or a GPU driver; "
                "choose the backend with MVSIM_GL_BACKEND and the EGL device with MVSIM_GL_DEVICE") from exc
    return _CONTEXT


def gl_renderer() -> str:
    """The renderer the shared context draws with (GL_RENDERER, e.g. 'llvmpipe (LLVM 15.0.6, 256 bits)' or a GPU's
    name); raises GlUnavailable as gl_context does."""
    return str(gl_context().info["GL_RENDERER"])
