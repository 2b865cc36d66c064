"""First pass over a parsed world: includes, variables, loops, conditions and inline expressions.

What it understands (as MVSim does, plus a few safety rules):
- ``<include file="..." key="value"/>``: the file (path relative to the including file) is parsed and put in
  place; its extra attributes are variables inside that file only. As in MVSim, every top-level element of
  the included file is put in place, in order (a file may hold several ``<vehicle:class>``, for instance);
  top-level ``<variable>``, ``<include>``, ``<for>`` and ``<if>`` work there as anywhere. Nesting depth of
  includes is limited and cycles are reported with the chain of files.
- ``<variable name="..." value="..."/>``: defines a variable for everything after it in document order.
- ``<for var="i" from="1" to="4">...</for>``: the children are repeated for i = from..to (inclusive).
- ``<if condition="...">...</if>``: the children are kept when the condition evaluates to non-zero.
- In every attribute and text: ``${var}`` and ``${var|default}``; ``${MVSIM_CURRENT_FILE_DIRECTORY}`` (the
  directory of the file the text is in); ``$env{VAR}`` (an environment variable; undefined is an error);
  ``$f{expression}`` (arithmetic through the safe evaluator in expressions.py: never Python's eval; random
  functions draw from the world's seeded generator); ``$(command)`` (a shell command's output: refused unless the
  caller allows it, e.g. the node parameter ``allow_shell_in_world``). Like MVSim, substitution repeats until the
  text stops changing (at most 10 rounds), so one construct may produce another.
- ``${NAME}`` and ``${PARENT_NAME}`` are left in place here: the vehicle, block and sensor builders know them.

Warnings from reading the files (leniencies MVSim accepts and XML does not, see xml_tree.py) are collected in
`Preprocessor.warnings`, each once, for the loader to add to the world's warnings. Element nesting is bounded
across includes too (`MAX_NESTING_DEPTH` levels in all), so deep trees give a located error, not a
RecursionError.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.expressions import ExpressionError, evaluate
from mvsim_ros.world.values import fail
from mvsim_ros.world import xml_tree
from mvsim_ros.world.xml_tree import MAX_NESTING_DEPTH, XmlDocument, XmlNode, parse_xml_bytes, parse_xml_document

MAX_INCLUDE_DEPTH = 16
MAX_LOOP_ITERATIONS = 10_000
MAX_SUBSTITUTION_ROUNDS = 10
MAX_ELEMENTS = 1_000_000
SHELL_TIMEOUT_S = 10.0
DEFERRED_VARIABLES = frozenset({"NAME", "PARENT_NAME"})
CURRENT_FILE_DIRECTORY = "MVSIM_CURRENT_FILE_DIRECTORY"

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\|([^}]*))?\}")
_ENVIRONMENT = re.compile(r"\$env\{([^}]*)\}")
_EXPRESSION = re.compile(r"\$f\{([^}]*)\}")
_COMMAND = re.compile(r"\$\(([^)]*)\)")


@dataclass
class Preprocessor:
    """Expansion state: the seeded generator for rand()/randn(), the shell policy, an element budget, the
    files read so far (each is parsed once however often it is included) and the warnings of reading them."""

    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    allow_shell: bool = False
    elements: int = 0
    warnings: list[str] = field(default_factory=list)
    _depth: int = field(default=0, init=False, repr=False)
    _documents: dict[str, XmlDocument] = field(default_factory=dict, init=False, repr=False)
    _warned: set[str] = field(default_factory=set, init=False, repr=False)

    def note(self, warnings: tuple[str, ...] | list[str]) -> None:
        """Add file-reading warnings (``file:line: <tag>: ...``) to `warnings`, each text once."""
        for warning in warnings:
            if warning not in self._warned:
                self._warned.add(warning)
                self.warnings.append(warning)

    # -- text ---------------------------------------------------------------------------------------------------
    def substitute(self, text: str, variables: dict[str, str], node: XmlNode,
                   keep: frozenset[str] = DEFERRED_VARIABLES) -> str:
        """Expand every construct in `text`; names in `keep` (and expressions using them) are left for later."""
        if "$" not in text:
            return text
        for _ in range(MAX_SUBSTITUTION_ROUNDS):
            before = text
            text = _VARIABLE.sub(lambda m: self._variable(m, variables, node, keep), text)
            text = _ENVIRONMENT.sub(lambda m: self._environment(m, node), text)
            text = _COMMAND.sub(lambda m: self._command(m, node), text)
            text = _EXPRESSION.sub(lambda m: self._expression(m, variables, node), text)
            if text == before:
                break
        return text

    def _variable(self, match: re.Match, variables: dict[str, str], node: XmlNode, keep: frozenset[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in variables:
            return variables[name]
        if name == CURRENT_FILE_DIRECTORY:
            return str(Path(node.file).parent)
        if name in keep:
            return match.group(0)
        if default is not None:
            return default
        known = ", ".join(sorted(variables)) or "none"
        raise fail(node, f"undefined variable ${{{name}}} (defined here: {known})")

    @staticmethod
    def _environment(match: re.Match, node: XmlNode) -> str:
        name = match.group(1).strip()
        value = os.environ.get(name)
        if value is None:
            raise fail(node, f"undefined environment variable $env{{{name}}}")
        return value

    def _command(self, match: re.Match, node: XmlNode) -> str:
        command = match.group(1)
        if not self.allow_shell:
            raise fail(node, f"refused to run the shell command $({command}): running commands from world files is "
                             "disabled (set the node parameter allow_shell_in_world:=true to allow it)")
        try:
            result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=SHELL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise fail(node, f"shell command $({command}) did not finish within {SHELL_TIMEOUT_S:g} s") from None
        if result.returncode != 0:
            raise fail(node, f"shell command $({command}) failed with status {result.returncode}: "
                             f"{result.stderr.strip()[:200]}")
        return result.stdout.strip().replace("\r", "").replace("\n", "")

    def _expression(self, match: re.Match, variables: dict[str, str], node: XmlNode) -> str:
        text = match.group(1)
        if "${" in text:  # uses a name only known later (e.g. ${NAME}): evaluate it then
            return match.group(0)
        try:
            value = evaluate(text, numeric_variables(variables), self.rng)
        except ExpressionError as exc:
            raise fail(node, f"in $f{{{text}}}: {exc}") from None
        return format_number(value)

    def evaluate_condition(self, text: str, variables: dict[str, str], node: XmlNode) -> bool:
        """Truth of an <if condition="...">: variables substituted, then evaluated (non-zero is true)."""
        expanded = self.substitute(text, variables, node, keep=frozenset())
        try:
            return evaluate(expanded, numeric_variables(variables), self.rng) != 0.0
        except ExpressionError as exc:
            raise fail(node, f"condition {text!r}: {exc}") from None

    # -- tree ---------------------------------------------------------------------------------------------------
    def expand(self, node: XmlNode, variables: dict[str, str], chain: tuple[str, ...]) -> XmlNode:
        """A copy of `node` with its attributes, text and children expanded (see the module docstring).

        `chain` lists the files being included, outermost first, for cycle detection and error messages.
        """
        self._count(node)
        if node.parse_warnings:
            self.note(node.parse_warnings)
        out = XmlNode(
            tag=node.tag,
            attrib={k: self.substitute(v, variables, node) for k, v in node.attrib.items()},
            file=node.file,
            line=node.line,
            text=self.substitute(node.text, variables, node),
        )
        out.children = self.expand_children(node.children, variables, chain)
        return out

    def expand_children(self, children: list[XmlNode], variables: dict[str, str],
                        chain: tuple[str, ...]) -> list[XmlNode]:
        """Expand a list of sibling nodes; <variable>, <for>, <if> and <include> are replaced by what they give."""
        if not children:
            return []
        if self._depth >= MAX_NESTING_DEPTH:  # the children would sit one level deeper than the limit
            raise fail(children[0], f"elements nested deeper than {MAX_NESTING_DEPTH} levels (counting <for>, <if> "
                                    "and included files)")
        self._depth += 1
        try:
            out: list[XmlNode] = []
            for child in children:
                if child.tag == "variable":
                    name = child.attrib.get("name", "").strip()
                    if not name or "value" not in child.attrib:
                        raise fail(child, "expected attributes name=\"...\" and value=\"...\"")
                    variables[name] = self.substitute(child.attrib["value"], variables, child)
                elif child.tag == "include":
                    out.extend(self._include(child, variables, chain))
                elif child.tag == "for":
                    out.extend(self._loop(child, variables, chain))
                elif child.tag == "if":
                    condition = child.attrib.get("condition")
                    if condition is None:
                        raise fail(child, "expected attribute condition=\"...\"")
                    if self.evaluate_condition(condition, variables, child):
                        out.extend(self.expand_children(child.children, variables, chain))
                else:
                    out.append(self.expand(child, variables, chain))
            return out
        finally:
            self._depth -= 1

    def _loop(self, node: XmlNode, variables: dict[str, str], chain: tuple[str, ...]) -> list[XmlNode]:
        for key in ("var", "from", "to"):
            if key not in node.attrib:
                raise fail(node, "expected attributes var=\"...\", from=\"...\" and to=\"...\"")
        name = node.attrib["var"].strip()
        bounds = []
        for key in ("from", "to"):
            text = self.substitute(node.attrib[key], variables, node, keep=frozenset())
            try:
                value = float(text)
            except ValueError:
                raise fail(node, f"<for> {key}: expected an integer, got {text!r}") from None
            if not value.is_integer():
                raise fail(node, f"<for> {key}: expected an integer, got {text!r}")
            bounds.append(int(value))
        first, last = bounds
        if last - first + 1 > MAX_LOOP_ITERATIONS:
            raise fail(node, f"<for> loop of {last - first + 1} iterations exceeds the limit of {MAX_LOOP_ITERATIONS}")
        out: list[XmlNode] = []
        for value in range(first, last + 1):
            variables[name] = str(value)
            out.extend(self.expand_children(node.children, variables, chain))
        return out

    def _include(self, node: XmlNode, variables: dict[str, str], chain: tuple[str, ...]) -> list[XmlNode]:
        """The expanded top-level elements of the file an <include> names, in order."""
        raw = node.attrib.get("file")
        if not raw:
            raise fail(node, "expected attribute file=\"...\"")
        rel = self.substitute(raw, variables, node, keep=frozenset())
        path = (Path(node.file).parent / rel).resolve()
        if str(path) in chain:
            cycle = " -> ".join([*chain[chain.index(str(path)):], str(path)])
            raise fail(node, f"include cycle: {cycle}")
        if len(chain) >= MAX_INCLUDE_DEPTH:
            raise fail(node, f"includes nested deeper than {MAX_INCLUDE_DEPTH}: {' -> '.join([*chain, str(path)])}")
        if not path.is_file():
            raise fail(node, f"included file not found: {path}")
        local = dict(variables)
        for key, value in node.attrib.items():
            if key != "file":
                local[key] = self.substitute(value, variables, node)
        document = self._document(path)
        self.note(document.warnings)
        if len(document.roots) > 1:
            second = document.roots[1]
            self.note([f"{second.file}:{second.line}: <{second.tag}>: the included file holds "
                       f"{len(document.roots)} top-level elements; all are used, as MVSim does (XML allows one)"])
        return self.expand_children(document.roots, local, (*chain, str(path)))

    def _document(self, path: Path) -> XmlDocument:
        """The parsed file at `path` (parsed on first use; the trees are never modified, expansion copies)."""
        key = str(path)
        if key not in self._documents:
            self._documents[key] = load_file_document(path)
        return self._documents[key]

    def _count(self, node: XmlNode) -> None:
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise fail(node, f"the world expands to more than {MAX_ELEMENTS} XML elements")


def numeric_variables(variables: dict[str, str]) -> dict[str, float]:
    """The variables whose values are numbers, as floats (what expressions can use)."""
    numeric = {}
    for name, value in variables.items():
        try:
            numeric[name] = float(value)
        except ValueError:
            continue
    return numeric


def format_number(value: float) -> str:
    """Text for an expression's value: integers without a decimal point, others with full precision."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if math.isfinite(value) else str(value)


def load_file_tree(path: Path) -> XmlNode:
    """Read and parse a world file: its root element (later top-level elements are ignored with a warning, on
    the root's `parse_warnings`, as MVSim reads only the first)."""
    return parse_xml_bytes(_read(path), str(path))


def load_file_document(path: Path) -> XmlDocument:
    """Read and parse an included file: all its top-level elements and the warnings of reading it."""
    return parse_xml_document(_read(path), str(path))


def _read(path: Path) -> bytes:
    """The bytes of `path`, refusing files over the size limit before reading them."""
    try:
        size = path.stat().st_size
        if size > xml_tree.MAX_FILE_BYTES:
            raise WorldFileError(xml_tree.size_limit_message(size), file=str(path))
        return path.read_bytes()
    except OSError as exc:
        raise WorldFileError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
