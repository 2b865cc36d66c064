"""Helpers shared by the readers of world elements, ``<walls>`` and ``<marker>``: source references, range and
sign checks, the tags kept without use, and the files or resources a tag names (local paths resolved against
the directory of the XML file that names them; URLs and local-zip members kept as strings, not fetched)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from mvsim_ros.world.files.resource_uris import is_remote_uri, local_zip_parts, zip_member_problem
from mvsim_ros.world.params.table import SIMULATED, ParamTable, Values
from mvsim_ros.world.specs import KeptTag, Point3, SourceRef
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
#: Face-culling modes accepted by mrpt-opengl (``TCullFace``).
CULL_FACES: tuple[str, ...] = ("NONE", "BACK", "FRONT")


def not_negative(values: Values, name: str, node: XmlNode) -> None:
    """Raise at the tag of `name` when its value is negative."""
    if values[name] < 0.0:
        raise fail(values.node(name, node), f"{name}: must be >= 0, got {values[name]:g}")


def xyz_point(values: list[float], node: XmlNode) -> Point3:
    """'x y [z]' numbers as a point [m] (z = 0 when absent)."""
    if len(values) not in (2, 3):
        raise fail(node, f"{node.tag}: expected 'x y [z]', got {len(values)} numbers")
    return (values[0], values[1], values[2] if len(values) == 3 else 0.0)


def check_cull_face(values: Values, node: XmlNode) -> None:
    """Raise at the cull_face tag unless it names one of CULL_FACES."""
    if values["cull_face"] not in CULL_FACES:
        raise fail(values.node("cull_face", node), f"cull_face must be one of {', '.join(CULL_FACES)}, got "
                                                   f"{values['cull_face']!r}")


def kept_tags(table: ParamTable, values: Values) -> list[KeptTag]:
    """The given tags this simulator accepts without using, kept verbatim (file order)."""
    names = [name for name in values.given if table[name].support != SIMULATED]
    nodes = sorted((values.nodes[name] for name in names), key=lambda n: (n.line or 0))
    return [keep_tag(n) for n in nodes]


def local_path(node: XmlNode) -> Path:
    """A file named by a tag, absolute (relative names resolve against the XML file's directory)."""
    text = node.text.strip()
    if not text:
        raise fail(node, f"{node.tag}: expected a file name")
    if is_remote_uri(text):
        raise fail(node, f"{node.tag}: MVSim reads this file locally; a URL is not accepted here, got {text!r}")
    if text.startswith("file://"):
        text = text[len("file://"):]
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = Path(node.file).parent / path
    return path.resolve()


def resource_path(node: XmlNode) -> Path | str:
    """A file named where MVSim accepts a resource URI (its ``xmlPathToActualPath``): a local file (absolute Path),
    a remote resource (URL string, kept as written) or a file inside an existing local zip (the string
    ``/abs/dir/models.zip/inner/file``). Nothing is downloaded or extracted here (see resources.resolve_uri)."""
    text = node.text.strip()
    if not text:
        raise fail(node, f"{node.tag}: expected a file name or URL")
    if is_remote_uri(text):
        return text
    zipped = local_zip_parts(text, Path(node.file).parent)
    if zipped is not None:
        return f"{zipped[0].resolve()}/{zipped[1]}"
    return local_path(node)


def zip_resource_problem(resource: Path | str | None) -> str:
    """Why a local-zip member string (from `resource_path`) cannot be read (its zip's listing only), or ""."""
    if not isinstance(resource, str) or is_remote_uri(resource):
        return ""
    zipped = local_zip_parts(resource)
    return f"not found: {resource}" if zipped is None else zip_member_problem(*zipped)


def warn_missing_texture(node: XmlNode, texture: Path | str | None, warn: Warn) -> None:
    """Warn (at the texture tag) when a local texture file or a local-zip member cannot be found."""
    where = node if node.tag in ("texture", "texture_image") else (node.find("texture") or node)
    if isinstance(texture, Path) and not texture.is_file():
        warn(where, f"texture file not found: {texture}")
    problem = zip_resource_problem(texture)
    if problem:
        warn(where, f"texture unavailable: {problem}")


def check_range(node: XmlNode, low: float, high: float, axis: str) -> None:
    """Raise at `node` when the `axis` range is reversed ([m]: `high` below `low`)."""
    if high < low:
        raise fail(node, f"{axis}_max ({high:g}) is smaller than {axis}_min ({low:g})")


def keep_tag(node: XmlNode) -> KeptTag:
    """A tag kept verbatim with its children and location."""
    return KeptTag(node.tag, dict(node.attrib), node.text, [keep_tag(c) for c in node.children], source_of(node))


def source_of(node: XmlNode) -> SourceRef:
    """Where a spec comes from: the node's file, line and tag."""
    return SourceRef(node.file, node.line, node.tag)


def element_name(node: XmlNode) -> str:
    """The element's name attribute, stripped ("" when absent)."""
    return node.attrib.get("name", "").strip()


__all__ = ["CULL_FACES", "Warn", "check_cull_face", "check_range", "element_name", "keep_tag", "kept_tags",
           "local_path", "not_negative", "resource_path", "source_of", "warn_missing_texture", "xyz_point",
           "zip_resource_problem"]
