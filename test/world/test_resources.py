"""Remote and zipped resources: download once into MVSim's cache layout, safe zips, offline, mvsim_fetch_models.

Every download comes from a local HTTP server on 127.0.0.1 (a thread; it counts requests). conftest makes the
session offline with its own cache; the tests here that download turn that off with monkeypatch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import importlib.metadata
import io
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from mvsim_ros.cli import fetch_models
from mvsim_ros.world import WorldFileError, load_world
from mvsim_ros.world.files import resources
from mvsim_ros.world.elements.scenery.walls import parse_walls
from mvsim_ros.world.files.resources import resolve_uri, safe_extract
from mvsim_ros.world.files.visual_models import clear_model_cache
from mvsim_ros.world.specs import HorizontalPlaneSpec, SkyBoxSpec, VisualSpec
from mvsim_ros.world.warning_summary import without_fetch_hint
from mvsim_ros.world.xml.xml_tree import parse_xml_bytes

#: A box x in [-0.75, 0.75], y in [-0.25, 0.5], z in [0, 0.5] [m] as OBJ text; its footprint, counter-clockwise.
_XS, _YS, _ZS = (-0.75, 0.75), (-0.25, 0.5), (0.0, 0.5)
CUBE_OBJ = ("".join(f"v {x} {y} {z}\n" for x in _XS for y in _YS for z in _ZS)
            + "".join(f"f {a} {b} {c}\n" for a, b, c in (
                (1, 3, 4), (1, 4, 2), (5, 6, 8), (5, 8, 7), (1, 2, 6), (1, 6, 5),
                (3, 7, 8), (3, 8, 4), (1, 5, 7), (1, 7, 3), (2, 4, 8), (2, 8, 6)))).encode()
CUBE_FOOTPRINT = [(-0.75, -0.25), (0.75, -0.25), (0.75, 0.5), (-0.75, 0.5)]
#: The block's declared <geometry type="box" lx="3" ly="2" lz="1"/> outline.
DECLARED = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (0.0, 2.0)]
FALLBACK = "using the declared shape/bounding box"


def zip_bytes(entries: dict[str, bytes], symlinks: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16
            archive.writestr(info, target)
    return buffer.getvalue()


PACK = zip_bytes({"d/cube.obj": CUBE_OBJ, "d/readme.txt": b"a cube"})


class Server:
    """HTTP server on 127.0.0.1:<free port>. routes: path -> body bytes, or a function(handler) that answers."""

    def __init__(self, routes: dict):
        self.routes = routes
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the http.server API
                server.requests.append(self.path)
                route = server.routes.get(self.path)
                if route is None:
                    self.send_error(404)
                elif callable(route):
                    route(self)
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(route)))
                    self.end_headers()
                    self.wfile.write(route)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def online(tmp_path, monkeypatch):
    """Downloads allowed (no proxy), cache = tmp_path/cache, no failures remembered from other tests."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MVSIM_STORAGE_DIR", str(cache))
    monkeypatch.delenv("MVSIM_OFFLINE", raising=False)
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    resources.forget_failures()
    clear_model_cache()
    yield cache
    resources.forget_failures()


