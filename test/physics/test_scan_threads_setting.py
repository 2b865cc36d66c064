"""MVSIM_SCAN_THREADS takes 1 or 2 (shim.cpp); any other value is said in exactly one warning line naming the
variable, the value and the accepted values, and what the shim makes of it."""

from __future__ import annotations

import pytest

from mvsim_ros.physics.box2d_native import SCAN_THREADS_VARIABLE, setting_warnings


@pytest.mark.parametrize("value", [None, "", "1", "2"])
def test_accepted_values_and_unset_say_nothing(value):
    assert setting_warnings({} if value is None else {SCAN_THREADS_VARIABLE: value}) == []


def test_a_bogus_value_gives_one_line_naming_variable_value_and_accepted_values(monkeypatch):
    monkeypatch.setenv(SCAN_THREADS_VARIABLE, "bogus")
    (line,) = setting_warnings()  # os.environ, as the node and mvsim_view read it
    assert line.startswith("MVSIM_SCAN_THREADS='bogus' is not an accepted value (1: ")
    assert "; 2: " in line and "taken as unset" in line and "\n" not in line


@pytest.mark.parametrize("value, read", [("2x", "read as 2"), (" 1", "read as 1"), ("+02", "read as 2"),
                                         ("3", "taken as unset"), ("0", "taken as unset"), ("-1", "taken as unset")])
def test_the_line_says_what_the_shim_reads_as_c_atoi_does(value, read):
    (line,) = setting_warnings({SCAN_THREADS_VARIABLE: value})
    assert f"={value!r} " in line and read in line
