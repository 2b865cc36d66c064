// mvsim viewer page: draws the simulator's scene with three.js and drives the selected vehicle from the keyboard.
// Wire protocol: mvsim_ros/viewer/protocol.py (scene JSON, binary frames and images; drive/steer/control/camera).
// The world is ROS z-up (x forward, y left): everything simulated lives under one group rotated -pi/2 about x.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const DRIVE_REPEAT_S = 0.1;       // protocol.py DRIVE_REPEAT_S
const DIFF_V = 0.5;               // forward speed of a differential vehicle while W/S is held [m/s]
const DIFF_W = 1.0;               // yaw rate while A/D is held [rad/s]
const STEER_ANGLE = 0.4;          // steering angle of a steered vehicle while A/D is held [rad]
const STEER_SPEED_STEP = 0.1;     // +/- change of the steered speed [m/s]
const TRAIL_POINTS = 2000;        // positions kept per vehicle trail
const TRAIL_MIN_STEP = 0.01;      // smallest move that adds a trail point [m]
const OVERLAY_Z = 0.02;           // height of footprints and trails above the ground [m]

// ---------------------------------------------------------------------------------------------------------------
// Page state, exposed for tests and debugging.
const state = {
  frames: 0,            // frames received
  rendered: 0,          // frames applied to the view
  images: 0,            // camera images received
  sceneVersion: null,   // version of the scene shown
  time: null,           // simulated time of the newest applied frame [s]
  paused: null,
  rtf: null,
  selected: null,       // name of the selected (driven) vehicle
  vehicles: [],         // vehicle names of the scene
  connected: false,
  errors: [],           // problems met while applying messages (shown on the page, not logged)
  lastDrive: null,      // the last drive/steer message sent
  steerSpeed: 0.5,      // speed of steered vehicles while W/S is held [m/s]
};
window.mvsimViewer = state;

const el = (id) => document.getElementById(id);
const ui = {
  view: el('view'), vehicle: el('vehicle'), follow: el('follow'), camera: el('camera'), status: el('status'),
  error: el('error'), image: el('camera-image'), speed: el('speed'),
};

function report(err) {
  const text = String(err && err.stack ? err.stack.split('\n')[0] : err);
  state.errors.push(text);
  ui.error.hidden = false;
  ui.error.textContent = text;
}

// ---------------------------------------------------------------------------------------------------------------
// three.js set-up.
// Is WebGL drawn by the CPU (SwiftShader, llvmpipe: no GPU)? Then skip multisampling, which costs the CPU the
// simulator runs on several times the drawing itself.
function softwareRenderer() {
  try {
    const gl = document.createElement('canvas').getContext('webgl2') || document.createElement('canvas')
      .getContext('webgl');
    const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
    const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    if (gl) gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(name);
  } catch (err) {
    return false;
  }
}

const renderer = new THREE.WebGLRenderer({ antialias: !softwareRenderer() });
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setSize(window.innerWidth, window.innerHeight);
ui.view.appendChild(renderer.domElement);

const scene3 = new THREE.Scene();
scene3.background = new THREE.Color(0x1d232a);
scene3.add(new THREE.HemisphereLight(0xffffff, 0x3a3a44, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(8, 20, 6);  // three.js frame (y up)
scene3.add(sun);

const camera = new THREE.PerspectiveCamera(50, window.innerWidth / window.innerHeight, 0.05, 2000);
camera.position.set(10, 10, 10);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
// Draw only when something changed (a frame arrived, the view moved, the window resized): a page left open costs
// the machine nothing between frames.
let needsRender = true;
controls.addEventListener('change', () => { needsRender = true; });

window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
  needsRender = true;
});

// ROS (x, y, z) -> three.js (x, z, -y): what the world group's rotation does.
const rosToThree = (x, y, z) => new THREE.Vector3(x, z, -y);

