// Calls a live Foxglove WebSocket server's services with Foxglove's own client library, as Foxglove's Service Call
// panel does, and prints what it found as one JSON object.
//
//   node service_client.mjs ws://HOST:PORT X Y
//
// Waits for the advertised services (advertiseServices), then, each request written with
// @foxglove/rosmsg2-serialization from the service's advertised ros2msg request schema and each response decoded
// from its response schema: /mvsim/get_simulator_features (an empty request), /mvsim/get_entities,
// /mvsim/set_entity_state (r1 to (X, Y) [m], yaw 0), /mvsim/get_entity_state (r1), then /mvsim/get_entities with
// malformed bytes, then /mvsim/get_entities again, then /mvsim/set_simulation_state (paused), /mvsim/step_simulation
// (STEPS steps, a callback the node awaits) and /mvsim/get_simulation_state. Prints {"services": [{name, type, requestSchemaName,
// requestEncoding}], "calls": [{"service", "response"} or {"service", "failure"}]}; {"error": TEXT} when a step
// does not happen within LIMIT_S.
import { parse } from "@foxglove/rosmsg";
import { MessageReader, MessageWriter } from "@foxglove/rosmsg2-serialization";
import wsProtocol from "@foxglove/ws-protocol";
import WebSocket from "ws";

const { FoxgloveClient } = wsProtocol;

const [url, x, y] = process.argv.slice(2);
const LIMIT_S = 90;
const NS = "/mvsim/";
const WANTED = ["get_simulator_features", "get_entities", "set_entity_state", "get_entity_state",
  "set_simulation_state", "step_simulation", "get_simulation_state"].map((n) => NS + n);
const STATE_PAUSED = 2;
const STEPS = 40;
// A CDR encapsulation header (little endian) and a sequence length far beyond the bytes that follow.
const MALFORMED = new Uint8Array([0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3]);

const ws = new WebSocket(url, ["foxglove.sdk.v1", FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
const services = new Map();
const waiting = new Map();
let nextCallId = 1;
let started = false;

const plain = (value) => JSON.parse(JSON.stringify(value, (_k, v) =>
  (typeof v === "bigint" ? v.toString() : ArrayBuffer.isView(v) ? Array.from(v) : v)));

function finish(result) {
  console.log(JSON.stringify(result));
  client.close();
  process.exit(0);
}

function call(name, request, rawBytes) {
  const service = [...services.values()].find((s) => s.name === name);
  const data = rawBytes ?? new MessageWriter(parse(service.request.schema, { ros2: true })).writeMessage(request);
  const callId = nextCallId++;
  return new Promise((resolve) => {
    waiting.set(callId, { service, resolve });
    client.sendServiceCallRequest({ serviceId: service.id, callId, encoding: "cdr", data });
  });
}

client.on("serviceCallResponse", ({ callId, encoding, data }) => {
  const entry = waiting.get(callId);
  if (!entry) return;
  waiting.delete(callId);
  const reader = new MessageReader(parse(entry.service.response.schema, { ros2: true }));
  const response = reader.readMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  entry.resolve({ service: entry.service.name, encoding, response: plain(response) });
});
client.on("serviceCallFailure", ({ callId, message }) => {
  const entry = waiting.get(callId);
  if (!entry) return;
  waiting.delete(callId);
  entry.resolve({ service: entry.service.name, failure: message });
});
client.on("error", (error) => { console.error(String(error)); });
client.on("unadvertiseServices", (ids) => ids.forEach((id) => services.delete(id)));
client.on("advertiseServices", (advertised) => {
  for (const service of advertised) services.set(service.id, service);
  const names = new Set([...services.values()].map((s) => s.name));
  if (!started && WANTED.every((name) => names.has(name))) {
    started = true;
    run().catch((error) => finish({ error: String(error && error.stack || error) }));
  }
});

async function run() {
  const calls = [];
  calls.push(await call(NS + "get_simulator_features", {}));
  calls.push(await call(NS + "get_entities", {}));
  calls.push(await call(NS + "set_entity_state", {
    entity: "r1",
    state: { header: { frame_id: "" }, pose: { position: { x: Number(x), y: Number(y), z: 0 },
      orientation: { x: 0, y: 0, z: 0, w: 1 } } },
    set_pose: true,
  }));
  calls.push(await call(NS + "get_entity_state", { entity: "r1" }));
  calls.push(await call(NS + "get_entities", null, MALFORMED));
  calls.push(await call(NS + "get_entities", {}));
  calls.push(await call(NS + "set_simulation_state", { state: { state: STATE_PAUSED } }));
  calls.push(await call(NS + "step_simulation", { steps: STEPS }));
  calls.push(await call(NS + "get_simulation_state", {}));
  const listed = [...services.values()].map((s) => ({
    name: s.name, type: s.type, requestSchemaName: s.request?.schemaName, requestEncoding: s.request?.encoding,
    responseSchemaName: s.response?.schemaName,
  }));
  finish({ services: listed, calls });
}

setTimeout(() => finish({ error: `not done within ${LIMIT_S} s; services: ${[...services.values()].map((s) => s.name)}` }),
  LIMIT_S * 1000);