@pytest.fixture
def serve():
    servers: list[Server] = []

    def start(routes: dict) -> Server:
        servers.append(Server(routes))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def block_world(folder: Path, uri: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "w.world.xml"
    path.write_text('<mvsim_world version="1.0">\n'
                    '<block name="crate"><geometry type="box" lx="3" ly="2" lz="1"/><shape_from_visual/>\n'
                    f'<visual><model_uri>{uri}</model_uri></visual></block>\n'
                    '</mvsim_world>\n')
    return path


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# ------------------------------------------------------------------------------------------- remote zips


def test_remote_zip_model_is_downloaded_once_into_the_cache(online, serve, tmp_path):
    server = serve({"/m/pack.zip": PACK})
    uri = server.url("/m/pack.zip/d/cube.obj")
    world_file = block_world(tmp_path / "w", uri)

    world = load_world(world_file)
    assert world.blocks[0].shape == CUBE_FOOTPRINT
    assert (world.blocks[0].zmin, world.blocks[0].zmax) == (0.0, 0.5)
    assert [w for w in world.warnings if uri in w] == []
    assert server.requests == ["/m/pack.zip"]
    # MVSim's layout: the zip under its own name, extracted into the sibling X.out/; no temporary leftovers.
    assert files_under(online) == ["pack.out", "pack.out/d", "pack.out/d/cube.obj", "pack.out/d/readme.txt",
                                   "pack.zip"]
    assert (online / "pack.zip").read_bytes() == PACK

    clear_model_cache()
    resources.forget_failures()
    again = load_world(world_file)  # a fresh loader, the same cache
    assert again.blocks[0].shape == CUBE_FOOTPRINT
    assert server.requests == ["/m/pack.zip"]


def test_a_cache_filled_by_mvsim_is_used_as_is(online, serve):
    server = serve({})
    (online / "pack.out" / "d").mkdir(parents=True)
    (online / "pack.zip").write_bytes(PACK)
    (online / "pack.out" / "d" / "cube.obj").write_bytes(CUBE_OBJ)
    (online / "crate.obj").write_bytes(CUBE_OBJ)
    zipped = resolve_uri(server.url("/any/dir/pack.zip/d/cube.obj"))
    single = resolve_uri(server.url("/other/crate.obj"))
    assert (zipped.path, zipped.source, zipped.reason) == (online / "pack.out" / "d" / "cube.obj", "cached", "")
    assert (single.path, single.source, single.downloaded_bytes) == (online / "crate.obj", "cached", 0)
    assert server.requests == []


def test_remote_single_file_is_stored_under_its_last_path_component(online, serve):
    server = serve({"/models/v2/cube.obj?raw=1": CUBE_OBJ})
    first = resolve_uri(server.url("/models/v2/cube.obj?raw=1"))
    assert (first.path, first.source, first.downloaded_bytes) == (online / "cube.obj", "downloaded", len(CUBE_OBJ))
    assert (online / "cube.obj").read_bytes() == CUBE_OBJ
    second = resolve_uri(server.url("/models/v2/cube.obj?raw=1"))
    assert (second.path, second.source) == (online / "cube.obj", "cached")
    assert server.requests == ["/models/v2/cube.obj?raw=1"]


def test_two_threads_fetching_the_same_file_make_one_request(online, serve):
    def slow(handler):
        time.sleep(0.2)
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(PACK)))
        handler.end_headers()
        handler.wfile.write(PACK)

    server = serve({"/pack.zip": slow})
    uris = [server.url("/pack.zip/d/cube.obj"), server.url("/pack.zip/d/readme.txt")]
    results: list = [None, None]
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, resolve_uri(uris[i]))) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.path for r in results] == [online / "pack.out/d/cube.obj", online / "pack.out/d/readme.txt"]
    assert sorted(r.source for r in results) == ["cached", "downloaded"]
    assert server.requests == ["/pack.zip"]


def test_two_processes_fetching_the_same_zip_both_get_it_whole(online, serve):
    def slow(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(PACK)))
        handler.end_headers()
        handler.wfile.write(PACK[:100])
        handler.wfile.flush()
        time.sleep(0.3)  # both processes are mid-download here
        handler.wfile.write(PACK[100:])

    server = serve({"/pack.zip": slow})
    code = ("import sys; from mvsim_ros.world.files.resources import resolve_uri; r = resolve_uri(sys.argv[1]); "
            "print(r.path or r.reason)")
    runs = [subprocess.Popen([sys.executable, "-c", code, server.url("/pack.zip/d/cube.obj")], text=True,
                             stdout=subprocess.PIPE) for _ in range(2)]
    outputs = [run.communicate(timeout=60)[0] for run in runs]
    assert outputs == [f"{online / 'pack.out/d/cube.obj'}\n"] * 2
    assert (online / "pack.zip").read_bytes() == PACK and (online / "pack.out/d/cube.obj").read_bytes() == CUBE_OBJ
    assert files_under(online) == ["pack.out", "pack.out/d", "pack.out/d/cube.obj", "pack.out/d/readme.txt",
                                   "pack.zip"]


