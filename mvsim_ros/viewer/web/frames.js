// The simulator's binary messages: frames (poses, wheel angles, lidar points, footprints, vehicle states) applied
// to the scene at the next animation frame (only the newest one), the vehicles' recent paths (trails) drawn at
// once, and camera images handed to the panel.
// Layout: u32 n, n bytes of JSON header (zero-padded to a multiple of 4), then float32 arrays / bytes.

import { state } from './page_state.js';
import { followSelected } from './framing.js';
import { showImage, showReadout } from './panels.js';
import { TRAIL_MIN_STEP, current, showCollision, showLabelCollision, showTrails } from './scene.js';
import { setPositions } from './shapes.js';

// Frame "vehicles" array columns (protocol.py).
const VX = 0, VY = 1, VYAW = 2, VSPEED = 3, VLATERAL = 4, VRATE = 5, VSTEER = 6, VCOLLISION = 7;

const decoder = new TextDecoder();
const frameTimes = [];    // arrival times [ms] of the frames of the last second
let pendingFrame = null;  // the newest frame not applied yet

function unpack(buffer) {
  const n = new DataView(buffer).getUint32(0, true);
  const header = JSON.parse(decoder.decode(new Uint8Array(buffer, 4, n)).replace(/\0+$/, ''));
  let offset = 4 + Math.ceil(n / 4) * 4;
  return { header, offset };
}

function unpackFrame(buffer) {
  const { header, offset: start } = unpack(buffer);
  const arrays = {};
  let offset = start;
  for (const [name, rows, cols] of header.arrays || []) {
    arrays[name] = { rows, cols, data: new Float32Array(buffer, offset, rows * cols) };
    offset += rows * cols * 4;
  }
  header.data = arrays;
  return header;
}

// A binary message from the simulator: a frame (kept until the next animation frame) or a camera image.
export function onBinary(buffer) {
  const { header, offset } = unpack(buffer);
  if (header.type === 'frame') {
    state.frames += 1;
    frameTimes.push(performance.now());
    pendingFrame = unpackFrame(buffer);
  } else if (header.type === 'trails') {
    const msg = unpackFrame(buffer);
    showTrails({
      version: msg.version,
      paths: Object.fromEntries((msg.vehicles || []).map((name, i) => {
        const a = msg.data[`trail:${i}`];
        return [name, a ? Array.from({ length: a.rows }, (_, r) => [a.data[2 * r], a.data[2 * r + 1]]) : []];
      })),
    });
  } else if (header.type === 'image') {
    const bytes = new Uint8Array(buffer, offset, header.bytes);
    showImage(header, new Blob([bytes], { type: header.mime || 'image/jpeg' }));
  }
}

// Frames received over the last second.
export function framesPerSecond() {
  const now = performance.now();
  while (frameTimes.length && frameTimes[0] < now - 1000) frameTimes.shift();
  return frameTimes.length;
}

// The newest frame not applied yet (null when none arrived since), taken.
export function takePendingFrame() {
  const frame = pendingFrame;
  pendingFrame = null;
  return frame;
}

function applyPose(obj, data, row, cols) {
  const o = row * cols;
  obj.position.set(data[o], data[o + 1], data[o + 2]);
  if (cols >= 6) obj.rotation.set(data[o + 5], data[o + 4], data[o + 3]);
  else obj.rotation.set(0, 0, data[o + 3]);
  obj.visible = true;
}

// Move the scene to a frame's state (a frame of another scene version only updates the run state).
export function applyFrame(frame) {
  state.time = frame.time;
  state.paused = frame.paused;
  state.rtf = frame.rtf;
  state.rtfTarget = Number.isFinite(frame.rtf_target) ? frame.rtf_target : null;
  if (!current.sceneMsg || frame.version !== state.sceneVersion) return;
  const arrays = frame.data;
  for (const [group, table] of [['body', 'bodies'], ['block', 'blocks'], ['plane', 'planes'], ['actor', 'actors']]) {
    const a = arrays[table];
    const objs = current.posed[group];
    if (!a || !objs) continue;
    for (const key of Object.keys(objs)) {
      const row = Number(key);
      if (row >= 0 && row < a.rows) applyPose(objs[key], a.data, row, a.cols);
    }
  }
  const wheels = arrays.wheels;
  const wheelParts = current.wheelParts;
  if (wheels) {
    const n = Math.min(wheels.rows, wheelParts.length);
    for (let i = 0; i < n; i++) {
      wheelParts[i].spin.rotation.y = wheels.data[wheels.cols * i];
      wheelParts[i].mount.rotation.z = wheels.data[wheels.cols * i + 1];
    }
  }
  current.scans.forEach((scan, k) => {
    const a = arrays[`scan:${k}`];
    if (!a) { scan.rays.visible = false; scan.hits.visible = false; return; }
    const rays = a.rows - 1;
    const d = a.data;
    setPositions(scan.rays, 2 * rays, (out) => {
      for (let i = 0; i < rays; i++) {
        out.set(d.subarray(0, 3), 6 * i);
        out.set(d.subarray(3 * (i + 1), 3 * (i + 2)), 6 * i + 3);
      }
    });
    setPositions(scan.hits, rays, (out) => out.set(d.subarray(3, 3 * (rays + 1))));
  });
  current.clouds.forEach((points, k) => {
    const a = arrays[`points:${k}`];
    if (!a) { points.visible = false; return; }
    setPositions(points, a.rows, (out) => out.set(a.data));
  });
  current.footprints.forEach((ribbon, i) => {
    const a = arrays[`footprint:${i}`];
    if (!a) { ribbon.clear(); return; }
    ribbon.setLoop(a.rows, (r) => [a.data[2 * r], a.data[2 * r + 1]]);
  });
  applyVehicleStates(arrays);
  followSelected();
}

// The frame's "vehicles" array (and wheel speeds) into state.vehicleStates; trails, collision cues, readout.
function applyVehicleStates(arrays) {
  const a = arrays.vehicles;
  const wheels = arrays.wheels;
  const sceneMsg = current.sceneMsg;
  const vehicles = sceneMsg.vehicles || [];
  const states = {};
  if (a) {
    vehicles.forEach((v, i) => {
      if (i >= a.rows) return;
      const d = a.data.subarray(a.cols * i, a.cols * (i + 1));
      const wheelSpeeds = [];
      if (wheels && wheels.cols >= 3) {
        (sceneMsg.wheels || []).forEach((w, k) => {
          if (w.body === v.body && k < wheels.rows) wheelSpeeds.push(wheels.data[wheels.cols * k + 2]);
        });
      }
      states[v.name] = {
        x: d[VX], y: d[VY], yaw: d[VYAW], speed: d[VSPEED], lateral: d[VLATERAL], yawRate: d[VRATE],
        steering: d[VSTEER], collision: d[VCOLLISION] > 0.5, wheels: wheelSpeeds,
      };
      current.trails[i].extend(d[VX], d[VY], TRAIL_MIN_STEP);
      showCollision(current.outlines[i], d[VCOLLISION] > 0.5);
      showLabelCollision(current.labels[i], d[VCOLLISION] > 0.5);
    });
  }
  state.vehicleStates = states;
  showReadout();
}
