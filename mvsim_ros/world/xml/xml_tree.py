"""Safe XML parsing into a small node tree that remembers file and line of every element.

MVSim world files use tags such as ``<vehicle:class>`` without declaring any namespace, so the parser runs
with namespace processing off. Parsing goes through defusedxml's SAX reader first: DTD entity declarations and
external entities are refused (billion-laughs and XXE attacks fail with a clear error). MVSim itself reads
files with rapidxml, which accepts a few things XML does not (a raw ``<`` in an attribute value, a raw ``&``,
a closing tag with another name, several top-level elements). When the strict parser finds a file not
well-formed, the same bytes are read again by lenient_xml.py, which accepts exactly those, with one warning
per use, and keeps the same safety rules.

Limits, on both paths, from the active load budget (budget.py; the defaults of limits.py outside a load): input
size (``max_file_bytes``), nesting depth (``max_nesting_depth``) and element count (``max_elements``, counted over
the whole load), each refused with a WorldFileError naming the limit, the file and the line instead of exhausting
memory or the Python stack.
"""

from __future__ import annotations

import xml.sax
from dataclasses import dataclass, field
from xml.sax.handler import ContentHandler

import defusedxml.sax
from defusedxml import DefusedXmlException

from mvsim_ros.world.xml.budget import LoadBudget, active_budget
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.xml.lenient_xml import parse_lenient
from mvsim_ros.world.xml.limits import DEFAULT_LIMITS

#: Largest world or included file read by default [bytes] (LoadLimits.max_file_bytes).
MAX_FILE_BYTES = DEFAULT_LIMITS.max_file_bytes
#: Deepest element nesting accepted by default (the root is level 1; LoadLimits.max_nesting_depth).
MAX_NESTING_DEPTH = DEFAULT_LIMITS.max_nesting_depth


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

    def __init__(self, file: str, budget: LoadBudget):
        super().__init__()
        self._file = file
        self._budget = budget
        self._stack: list[XmlNode] = []
        self._text: list[list[str]] = []
        self.roots: list[XmlNode] = []
        self.elements = 0
        self._locator = None

    # lenient_xml.TreeHandler
    def open(self, tag: str, attrib: dict[str, str], line: int) -> None:
        """Start an element at `line`."""
        where = (self._file, line, tag)
        self.elements += 1
        self._budget.add_elements(1, where)
        self._budget.check_depth(len(self._stack) + 1, where)
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


def parse_xml_document(data: bytes, file: str) -> XmlDocument:
    """Parse XML bytes into XmlNode trees, strictly if the file is well-formed, else as MVSim (rapidxml) does.

    Raises WorldFileError naming the file and line on anything refused: unsafe constructs (entity or DTD
    declarations, external references), what even MVSim's reading does not accept, the limits of the active
    load budget (budget.py).
    """
    budget = active_budget()
    budget.check_file_size(len(data), (file, None, None))
    if not data.strip():
        raise WorldFileError("the file is empty: expected an <mvsim_world> XML document", file=file)
    builder = _TreeBuilder(file, budget)
    try:
        defusedxml.sax.parseString(data, builder)
    except DefusedXmlException as exc:
        raise WorldFileError(f"refused unsafe XML ({exc.__class__.__name__}: {exc})", file=file) from None
    except (xml.sax.SAXParseException, LookupError, ValueError):  # not well-formed, or an unknown encoding
        budget.elements -= builder.elements  # read again from the start: count each element once
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
    builder = _TreeBuilder(file, active_budget())
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
