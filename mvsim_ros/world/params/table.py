"""Parameter tables: for one XML context (a friction class, a sensor class, the world, ...), every parameter MVSim
reads there, under MVSim's name, with MVSim's unit and default, and what this simulator does with it.

The loader reads a context only through its table (`ParamTable.read`), so a name, its default and its unit are
written once. A value comes out converted to SI units (degrees in the file become radians), checked against its
bounds quantity (world/xml/bounds.py) and with errors that name file, line and tag. A child tag or attribute the table
does not know is warned about with its file and line; a parameter this simulator deliberately does not simulate
(MVSim's GUI, its ZMQ publishing, .rawlog output) is accepted and warned about once per context.

`docs/parameters.md` is generated from these tables (`python -m mvsim_ros.world.params.doc`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from mvsim_ros.world.xml.suggestions import did_you_mean
from mvsim_ros.world.xml.values import bounded, fail, parse_bool, parse_color, parse_float, parse_floats
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]

#: What this simulator does with a parameter.
SIMULATED = "simulated"  # read with MVSim's meaning, unit and default, and acted on
NOT_SIMULATED = "not simulated"  # accepted and warned once: outside what this simulator does (named in `note`)
GUI_ONLY = "gui only"  # MVSim's own GUI: the browser viewer has its own settings; accepted, warned once
SUPPORT_LEVELS = (SIMULATED, NOT_SIMULATED, GUI_ONLY)

#: Value types: how the text is read, and the unit conversion. "group": an element with children of its own
#: (a <shape>, a <publish> block, a wheel tag), read by its own code or table: `read` hands over its node.
TYPES = ("float", "deg", "int", "bool", "str", "color", "floats", "group")

#: Marks "our default is MVSim's" in Param.ours.
SAME = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a context.

    name: MVSim's name. type: "float", "int", "bool", "str", "color", "floats" (whitespace-separated numbers),
    "deg" (degrees in the file, radians once read) or "group" (an element read by its own code: the value is its
    XmlNode, the last one given). default: MVSim's default, in the file's unit (None: no default
    value, e.g. optional or computed; `note` says which). unit: unit of the value once read ("m", "rad", "s", ...;
    "" for none). meaning: one line for users. aliases: other names read for it (legacy MVSim names or ours).
    support: SIMULATED, NOT_SIMULATED or GUI_ONLY. ours: our default when it differs from MVSim's (`note` says
    why), else SAME. quantity: bounds quantity checked on numbers. attribute: read from an attribute of the
    context's element rather than a child tag.
    """

    name: str
    type: str
    default: Any
    unit: str
    meaning: str
    aliases: tuple[str, ...] = ()
    support: str = SIMULATED
    ours: Any = SAME
    note: str = ""
    quantity: str | None = None
    attribute: bool = False

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"parameter {self.name}: unknown type {self.type!r}")
        if self.support not in SUPPORT_LEVELS:
            raise ValueError(f"parameter {self.name}: unknown support {self.support!r}")

    @property
    def default_value(self) -> Any:
        """The default this simulator uses, converted like a read value (degrees to radians)."""
        value = self.default if self.ours is SAME else self.ours
        if self.type == "deg" and value is not None:
            return math.radians(value)
        return value

    @property
    def where(self) -> str:
        """'attribute' or 'tag'."""
        return "attribute" if self.attribute else "tag"


