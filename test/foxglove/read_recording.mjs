// Reads an MCAP recording with Foxglove's own libraries, as Foxglove does, and prints what it found as JSON.
//
//   node read_recording.mjs FILE.mcap [TOPIC...]
//
// Both of @mcap/core's readers: the indexed reader (summary, chunk indexes, messages in log-time order, metadata
// records through the metadata index) and the stream reader (every record from the start of the file). Every
// message is decoded by @foxglove/rosmsg2-serialization from its channel's `ros2msg` schema (parsed by
// @foxglove/rosmsg). Output: channels (topic, schema, encodings, metadata), metadata records, per topic the
// messages each reader saw, the decoding failures, the messages whose log time is not their own stamp
// (header.stamp, Clock's clock, a TFMessage's first transform), whether log times never go back, and, for each
// TOPIC named, its last decoded message.
import { open, readFile } from "node:fs/promises";

import { parse } from "@foxglove/rosmsg";
import { MessageReader } from "@foxglove/rosmsg2-serialization";
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { FileHandleReadable } from "@mcap/nodejs";
import { loadDecompressHandlers } from "@mcap/support";

const [path, ...sampled] = process.argv.slice(2);
const decompressHandlers = await loadDecompressHandlers();

function stampOf(message) {
  const stamp = message?.header?.stamp ?? message?.clock ?? message?.transforms?.[0]?.header?.stamp;
  if (stamp == null || typeof stamp.sec !== "number") {
    return null;
  }
  return BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nanosec ?? stamp.nsec ?? 0);
}

function plain(value) {
  return JSON.parse(JSON.stringify(value, (_key, item) => {
    if (typeof item === "bigint") {
      return Number(item);
    }
    if (ArrayBuffer.isView(item)) {
      return Array.from(item);
    }
    return item;
  }));
}

function decoderFor(readers, schemas, channel) {
  if (!readers.has(channel.id)) {
    const schema = schemas.get(channel.schemaId);
    const text = new TextDecoder().decode(schema.data);
    readers.set(channel.id, new MessageReader(parse(text, { ros2: true })));
  }
  return readers.get(channel.id);
}

function tally() {
  return { messages: {}, decodeErrors: [], stampMismatches: {}, ordered: true, lastLogTime: -1n, last: {} };
}

function count(result, readers, schemas, channel, message) {
  const topic = channel.topic;
  result.messages[topic] = (result.messages[topic] ?? 0) + 1;
  if (message.logTime < result.lastLogTime) {
    result.ordered = false;
  }
  result.lastLogTime = message.logTime;
  let decoded;
  try {
    decoded = decoderFor(readers, schemas, channel).readMessage(message.data);
  } catch (error) {
    result.decodeErrors.push(`${topic}: ${error}`);
    return;
  }
  const stamp = stampOf(decoded);
  if (stamp !== null && stamp !== message.logTime) {
    result.stampMismatches[topic] = (result.stampMismatches[topic] ?? 0) + 1;
  }
  if (sampled.includes(topic)) {
    result.last[topic] = plain(decoded);
  }
}

// The indexed reader.
const handle = await open(path, "r");
const indexedReader = await McapIndexedReader.Initialize({
  readable: new FileHandleReadable(handle),
  decompressHandlers,
});
const indexed = tally();
const indexedDecoders = new Map();
for await (const message of indexedReader.readMessages()) {
  const channel = indexedReader.channelsById.get(message.channelId);
  count(indexed, indexedDecoders, indexedReader.schemasById, channel, message);
}
const metadata = [];
for await (const record of indexedReader.readMetadata()) {
  metadata.push({ name: record.name, metadata: Object.fromEntries(record.metadata) });
}
const channels = [...indexedReader.channelsById.values()].map((channel) => {
  const schema = indexedReader.schemasById.get(channel.schemaId);
  return {
    id: channel.id,
    topic: channel.topic,
    messageEncoding: channel.messageEncoding,
    schemaName: schema?.name,
    schemaEncoding: schema?.encoding,
    metadata: Object.fromEntries(channel.metadata),
  };
});
const statistics = indexedReader.statistics;
await handle.close();

// The stream reader: every record from the start.
const streamReader = new McapStreamReader({ decompressHandlers, validateCrcs: true });
streamReader.append(new Uint8Array(await readFile(path)));
const stream = tally();
const streamDecoders = new Map();
const streamSchemas = new Map();
const streamChannels = new Map();
const streamMetadata = [];
let header;
for (let record; (record = streamReader.nextRecord()) !== undefined;) {
  if (record.type === "Header") {
    header = { profile: record.profile, library: record.library };
  } else if (record.type === "Schema") {
    streamSchemas.set(record.id, record);
  } else if (record.type === "Channel") {
    streamChannels.set(record.id, record);
  } else if (record.type === "Metadata") {
    streamMetadata.push({ name: record.name, metadata: Object.fromEntries(record.metadata) });
  } else if (record.type === "Message") {
    count(stream, streamDecoders, streamSchemas, streamChannels.get(record.channelId), record);
  }
}

for (const result of [indexed, stream]) {
  delete result.lastLogTime;
}
console.log(JSON.stringify(plain({
  header,
  done: streamReader.done(),
  channels,
  streamChannelTopics: [...streamChannels.values()].map((channel) => channel.topic),
  metadata,
  streamMetadata,
  messageCount: statistics?.messageCount,
  indexed,
  stream,
})));