// Everything of the current scene.
let world = null;        // THREE.Group, rotated -pi/2 about x: its children use ROS coordinates
let sceneMsg = null;     // the scene message shown
let posed = {};          // group name -> index -> Object3D placed from that pose table
let wheelParts = [];     // [{mount, spin}] in wheel order
let scans = [];          // per 2D lidar: THREE.LineSegments
let clouds = [];         // per 3D lidar: THREE.Points
let footprints = [];     // per vehicle: THREE.LineLoop
let trails = [];         // per vehicle: {line, count}
let followed = null;     // position (three.js frame) of the followed vehicle at the last frame

function decodeBase64(text) {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes.buffer;
}

function srgbToLinear(c) {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

function disposeTree(root) {
  root.traverse((obj) => {
    if (obj.geometry) obj.geometry.dispose();
    if (obj.material) (Array.isArray(obj.material) ? obj.material : [obj.material]).forEach((m) => m.dispose());
  });
}

function posedObject(group, index) {
  if (group === 'static') return world;
  posed[group] = posed[group] || {};
  let obj = posed[group][index];
  if (!obj) {
    obj = new THREE.Object3D();
    obj.rotation.order = 'ZYX';  // ROS roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll)
    obj.visible = false;         // until its first pose
    posed[group][index] = obj;
    world.add(obj);
  }
  return obj;
}

function buildMesh(m) {
  const data = new Float32Array(decodeBase64(m.vertices));
  for (let i = 6; i < data.length; i += 9) {
    data[i] = srgbToLinear(data[i]);
    data[i + 1] = srgbToLinear(data[i + 1]);
    data[i + 2] = srgbToLinear(data[i + 2]);
  }
  const buffer = new THREE.InterleavedBuffer(data, 9);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.InterleavedBufferAttribute(buffer, 3, 0));
  geometry.setAttribute('normal', new THREE.InterleavedBufferAttribute(buffer, 3, 3));
  geometry.setAttribute('color', new THREE.InterleavedBufferAttribute(buffer, 3, 6));
  if (m.indices) geometry.setIndex(new THREE.BufferAttribute(new Uint32Array(decodeBase64(m.indices)), 1));
  geometry.computeBoundingSphere();
  const material = new THREE.MeshLambertMaterial({
    vertexColors: true, side: m.double_sided ? THREE.DoubleSide : THREE.FrontSide,
  });
  const mesh = new THREE.Mesh(geometry, material);
  mesh.name = m.name || '';
  posedObject(m.group, m.index).add(mesh);
}

function buildWheel(w) {
  const body = posedObject('body', w.body);
  const mount = new THREE.Object3D();  // at the wheel's mount; yaw = steering
  mount.position.set(w.x, w.y, w.z);
  const spin = new THREE.Object3D();   // rotates about the axle (y) by phi
  mount.add(spin);
  const color = new THREE.Color(w.color || '#333333');
  // CylinderGeometry's axis is its local y: the axle, in the body's ROS frame.
  spin.add(new THREE.Mesh(new THREE.CylinderGeometry(w.radius, w.radius, w.width, 24),
    new THREE.MeshLambertMaterial({ color })));
  // Two spokes across both faces, in a contrasting shade (darker, or lighter on a dark wheel): the spin shows.
  const hsl = color.getHSL({});
  const spokeColor = hsl.l < 0.35 ? color.clone().lerp(new THREE.Color(0xffffff), 0.55) : color.clone().multiplyScalar(0.3);
  const spokeMaterial = new THREE.MeshLambertMaterial({ color: spokeColor });
  const spokeGeometry = new THREE.BoxGeometry(w.radius * 1.9, w.width * 1.04, w.radius * 0.28);
  spin.add(new THREE.Mesh(spokeGeometry, spokeMaterial));
  const cross = new THREE.Mesh(spokeGeometry.clone(), spokeMaterial);
  cross.rotation.y = Math.PI / 2;
  spin.add(cross);
  body.add(mount);
  return { mount, spin };
}

function dynamicLines(kind, capacity, color, opacity) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(capacity * 3), 3));
  geometry.setDrawRange(0, 0);
  const material = new THREE.LineBasicMaterial({ color, transparent: opacity < 1, opacity });
  const obj = new kind(geometry, material);
  obj.frustumCulled = false;
  obj.visible = false;
  world.add(obj);
  return obj;
}

