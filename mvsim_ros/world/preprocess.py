"""First pass over a parsed world: inline <include> files and substitute ${variables}.

Variables come from <variable name="..." value="..."/> elements (visible to everything after them in document
order, included files too) and from the extra attributes of an <include> (visible inside that file only).
``${name|default}`` falls back to `default`. ``${NAME}`` and ``${PARENT_NAME}`` are left for the vehicle and
sensor builders, which know those names.
"""

from __future__ import annotations

import re
from pathlib import Path

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.values import fail
from mvsim_ros.world.xml_tree import XmlNode, parse_xml_bytes

MAX_INCLUDE_DEPTH = 16
DEFERRED_VARIABLES = frozenset({"NAME", "PARENT_NAME"})
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\|([^}]*))?\}")
_UNSUPPORTED = re.compile(r"\$(env|f)\{|\$\(")


def substitute(text: str, variables: dict[str, str], node: XmlNode, keep: frozenset[str] = DEFERRED_VARIABLES) -> str:
    """Replace ${var} and ${var|default} in `text`; names in `keep` are left as they are."""
    if "$" not in text:
        return text
    unsupported = _UNSUPPORTED.search(text)
    if unsupported:
        raise fail(
            node,
            f"'{unsupported.group(0)}...' expressions are not supported by this version of the loader "
            "(only ${variable} and ${variable|default})",
        )

    def replace(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name in variables:
            return variables[name]
        if name in keep:
            return match.group(0)
        if default is not None:
            return default
        known = ", ".join(sorted(variables)) or "none"
        raise fail(node, f"undefined variable ${{{name}}} (defined here: {known})")

    return _VARIABLE.sub(replace, text)


def load_file_tree(path: Path) -> XmlNode:
    """Read and parse one XML file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorldFileError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    return parse_xml_bytes(data, str(path))


def expand(node: XmlNode, variables: dict[str, str], chain: tuple[str, ...]) -> XmlNode:
    """Return a copy of `node` with includes inlined and variables substituted (recursively).

    `chain` lists the files being included, outermost first, for cycle detection and error messages.
    """
    out = XmlNode(
        tag=node.tag,
        attrib={k: substitute(v, variables, node) for k, v in node.attrib.items()},
        file=node.file,
        line=node.line,
        text=substitute(node.text, variables, node),
    )
    for child in node.children:
        if child.tag == "variable":
            name = child.attrib.get("name")
            if not name or "value" not in child.attrib:
                raise fail(child, "expected attributes name=\"...\" and value=\"...\"")
            variables[name] = substitute(child.attrib["value"], variables, child)
        elif child.tag == "include":
            out.children.append(_include(child, variables, chain))
        else:
            out.children.append(expand(child, variables, chain))
    return out


def _include(node: XmlNode, variables: dict[str, str], chain: tuple[str, ...]) -> XmlNode:
    raw = node.attrib.get("file")
    if not raw:
        raise fail(node, "expected attribute file=\"...\"")
    rel = substitute(raw, variables, node)
    path = (Path(node.file).parent / rel).resolve()
    if str(path) in chain:
        cycle = " -> ".join([*chain[chain.index(str(path)):], str(path)])
        raise fail(node, f"include cycle: {cycle}")
    if len(chain) >= MAX_INCLUDE_DEPTH:
        raise fail(node, f"includes nested deeper than {MAX_INCLUDE_DEPTH}: {' -> '.join(chain)}")
    if not path.is_file():
        raise fail(node, f"included file not found: {path}")
    local = dict(variables)
    for key, value in node.attrib.items():
        if key != "file":
            local[key] = substitute(value, variables, node)
    return expand(load_file_tree(path), local, (*chain, str(path)))
