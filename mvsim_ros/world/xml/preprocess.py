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
`Preprocessor.warnings`, each once, for the loader to add to the world's warnings.

All work is charged to the load budget (budget.py, limits.py) as it happens: files by their size (checked with
stat before reading), every element read or expanded (directives included), every <for> iteration (whatever its
body holds), every character of text substituted or produced (counted inside the substitution, before a long
result is built) and of every expression evaluated; the elements <for> loops produce widen the expression budget
(budget.py). Element nesting is bounded across includes too (counting <for>, <if> and included files), so deep
trees give a located error, not a RecursionError.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from collections import ChainMap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, MutableMapping

import numpy as np

from mvsim_ros.world.xml.bounded_io import file_size, read_world_file
from mvsim_ros.world.xml.budget import LoadBudget, Where, active_budget
from mvsim_ros.world.xml.expressions import ExpressionError, evaluate
from mvsim_ros.world.params.world_tables import WORLD_FOR, WORLD_IF, WORLD_VARIABLE
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlDocument, XmlNode, parse_xml_bytes, parse_xml_document

MAX_INCLUDE_DEPTH = 16
MAX_SUBSTITUTION_ROUNDS = 10
SHELL_TIMEOUT_S = 10.0
DEFERRED_VARIABLES = frozenset({"NAME", "PARENT_NAME"})
CURRENT_FILE_DIRECTORY = "MVSIM_CURRENT_FILE_DIRECTORY"

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\|([^}]*))?\}")
_ENVIRONMENT = re.compile(r"\$env\{([^}]*)\}")
_EXPRESSION = re.compile(r"\$f\{([^}]*)\}")
_COMMAND = re.compile(r"\$\(([^)]*)\)")


Variables = MutableMapping[str, str]


def _where(node: XmlNode) -> Where:
    return node.file, node.line, node.tag


