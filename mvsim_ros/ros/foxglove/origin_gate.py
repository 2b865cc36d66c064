"""A TCP front for the Foxglove server that refuses WebSocket handshakes from a foreign page.

The Foxglove SDK's server has no Origin check, so it listens on a free port of 127.0.0.1 and `OriginGate` listens on
the address users connect to. For each connection the gate reads the HTTP upgrade request (at most
MAX_REQUEST_BYTES), asks the viewer's `AccessPolicy` (viewer/access.py: same-origin rules, allowed origins) and
either answers 403 and closes, or passes the request and then every byte both ways to the SDK's server.
"""

from __future__ import annotations

import socket
import socketserver
import threading

from mvsim_ros.viewer.access import AccessPolicy

#: Largest HTTP upgrade request the gate reads [bytes].
MAX_REQUEST_BYTES = 16384
FORBIDDEN = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def request_headers(request: bytes) -> dict[str, str]:
    """The header fields of an HTTP request head (names lower-cased; the last of repeated names wins)."""
    headers = {}
    for line in request.split(b"\r\n")[1:]:
        name, colon, value = line.partition(b":")
        if colon:
            headers[name.decode("latin-1").strip().lower()] = value.decode("latin-1").strip()
    return headers


def _pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy bytes from `source` to `target` until either closes, then shut both down."""
    try:
        while chunk := source.recv(65536):
            target.sendall(chunk)
    except OSError:
        pass
    for sock in (source, target):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class OriginGate:
    """Listens on (`host`, `port`; port 0 = any free port) and forwards allowed connections to 127.0.0.1:`target_port`.

    policy: decides from the request's Origin and Host headers; `refused` counts refused handshakes.
    """

    def __init__(self, host: str, port: int, target_port: int, policy: AccessPolicy):
        self.policy = policy
        self.target_port = target_port
        self.refused = 0
        gate = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                gate.serve(self.request)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._server = socketserver.ThreadingTCPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="foxglove-gate", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        """The TCP port the gate listens on."""
        return self._server.server_address[1]

    def serve(self, client: socket.socket) -> None:
        """Check one connection's upgrade request and forward it, or answer 403."""
        request = b""
        while b"\r\n\r\n" not in request and len(request) < MAX_REQUEST_BYTES:
            chunk = client.recv(4096)
            if not chunk:
                return
            request += chunk
        headers = request_headers(request.partition(b"\r\n\r\n")[0])
        if self.policy.refusal(headers.get("origin"), headers.get("host")) is not None:
            self.refused += 1
            client.sendall(FORBIDDEN)
            return
        with socket.create_connection(("127.0.0.1", self.target_port)) as server:
            server.sendall(request)
            back = threading.Thread(target=_pipe, args=(server, client), daemon=True)
            back.start()
            _pipe(client, server)
            back.join()

    def close(self) -> None:
        """Stop listening (open connections end with the server behind)."""
        self._server.shutdown()
        self._server.server_close()


__all__ = ["MAX_REQUEST_BYTES", "OriginGate", "request_headers"]
