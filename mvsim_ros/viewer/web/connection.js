// The page's WebSocket to the simulator (mvsim_ros/viewer/protocol.py): JSON messages out (`send`), the scene as
// JSON and frames and camera images as binary messages in; it reconnects a second after the socket closes.

import { report, state } from './page_state.js';

const RECONNECT_MS = 1000;        // wait before reconnecting after the socket closed [ms]

let socket = null;

// Send a message (an object, as JSON) when connected; dropped otherwise.
export function send(msg) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
}
state.send = send;

// The WebSocket's address: this page's host, with the run's token when the page's own address carries one
// (mvsim_ros/viewer/access.py).
function socketUrl() {
  const token = new URLSearchParams(location.search).get('token');
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws${query}`;
}

// Open the socket: onOpen() once connected, onJson(message) for each text message, onBinary(ArrayBuffer) for each
// binary one; an error while handling a message is shown on the page.
export function connect({ onOpen, onJson, onBinary }) {
  const ws = new WebSocket(socketUrl());
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    state.connected = true;
    onOpen();
  };
  ws.onmessage = (event) => {
    try {
      if (typeof event.data === 'string') {
        onJson(JSON.parse(event.data));
      } else {
        onBinary(event.data);
      }
    } catch (err) {
      report(err);
    }
  };
  ws.onclose = () => {
    state.connected = false;
    socket = null;
    setTimeout(() => connect({ onOpen, onJson, onBinary }), RECONNECT_MS);
  };
  socket = ws;
}