@dataclass
class Preprocessor:
    """Expansion state: the seeded generator for rand()/randn(), the shell policy, the load budget (the active
    one by default), the files read so far (each is parsed once however often it is included) and the warnings of
    reading them."""

    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    allow_shell: bool = False
    budget: LoadBudget = field(default_factory=active_budget)
    warnings: list[str] = field(default_factory=list)
    #: Variables set from outside the world (load_world's `variables`): the world's <variable> does not redefine
    #: them.
    fixed: frozenset[str] = frozenset()
    _depth: int = field(default=0, init=False, repr=False)
    _loop_depth: int = field(default=0, init=False, repr=False)  # <for> loops being run around this point
    _documents: dict[str, XmlDocument] = field(default_factory=dict, init=False, repr=False)
    _warned: set[str] = field(default_factory=set, init=False, repr=False)

    def note(self, warnings: tuple[str, ...] | list[str]) -> None:
        """Add file-reading warnings (``file:line: <tag>: ...``) to `warnings`, each text once."""
        for warning in warnings:
            if warning not in self._warned:
                self._warned.add(warning)
                self.warnings.append(warning)

    # -- text ---------------------------------------------------------------------------------------------------
    def substitute(self, text: str, variables: Mapping[str, str], node: XmlNode,
                   keep: frozenset[str] = DEFERRED_VARIABLES) -> str:
        """Expand every construct in `text`; names in `keep` (and expressions using them) are left for later.

        The text and every replacement are charged to max_expanded_chars as they come, so a result over the
        budget is refused before it is built."""
        where = _where(node)
        self.budget.add_expanded_chars(len(text), where)
        if "$" not in text:
            return text
        for _ in range(MAX_SUBSTITUTION_ROUNDS):
            before = text
            text = _VARIABLE.sub(lambda m: self._charged(self._variable(m, variables, node, keep), where), text)
            text = _ENVIRONMENT.sub(lambda m: self._charged(self._environment(m, node), where), text)
            text = _COMMAND.sub(lambda m: self._charged(self._command(m, node), where), text)
            text = _EXPRESSION.sub(lambda m: self._charged(self._expression(m, variables, node), where), text)
            if text == before:
                break
        return text

    def _charged(self, replacement: str, where: Where) -> str:
        self.budget.add_expanded_chars(len(replacement), where)
        return replacement

    def _variable(self, match: re.Match, variables: Mapping[str, str], node: XmlNode, keep: frozenset[str]) -> str:
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

    def _expression(self, match: re.Match, variables: Mapping[str, str], node: XmlNode) -> str:
        text = match.group(1)
        if "${" in text:  # uses a name only known later (e.g. ${NAME}): evaluate it then
            return match.group(0)
        self.budget.add_expression_chars(len(text), _where(node))
        try:
            value = evaluate(text, numeric_variables(variables), self.rng)
        except ExpressionError as exc:
            raise fail(node, f"in $f{{{text}}}: {exc}") from None
        return format_number(value)

    def evaluate_condition(self, text: str, variables: Mapping[str, str], node: XmlNode) -> bool:
        """Truth of an <if condition="...">: variables substituted, then evaluated (non-zero is true)."""
        expanded = self.substitute(text, variables, node, keep=frozenset())
        self.budget.add_expression_chars(len(expanded), _where(node))
        try:
            return evaluate(expanded, numeric_variables(variables), self.rng) != 0.0
        except ExpressionError as exc:
            raise fail(node, f"condition {text!r}: {exc}") from None

    # -- tree ---------------------------------------------------------------------------------------------------
    def expand(self, node: XmlNode, variables: Variables, chain: tuple[str, ...]) -> XmlNode:
        """A copy of `node` with its attributes, text and children expanded (see the module docstring).

        `chain` lists the files being included, outermost first, for cycle detection and error messages.
        """
        self.budget.add_elements(1, _where(node))
        if self._loop_depth:
            self.budget.add_loop_elements(1)
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

    def expand_children(self, children: list[XmlNode], variables: Variables,
                        chain: tuple[str, ...]) -> list[XmlNode]:
        """Expand a list of sibling nodes; <variable>, <for>, <if> and <include> are replaced by what they give."""
        if not children:
            return []
        # the children sit one level below this call's: the root's children are level 2
        self.budget.check_depth(self._depth + 2, _where(children[0]), " (counting <for>, <if> and included files)")
        self._depth += 1
        try:
            out: list[XmlNode] = []
            for child in children:
                if child.tag in _DIRECTIVES:  # expand() counts the others
                    self.budget.add_elements(1, _where(child))
                    self._check_attributes(child)
                if child.tag == "variable":
                    name = child.attrib.get("name", "").strip()
                    if not name or "value" not in child.attrib:
                        raise fail(child, "expected attributes name=\"...\" and value=\"...\"")
                    if name not in self.fixed:
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

    def _check_attributes(self, node: XmlNode) -> None:
        """A warning (file:line) for each attribute a <variable>, <for> or <if> does not take (params/world_tables.py;
        an <include>'s other attributes are variables)."""
        table = {"variable": WORLD_VARIABLE, "for": WORLD_FOR, "if": WORLD_IF}.get(node.tag)
        if table is None:
            return
        for key in node.attrib:
            if table.lookup(key, attribute=True) is None:
                known = ", ".join(table.names(attribute=True))
                self.note([f"{node.file}:{node.line}: <{node.tag}>: unknown attribute {key}=\"...\" for "
                           f"<{node.tag}>; skipped (known: {known})"])
        if node.tag == "variable" and node.children:
            self.note([f"{node.file}:{node.line}: <variable>: takes no nested elements; they are skipped"])

    def _loop(self, node: XmlNode, variables: Variables, chain: tuple[str, ...]) -> list[XmlNode]:
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
        where = _where(node)
        count = last - first + 1
        room = self.budget.limits.max_loop_iterations - self.budget.loop_iterations
        if count > room:  # refused before running any of it (the count is also charged one by one below)
            raise self.budget.refuse("max_loop_iterations", f"this <for> loop of {count} iterations would take the "
                                     f"<for> loops of the world over {self.budget.limits.max_loop_iterations} "
                                     "iterations in all", where)
        out: list[XmlNode] = []
        self._loop_depth += 1
        try:
            for value in range(first, last + 1):
                self.budget.add_loop_iterations(1, where)
                variables[name] = str(value)
                out.extend(self.expand_children(node.children, variables, chain))
        finally:
            self._loop_depth -= 1
        return out

    def _include(self, node: XmlNode, variables: Variables, chain: tuple[str, ...]) -> list[XmlNode]:
        """The expanded top-level elements of the file an <include> names, in order."""
        raw = node.attrib.get("file")
        if not raw:
            raise fail(node, "expected attribute file=\"...\"")
        rel = self.substitute(raw, variables, node, keep=frozenset())
        path = _resolved(Path(node.file).parent, rel, node)
        if str(path) in chain:
            cycle = " -> ".join([*chain[chain.index(str(path)):], str(path)])
            raise fail(node, f"include cycle: {cycle}")
        if len(chain) >= MAX_INCLUDE_DEPTH:
            raise fail(node, f"includes nested deeper than {MAX_INCLUDE_DEPTH}: {' -> '.join([*chain, str(path)])}")
        file_size(path, _where(node), "included file")
        # the included file's own scope: its variables do not leak out, and nothing is copied (a loop may include
        # a file many times under many variables)
        local: Variables = ChainMap({}, variables)
        for key, value in node.attrib.items():
            if key != "file":
                local[key] = self.substitute(value, variables, node)
        document = self._document(path, node)
        self.note(document.warnings)
        if len(document.roots) > 1:
            second = document.roots[1]
            self.note([f"{second.file}:{second.line}: <{second.tag}>: the included file holds "
                       f"{len(document.roots)} top-level elements; all are used, as MVSim does (XML allows one)"])
        return self.expand_children(document.roots, local, (*chain, str(path)))

    def _document(self, path: Path, include: XmlNode) -> XmlDocument:
        """The parsed file at `path` (read and parsed on first use, its size charged to the budget at the
        <include> that names it; the trees are never modified, expansion copies)."""
        key = str(path)
        if key not in self._documents:
            self._documents[key] = parse_xml_document(read_world_file(path, _where(include), "included file"), key)
        return self._documents[key]