function setPositions(obj, count, fill) {
  // Grow the buffer when needed, then let `fill(array)` write `count` xyz rows.
  let attr = obj.geometry.getAttribute('position');
  if (attr.count < count) {
    attr = new THREE.BufferAttribute(new Float32Array(Math.max(count, attr.count * 2) * 3), 3);
    obj.geometry.setAttribute('position', attr);
  }
  fill(attr.array);
  attr.needsUpdate = true;
  obj.geometry.setDrawRange(0, count);
  obj.visible = count > 0;
}

function buildScene(msg) {
  if (world) {
    scene3.remove(world);
    disposeTree(world);
  }
  world = new THREE.Group();
  world.rotation.x = -Math.PI / 2;
  scene3.add(world);
  posed = {};
  sceneMsg = msg;
  (msg.meshes || []).forEach(buildMesh);
  wheelParts = (msg.wheels || []).map(buildWheel);
  scans = (msg.lidars || []).map(() => dynamicLines(THREE.LineSegments, 1024, 0x40ff90, 0.3));
  clouds = (msg.lidars3d || []).map(() => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * 1024), 3));
    geometry.setDrawRange(0, 0);
    const points = new THREE.Points(geometry, new THREE.PointsMaterial({ color: 0x40e0ff, size: 0.04 }));
    points.frustumCulled = false;
    points.visible = false;
    world.add(points);
    return points;
  });
  const vehicles = msg.vehicles || [];
  footprints = vehicles.map((v) => dynamicLines(THREE.LineLoop, 16, new THREE.Color(v.color || '#ffff00'), 1));
  trails = vehicles.map((v) => ({
    line: dynamicLines(THREE.Line, TRAIL_POINTS, new THREE.Color(v.color || '#ffffff'), 0.8), count: 0,
  }));
  needsRender = true;
  state.sceneVersion = msg.version;
  state.vehicles = vehicles.map((v) => v.name);
  fillSelectors(msg);
  if (!initialViewDone) {
    initialView(msg.gui || {});
    initialViewDone = true;
  }
}

let initialViewDone = false;

function initialView(gui) {
  setView({
    distance: gui.cam_distance, azimuth: gui.cam_azimuth, elevation: gui.cam_elevation, fov: gui.fov,
    target: gui.cam_point_to,
  });
  if (gui.follow_vehicle) ui.follow.checked = true;
}

// Look at `target` (ROS [x, y, z], m) from `distance` [m] at `azimuth` and `elevation` [rad] (ROS frame, like
// MVSim's <gui> camera), with a vertical field of view `fov` [rad]; missing values keep MVSim-like defaults.
function setView({ distance, azimuth, elevation, fov, target } = {}) {
  const num = (v, d) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
  const d = num(distance, 20);
  const az = num(azimuth, -Math.PI / 2);
  const el = num(elevation, Math.PI / 4);
  camera.fov = THREE.MathUtils.radToDeg(num(fov, THREE.MathUtils.degToRad(50)));
  const p = Array.isArray(target) ? target : [0, 0, 0];
  const at = rosToThree(num(p[0], 0), num(p[1], 0), num(p[2], 0));
  const offset = rosToThree(Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el)).multiplyScalar(d);
  controls.target.copy(at);
  camera.position.copy(at).add(offset);
  camera.far = Math.max(2000, d * 10);
  camera.updateProjectionMatrix();
  controls.update();
  followed = null;
  needsRender = true;
}
state.setView = setView;

// Where a ROS world point [m] appears on the page: [x, y] in CSS pixels from the canvas' top-left corner.
state.project = (x, y, z) => {
  camera.updateMatrixWorld();
  const v = rosToThree(x, y, z).project(camera);
  const rect = renderer.domElement.getBoundingClientRect();
  return [(v.x + 1) / 2 * rect.width, (1 - v.y) / 2 * rect.height];
};