def test_missing_inner_file_and_http_errors(online, serve):
    server = serve({"/pack.zip": PACK, "/ok.obj": CUBE_OBJ})
    missing = resolve_uri(server.url("/pack.zip/d/nope.obj"))
    assert (missing.path, missing.reason) == (None, "'d/nope.obj' is not in zip file pack.zip")
    gone = resolve_uri(server.url("/gone.obj"))
    assert (gone.path, gone.reason) == (None, "HTTP 404 Not Found")
    again = resolve_uri(server.url("/gone.obj"))
    assert again.reason == "HTTP 404 Not Found (earlier in this process; not requested again)"
    assert resolve_uri(server.url("/ok.obj")).path == online / "ok.obj"  # an HTTP error does not condemn the host
    assert server.requests == ["/pack.zip", "/gone.obj", "/ok.obj"]


def test_redirects_only_to_http(online, serve):
    def to(location):
        def answer(handler):
            handler.send_response(302)
            handler.send_header("Location", location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        return answer

    server = serve({"/a/moved.obj": to("/b/real.obj"), "/b/real.obj": CUBE_OBJ,
                    "/ftp.obj": to("ftp://127.0.0.1/x.obj"), "/file.obj": to("file:///etc/hostname")})
    moved = resolve_uri(server.url("/a/moved.obj"))
    assert (moved.path, moved.source) == (online / "moved.obj", "downloaded")
    assert resolve_uri(server.url("/ftp.obj")).reason == (
        "HTTP 302 redirect to a non-http(s) URL refused: ftp://127.0.0.1/x.obj")
    assert resolve_uri(server.url("/file.obj")).reason == (
        "HTTP 302 Found - Redirection to url 'file:///etc/hostname' is not allowed")
    assert not (online / "ftp.obj").exists() and not (online / "file.obj").exists()
    # Not http(s): a local path name, as in MVSim; never downloaded.
    assert resolve_uri("ftp://127.0.0.1/x.obj").reason == "file not found: " + str(Path.cwd() / "ftp:/127.0.0.1/x.obj")


# ------------------------------------------------------------------------------------------- unsafe zips


def test_zip_with_a_parent_entry_is_refused_and_the_declared_shape_kept(online, serve, tmp_path):
    server = serve({"/pack.zip": zip_bytes({"d/cube.obj": CUBE_OBJ, "../evil.txt": b"escaped"})})
    uri = server.url("/pack.zip/d/cube.obj")
    world_file = block_world(tmp_path / "w", uri)
    world = load_world(world_file)
    assert world.blocks[0].shape == DECLARED
    assert [without_fetch_hint(w) for w in world.warnings if uri in w] == [
        f"{world_file}:2: <block>: remote model unavailable: {uri} (pack.zip: zip refused: entry '../evil.txt' "
        f"escapes the extraction folder ('..')); {FALLBACK}"]
    assert files_under(online) == ["pack.zip"]  # nothing extracted, no temporary folder left
    assert [p.name for p in tmp_path.rglob("evil.txt")] == []
    assert files_under(tmp_path / "w") == ["w.world.xml"]


@pytest.mark.parametrize("entries, symlinks, reason", [
    ({"/etc/x.txt": b"x"}, None, "zip refused: entry '/etc/x.txt' is an absolute path"),
    ({"C:/x.txt": b"x"}, None, "zip refused: entry 'C:/x.txt' has a drive letter"),
    ({"a/../../x.txt": b"x"}, None, "zip refused: entry 'a/../../x.txt' escapes the extraction folder ('..')"),
    ({"a\\..\\..\\x.txt": b"x"}, None,
     "zip refused: entry 'a\\\\..\\\\..\\\\x.txt' escapes the extraction folder ('..')"),
    ({"ok.txt": b"x"}, {"d/link": "/etc/passwd"}, "zip refused: entry 'd/link' is a symbolic link"),
])
def test_unsafe_entries_refuse_the_whole_zip(tmp_path, entries, symlinks, reason):
    archive = tmp_path / "bad.zip"
    archive.write_bytes(zip_bytes(entries, symlinks))
    assert safe_extract(archive, tmp_path / "out") == reason
    assert not (tmp_path / "out").exists()


def test_zip_size_and_entry_limits(tmp_path):
    archive = tmp_path / "big.zip"
    archive.write_bytes(zip_bytes({"a.bin": bytes(3000), "b.bin": bytes(3000)}))
    assert safe_extract(archive, tmp_path / "o1", max_bytes=5999) == (
        "zip refused: 6000 bytes uncompressed, over the limit of 5999 (MVSIM_ZIP_MAX_BYTES)")
    assert safe_extract(archive, tmp_path / "o2", max_entries=1) == (
        "zip refused: 2 entries, over the limit of 1 (MVSIM_ZIP_MAX_ENTRIES)")
    assert safe_extract(archive, tmp_path / "o3", max_bytes=6000) == ""
    assert (tmp_path / "o3" / "b.bin").read_bytes() == bytes(3000)


def test_bytes_are_counted_while_extracting(tmp_path, monkeypatch):
    archive = tmp_path / "liar.zip"
    archive.write_bytes(zip_bytes({"a.bin": b"1234"}))
    # A reader that yields more than the 4 bytes the zip declares (as a lying archive could):
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, info, *a, **k: io.BytesIO(bytes(5000)))
    assert safe_extract(archive, tmp_path / "out", max_bytes=4096) == (
        "zip refused: more than 4096 bytes uncompressed (MVSIM_ZIP_MAX_BYTES; its declared sizes are wrong)")


