// Follows a live Foxglove WebSocket server's channels with Foxglove's own client library, as Foxglove does, and
// prints one JSON line per event as it happens:
//
//   node channel_events.mjs ws://HOST:PORT PREFIX SECONDS
//
// {"event": "advertise", "topic": T, "schemaName": S} for each advertised channel, {"event": "unadvertise",
// "topic": T} for each one taken away, and {"event": "message", "topic": T, "bytes": N} for the first message
// received on each subscribed channel (every channel whose topic starts with PREFIX is subscribed to). It ends
// after SECONDS, or when its standard input closes.
import wsProtocol from "@foxglove/ws-protocol";
import WebSocket from "ws";

const { FoxgloveClient } = wsProtocol;

const [url, prefix, seconds] = process.argv.slice(2);
const ws = new WebSocket(url, ["foxglove.sdk.v1", FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
const channels = new Map();
const subscribed = new Map();
const heard = new Set();

const say = (event) => process.stdout.write(JSON.stringify(event) + "\n");

client.on("advertise", (advertised) => {
  for (const channel of advertised) {
    channels.set(channel.id, channel);
    say({ event: "advertise", topic: channel.topic, schemaName: channel.schemaName });
    if (channel.topic.startsWith(prefix)) {
      subscribed.set(client.subscribe(channel.id), channel.id);
    }
  }
});
client.on("unadvertise", (ids) => {
  for (const id of ids) {
    const channel = channels.get(id);
    channels.delete(id);
    heard.delete(id);
    if (channel) say({ event: "unadvertise", topic: channel.topic });
  }
});
client.on("message", ({ subscriptionId, data }) => {
  const id = subscribed.get(subscriptionId);
  const channel = channels.get(id);
  if (channel && !heard.has(id)) {
    heard.add(id);
    say({ event: "message", topic: channel.topic, bytes: data.byteLength });
  }
});
// foxglove-sdk 0.30 may answer a subscription sent as soon as a new channel's advertisement arrives with "Unknown
// channel ID" (the subscription can reach the server before it has recorded the channel for this client): subscribe
// again.
client.on("status", ({ message }) => {
  const unknown = /Unknown channel ID: (\d+)/.exec(message);
  const id = unknown ? Number(unknown[1]) : null;
  if (id !== null && channels.has(id)) {
    for (const [subscription, channelId] of subscribed) {
      if (channelId === id) subscribed.delete(subscription);
    }
    say({ event: "resubscribe", topic: channels.get(id).topic });
    setTimeout(() => {
      if (channels.has(id)) subscribed.set(client.subscribe(id), id);
    }, 50);
  }
});
client.on("error", (error) => { console.error(String(error)); });

function finish() {
  client.close();
  process.exit(0);
}

process.stdin.on("end", finish);
process.stdin.resume();
setTimeout(finish, Number(seconds) * 1000);
