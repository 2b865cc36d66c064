"""A small, safe XML tokenizer that accepts the few things MVSim's parser (rapidxml) accepts and XML does not.

MVSim reads world files with rapidxml's default flags, which lets through some text a conforming XML parser
refuses. World files in the wild rely on it, so when the strict parser (xml_tree.py, defusedxml) rejects a file
as not well-formed, the same bytes are read again here. Accepted beyond XML, and nothing else:

- a raw ``<`` (or ``>``, which XML already allows) inside a quoted attribute value;
- a raw ``&`` that starts no reference (``&lt;``-style with the five predefined names, ``&#123;``,
  ``&#x1F;``), in text or attributes: kept as it is. Predefined entities and character references are
  decoded as XML does; any other named reference (``&foo;``) is an error: world files cannot define entities;
- a closing tag whose name differs from the open element's: it closes the open element;
- several top-level elements (the caller decides what to do with them).

Each leniency used gives one warning, once per (line, kind), in the format of the world loader's warnings:
``file:line: <tag>: what was accepted``. Everything else XML requires stays required: comments (no ``--``
inside), processing instructions, ``<![CDATA[...]]>`` sections, the XML declaration only at the start,
attribute-value whitespace normalisation, end-of-line normalisation, and the XML character set.

Safety: a ``<!DOCTYPE`` with an internal subset or an external identifier, or any ``<!ENTITY``, is refused
(no entity is ever declared, expanded or fetched). The tokenizer is a single loop over the text (no
recursion) and runs in linear time; the handler it feeds bounds nesting depth and element count, and the
caller bounds the input size. Every refusal is a WorldFileError naming the file and line.
"""

from __future__ import annotations

import codecs
import re
from typing import Protocol

from mvsim_ros.world.errors import WorldFileError