class Values(dict):
    """Values read for a context, by MVSim name (aliases resolved). `given` holds the names the file set, `nodes`
    the XML node each came from (for located errors in later checks)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.given: set[str] = set()
        self.nodes: dict[str, XmlNode] = {}

    def node(self, name: str, fallback: XmlNode) -> XmlNode:
        """Where `name` was set, else `fallback` (the context's element: the value is a default)."""
        return self.nodes.get(name, fallback)


class ParamTable:
    """The parameters of one context; `read` takes an element's children and attributes through it."""

    def __init__(self, context: str, params: Iterable[Param], description: str = ""):
        self.context = context
        self.description = description
        self.params: tuple[Param, ...] = tuple(params)
        self._by_name: dict[tuple[str, bool], Param] = {}
        for param in self.params:
            for name in (param.name, *param.aliases):
                key = (name, param.attribute)
                if key in self._by_name:
                    raise ValueError(f"{context}: {name} listed twice")
                self._by_name[key] = param

    def __iter__(self):
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def __getitem__(self, name: str) -> Param:
        for attribute in (False, True):
            param = self._by_name.get((name, attribute))
            if param is not None:
                return param
        raise KeyError(f"{self.context} has no parameter {name!r}")

    def lookup(self, name: str, attribute: bool) -> Param | None:
        """The parameter read under `name` (its own or an alias) as a tag or as an attribute, or None."""
        return self._by_name.get((name, attribute))

    def defaults(self) -> Values:
        """Every parameter at this simulator's default (converted)."""
        values = Values()
        for param in self.params:
            values[param.name] = param.default_value
        return values

    def names(self, attribute: bool = False) -> list[str]:
        """MVSim's names of the tag (or attribute) parameters."""
        return [p.name for p in self.params if p.attribute == attribute]

    def read(self, node: XmlNode, warn: Warn, *, children: Iterable[XmlNode] | None = None,
             handled_tags: Iterable[str] = (), handled_attributes: Iterable[str] = (),
             label: str | None = None, base: Values | None = None) -> Values:
        """The values of `node`'s parameters: defaults, then its attributes and child tags in file order (a
        later tag wins over an earlier one, as MVSim reads them). `children` replaces node.children (e.g. a class
        merged with its instance); `handled_tags` / `handled_attributes` are read by the caller and neither read
        nor warned about here. `base` starts from values read before (a class's) instead of the defaults.
        Unknown tags and attributes are warned about with their location; not-simulated ones once per context."""
        values = Values() if base is None else _copy(base)
        if base is None:
            values.update(self.defaults())
        what = label or self.context
        skip_attrs = set(handled_attributes) | {"class", "name", "type"}
        for key, text in node.attrib.items():
            if key in skip_attrs:
                continue
            param = self.lookup(key, attribute=True)
            if param is None:
                known = self.names(attribute=True)
                warn(node, f"unknown attribute {key}=\"{_short(text)}\" for {what}; skipped{_known(known)}"
                           f"{did_you_mean(key, known, tag=False)}")
                continue
            self._store(values, param, text, node, warn, what)
        skip_tags = set(handled_tags)
        for child in (node.children if children is None else children):
            if child.tag in skip_tags:
                continue
            param = self.lookup(child.tag, attribute=False)
            if param is None:
                known = self.names()
                warn(child, f"unknown parameter <{child.tag}> for {what}; skipped{_known(known)}"
                            f"{did_you_mean(child.tag, known, tag=True)}")
                continue
            if param.type == "group":
                self._store(values, param, child, child, warn, what)
                continue
            if child.children:
                warn(child, f"<{child.tag}> of {what} takes a value, not nested elements; nested ones skipped")
            self._store(values, param, child.text, child, warn, what)
        return values

    def _store(self, values: Values, param: Param, text: Any, node: XmlNode, warn: Warn, what: str) -> None:
        if param.support != SIMULATED:
            reason = param.note or ("MVSim's GUI setting" if param.support == GUI_ONLY else "not simulated")
            warn(node, f"{param.name} of {what} is accepted but not used: {reason}")
        values[param.name] = convert(param, text, node, what)
        values.given.add(param.name)
        values.nodes[param.name] = node


def convert(param: Param, text: Any, node: XmlNode, what: str) -> Any:
    """`text` read as `param`'s type (degrees to radians), numbers checked against its bounds quantity; a group's
    element is returned as it is."""
    label = f"{what} {param.name}"
    kind = param.type
    if kind == "group":
        return text  # the element itself
    if kind == "str":
        return text.strip()
    if kind == "bool":
        return parse_bool(text, node, label)
    if kind == "color":
        return parse_color(text, node, label)
    if kind == "floats":
        parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
        numbers = parse_floats(text, node, label, len(parts) or 1)
        if param.quantity:
            for number in numbers:
                bounded(number, node, param.quantity, label)
        return numbers
    number = parse_float(text, node, label)
    if param.quantity:
        bounded(number, node, param.quantity, label)
    if kind == "int":
        if number != int(number):
            raise fail(node, f"{label}: expected a whole number, got {text.strip()!r}")
        return int(number)
    if kind == "deg":
        return math.radians(number)
    return number


def _copy(values: Values) -> Values:
    out = Values(values)
    out.given, out.nodes = set(values.given), dict(values.nodes)
    return out


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _known(names: list[str]) -> str:
    return f" (known: {', '.join(names)})" if names else ""


__all__ = ["GUI_ONLY", "NOT_SIMULATED", "Param", "ParamTable", "SAME", "SIMULATED", "SUPPORT_LEVELS", "TYPES",
           "Values", "Warn", "convert"]