_DIRECTIVES = frozenset({"variable", "include", "for", "if"})


def _resolved(folder: Path, name: str, node: XmlNode) -> Path:
    """`name` resolved against `folder`; a name the operating system refuses (NUL character, too long, ...) is a
    WorldFileError at `node`."""
    if "\x00" in name:
        raise fail(node, "included file name holds a NUL character")
    try:
        return (folder / name).resolve()
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: a symbolic-link loop (Python < 3.13)
        shown = name if len(name) <= 200 else f"{name[:100]}...({len(name)} characters)"
        raise fail(node, f"cannot use the included file name {shown!r}: {getattr(exc, 'strerror', None) or exc}") \
            from None


class _NumericView(Mapping):
    """The variables whose values are numbers, as floats, converted when looked up (an expression uses a few of
    possibly many variables: converting all of them for each expression would cost their number each time)."""

    def __init__(self, variables: Mapping[str, str]):
        self._variables = variables

    def __getitem__(self, name: str) -> float:
        value = self._variables[name]
        try:
            return float(value)
        except ValueError:
            raise KeyError(name) from None

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._variables if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def numeric_variables(variables: Mapping[str, str]) -> Mapping[str, float]:
    """The variables whose values are numbers, as floats (what expressions can use), as a read-only view."""
    return _NumericView(variables)


def format_number(value: float) -> str:
    """Text for an expression's value: integers without a decimal point, others with full precision."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if math.isfinite(value) else str(value)


def load_file_tree(path: Path) -> XmlNode:
    """Read and parse a world file: its root element (later top-level elements are ignored with a warning, on
    the root's `parse_warnings`, as MVSim reads only the first). Its size is charged to the active budget."""
    return parse_xml_bytes(read_world_file(path, (str(path), None, None), "world file"), str(path))


def load_file_document(path: Path) -> XmlDocument:
    """Read and parse an included file: all its top-level elements and the warnings of reading it."""
    return parse_xml_document(read_world_file(path, (str(path), None, None), "included file"), str(path))
