"""Reading a sweep file's YAML within fixed budgets, so that a small hostile file cannot take the machine's
memory or time: at most MAX_FILE_BYTES bytes, MAX_ALIASES aliases (`*name`), MAX_NODES nodes once every alias is
expanded, and nesting MAX_DEPTH deep. Aliases are counted and their expanded size is computed while the document
is composed, before any Python object is built, so a "billion laughs" file is refused after a few hundred nodes of
work. Only YAML's safe tags are read (no Python objects).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

#: Largest sweep file [bytes] (1 MiB).
MAX_FILE_BYTES = 1 << 20
#: Most aliases (`*name`) in one sweep file.
MAX_ALIASES = 100
#: Most nodes (scalars, lists, mappings) in the document with every alias expanded.
MAX_NODES = 100_000
#: Deepest nesting of lists and mappings.
MAX_DEPTH = 32


class YamlBudgetError(ValueError):
    """The YAML text is over one of the budgets (one line: which, and where)."""


class _BudgetLoader(yaml.SafeLoader):
    """SafeLoader that counts aliases, nodes with aliases expanded, and nesting depth while it composes."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._aliases = 0
        self._nodes = 0
        self._depth = 0
        self._sizes: dict[int, int] = {}  # id(node) -> its node count with aliases expanded (complete nodes only)

    def _add(self, count: int, mark) -> None:
        self._nodes += count
        if self._nodes > MAX_NODES:
            raise YamlBudgetError(f"line {mark.line + 1}: the document expands to more than {MAX_NODES} nodes "
                                  f"(aliases included)")

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise YamlBudgetError(f"line {event.start_mark.line + 1}: more than {MAX_ALIASES} aliases")
            target = self.anchors.get(event.anchor)
            if target is not None:
                if id(target) not in self._sizes:
                    raise YamlBudgetError(f"line {event.start_mark.line + 1}: alias *{event.anchor} refers to a "
                                          f"node that contains it")
                self._add(self._sizes[id(target)], event.start_mark)
            return super().compose_node(parent, index)
        mark = self.peek_event().start_mark
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise YamlBudgetError(f"line {mark.line + 1}: nested more than {MAX_DEPTH} deep")
        before = self._nodes
        self._add(1, mark)
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._sizes[id(node)] = self._nodes - before
        return node


def read_yaml(path: Path) -> Any:
    """The YAML document in `path`, read within the budgets. Raises OSError (unreadable), YamlBudgetError (over a
    budget, or not UTF-8 text) or yaml.YAMLError (not YAML)."""
    with open(path, "rb") as stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise YamlBudgetError(f"larger than {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlBudgetError(f"not UTF-8 text (byte {exc.start})") from None
    loader = _BudgetLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
