"""One standalone OpenGL context (moderngl) shared by every rendered sensor, created on first use.

The backend comes from the environment variable MVSIM_GL_BACKEND (default 'egl': headless, works on a GPU's
EGL driver or on Mesa's llvmpipe without a display). Set it to an empty string to let moderngl pick (X11/GLX).
"""

from __future__ import annotations

import os

_CONTEXT = None


class GlUnavailable(RuntimeError):
    """No OpenGL 3.3 context could be created (no moderngl, no EGL/GL library, no driver)."""


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
            kwargs = {"backend": backend} if backend else {}
            _CONTEXT = moderngl.create_standalone_context(require=330, **kwargs)
        except Exception as exc:  # glcontext raises plain Exceptions for missing libraries / displays
            raise GlUnavailable(
                f"cannot create an OpenGL 3.3 context with backend '{backend or 'default'}': {exc}. "
                "Headless: install libegl1 libegl-mesa0 libgl1-mesa-dri (Mesa llvmpipe) or a GPU driver; "
                "choose the backend with MVSIM_GL_BACKEND") from exc
    return _CONTEXT
