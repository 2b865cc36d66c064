"""Safe XML parsing into a small node tree that remembers file and line of every element.

MVSim world files use tags such as ``<vehicle:class>`` without declaring any namespace, so the parser runs
with namespace processing off. Parsing goes through defusedxml's SAX reader first: DTD entity declarations and
external entities are refused (billion-laughs and XXE attacks fail with a clear error). MVSim itself reads
files with rapidxml, which accepts a few things XML does not (a raw ``<`` in an attribute value, a raw ``&``,
a closing tag with another name, several top-level elements). When the strict parser finds a file not
well-formed, the same bytes are read again by lenient_xml.py, which accepts exactly those, with one warning
per use, and keeps the same safety rules.

Limits, on both paths: input size (`MAX_FILE_BYTES`), nesting depth (`MAX_NESTING_DEPTH`) and element count
(`MAX_FILE_ELEMENTS`), each refused with a WorldFileError naming the file (and line) instead of exhausting
memory or the Python stack.
"""

from __future__ import annotations

import xml.sax
from dataclasses import dataclass, field
from xml.sax.handler import ContentHandler

import defusedxml.sax
from defusedxml import DefusedXmlException

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.lenient_xml import parse_lenient

#: Largest world or included file read [bytes].
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest element nesting accepted in one file (the root is level 1).
MAX_NESTING_DEPTH = 256
#: Most elements accepted in one file.
MAX_FILE_ELEMENTS = 1_000_000


@dataclass
class XmlNode:
    """One XML element: tag, attributes, stripped text, children, and its source file and line.

    `parse_warnings` is only set on a root returned by `parse_xml_bytes`: the warnings of reading its file
    (leniencies used, ignored extra top-level elements), in the world loader's format ``file:line: <tag>: ...``.
    """

    tag: str
    attrib: dict[str, str]
    file: str
    line: int
    children: list["XmlNode"] = field(default_factory=list)
    text: str = ""
    parse_warnings: tuple[str, ...] = ()

    def find(self, tag: str) -> "XmlNode | None":
        """First direct child with this tag, or None."""
        for child in self.children:
            if child.tag == tag:
                return child
        return None

    def findall(self, tag: str) -> list["XmlNode"]:
        """All direct children with this tag."""
        return [c for c in self.children if c.tag == tag]


@dataclass
class XmlDocument:
    """A parsed file: its top-level elements in order (one unless the lenient reader was needed) and the
    warnings of reading it (one per leniency used, ``file:line: <tag>: ...``)."""

    roots: list[XmlNode]
    warnings: list[str]
    lenient: bool = False


class _TreeBuilder(ContentHandler):
    """Builds XmlNodes from SAX events (strict path) or lenient_xml events, enforcing depth and count limits."""

    def __init__(self, file: str):
        super().__init__()
        self._file = file
        self._stack: list[XmlNode] = []
        self._text: list[list[str]] = []
        self.roots: list[XmlNode] = []
        self._elements = 0
        self._locator = None

    # lenient_xml.TreeHandler
    def open(self, tag: str, attrib: dict[str, str], line: int) -> None:
        """Start an element at `line`."""
        self._elements += 1
        if self._elements > MAX_FILE_ELEMENTS:
            raise WorldFileError(f"the file holds more than {MAX_FILE_ELEMENTS} XML elements", file=self._file,
                                 line=line, tag=tag)
        if len(self._stack) >= MAX_NESTING_DEPTH:
            raise WorldFileError(f"elements nested deeper than {MAX_NESTING_DEPTH} levels", file=self._file,
                                 line=line, tag=tag)
        node = XmlNode(tag=tag, attrib=attrib, file=self._file, line=line)
        if self._stack:
            self._stack[-1].children.append(node)
        else:
            self.roots.append(node)
        self._stack.append(node)
        self._text.append([])

    def close(self) -> None:
        """End the innermost open element."""
        node = self._stack.pop()
        node.text = "".join(self._text.pop()).strip()

    def characters(self, content):
        if self._text:
            self._text[-1].append(content)

    # SAX
    def setDocumentLocator(self, locator):  # noqa: N802 (SAX API name)
        self._locator = locator

    def startElement(self, name, attrs):  # noqa: N802
        line = self._locator.getLineNumber() if self._locator else 0
        self.open(name, {k: attrs[k] for k in attrs.keys()}, line)

    def endElement(self, name):  # noqa: N802
        self.close()


def size_limit_message(size: int) -> str:
    """The error text for a file of `size` bytes, over `MAX_FILE_BYTES`."""
    return (f"the file is {size} bytes, over the limit of {MAX_FILE_BYTES} bytes "
            f"({MAX_FILE_BYTES / (1024 * 1024):g} MiB) for world and included files")


def parse_xml_document(data: bytes, file: str) -> XmlDocument:
    """Parse XML bytes into XmlNode trees, strictly if the file is well-formed, else as MVSim (rapidxml) does.

    Raises WorldFileError naming the file and line on anything refused: unsafe constructs (entity or DTD
    declarations, external references), what even MVSim's reading does not accept, the size limits.
    """
    if len(data) > MAX_FILE_BYTES:
        raise WorldFileError(size_limit_message(len(data)), file=file)
    if not data.strip():
        raise WorldFileError("the file is empty: expected an <mvsim_world> XML document", file=file)
    builder = _TreeBuilder(file)
    try:
        defusedxml.sax.parseString(data, builder)
    except DefusedXmlException as exc:
        raise WorldFileError(f"refused unsafe XML ({exc.__class__.__name__}: {exc})", file=file) from None
    except (xml.sax.SAXParseException, LookupError, ValueError):  # not well-formed, or an unknown encoding
        return parse_xml_lenient(data, file)
    except xml.sax.SAXException as exc:
        raise WorldFileError(f"malformed XML: {exc.getMessage()}", file=file) from None
    if not builder.roots:
        raise WorldFileError("the file holds no XML element", file=file)
    return XmlDocument(roots=builder.roots, warnings=[])


def parse_xml_lenient(data: bytes, file: str) -> XmlDocument:
    """Read `data` with the MVSim-compatible reader alone (lenient_xml.py; no strict first pass, no size check).

    Same tree as the strict parser for well-formed XML. Raises WorldFileError naming file and line.
    """
    builder = _TreeBuilder(file)
    warnings = parse_lenient(data, file, builder)
    return XmlDocument(roots=builder.roots, warnings=warnings, lenient=True)


def parse_xml_bytes(data: bytes, file: str) -> XmlNode:
    """Parse a world file's bytes into its root XmlNode (see `parse_xml_document`).

    As MVSim, only the first top-level element is used; later ones are ignored with a warning. The warnings
    are on the root's `parse_warnings`. Raises WorldFileError naming the file and line on any problem.
    """
    document = parse_xml_document(data, file)
    root, extra = document.roots[0], document.roots[1:]
    warnings = list(document.warnings)
    if extra:
        first, count = extra[0], len(extra)
        what = "this top-level element" if count == 1 else f"this and {count - 1} more top-level elements"
        warnings.append(f"{file}:{first.line}: <{first.tag}>: {what} after <{root.tag}> ignored, as MVSim does "
                        "(it reads only the first; XML allows one)")
    root.parse_warnings = tuple(warnings)
    return root