function fillSelectors(msg) {
  const names = (msg.vehicles || []).map((v) => v.name);
  const gui = msg.gui || {};
  const keep = state.selected !== null && names.includes(state.selected) ? state.selected
    : (names.includes(gui.follow_vehicle) ? gui.follow_vehicle : (names[0] ?? null));
  ui.vehicle.replaceChildren(...names.map((n) => new Option(n, n)));
  state.selected = keep;
  if (keep !== null) ui.vehicle.value = keep;
  const chosen = ui.camera.value;
  const cams = (msg.cameras || []).map((c, i) => new Option(c.vehicle ? `${c.vehicle}/${c.name}` : c.name, String(i)));
  ui.camera.replaceChildren(new Option('none', ''), ...cams);
  ui.camera.value = cams.some((o) => o.value === chosen) ? chosen : '';
  if (ui.camera.value !== chosen) chooseCamera();
}

// ---------------------------------------------------------------------------------------------------------------
// Binary messages: u32 n, n bytes of JSON header (zero-padded to a multiple of 4), then float32 arrays / bytes.
const decoder = new TextDecoder();

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

let pendingFrame = null;  // the newest frame not applied yet

function onBinary(buffer) {
  const { header, offset } = unpack(buffer);
  if (header.type === 'frame') {
    state.frames += 1;
    frameTimes.push(performance.now());
    pendingFrame = unpackFrame(buffer);
  } else if (header.type === 'image') {
    const bytes = new Uint8Array(buffer, offset, header.bytes);
    showImage(header, new Blob([bytes], { type: header.mime || 'image/jpeg' }));
  }
}

let imageUrl = null;

function showImage(header, blob) {
  if (ui.camera.value === '' || Number(ui.camera.value) !== header.camera) return;
  state.images += 1;
  const old = imageUrl;
  imageUrl = URL.createObjectURL(blob);
  ui.image.src = imageUrl;
  ui.image.hidden = false;
  if (old) URL.revokeObjectURL(old);
}

function applyPose(obj, data, row, cols) {
  const o = row * cols;
  obj.position.set(data[o], data[o + 1], data[o + 2]);
  if (cols >= 6) obj.rotation.set(data[o + 5], data[o + 4], data[o + 3]);
  else obj.rotation.set(0, 0, data[o + 3]);
  obj.visible = true;
}

function applyFrame(frame) {
  state.time = frame.time;
  state.paused = frame.paused;
  state.rtf = frame.rtf;
  if (!sceneMsg || frame.version !== state.sceneVersion) return;
  const arrays = frame.data;
  for (const [group, table] of [['body', 'bodies'], ['block', 'blocks'], ['plane', 'planes'], ['actor', 'actors']]) {
    const a = arrays[table];
    const objs = posed[group];
    if (!a || !objs) continue;
    for (const key of Object.keys(objs)) {
      const row = Number(key);
      if (row >= 0 && row < a.rows) applyPose(objs[key], a.data, row, a.cols);
    }
  }
  const wheels = arrays.wheels;
  if (wheels) {
    const n = Math.min(wheels.rows, wheelParts.length);
    for (let i = 0; i < n; i++) {
      wheelParts[i].spin.rotation.y = wheels.data[2 * i];
      wheelParts[i].mount.rotation.z = wheels.data[2 * i + 1];
    }
  }
  scans.forEach((lines, k) => {
    const a = arrays[`scan:${k}`];
    if (!a) { lines.visible = false; return; }
    const rays = a.rows - 1;
    const d = a.data;
    setPositions(lines, 2 * rays, (out) => {
      for (let i = 0; i < rays; i++) {
        out.set(d.subarray(0, 3), 6 * i);
        out.set(d.subarray(3 * (i + 1), 3 * (i + 2)), 6 * i + 3);
      }
    });
  });
  clouds.forEach((points, k) => {
    const a = arrays[`points:${k}`];
    if (!a) { points.visible = false; return; }
    setPositions(points, a.rows, (out) => out.set(a.data));
  });
  footprints.forEach((loop, i) => {
    const a = arrays[`footprint:${i}`];
    if (!a) { loop.visible = false; return; }
    setPositions(loop, a.rows, (out) => {
      for (let r = 0; r < a.rows; r++) {
        out[3 * r] = a.data[2 * r];
        out[3 * r + 1] = a.data[2 * r + 1];
        out[3 * r + 2] = OVERLAY_Z;
      }
    });
  });
  const bodies = arrays.bodies;
  if (bodies) {
    (sceneMsg.vehicles || []).forEach((v, i) => {
      if (v.body < bodies.rows) addTrailPoint(trails[i], bodies.data[6 * v.body], bodies.data[6 * v.body + 1]);
    });
  }
  followSelected();
}

