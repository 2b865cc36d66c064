// Talks to a live Foxglove WebSocket server with Foxglove's own client library, as Foxglove does, and prints what
// it found as JSON.
//
//   node live_client.mjs ws://HOST:PORT SECONDS [ORIGIN]
//
// Lists the advertised channels, subscribes to /clock, /r1/odom and /r1/scan and decodes their messages with
// @foxglove/rosmsg2-serialization from the channels' ros2msg schemas; advertises /r1/cmd_vel (client publish) and
// sends a Twist (0.5 m/s forward) every 50 ms of wall time. SECONDS after every subscribed topic brought a message
// (or after LIMIT_S) it prints the channels, the server's last time [ns], and per subscribed topic the count and
// the first and last decoded message. With ORIGIN, the
// handshake carries that Origin header; a refused handshake prints {"refused": true, "status": CODE}.
import { parse } from "@foxglove/rosmsg";
import { MessageReader, MessageWriter } from "@foxglove/rosmsg2-serialization";
import wsProtocol from "@foxglove/ws-protocol";
import WebSocket from "ws";

const { FoxgloveClient } = wsProtocol;

const [url, seconds, origin] = process.argv.slice(2);
const TOPICS = ["/clock", "/r1/odom", "/r1/scan"];
const LIMIT_S = 120;
const TWIST = "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n" +
  "================================================================================\n" +
  "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n";

// The Foxglove SDK's server speaks the ws-protocol spec under the subprotocol name "foxglove.sdk.v1".
const ws = new WebSocket(url, ["foxglove.sdk.v1", FoxgloveClient.SUPPORTED_SUBPROTOCOL], origin ? { headers: { Origin: origin } } : {});
ws.on("unexpected-response", (_request, response) => {
  console.log(JSON.stringify({ refused: true, status: response.statusCode }));
  process.exit(0);
});
const client = new FoxgloveClient({ ws });
const channels = new Map();
const readers = new Map();
const seen = Object.fromEntries(TOPICS.map((topic) => [topic, { count: 0, first: null, last: null }]));
let serverTime = null;
let commands = null;

const plain = (value) => JSON.parse(JSON.stringify(value, (_k, v) =>
  (typeof v === "bigint" ? v.toString() : ArrayBuffer.isView(v) ? Array.from(v) : v)));

client.on("advertise", (advertised) => {
  for (const channel of advertised) {
    channels.set(channel.id, channel);
    if (TOPICS.includes(channel.topic) && channel.encoding === "cdr") {
      const subscription = client.subscribe(channel.id);
      readers.set(subscription, [channel.topic, new MessageReader(parse(channel.schema, { ros2: true }))]);
    }
  }
});
client.on("unadvertise", (ids) => ids.forEach((id) => channels.delete(id)));
client.on("time", (message) => { serverTime = message.timestamp.toString(); });
client.on("message", ({ subscriptionId, data }) => {
  const [topic, reader] = readers.get(subscriptionId);
  const message = plain(reader.readMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
  const entry = seen[topic];
  entry.count += 1;
  entry.first ??= message;
  entry.last = message;
  if (finishing === null && TOPICS.every((name) => seen[name].count > 0)) {
    finishing = setTimeout(finish, Number(seconds) * 1000);
  }
});
// foxglove-sdk 0.30 may answer a subscription sent as soon as the advertisement arrives with "Unknown channel ID"
// (the subscription can reach the server before it has recorded the channel for this client): subscribe again.
client.on("status", ({ message }) => {
  const unknown = /Unknown channel ID: (\d+)/.exec(message);
  const channel = unknown ? channels.get(Number(unknown[1])) : undefined;
  if (channel && TOPICS.includes(channel.topic)) {
    setTimeout(() => {
      const subscription = client.subscribe(channel.id);
      readers.set(subscription, [channel.topic, new MessageReader(parse(channel.schema, { ros2: true }))]);
    }, 50);
  }
});
client.on("error", (error) => { console.error(String(error)); });
client.on("serverInfo", () => {
  const writer = new MessageWriter(parse(TWIST, { ros2: true }));
  const twist = writer.writeMessage({ linear: { x: 0.5, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } });
  const id = client.advertise({ topic: "/r1/cmd_vel", encoding: "cdr", schemaName: "geometry_msgs/msg/Twist" });
  commands = setInterval(() => client.sendMessage(id, twist), 50);
});

function finish() {
  clearInterval(commands);
  const list = [...channels.values()].map(({ topic, encoding, schemaName, schemaEncoding }) =>
    ({ topic, encoding, schemaName, schemaEncoding }));
  console.log(JSON.stringify({ refused: false, channels: list, serverTime, topics: seen }));
  client.close();
  process.exit(0);
}

let finishing = null;
setTimeout(finish, LIMIT_S * 1000);