def test_zip_whose_headers_understate_the_size_is_refused(online, serve):
    data = bytearray(zip_bytes({"d/big.bin": bytes(100_000)}))
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # local and central headers
        at = data.index(signature) + offset
        data[at:at + 4] = (10).to_bytes(4, "little")
    server = serve({"/liar.zip": bytes(data)})
    result = resolve_uri(server.url("/liar.zip/d/big.bin"))
    assert result.path is None and result.reason == (
        "liar.zip: not a valid zip file (Bad CRC-32 for file 'd/big.bin')")
    assert files_under(online) == ["liar.zip"]


def test_a_file_that_is_not_a_zip_is_refused(online, serve):
    server = serve({"/fake.zip": b"not a zip"})
    assert resolve_uri(server.url("/fake.zip/d/cube.obj")).reason == (
        "fake.zip: not a valid zip file (File is not a zip file)")


# ------------------------------------------------------------------------------------------- timeouts, caps


@pytest.fixture
def silent_server():
    """Accepts connections (counted) and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []

    def accept():
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    listener.close()
    for conn in accepted:
        conn.close()


def test_a_server_that_never_answers_times_out_and_its_host_is_not_tried_again(online, monkeypatch, silent_server,
                                                                               tmp_path):
    base, accepted = silent_server
    monkeypatch.setenv("MVSIM_DOWNLOAD_TIMEOUT_S", "1")
    uri = f"{base}/pack.zip/d/cube.obj"
    world_file = block_world(tmp_path / "w", uri)
    started = time.monotonic()
    world = load_world(world_file)
    assert time.monotonic() - started < 3.0
    assert world.blocks[0].shape == DECLARED
    assert [without_fetch_hint(w) for w in world.warnings if uri in w] == [
        f"{world_file}:2: <block>: remote model unavailable: {uri} (timed out after 1 s); {FALLBACK}"]
    host = base[len("http://"):]
    other = resolve_uri(f"{base}/other.obj")
    assert other.reason == f"host {host} failed earlier in this process (timed out after 1 s); not tried again"
    assert len(accepted) == 1
    assert not online.exists()  # nothing written before a server answers


def test_timeout_argument_wins_over_the_environment(online, monkeypatch, silent_server):
    base, accepted = silent_server
    monkeypatch.setenv("MVSIM_DOWNLOAD_TIMEOUT_S", "30")
    started = time.monotonic()
    assert resolve_uri(f"{base}/x.obj", timeout_s=0.5).reason == "timed out after 0.5 s"
    assert time.monotonic() - started < 3.0


def test_a_refused_connection_fails_at_once(online):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    result = resolve_uri(f"http://127.0.0.1:{port}/x.obj")
    assert result.path is None and result.reason == "cannot reach the host: [Errno 111] Connection refused"
    assert not online.exists()


def test_a_download_cut_short_leaves_nothing_that_looks_cached(online, serve):
    def cut(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        handler.wfile.write(bytes(100))  # then the connection closes

    server = serve({"/cut.obj": cut})
    result = resolve_uri(server.url("/cut.obj"))
    assert (result.path, result.reason) == (None, "connection closed after 100 of 1000 bytes")
    assert files_under(online) == []


def test_oversize_downloads_are_refused(online, serve, monkeypatch):
    def no_length(handler):
        handler.send_response(200)
        handler.end_headers()
        handler.wfile.write(bytes(5000))

    server = serve({"/big.obj": bytes(5000), "/stream.obj": no_length, "/small.obj": bytes(100)})
    monkeypatch.setenv("MVSIM_DOWNLOAD_MAX_BYTES", "1000")
    assert resolve_uri(server.url("/big.obj")).reason == (
        "too large: 5000 bytes, over the 1000-byte cap (MVSIM_DOWNLOAD_MAX_BYTES)")
    assert resolve_uri(server.url("/stream.obj")).reason == (
        "too large: over the 1000-byte cap (MVSIM_DOWNLOAD_MAX_BYTES)")
    assert resolve_uri(server.url("/small.obj")).downloaded_bytes == 100
    assert files_under(online) == ["small.obj"]


# ------------------------------------------------------------------------------------------- offline


def test_offline_makes_no_request_and_uses_the_cache(online, serve, monkeypatch, tmp_path):
    server = serve({"/pack.zip": PACK})
    uri = server.url("/pack.zip/d/cube.obj")
    world_file = block_world(tmp_path / "w", uri)
    monkeypatch.setenv("MVSIM_OFFLINE", "1")
    world = load_world(world_file)
    assert world.blocks[0].shape == DECLARED
    assert [without_fetch_hint(w) for w in world.warnings if uri in w] == [
        f"{world_file}:2: <block>: remote model unavailable: {uri} (offline (MVSIM_OFFLINE=1) and not in the "
        f"cache: {online / 'pack.zip'}); {FALLBACK}"]
    assert server.requests == []

    assert resolve_uri(uri, offline=False).source == "downloaded"
    assert load_world(world_file).blocks[0].shape == CUBE_FOOTPRINT  # offline again, from the cache
    assert server.requests == ["/pack.zip"]


def test_default_cache_folder_and_settings_from_the_environment(monkeypatch, tmp_path):
    for name in ("MVSIM_STORAGE_DIR", "MVSIM_OFFLINE", "MVSIM_DOWNLOAD_TIMEOUT_S", "MVSIM_DOWNLOAD_MAX_BYTES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    settings = resources.current_settings()
    assert settings == resources.Settings(storage_dir=tmp_path / ".cache" / "mvsim-storage", timeout_s=20.0,
                                          max_download_bytes=512 * 2**20, zip_max_bytes=2**30,
                                          zip_max_entries=100_000, offline=False)
    monkeypatch.setenv("MVSIM_DOWNLOAD_TIMEOUT_S", "2.5")
    monkeypatch.setenv("MVSIM_OFFLINE", "true")
    monkeypatch.setenv("MVSIM_DOWNLOAD_MAX_BYTES", "4096")
    assert (resources.current_settings().timeout_s, resources.current_settings().offline) == (2.5, True)
    assert resources.current_settings().max_download_bytes == 4096
    monkeypatch.setenv("MVSIM_DOWNLOAD_TIMEOUT_S", "soon")
    assert resources.current_settings().timeout_s == 20.0
    with resources.overrides(storage_dir=tmp_path / "x", timeout_s=3.0, offline=False):
        assert resources.current_settings() == dataclasses.replace(
            settings, storage_dir=tmp_path / "x", timeout_s=3.0, max_download_bytes=4096)


# ------------------------------------------------------------------------------------------- local zips


def test_local_zip_path_and_file_uri(online, tmp_path):
    folder = tmp_path / "w"
    folder.mkdir()
    archive = folder / "models.zip"
    archive.write_bytes(PACK)
    stat = archive.stat()
    digest = hashlib.sha256(f"{archive.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()
    extracted = online / "local" / digest / "d" / "cube.obj"

    for uri in ("models.zip/d/cube.obj", f"file://{archive}/d/cube.obj", f"{archive}/d/cube.obj"):
        world = load_world(block_world(folder, uri))
        assert world.blocks[0].shape == CUBE_FOOTPRINT, uri
        assert resolve_uri(uri, folder).path == extracted
    assert files_under(folder) == ["models.zip", "w.world.xml"]  # nothing written next to the user's zip
    assert files_under(online) == ["local", f"local/{digest}", f"local/{digest}/d", f"local/{digest}/d/cube.obj",
                                   f"local/{digest}/d/readme.txt"]


def test_local_zip_problems_warn_and_keep_the_declared_shape(online, tmp_path):
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "bad.zip").write_bytes(zip_bytes({"../x.obj": CUBE_OBJ}))
    cases = {
        "bad.zip/x.obj": "bad.zip: zip refused: entry '../x.obj' escapes the extraction folder ('..')",
        "none.zip/x.obj": f"zip file not found: {folder / 'none.zip'}",
    }
    for uri, reason in cases.items():
        world_file = block_world(folder, uri)
        world = load_world(world_file)
        assert world.blocks[0].shape == DECLARED
        assert [w for w in world.warnings if uri in w] == [
            f"{world_file}:2: <block>: 3D model {uri} unavailable ({reason}); {FALLBACK}"]
    assert files_under(online) == ["local"]


def test_a_folder_named_like_a_zip_is_a_folder(tmp_path):
    (tmp_path / "kit.zip" / "d").mkdir(parents=True)
    (tmp_path / "kit.zip" / "d" / "cube.obj").write_bytes(CUBE_OBJ)
    found = resolve_uri("kit.zip/d/cube.obj", tmp_path)
    assert (found.path, found.source) == (tmp_path / "kit.zip" / "d" / "cube.obj", "local")


# ------------------------------------------------------------------------------------------- other users


def test_the_gl_scene_draws_remote_models(online, serve, tmp_path):
    pytest.importorskip("moderngl")
    from mvsim_ros.sensors.scene import model_mesh

    server = serve({"/cube.obj": CUBE_OBJ})
    rows = model_mesh(VisualSpec(model_uri=server.url("/cube.obj")), tmp_path, (1.0, 0.0, 0.0), pytest.fail)
    assert rows.shape == (36, 9)
    assert (rows[:, 0].min(), rows[:, 0].max(), rows[:, 1].min(), rows[:, 1].max()) == (-0.75, 0.75, -0.25, 0.5)


def test_vehicle_chassis_from_a_remote_model(online, serve, tmp_path):
    server = serve({"/pack.zip": PACK})
    path = tmp_path / "v.world.xml"
    path.write_text(f"""<mvsim_world version="1.0"><vehicle name="v1"><dynamics class="differential">
      <chassis mass="10"><shape_from_visual/></chassis>
      <l_wheel pos="0 0.3" diameter="0.2"/><r_wheel pos="0 -0.3" diameter="0.2"/></dynamics>
      <visual><model_uri>{server.url("/pack.zip/d/cube.obj")}</model_uri></visual></vehicle></mvsim_world>""")
    chassis = load_world(path).vehicles[0].chassis
    assert (chassis.shape, chassis.zmin, chassis.zmax) == (CUBE_FOOTPRINT, 0.0, 0.5)


def element(text: str, folder: Path):
    return parse_xml_bytes(text.encode(), str(folder / "w.xml"))


def test_element_textures_accept_urls_and_local_zip_members(tmp_path):
    (tmp_path / "tex.zip").write_bytes(zip_bytes({"floor.png": b"png", "sky/Up.jpg": b"", "sky/Right.jpg": b"",
                                                  "sky/Left.jpg": b"", "sky/Front.jpg": b"", "sky/Down.jpg": b"",
                                                  "sky/Back.jpg": b"", "walls.dae": b"dae"}))
    zipped = f"{tmp_path.resolve() / 'tex.zip'}"
    heard = []

    def warn(node, message):
        heard.append(message)

    world_file = tmp_path / "e.world.xml"
    world_file.write_text("""<mvsim_world version="1.0">
      <element class="horizontal_plane"><texture>tex.zip/floor.png</texture></element>
      <element class="horizontal_plane"><texture>tex.zip/none.png</texture></element>
      <element class="horizontal_plane"><texture>https://example.org/t/floor.png</texture></element>
      <element class="skybox"><textures>tex.zip/sky/%s.jpg</textures></element>
    </mvsim_world>""")
    world = load_world(world_file)
    planes = [e for e in world.elements if isinstance(e, HorizontalPlaneSpec)]
    assert [p.texture for p in planes] == [f"{zipped}/floor.png", f"{zipped}/none.png",
                                           "https://example.org/t/floor.png"]
    assert [w for w in world.warnings if "texture" in w] == [
        f"{world_file}:3: <texture>: texture unavailable: 'none.png' is not in zip file {zipped}"]
    sky = next(e for e in world.elements if isinstance(e, SkyBoxSpec))
    assert sky.faces()["Down"] == f"{zipped}/sky/Down.jpg"
    walls = parse_walls(element("<walls><model_uri>tex.zip/walls.dae</model_uri></walls>", tmp_path), warn)
    assert walls.model_uri == f"{zipped}/walls.dae"
    with pytest.raises(WorldFileError, match="walls model: 'nope.dae' is not in zip file"):
        parse_walls(element("<walls><model_uri>tex.zip/nope.dae</model_uri></walls>", tmp_path), warn)
    assert heard == 2 * ["<walls>: accepted but not used here: model_uri (walls from a 3D model are not built "
                         "here: give a <shape>)"]  # one per <walls>
    assert not (tmp_path / "tex").exists() and files_under(tmp_path).count("tex.zip") == 1


# ------------------------------------------------------------------------------------------- mvsim_fetch_models


def fetch_world(folder: Path, server: Server) -> Path:
    """A world naming a remote zip model (block), a remote wheel model, a disabled visual, a remote skybox in a
    zip, a remote plane texture and a local model."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "local.obj").write_bytes(CUBE_OBJ)
    path = folder / "f.world.xml"
    path.write_text(f"""<mvsim_world version="1.0">
  <block name="b"><geometry type="box" lx="1" ly="1" lz="1"/>
    <visual><model_uri>{server.url("/pack.zip/d/cube.obj")}</model_uri></visual></block>
  <block name="c"><geometry type="box" lx="1" ly="1" lz="1"/><visual><model_uri>local.obj</model_uri></visual></block>
  <block name="off"><geometry type="box" lx="1" ly="1" lz="1"/>
    <visual enabled="false"><model_uri>{server.url("/disabled.obj")}</model_uri></visual></block>
  <vehicle name="v1"><dynamics class="differential">
      <l_wheel pos="0 0.3" diameter="0.2"><visual><model_uri>{server.url("/w/wheel.obj")}</model_uri></visual>
      </l_wheel><r_wheel pos="0 -0.3" diameter="0.2"/></dynamics></vehicle>
  <element class="horizontal_plane"><texture>{server.url("/t/floor.png")}</texture></element>
  <element class="skybox"><textures>{server.url("/sky.zip/s/%s.jpg")}</textures></element>
</mvsim_world>
""")
    return path