function addTrailPoint(trail, x, y) {
  const attr = trail.line.geometry.getAttribute('position');
  const p = attr.array;
  if (trail.count > 0) {
    const o = 3 * (trail.count - 1);
    if (Math.hypot(p[o] - x, p[o + 1] - y) < TRAIL_MIN_STEP) return;
  }
  if (trail.count === TRAIL_POINTS) {
    p.copyWithin(0, 3);
    trail.count -= 1;
  }
  p[3 * trail.count] = x;
  p[3 * trail.count + 1] = y;
  p[3 * trail.count + 2] = OVERLAY_Z;
  trail.count += 1;
  attr.needsUpdate = true;
  trail.line.geometry.setDrawRange(0, trail.count);
  trail.line.visible = trail.count > 1;
}

function followSelected() {
  const obj = selectedBody();
  if (!ui.follow.checked || !obj || !obj.visible) { followed = null; return; }
  const now = obj.getWorldPosition(new THREE.Vector3());
  if (followed) {
    const delta = now.clone().sub(followed);
    camera.position.add(delta);
    controls.target.add(delta);
  } else {
    const delta = now.clone().sub(controls.target);
    camera.position.add(delta);
    controls.target.copy(now);
  }
  followed = now;
}

function selectedBody() {
  if (!sceneMsg || state.selected === null) return null;
  const v = (sceneMsg.vehicles || []).find((x) => x.name === state.selected);
  return v && posed.body ? posed.body[v.body] || null : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Connection.
let socket = null;

function send(msg) {
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

function connect() {
  const ws = new WebSocket(socketUrl());
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    state.connected = true;
    if (ui.camera.value !== '') send({ type: 'camera', index: Number(ui.camera.value) });
  };
  ws.onmessage = (event) => {
    try {
      if (typeof event.data === 'string') {
        const msg = JSON.parse(event.data);
        if (msg.type === 'scene') buildScene(msg);
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
    setTimeout(connect, 1000);
  };
  socket = ws;
}

// ---------------------------------------------------------------------------------------------------------------
// Controls: selectors, buttons, keyboard teleop.
ui.vehicle.addEventListener('change', () => {
  stopDriving();
  state.selected = ui.vehicle.value;
  followed = null;
  ui.vehicle.blur();
});
ui.follow.addEventListener('change', () => { followed = null; ui.follow.blur(); });

function chooseCamera() {
  const index = ui.camera.value === '' ? null : Number(ui.camera.value);
  send({ type: 'camera', index });
  if (index === null) {
    ui.image.hidden = true;
    ui.image.removeAttribute('src');
    if (imageUrl) URL.revokeObjectURL(imageUrl);
    imageUrl = null;
  }
}
ui.camera.addEventListener('change', () => { chooseCamera(); ui.camera.blur(); });

for (const action of ['pause', 'play', 'step', 'reset']) {
  el(action).addEventListener('click', (event) => {
    send(action === 'step' ? { type: 'control', action, steps: 1 } : { type: 'control', action });
    if (action === 'reset') for (const t of trails) { t.count = 0; t.line.visible = false; }
    event.currentTarget.blur();
  });
}

const KEY_ROLES = {
  KeyW: 'fwd', ArrowUp: 'fwd', KeyS: 'back', ArrowDown: 'back',
  KeyA: 'left', ArrowLeft: 'left', KeyD: 'right', ArrowRight: 'right',
};
const held = new Set();
let repeatTimer = null;

function isTyping(target) {
  if (!target || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  if (target.tagName !== 'INPUT') return false;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(target.type);
}

function selectedVehicle() {
  if (!sceneMsg || state.selected === null) return null;
  return (sceneMsg.vehicles || []).find((v) => v.name === state.selected) || null;
}

function sendDrive() {
  const v = selectedVehicle();
  if (!v) return;
  const fwd = (held.has('fwd') ? 1 : 0) - (held.has('back') ? 1 : 0);
  const turn = (held.has('left') ? 1 : 0) - (held.has('right') ? 1 : 0);
  const msg = v.steerable
    ? { type: 'steer', vehicle: v.name, speed: state.steerSpeed * fwd, angle: STEER_ANGLE * turn }
    : { type: 'drive', vehicle: v.name, v: DIFF_V * fwd, w: DIFF_W * turn };
  state.lastDrive = msg;
  send(msg);
}

function startDriving() {
  sendDrive();
  if (repeatTimer === null) repeatTimer = setInterval(sendDrive, DRIVE_REPEAT_S * 1000);
}

function stopDriving() {
  const wasDriving = repeatTimer !== null || held.size > 0;
  held.clear();
  if (repeatTimer !== null) clearInterval(repeatTimer);
  repeatTimer = null;
  return wasDriving;
}

function showSpeed() {
  ui.speed.textContent = `(${state.steerSpeed.toFixed(1)} m/s)`;
}

window.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.altKey || event.metaKey || isTyping(event.target)) return;
  const role = KEY_ROLES[event.code];
  if (role) {
    event.preventDefault();
    if (event.repeat && held.has(role)) return;
    held.add(role);
    startDriving();
  } else if (event.code === 'Space') {
    event.preventDefault();
    stopDriving();
    sendDrive();  // zeros
  } else if (event.key === '+' || event.code === 'NumpadAdd') {
    state.steerSpeed = Math.min(10, Math.round((state.steerSpeed + STEER_SPEED_STEP) * 10) / 10);
    showSpeed();
  } else if (event.key === '-' || event.code === 'NumpadSubtract') {
    state.steerSpeed = Math.max(STEER_SPEED_STEP, Math.round((state.steerSpeed - STEER_SPEED_STEP) * 10) / 10);
    showSpeed();
  }
});

window.addEventListener('keyup', (event) => {
  const role = KEY_ROLES[event.code];
  if (!role || !held.has(role)) return;
  held.delete(role);
  if (held.size === 0) {
    stopDriving();
    sendDrive();  // zeros once on release
  } else {
    sendDrive();
  }
});

window.addEventListener('blur', () => { if (stopDriving()) sendDrive(); });

// ---------------------------------------------------------------------------------------------------------------
// Render loop: apply the newest frame only, then draw.
const frameTimes = [];

function statusText() {
  const now = performance.now();
  while (frameTimes.length && frameTimes[0] < now - 1000) frameTimes.shift();
  if (!state.connected) return 'disconnected: reconnecting…';
  if (state.time === null) return 'waiting for the simulation…';
  const run = state.paused ? 'paused' : 'running';
  const rtf = Number.isFinite(state.rtf) ? state.rtf.toFixed(2) : '-';
  return `t = ${state.time.toFixed(3)} s   ${run}   rtf ${rtf}   ${frameTimes.length} frames/s`;
}

let lastStatus = 0;

function animate() {
  requestAnimationFrame(animate);
  if (pendingFrame) {
    const frame = pendingFrame;
    pendingFrame = null;
    try {
      applyFrame(frame);
      needsRender = true;
      state.rendered += 1;
    } catch (err) {
      report(err);
    }
  }
  if (controls.update()) needsRender = true;
  if (needsRender) {
    renderer.render(scene3, camera);
    needsRender = false;
  }
  const now = performance.now();
  if (now - lastStatus > 200) {
    ui.status.textContent = statusText();
    lastStatus = now;
  }
}

showSpeed();
connect();
animate();
