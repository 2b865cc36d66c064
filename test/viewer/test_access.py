"""Who may open the viewer's WebSocket (access.py): origin normalisation, same-origin and DNS-rebinding rules,
allowed origins, the token; and the node parameter that lists allowed origins."""

from __future__ import annotations

import pytest

from mvsim_ros.ros.node.parameters import PARAMETERS, ParameterError, coerce
from mvsim_ros.viewer.access import AccessPolicy, new_token, normalize_origin, normalize_origins


@pytest.mark.parametrize("given, expected", [
    ("http://127.0.0.1:8090", "http://127.0.0.1:8090"),
    ("HTTP://Robots.LAN:8090/", "http://robots.lan:8090"),
    ("http://robots.lan:80", "http://robots.lan"),
    ("https://robots.lan:443", "https://robots.lan"),
    ("https://robots.lan:8443", "https://robots.lan:8443"),
    ("http://[::1]:8090", "http://[::1]:8090"),
    ("  http://localhost:8090  ", "http://localhost:8090"),
])
def test_origins_normalise_as_browsers_write_them(given, expected):
    assert normalize_origin(given) == expected


@pytest.mark.parametrize("bad", ["null", "NULL", "", " ", "*", "robots.lan:8090", "ftp://robots.lan",
                                 "file:///tmp/x", "http://", "http://robots.lan:8090/viewer", "http://a/?x=1",
                                 "http://a#f", "http://user@robots.lan", "http://robots.lan:99999", "http://a:0",
                                 "http://robots .lan", "http://a\nb", "http://a\x00", "http://" + "a" * 300,
                                 8090, None])
def test_not_origins_are_refused_with_a_reason(bad):
    with pytest.raises(ValueError, match=r"\S"):
        normalize_origin(bad)


def test_allowed_origins_are_deduplicated_in_order():
    assert normalize_origins(["http://B:1", "http://a:2", "http://b:1/"]) == ["http://b:1", "http://a:2"]


LOCAL = AccessPolicy("127.0.0.1")


@pytest.mark.parametrize("origin, host", [
    (None, "127.0.0.1:8090"),                       # not a browser
    (None, None),
    ("http://127.0.0.1:8090", "127.0.0.1:8090"),    # the page itself
    ("http://localhost:8090", "localhost:8090"),
    ("http://[::1]:8090", "[::1]:8090"),
    ("http://192.168.1.20:8090", "192.168.1.20:8090"),
    ("HTTP://LOCALHOST:8090", "LocalHost:8090"),
])
def test_own_origin_and_no_origin_are_accepted(origin, host):
    assert LOCAL.refusal(origin, host) is None


@pytest.mark.parametrize("origin, host", [
    ("http://evil.example", "127.0.0.1:8090"),          # another site's page
    ("null", "127.0.0.1:8090"),                         # a sandboxed frame or a local file
    ("http://127.0.0.1:8091", "127.0.0.1:8090"),        # another local port
    ("https://127.0.0.1", "127.0.0.1:8090"),            # https: port 443, not the served one
    ("http://evil.example:8090", "evil.example:8090"),  # DNS rebinding: a name pointed at 127.0.0.1
    ("http://127.0.0.1:8090", None),                    # no Host to compare with
    ("http://127.0.0.1:8090", "127.0.0.1:8090/x"),
    ("not an origin", "127.0.0.1:8090"),
    ("http://127.0.0.1:8090/path", "127.0.0.1:8090"),
])
def test_foreign_origins_are_refused(origin, host):
    assert LOCAL.refusal(origin, host)


def test_the_bound_host_name_and_allowed_origins_are_accepted():
    policy = AccessPolicy("Robots.lan", ["http://trusted.example:1234"])
    assert policy.refusal("http://robots.lan:8090", "robots.lan:8090") is None
    assert policy.refusal("http://trusted.example:1234", "127.0.0.1:8090") is None
    assert policy.refusal("http://trusted.example:1235", "127.0.0.1:8090")
    assert policy.refusal("http://other.lan:8090", "other.lan:8090")
    with pytest.raises(ValueError):
        AccessPolicy("127.0.0.1", ["null"])


def test_token_is_needed_by_everyone_when_set():
    token = new_token()
    assert len(token) >= 20 and token != new_token()
    policy = AccessPolicy("127.0.0.1", token=token)
    assert policy.refusal(None, "127.0.0.1:8090", token) is None
    assert policy.refusal("http://127.0.0.1:8090", "127.0.0.1:8090", token) is None
    for wrong in (None, "", token[:-1], token + "x", "é"):
        assert policy.refusal(None, "127.0.0.1:8090", wrong) == "missing or wrong token"
    assert policy.refusal("http://evil.example", "127.0.0.1:8090", token)  # the token does not lift the origin check
    with pytest.raises(ValueError):
        AccessPolicy("127.0.0.1", token="")


def test_allowed_origins_parameter():
    spec = PARAMETERS["viewer_allowed_origins"]
    assert spec.default == [] and PARAMETERS["viewer_token"].default is False
    assert coerce("viewer_allowed_origins", [], spec) == []
    assert coerce("viewer_allowed_origins", None, spec) == []  # `-p viewer_allowed_origins:=[]` arrives unset
    assert coerce("viewer_allowed_origins", ["http://a:1", "https://b"], spec) == ["http://a:1", "https://b"]
    assert coerce("viewer_allowed_origins", "http://a:1", spec) == ["http://a:1"]
    for bad in (["null"], ["http://a/b"], [1], 3, True, ["http://a:1", "*"]):
        with pytest.raises(ParameterError, match="viewer_allowed_origins"):
            coerce("viewer_allowed_origins", bad, spec)
