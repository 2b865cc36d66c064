"""Safe XML parsing into a small node tree that remembers file and line of every element.

MVSim world files use tags such as ``<vehicle:class>`` without declaring any namespace, so the parser runs
with namespace processing off. Parsing goes through defusedxml's SAX reader: DTD entity declarations and
external entities are refused (billion-laughs and XXE attacks fail with a clear error).
"""

from __future__ import annotations

import xml.sax
from dataclasses import dataclass, field
from xml.sax.handler import ContentHandler

import defusedxml.sax
from defusedxml import DefusedXmlException

from mvsim_ros.world.errors import WorldFileError


@dataclass
class XmlNode:
    """One XML element: tag, attributes, stripped text, children, and its source file and line."""

    tag: str
    attrib: dict[str, str]
    file: str
    line: int
    children: list["XmlNode"] = field(default_factory=list)
    text: str = ""

    def find(self, tag: str) -> "XmlNode | None":
        """First direct child with this tag, or None."""
        for child in self.children:
            if child.tag == tag:
                return child
        return None

    def findall(self, tag: str) -> list["XmlNode"]:
        """All direct children with this tag."""
        return [c for c in self.children if c.tag == tag]


class _TreeBuilder(ContentHandler):
    def __init__(self, file: str):
        super().__init__()
        self._file = file
        self._stack: list[XmlNode] = []
        self._text: list[list[str]] = []
        self.root: XmlNode | None = None
        self._locator = None

    def setDocumentLocator(self, locator):  # noqa: N802 (SAX API name)
        self._locator = locator

    def startElement(self, name, attrs):  # noqa: N802
        line = self._locator.getLineNumber() if self._locator else 0
        node = XmlNode(tag=name, attrib={k: attrs[k] for k in attrs.keys()}, file=self._file, line=line)
        if self._stack:
            self._stack[-1].children.append(node)
        else:
            self.root = node
        self._stack.append(node)
        self._text.append([])

    def characters(self, content):
        if self._text:
            self._text[-1].append(content)

    def endElement(self, name):  # noqa: N802
        node = self._stack.pop()
        node.text = "".join(self._text.pop()).strip()


def parse_xml_bytes(data: bytes, file: str) -> XmlNode:
    """Parse XML bytes into an XmlNode tree. Raises WorldFileError naming the file and line on any problem."""
    builder = _TreeBuilder(file)
    try:
        defusedxml.sax.parseString(data, builder)
    except DefusedXmlException as exc:
        raise WorldFileError(f"refused unsafe XML ({exc.__class__.__name__}: {exc})", file=file) from None
    except xml.sax.SAXParseException as exc:
        raise WorldFileError(
            f"malformed XML at column {exc.getColumnNumber()}: {exc.getMessage()}",
            file=file,
            line=exc.getLineNumber(),
        ) from None
    if builder.root is None:
        raise WorldFileError("the file holds no XML element", file=file)
    return builder.root