# XML 1.0 (5th edition) names.
_NAME_START = (":A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
               "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
_NAME_CHAR = _NAME_START + r"\-.0-9\u00b7\u0300-\u036f\u203f-\u2040"
_NAME_PATTERN = f"[{_NAME_START}][{_NAME_CHAR}]*"
_NAME = re.compile(_NAME_PATTERN)
_SPACE = re.compile(r"[ \t\n]*")
_NOT_XML_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_REFERENCE = re.compile(f"&(?:#x([0-9A-Fa-f]+)|#([0-9]+)|({_NAME_PATTERN}));")
_ENCODING_DECLARATION = re.compile(rb"""^<\?xml[ \t\r\n][^>]*?encoding[ \t\r\n]*=[ \t\r\n]*["']([A-Za-z0-9._-]+)["']""")
_PREDEFINED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
# Encodings a conforming parser must or commonly does support (expat's set); Python codec names.
_ENCODINGS = {"utf-8", "utf-16", "iso8859-1", "ascii"}


class TreeHandler(Protocol):
    """Receives the document's structure in order (what xml_tree's tree builder implements)."""

    def open(self, tag: str, attrib: dict[str, str], line: int) -> None:
        """An element starts at `line` (1-based) with its attributes, already decoded."""

    def close(self) -> None:
        """The innermost open element ends."""

    def characters(self, content: str) -> None:
        """Character data of the innermost open element (text, decoded references, CDATA)."""


def parse_lenient(data: bytes, file: str, handler: TreeHandler) -> list[str]:
    """Feed `handler` the elements of `data`, accepting the leniencies listed in the module docstring.

    Returns the warnings, one per leniency used at a (line, kind). Raises WorldFileError (file, line) for what
    is still refused; exceptions raised by `handler` (e.g. its depth or size limits) pass through.
    """
    return _Tokenizer(_decode(data, file), file, handler).run()


def _decode(data: bytes, file: str) -> str:
    """The document as text: BOM or XML declaration picks the encoding (UTF-8 by default); newlines normalised."""
    if data.startswith(codecs.BOM_UTF8):
        encoding, data = "utf-8", data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        match = _ENCODING_DECLARATION.match(data)
        declared = match.group(1).decode("ascii") if match else "utf-8"
        try:
            encoding = codecs.lookup(declared).name
        except LookupError:
            encoding = ""
        if encoding not in _ENCODINGS:
            raise WorldFileError(f"malformed XML: unsupported encoding {declared!r} (use UTF-8)", file=file, line=1)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise WorldFileError(f"malformed XML: bytes that are not valid {encoding.upper()}", file=file,
                             line=line) from None
    if encoding == "utf-16" and text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


class _Tokenizer:
    """One pass over the text, feeding the handler; keeps the open elements and the warnings."""

    def __init__(self, text: str, file: str, handler: TreeHandler):
        self.s = text
        self.file = file
        self.handler = handler
        self.stack: list[tuple[str, int, int]] = []  # open elements: (tag, line, text position of '<')
        self.warnings: list[str] = []
        self._warned: set[tuple[int, str]] = set()
        self._line_pos = 0
        self._line = 1
        self.roots = 0
        self.doctype_seen = False
        self.first_mismatch: tuple[int, str, str, int] | None = None  # (position, closing name, closed tag, line)

    # -- locations, warnings, errors -------------------------------------------------------------------------
    def line_at(self, pos: int) -> int:
        """1-based line of text position `pos` (cheap for increasing positions, which is how it is used)."""
        if pos < self._line_pos:
            self._line_pos, self._line = 0, 1
        self._line += self.s.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

    def error(self, message: str, pos: int) -> WorldFileError:
        """A syntax error at text position `pos`; the column counts from 0, as the strict parser's."""
        column = pos - (self.s.rfind("\n", 0, pos) + 1)
        return WorldFileError(f"malformed XML at column {column}: {message}", file=self.file, line=self.line_at(pos))

    def unsafe(self, kind: str, message: str, pos: int) -> WorldFileError:
        return WorldFileError(f"refused unsafe XML ({kind}: {message})", file=self.file, line=self.line_at(pos))

    def warn(self, pos: int, tag: str, kind: str, message: str) -> None:
        line = self.line_at(pos)
        if (line, kind) not in self._warned:
            self._warned.add((line, kind))
            self.warnings.append(f"{self.file}:{line}: <{tag}>: {message}")

    # -- main loop ---------------------------------------------------------------------------------------------
    def run(self) -> list[str]:
        s = self.s
        bad = _NOT_XML_CHAR.search(s)
        if bad is not None:
            raise self.error(f"character U+{ord(bad.group()):04X} is not allowed in XML", bad.start())
        pos, end = 0, len(s)
        while pos < end:
            lt = s.find("<", pos)
            if lt < 0:
                lt = end
            if lt > pos:
                self.text(pos, lt)
            if lt == end:
                break
            pos = self.markup(lt)
        if self.stack:
            raise self.unclosed()
        if self.roots == 0:
            raise WorldFileError("the file holds no XML element", file=self.file)
        return self.warnings

    def markup(self, pos: int) -> int:
        """Read the construct starting with '<' at `pos`; returns the position after it."""
        s = self.s
        if s.startswith("</", pos):
            return self.end_tag(pos)
        if s.startswith("<!--", pos):
            return self.comment(pos)
        if s.startswith("<![CDATA[", pos):
            close = s.find("]]>", pos + 9)
            if close < 0:
                raise self.error("CDATA section not terminated by ']]>'", pos)
            if not self.stack:
                raise self.error("CDATA section outside the root element", pos)
            self.handler.characters(s[pos + 9:close])
            return close + 3
        if s.startswith("<?", pos):
            return self.processing_instruction(pos)
        if s.startswith("<!DOCTYPE", pos):
            return self.doctype(pos)
        if s.startswith("<!ENTITY", pos):
            raise self.unsafe("EntitiesForbidden", "world files may not declare entities", pos)
        if s.startswith("<!", pos):
            raise self.error("unknown markup declaration '<!'", pos)
        return self.start_tag(pos)

    # -- character data ----------------------------------------------------------------------------------------
    def text(self, start: int, stop: int) -> None:
        segment = self.s[start:stop]
        if not self.stack:
            stripped = segment.lstrip(" \t\n")
            if stripped:
                raise self.error("text outside the root element", stop - len(stripped))
            return
        if "]]>" in segment:
            raise self.error("']]>' in text (write ]]&gt;)", start + segment.index("]]>"))
        if "&" in segment:
            segment = self.references(segment, start, self.stack[-1][0], None)
        self.handler.characters(segment)

    def references(self, raw: str, start: int, tag: str, attribute: str | None) -> str:
        """`raw` (found at text position `start`) with references decoded and raw '&' kept (with a warning)."""
        parts: list[str] = []
        pos = 0
        while True:
            amp = raw.find("&", pos)
            if amp < 0:
                parts.append(raw[pos:])
                return "".join(parts)
            parts.append(raw[pos:amp])
            match = _REFERENCE.match(raw, amp)
            if match is None:
                where = "text" if attribute is None else f"attribute '{attribute}'"
                self.warn(start + amp, tag, "raw &",
                          f"{where} holds a raw '&' that starts no entity reference; kept as it is, as MVSim does "
                          "(XML wants &amp;)")
                parts.append("&")
                pos = amp + 1
                continue
            hexadecimal, decimal, name = match.groups()
            if name is not None:
                if name not in _PREDEFINED:
                    raise self.error(f"undefined entity &{name}; (world files cannot define entities; "
                                     "predefined: &lt; &gt; &amp; &quot; &apos;)", start + amp)
                parts.append(_PREDEFINED[name])
            else:
                digits = hexadecimal if hexadecimal is not None else decimal
                code = int(digits, 16 if hexadecimal is not None else 10) if len(digits) <= 8 else -1
                character = chr(code) if 0 < code <= 0x10FFFF else ""
                if not character or _NOT_XML_CHAR.match(character):
                    raise self.error(f"reference {match.group()} to a character XML does not allow", start + amp)
                parts.append(character)
            pos = match.end()

    # -- comments, processing instructions, DOCTYPE ----------------------------------------------------------
    def comment(self, pos: int) -> int:
        close = self.s.find("-->", pos + 4)
        if close < 0:
            raise self.error("comment not terminated by '-->'", pos)
        body = self.s[pos + 4:close]
        inner = body.find("--")
        if inner >= 0 or body.endswith("-"):
            raise self.error("'--' inside a comment", pos + 4 + (inner if inner >= 0 else len(body) - 1))
        return close + 3

    def processing_instruction(self, pos: int) -> int:
        close = self.s.find("?>", pos + 2)
        if close < 0:
            raise self.error("processing instruction not terminated by '?>'", pos)
        target = _NAME.match(self.s, pos + 2)
        if target is None or (target.end() < close and self.s[target.end()] not in " \t\n"):
            raise self.error("'<?' not followed by a name and a space", pos)
        if target.group().lower() == "xml" and pos != 0:
            raise self.error("XML declaration <?xml ...?> not at the start of the file", pos)
        return close + 2

    def doctype(self, pos: int) -> int:
        s = self.s
        after = pos + len("<!DOCTYPE")
        gap = _SPACE.match(s, after).end()
        name = _NAME.match(s, gap)
        if gap == after or name is None:
            raise self.error("malformed <!DOCTYPE>: expected a root element name", pos)
        rest = _SPACE.match(s, name.end()).end()
        if s.startswith("[", rest):
            kind = "EntitiesForbidden" if "<!ENTITY" in s[rest:] else "DTDForbidden"
            raise self.unsafe(kind, "a <!DOCTYPE> with an internal subset is not accepted in world files", pos)
        if s.startswith(("SYSTEM", "PUBLIC"), rest):
            raise self.unsafe("ExternalReferenceForbidden", "a <!DOCTYPE> may not name an external DTD", pos)
        if not s.startswith(">", rest):
            raise self.error("malformed <!DOCTYPE>: expected '>'", rest)
        if self.doctype_seen or self.roots or self.stack:
            raise self.error("<!DOCTYPE> must come once, before the root element", pos)
        self.doctype_seen = True
        return rest + 1

    # -- tags ----------------------------------------------------------------------------------------------------
    def start_tag(self, pos: int) -> int:
        s, end = self.s, len(self.s)
        name = _NAME.match(s, pos + 1)
        if name is None:
            raise self.error("'<' not followed by a tag name (write &lt; for a literal '<')", pos)
        tag = name.group()
        line = self.line_at(pos)
        attrib: dict[str, str] = {}
        p = name.end()
        while True:
            gap = _SPACE.match(s, p).end()
            if s.startswith(">", gap):
                empty, p = False, gap + 1
                break
            if s.startswith("/>", gap):
                empty, p = True, gap + 2
                break
            if gap >= end:
                raise self.error(f"start tag <{tag}> not terminated before the end of the file", pos)
            attribute = _NAME.match(s, gap)
            if gap == p or attribute is None:
                raise self.error(f"unexpected {s[gap]!r} in the start tag <{tag}>", gap)
            p = self.attribute(attribute, tag, attrib)
        if not self.stack:
            self.roots += 1
        self.handler.open(tag, attrib, line)
        if empty:
            self.handler.close()
        else:
            self.stack.append((tag, line, pos))
        return p

    def attribute(self, name: re.Match, tag: str, attrib: dict[str, str]) -> int:
        """Read `name="value"` (name already matched) into `attrib`; returns the position after the value."""
        s, key = self.s, name.group()
        p = _SPACE.match(s, name.end()).end()
        if not s.startswith("=", p):
            raise self.error(f"attribute '{key}' of <{tag}> has no '=\"value\"'", name.start())
        p = _SPACE.match(s, p + 1).end()
        quote = s[p:p + 1]
        if quote not in ("'", '"'):
            raise self.error(f"the value of attribute '{key}' of <{tag}> must be quoted", p)
        close = s.find(quote, p + 1)
        if close < 0:
            raise self.error(f"the value of attribute '{key}' of <{tag}> has no closing quote", p)
        if key in attrib:
            raise self.error(f"attribute '{key}' repeated in <{tag}>", name.start())
        raw = s[p + 1:close]
        less = raw.find("<")
        if less >= 0:
            self.warn(p + 1 + less, tag, "raw <",
                      f"attribute '{key}' holds a raw '<'; accepted as MVSim does (XML wants &lt;)")
        raw = raw.replace("\t", " ").replace("\n", " ")  # attribute-value normalisation (no DTD: CDATA)
        attrib[key] = self.references(raw, p + 1, tag, key) if "&" in raw else raw
        return close + 1

    def end_tag(self, pos: int) -> int:
        s = self.s
        name = _NAME.match(s, pos + 2)
        if name is None:
            raise self.error("'</' not followed by a tag name", pos)
        closing = name.group()
        gap = _SPACE.match(s, name.end()).end()
        if not s.startswith(">", gap):
            raise self.error(f"closing tag </{closing}> not terminated by '>'", pos)
        if not self.stack:
            raise self.error(f"closing tag </{closing}> with no open element", pos)
        tag, line, _ = self.stack.pop()
        if closing != tag:
            if self.first_mismatch is None:
                self.first_mismatch = (pos, closing, tag, line)
            opened = "" if line == self.line_at(pos) else f" (opened at line {line})"
            self.warn(pos, tag, "mismatched close",
                      f"closing tag </{closing}> does not match; it closes <{tag}>{opened} as MVSim does "
                      f"(XML wants </{tag}>)")
        self.handler.close()
        return gap + 1

    def unclosed(self) -> WorldFileError:
        """The error for elements still open at the end of the file, pointing at the likely cause: the first
        closing tag that did not match (it closed an element early), else the innermost open element."""
        tag, line, pos = self.stack[-1]
        outer = ", ".join(f"<{t}> (line {n})" for t, n, _ in reversed(self.stack[:-1]))
        also = f"; also open: {outer}" if outer else ""
        if self.first_mismatch is not None:
            at, closing, closed, opened = self.first_mismatch
            return self.error(f"mismatched tag </{closing}>: it closed <{closed}> (line {opened}) as MVSim does, "
                              f"which leaves <{tag}> (line {line}) unclosed at the end of the file{also}", at)
        return self.error(f"<{tag}> is not closed before the end of the file{also}", pos)