SKY = zip_bytes({f"s/{face}.jpg": face.encode() for face in ("Up", "Right", "Left", "Front", "Down", "Back")})


def test_fetch_models_reports_each_resource(online, serve, tmp_path, capsys):
    wheel = zip_bytes({"unused": b""})  # any bytes: a wheel "model" is only fetched here
    server = serve({"/pack.zip": PACK, "/w/wheel.obj": wheel, "/t/floor.png": b"png", "/sky.zip": SKY})
    world_file = fetch_world(tmp_path / "w", server)
    storage = tmp_path / "store"
    faces = ("Up", "Right", "Left", "Front", "Down", "Back")

    assert fetch_models.main([str(world_file), "--storage-dir", str(storage), "--timeout", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == [  # vehicles, blocks, elements: the spec's order
        f"{server.url('/w/wheel.obj')}: downloaded {len(wheel)} bytes ({storage / 'wheel.obj'})",
        f"{server.url('/pack.zip/d/cube.obj')}: downloaded {len(PACK)} bytes ({storage / 'pack.out/d/cube.obj'})",
        f"local.obj: local ({tmp_path / 'w' / 'local.obj'})",
        f"{server.url('/t/floor.png')}: downloaded 3 bytes ({storage / 'floor.png'})",
        f"{server.url('/sky.zip/s/Up.jpg')}: downloaded {len(SKY)} bytes ({storage / 'sky.out/s/Up.jpg'})",
    ] + [f"{server.url(f'/sky.zip/s/{face}.jpg')}: cached ({storage / f'sky.out/s/{face}.jpg'})"
         for face in faces[1:]]
    assert sorted(server.requests) == ["/pack.zip", "/sky.zip", "/t/floor.png", "/w/wheel.obj"]
    assert not online.exists()  # --storage-dir, not the environment's cache

    assert fetch_models.main([str(world_file), "--storage-dir", str(storage)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 10 and all(": cached (" in line or ": local (" in line for line in out)
    assert len(server.requests) == 4


def test_fetch_models_exit_1_when_a_resource_fails(online, serve, tmp_path, capsys):
    server = serve({"/pack.zip": PACK, "/w/wheel.obj": b"w", "/sky.zip": SKY})  # no /t/floor.png
    world_file = fetch_world(tmp_path / "w", server)
    assert fetch_models.main([str(world_file)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[3] == f"{server.url('/t/floor.png')}: failed: HTTP 404 Not Found"
    assert sum(": failed: " in line for line in out) == 1


def test_fetch_models_offline_fails_without_a_request(serve, tmp_path, capsys):
    server = serve({"/pack.zip": PACK})
    world_file = block_world(tmp_path / "w", server.url("/pack.zip/d/cube.obj"))
    assert fetch_models.main([str(world_file), "--storage-dir", str(tmp_path / "s")]) == 1  # conftest: offline
    assert capsys.readouterr().out == (f"{server.url('/pack.zip/d/cube.obj')}: failed: offline (MVSIM_OFFLINE=1) "
                                       f"and not in the cache: {tmp_path / 's' / 'pack.zip'}\n")
    assert server.requests == []


def test_fetch_models_exit_2_for_a_world_that_does_not_load(tmp_path, capsys):
    broken = tmp_path / "broken.world.xml"
    broken.write_text('<mvsim_world version="1.0">\n<element class="nope"/>\n</mvsim_world>\n')
    with pytest.raises(WorldFileError) as err:
        load_world(broken)
    assert fetch_models.main([str(broken)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"mvsim_fetch_models: {err.value}\n")


def test_fetch_models_console_script(tmp_path):
    scripts = {e.name: e.value for e in importlib.metadata.entry_points(group="console_scripts")}
    assert scripts["mvsim_fetch_models"] == "mvsim_ros.cli.fetch_models:main"
    missing = tmp_path / "missing.world.xml"
    run = subprocess.run([sys.executable, "-m", "mvsim_ros.cli.fetch_models", str(missing)],
                         capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (
        2, "", f"mvsim_fetch_models: {missing}: world file not found\n")
    empty = tmp_path / "empty.world.xml"
    empty.write_text('<mvsim_world version="1.0"></mvsim_world>')
    run = subprocess.run([sys.executable, "-m", "mvsim_ros.cli.fetch_models", str(empty), "--timeout", "0"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.endswith("--timeout must be a positive number of seconds, got 0\n")


def test_resources_are_collected_from_any_spec(tmp_path):
    @dataclasses.dataclass
    class ActorSpec:  # a spec kind added later
        source: object
        model_uri: str
        poses: list = dataclasses.field(default_factory=list)

    world = load_world(block_world(tmp_path / "w", "https://h/m.zip/a.dae"))
    world.elements.append(ActorSpec(source=dataclasses.replace(world.blocks[0].source, file=str(tmp_path / "x.xml")),
                                    model_uri="walker.dae"))
    world.other_params["logo"] = "http://h/logo.png"
    assert fetch_models.collect_resource_uris(world) == [
        ("https://h/m.zip/a.dae", tmp_path / "w"), ("walker.dae", tmp_path), ("http://h/logo.png", tmp_path / "w")]
