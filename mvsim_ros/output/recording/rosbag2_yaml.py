"""YAML text in the form rosbag2 writes it (yaml-cpp's `YAML::Dump`: block style, keys in the order given,
sequences inside a mapping indented under their key, no final newline), emitted with PyYAML."""

from __future__ import annotations

from typing import Any

import yaml


class _Rosbag2Dumper(yaml.SafeDumper):
    """SafeDumper that indents a sequence nested in a mapping (`key:\\n  - item`), as yaml-cpp does."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):
        return super().increase_indent(flow, False)


def dump(value: Any) -> str:
    """`value` (dicts, lists, strings, whole numbers, booleans) as block-style YAML, mapping keys in their order."""
    text = yaml.dump(value, Dumper=_Rosbag2Dumper, default_flow_style=False, sort_keys=False, allow_unicode=True,
                     width=1 << 30)
    return text.rstrip("\n")
