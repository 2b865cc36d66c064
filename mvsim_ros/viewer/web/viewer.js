// mvsim viewer page: draws the simulator's scene with three.js, labels the vehicles, shows the selected one's
// state, drives it from the keyboard and places it (or a goal for it) with the mouse.
// Wire protocol: mvsim_ros/viewer/protocol.py (scene JSON, binary frames and images; drive/steer/control/camera/
// set_pose/goal). The world is ROS z-up (x forward, y left): everything simulated lives under one group rotated
// -pi/2 about x.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { CSS2DRenderer, CSS2DObject } from 'three/addons/renderers/CSS2DRenderer.js';

const DRIVE_REPEAT_S = 0.1;       // protocol.py DRIVE_REPEAT_S
const DIFF_V = 0.5;               // forward speed of a differential vehicle while W/S is held [m/s]
const DIFF_W = 1.0;               // yaw rate while A/D is held [rad/s]
const STEER_ANGLE = 0.4;          // steering angle of a steered vehicle while A/D is held [rad]
const STEER_SPEED_STEP = 0.1;     // +/- change of the steered speed [m/s]
const TRAIL_SEGMENTS = 600;       // segments kept per vehicle trail (the oldest go first)
const TRAIL_MIN_STEP = 0.05;      // smallest move that adds a trail segment [m]: 600 x 0.05 = 30 m of trail
const TRAIL_WIDTH = 0.06;         // width of a trail on the ground [m]
const OUTLINE_WIDTH = 0.035;      // width of the vehicle outlines and footprints on the ground [m]
const OVERLAY_Z = 0.02;           // height of footprints and trails above the ground [m]
const GRID_Z = 0.005;             // height of the ground grid [m] (above the ground, below the overlays)
const GRID_MAJOR = 5;             // a bold grid line every GRID_MAJOR cells
const LABEL_Z = 0.25;             // height of a vehicle's name label above its chassis top [m]
const COLLISION_COLOR = 0xff3030; // vehicle outline and label while colliding
const GOAL_COLOR = 0xffd040;      // goal markers
const POSE_COLOR = 0x40c0ff;      // the set-pose arrow while dragging
const MIN_DRAG = 0.1;             // shorter drags [m] keep the heading (vehicle's yaw for set pose, 0 for goal)
const VIEW_MIN_DISTANCE = 5;      // closest default camera distance to the vehicles [m]
const VIEW_MAX_DISTANCE = 40;     // farthest default camera distance to the vehicles [m]
// Frame "vehicles" array columns (protocol.py).
const VX = 0, VY = 1, VYAW = 2, VSPEED = 3, VLATERAL = 4, VRATE = 5, VSTEER = 6, VCOLLISION = 7;
// Layers the page can hide: checkbox id suffix -> what it shows.
const LAYERS = ['rays', 'points', 'trails', 'footprints', 'labels', 'grid'];

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
  rtfTarget: null,      // real-time factor aimed at (0: as fast as possible)
  vehicleStates: {},    // vehicle name -> {x, y, yaw, speed, lateral, yawRate, steering, collision, wheels}
  tool: null,           // mouse tool in use: 'pose', 'goal' or null (orbit the view)
  lastPoseMessage: null, // the last set_pose or goal message sent
  goals: {},            // vehicle name -> [x, y, yaw] of its last goal
  layers: Object.fromEntries(LAYERS.map((name) => [name, true])),
};
window.mvsimViewer = state;

const el = (id) => document.getElementById(id);
const ui = {
  view: el('view'), vehicle: el('vehicle'), follow: el('follow'), camera: el('camera'), status: el('status'),
  error: el('error'), image: el('camera-image'), speed: el('speed'), readout: el('readout'),
  toolPose: el('tool-pose'), toolGoal: el('tool-goal'), toolHint: el('tool-hint'),
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
// Name labels and axis letters: HTML elements placed over the canvas; they let every mouse event through.
const labelRenderer = new CSS2DRenderer();
labelRenderer.setSize(window.innerWidth, window.innerHeight);
labelRenderer.domElement.id = 'labels';
ui.view.appendChild(labelRenderer.domElement);

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
  labelRenderer.setSize(window.innerWidth, window.innerHeight);
  needsRender = true;
});

// ROS (x, y, z) -> three.js (x, z, -y): what the world group's rotation does.
const rosToThree = (x, y, z) => new THREE.Vector3(x, z, -y);
// three.js -> ROS (x, y, z).
const threeToRos = (v) => [v.x, -v.z, v.y];

// Everything of the current scene.
let world = null;        // THREE.Group, rotated -pi/2 about x: its children use ROS coordinates
let sceneMsg = null;     // the scene message shown
let posed = {};          // group name -> index -> Object3D placed from that pose table
let wheelParts = [];     // [{mount, spin}] in wheel order
let scans = [];          // per 2D lidar: THREE.LineSegments
let clouds = [];         // per 3D lidar: THREE.Points
let footprints = [];     // per vehicle: Ribbon of its train's footprint (vehicles towing trailers)
let trails = [];         // per vehicle: Ribbon of its recent path
let outlines = [];       // per vehicle: {ribbon, material} of its chassis outline (red while colliding)
let labels = [];         // per vehicle: {object, element} of its name label
let goalMarkers = {};    // vehicle name -> THREE.ArrowHelper of its last goal
let layerGroups = {};    // layer name -> THREE.Group (in the world group) holding that layer's objects
let followed = null;     // position (three.js frame) of the followed vehicle at the last frame
let viewFramed = false;  // the default view was fitted to the vehicles (after the first frame)

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
    if (obj.isCSS2DObject) obj.element.remove();  // labels live in the DOM, not in the WebGL scene
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

function dynamicLines(kind, capacity, color, opacity, parent) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(capacity * 3), 3));
  geometry.setDrawRange(0, 0);
  const material = new THREE.LineBasicMaterial({ color, transparent: opacity < 1, opacity, depthWrite: opacity >= 1 });
  const obj = new kind(geometry, material);
  obj.frustumCulled = false;
  obj.visible = false;
  parent.add(obj);
  return obj;
}

// Points drawn `pixels` px wide at any distance, or 4 cm wide in the world when `pixels` is 0.
function dynamicPoints(capacity, color, pixels, parent) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * capacity), 3));
  geometry.setDrawRange(0, 0);
  const material = new THREE.PointsMaterial({ color, size: pixels || 0.04, sizeAttenuation: !pixels });
  const points = new THREE.Points(geometry, material);
  points.frustumCulled = false;
  points.visible = false;
  parent.add(points);
  return points;
}

// Flat strips on the ground plane z (ROS frame of their parent): every segment is a quad `width` m wide, as wide
// as asked at any zoom (WebGL draws lines one pixel wide). Segments are lengthened by half the width at both ends
// so that the corners of a closed outline have no gaps.
class Ribbon {
  constructor(capacity, width, color, opacity, z, parent) {
    this.capacity = capacity;
    this.width = width;
    this.z = z;
    this.count = 0;    // segments drawn
    this.last = null;  // [x, y] end of the newest segment pushed
    const index = new Uint32Array(capacity * 6);
    for (let i = 0; i < capacity; i++) index.set([4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 2, 4 * i + 1, 4 * i + 3], 6 * i);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(capacity * 12), 3));
    geometry.setIndex(new THREE.BufferAttribute(index, 1));
    geometry.setDrawRange(0, 0);
    this.material = new THREE.MeshBasicMaterial({
      color, transparent: opacity < 1, opacity, side: THREE.DoubleSide, depthWrite: false,
    });
    this.mesh = new THREE.Mesh(geometry, this.material);
    this.mesh.frustumCulled = false;
    this.mesh.visible = false;
    this.mesh.renderOrder = 1;  // over the ground and the grid
    parent.add(this.mesh);
  }

  // Write segment `i` from (x0, y0) to (x1, y1).
  writeSegment(i, x0, y0, x1, y1) {
    const length = Math.hypot(x1 - x0, y1 - y0) || 1;
    const ux = (x1 - x0) / length, uy = (y1 - y0) / length;  // along
    const h = this.width / 2;
    const nx = -uy * h, ny = ux * h;                          // across, half the width
    const ax = x0 - ux * h, ay = y0 - uy * h, bx = x1 + ux * h, by = y1 + uy * h;
    const p = this.mesh.geometry.getAttribute('position').array;
    p.set([ax + nx, ay + ny, this.z, ax - nx, ay - ny, this.z, bx + nx, by + ny, this.z, bx - nx, by - ny, this.z],
      12 * i);
  }

  // Add a segment from the last point to (x, y) when it moved at least `minStep` [m]; the oldest one goes when
  // full.
  extend(x, y, minStep) {
    if (this.last === null) { this.last = [x, y]; return; }
    const [x0, y0] = this.last;
    if (Math.hypot(x - x0, y - y0) < minStep) return;
    if (this.count === this.capacity) {
      const p = this.mesh.geometry.getAttribute('position').array;
      p.copyWithin(0, 12);
      this.count -= 1;
    }
    this.writeSegment(this.count, x0, y0, x, y);
    this.count += 1;
    this.last = [x, y];
    this.update();
  }

  // A closed polygon of `n` corners: xy(k) gives corner k as [x, y]; at most `capacity` corners are drawn.
  setLoop(n, xy) {
    const corners = Math.min(n, this.capacity);
    for (let k = 0; k < corners; k++) {
      const [x0, y0] = xy(k);
      const [x1, y1] = xy((k + 1) % corners);
      this.writeSegment(k, x0, y0, x1, y1);
    }
    this.count = corners >= 2 ? corners : 0;
    this.update();
  }

  // Just one segment, from (x0, y0) to (x1, y1).
  setSegment(x0, y0, x1, y1) {
    this.writeSegment(0, x0, y0, x1, y1);
    this.count = 1;
    this.update();
  }

  clear() {
    this.count = 0;
    this.last = null;
    this.update();
  }

  update() {
    this.mesh.geometry.getAttribute('position').needsUpdate = true;
    this.mesh.geometry.setDrawRange(0, this.count * 6);
    this.mesh.visible = this.count > 0;
  }
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
  layerGroups = Object.fromEntries(LAYERS.map((name) => {
    const group = new THREE.Group();
    group.name = `layer:${name}`;
    world.add(group);
    return [name, group];
  }));
  (msg.meshes || []).forEach(buildMesh);
  wheelParts = (msg.wheels || []).map(buildWheel);
  // A 2D scan: faint rays and a bright dot where each ray ends.
  scans = (msg.lidars || []).map(() => ({
    rays: dynamicLines(THREE.LineSegments, 1024, 0x40ff90, 0.06, layerGroups.rays),
    hits: dynamicPoints(1024, 0x60ffa0, 2.5, layerGroups.rays),
  }));
  clouds = (msg.lidars3d || []).map(() => dynamicPoints(1024, 0x40e0ff, 0, layerGroups.points));
  const vehicles = msg.vehicles || [];
  footprints = vehicles.map((v) => new Ribbon(64, OUTLINE_WIDTH, new THREE.Color(v.color || '#ffff00'), 1,
    OVERLAY_Z, layerGroups.footprints));
  trails = vehicles.map((v) => new Ribbon(TRAIL_SEGMENTS, TRAIL_WIDTH, trailColor(v.color), 0.9, OVERLAY_Z,
    layerGroups.trails));
  outlines = vehicles.map(buildOutline);
  labels = vehicles.map(buildLabel);
  buildGrid();
  goalMarkers = {};
  for (const [name, goal] of Object.entries(state.goals)) {
    if (vehicles.some((v) => v.name === name)) showGoal(name, ...goal);
  }
  applyLayers();
  needsRender = true;
  state.sceneVersion = msg.version;
  state.vehicles = vehicles.map((v) => v.name);
  state.vehicleStates = {};
  fillSelectors(msg);
  if (!initialViewDone) {
    initialView(msg.gui || {});
    initialViewDone = true;
  }
}

// A trail's colour: the vehicle's, brightened so that it stands out on the ground.
function trailColor(hex) {
  return new THREE.Color(hex || '#ffffff').lerp(new THREE.Color(0xffffff), 0.35);
}

// The chassis outline of a vehicle on the ground (footprints layer), in its body's frame: its colour normally,
// red and filled while the vehicle collides.
function buildOutline(v) {
  const body = posedObject('body', v.body);
  const holder = new THREE.Group();  // in the body's frame, shown with the footprints layer
  body.add(holder);
  const corners = (v.outline || []).filter((c) => Array.isArray(c) && c.length === 2);
  const ribbon = new Ribbon(Math.max(corners.length, 2), OUTLINE_WIDTH, new THREE.Color(0xffffff), 1, OVERLAY_Z,
    holder);
  ribbon.setLoop(corners.length, (k) => corners[k]);
  let fill = null;
  if (corners.length >= 3) {
    const shape = new THREE.Shape(corners.map(([x, y]) => new THREE.Vector2(x, y)));
    fill = new THREE.Mesh(new THREE.ShapeGeometry(shape), new THREE.MeshBasicMaterial({
      color: COLLISION_COLOR, transparent: true, opacity: 0.45, side: THREE.DoubleSide, depthWrite: false,
    }));
    fill.position.z = OVERLAY_Z;
    fill.visible = false;
    fill.renderOrder = 1;
    holder.add(fill);
  }
  const outline = { holder, ribbon, fill, color: new THREE.Color(v.color || '#ffff00'), colliding: null };
  showCollision(outline, false);
  return outline;
}

function showCollision(outline, colliding) {
  if (outline.colliding === colliding) return;
  outline.colliding = colliding;
  const normal = outline.color.clone().lerp(new THREE.Color(0xffffff), 0.5);  // lighter: it shows on a red chassis
  outline.ribbon.material.color.set(colliding ? COLLISION_COLOR : normal);
  if (outline.fill) outline.fill.visible = colliding;
}

// The name label of a vehicle, above its chassis.
function buildLabel(v) {
  const element = document.createElement('div');
  element.className = 'vehicle-label';
  element.dataset.vehicle = v.name;
  element.textContent = v.name;
  const object = new CSS2DObject(element);
  object.position.set(0, 0, (v.height || 0.5) + LABEL_Z);
  object.center.set(0.5, 1);
  posedObject('body', v.body).add(object);
  return { object, element, name: v.name, colliding: false };
}

function showLabelCollision(label, colliding) {
  if (label.colliding === colliding) return;
  label.colliding = colliding;
  label.element.classList.toggle('colliding', colliding);
  label.element.textContent = colliding ? `${label.name} \u26a0 collision` : label.name;
}

// Ground grid (1 m cells, a bold line every GRID_MAJOR m) over the static world, the world's x and y axes at the
// origin with their letters, and the scale written at the origin.
function buildGrid() {
  const group = layerGroups.grid;
  // Over the walls and the rest of the static world (not the ground, which reaches far beyond them).
  const box = new THREE.Box3();
  world.updateMatrixWorld(true);
  for (const child of world.children) {
    if (child.isMesh && child.name !== 'ground') box.expandByObject(child);
  }
  const extent = box.isEmpty() ? 20 : Math.max(box.max.x - box.min.x, box.max.z - box.min.z, 2);
  const cells = Math.min(2000, 2 * Math.ceil(extent / 2 / GRID_MAJOR) * GRID_MAJOR + 2 * GRID_MAJOR);
  const centre = box.isEmpty() ? new THREE.Vector3() : box.getCenter(new THREE.Vector3());
  const cx = Math.round(centre.x / GRID_MAJOR) * GRID_MAJOR, cy = Math.round(-centre.z / GRID_MAJOR) * GRID_MAJOR;
  for (const [divisions, color, opacity] of [[cells, 0xa0b0c0, 0.35], [cells / GRID_MAJOR, 0xd0e0f0, 0.6]]) {
    const grid = new THREE.GridHelper(cells, divisions, color, color);
    grid.material.transparent = true;
    grid.material.opacity = opacity;
    grid.material.depthWrite = false;
    grid.rotation.x = Math.PI / 2;  // GridHelper lies in its x-z plane: turn it into the ROS x-y plane
    grid.position.set(cx, cy, GRID_Z);
    group.add(grid);
  }
  // The x (red) and y (green) axes, 1 m long and 5 cm wide, so that the scale reads at a glance.
  const axes = new THREE.Group();
  group.add(axes);
  for (const [color, x, y] of [[0xff4040, 1, 0], [0x40ff60, 0, 1]]) {
    new Ribbon(1, 0.05, color, 1, 2 * GRID_Z, axes).setSegment(0, 0, x, y);
  }
  const letters = [['x', 1.15, 0, 'axis-x'], ['y', 0, 1.15, 'axis-y'], ['1 m grid', 0, -0.35, 'scale']];
  for (const [text, x, y, cls] of letters) {
    const element = document.createElement('div');
    element.className = `axis-label ${cls}`;
    element.textContent = text;
    const object = new CSS2DObject(element);
    object.position.set(x, y, 0.05);
    group.add(object);
  }
  state.grid = { cells, cellSize: 1, centre: [cx, cy] };
}

// Show each layer as its checkbox says.
function applyLayers() {
  for (const name of LAYERS) {
    const box = el(`layer-${name}`);
    if (box) state.layers[name] = box.checked;
  }
  for (const [name, group] of Object.entries(layerGroups)) group.visible = state.layers[name];
  for (const outline of outlines) outline.holder.visible = state.layers.footprints;
  for (const label of labels) label.object.visible = state.layers.labels;
  needsRender = true;
}

// Is the collision cue of vehicle `name` shown (its outline red and filled, its label marked)?
state.collisionShown = (name) => {
  const i = state.vehicles.indexOf(name);
  if (i < 0 || !outlines[i]) return null;
  const o = outlines[i];
  return {
    outline: o.ribbon.material.color.getHex() === COLLISION_COLOR && Boolean(o.fill && o.fill.visible),
    label: labels[i].element.classList.contains('colliding'),
  };
};

// What a layer draws now: {shown: is it visible on the page, items: how many of its objects have something to
// draw}, for tests and debugging.
state.layerShown = (name) => {
  const items = {
    rays: () => scans.filter((o) => o.rays.visible).length,
    points: () => clouds.filter((o) => o.visible).length,
    trails: () => trails.filter((t) => t.mesh.visible).length,
    footprints: () => outlines.filter((o) => o.ribbon.mesh.visible).length
      + footprints.filter((f) => f.mesh.visible).length,
    labels: () => labels.length,
    grid: () => layerGroups.grid ? layerGroups.grid.children.length : 0,
  }[name];
  if (!items) return null;
  const shown = name === 'labels' ? labels.some((l) => l.element.style.display !== 'none') && state.layers.labels
    : Boolean(layerGroups[name] && layerGroups[name].visible);
  return { shown, items: items() };
};

let initialViewDone = false;

// The world's <gui> camera when it has one; otherwise the whole world first, then (frameVehicles, at the first
// frame) a view fitted to the vehicles.
function initialView(gui) {
  setView({
    distance: gui.cam_distance, azimuth: gui.cam_azimuth, elevation: gui.cam_elevation, fov: gui.fov,
    target: gui.cam_point_to,
  });
  if (gui.follow_vehicle) ui.follow.checked = true;
  viewFramed = Boolean(gui.from_world || gui.follow_vehicle);
}

// Look at the vehicles from where all of them fit in the view (VIEW_MIN_DISTANCE..VIEW_MAX_DISTANCE away, from the
// -y side so that x points right and y away, 55 degrees up), so that they are big enough to recognise.
function frameVehicles(states) {
  const rows = Object.values(states);
  if (!rows.length) return;
  const xs = rows.map((r) => r.x), ys = rows.map((r) => r.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const radius = 0.5 * Math.hypot(x1 - x0, y1 - y0) + vehicleSize() + 0.5;
  const gui = (sceneMsg && sceneMsg.gui) || {};
  const fov = typeof gui.fov === 'number' && gui.fov > 0 ? gui.fov : THREE.MathUtils.degToRad(50);
  const fit = radius / Math.tan(0.5 * Math.min(fov, fov * camera.aspect));
  setView({
    distance: Math.min(VIEW_MAX_DISTANCE, Math.max(VIEW_MIN_DISTANCE, fit)), azimuth: -Math.PI / 2,
    elevation: THREE.MathUtils.degToRad(55), fov, target: [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0],
  });
}
state.frameVehicles = () => frameVehicles(state.vehicleStates);

// Largest distance [m] of a chassis corner from its vehicle's reference point, over the scene's vehicles.
function vehicleSize() {
  let size = 0;
  for (const v of (sceneMsg && sceneMsg.vehicles) || []) {
    for (const [x, y] of v.outline || []) size = Math.max(size, Math.hypot(x, y));
  }
  return size;
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
  state.rtfTarget = Number.isFinite(frame.rtf_target) ? frame.rtf_target : null;
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
      wheelParts[i].spin.rotation.y = wheels.data[wheels.cols * i];
      wheelParts[i].mount.rotation.z = wheels.data[wheels.cols * i + 1];
    }
  }
  scans.forEach((scan, k) => {
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
  clouds.forEach((points, k) => {
    const a = arrays[`points:${k}`];
    if (!a) { points.visible = false; return; }
    setPositions(points, a.rows, (out) => out.set(a.data));
  });
  footprints.forEach((ribbon, i) => {
    const a = arrays[`footprint:${i}`];
    if (!a) { ribbon.clear(); return; }
    ribbon.setLoop(a.rows, (r) => [a.data[2 * r], a.data[2 * r + 1]]);
  });
  applyVehicleStates(frame, arrays);
  if (!viewFramed) {
    viewFramed = true;
    frameVehicles(state.vehicleStates);
  }
  followSelected();
}

// The frame's "vehicles" array (and wheel speeds) into state.vehicleStates; trails, collision cues, readout.
function applyVehicleStates(frame, arrays) {
  const a = arrays.vehicles;
  const wheels = arrays.wheels;
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
      trails[i].extend(d[VX], d[VY], TRAIL_MIN_STEP);
      showCollision(outlines[i], d[VCOLLISION] > 0.5);
      showLabelCollision(labels[i], d[VCOLLISION] > 0.5);
    });
  }
  state.vehicleStates = states;
  showReadout();
}

// The selected vehicle's state in the readout panel (values as the simulation's frame gives them, rounded).
function showReadout() {
  const s = state.vehicleStates[state.selected];
  const v = selectedVehicle();
  const set = (field, text) => {
    const cell = ui.readout.querySelector(`[data-field="${field}"]`);
    if (cell && cell.textContent !== text) cell.textContent = text;
  };
  set('name', state.selected ?? '-');
  if (!s) {
    for (const field of ['x', 'y', 'yaw', 'speed', 'yaw-rate', 'steering', 'wheels', 'collision']) set(field, '-');
    return;
  }
  set('x', `${s.x.toFixed(3)} m`);
  set('y', `${s.y.toFixed(3)} m`);
  set('yaw', `${s.yaw.toFixed(3)} rad (${THREE.MathUtils.radToDeg(s.yaw).toFixed(1)}\u00b0)`);
  set('speed', `${s.speed.toFixed(3)} m/s`);
  set('yaw-rate', `${s.yawRate.toFixed(3)} rad/s`);
  set('steering', v && (v.steerable || v.articulated) ? `${s.steering.toFixed(3)} rad` : 'none (differential)');
  set('wheels', s.wheels.length ? `${s.wheels.map((w) => w.toFixed(2)).join('  ')} rad/s` : '-');
  set('collision', s.collision ? 'COLLISION' : 'no');
  ui.readout.classList.toggle('colliding', s.collision);
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
  showReadout();
  ui.vehicle.blur();
});
for (const name of LAYERS) {
  el(`layer-${name}`).addEventListener('change', (event) => { applyLayers(); event.currentTarget.blur(); });
}
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
    if (action === 'reset') for (const t of trails) t.clear();
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
  if (event.code === 'KeyP' || event.code === 'KeyG') {
    chooseTool(event.code === 'KeyP' ? 'pose' : 'goal');
  } else if (event.code === 'Escape') {
    if (state.tool !== null) chooseTool(state.tool);
  } else if (role) {
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
// Mouse tools, as rviz's: press on the ground where the selected vehicle (set pose) or its goal should be, drag
// towards the heading, release. The view does not orbit while a tool is in use; Escape leaves the tool.
const groundPlane = new THREE.Plane(new THREE.Vector3(0, 1, 0), 0);  // ROS z = 0, in the three.js frame
const raycaster = new THREE.Raycaster();
let drag = null;  // {start: [x, y], arrow} while a tool's drag is under way

// The ROS ground point [x, y] under a mouse event, or null when the ray misses the ground.
function groundPoint(event) {
  const rect = renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2((event.clientX - rect.left) / rect.width * 2 - 1,
    1 - (event.clientY - rect.top) / rect.height * 2);
  raycaster.setFromCamera(ndc, camera);
  const hit = raycaster.ray.intersectPlane(groundPlane, new THREE.Vector3());
  if (!hit) return null;
  const [x, y] = threeToRos(hit);
  return [x, y];
}

function chooseTool(tool) {
  state.tool = state.tool === tool ? null : tool;
  controls.enabled = state.tool === null;
  ui.toolPose.classList.toggle('active', state.tool === 'pose');
  ui.toolGoal.classList.toggle('active', state.tool === 'goal');
  renderer.domElement.style.cursor = state.tool ? 'crosshair' : '';
  ui.toolHint.hidden = state.tool === null;
  ui.toolHint.textContent = state.tool === 'pose'
    ? `press where ${state.selected ?? 'the vehicle'} goes, drag towards its heading, release (Esc: cancel)`
    : `press at ${state.selected ?? 'the vehicle'}'s goal, drag towards its heading, release (Esc: cancel)`;
  if (state.tool === null) endDrag();
}
state.chooseTool = chooseTool;
ui.toolPose.addEventListener('click', (event) => { chooseTool('pose'); event.currentTarget.blur(); });
ui.toolGoal.addEventListener('click', (event) => { chooseTool('goal'); event.currentTarget.blur(); });

function arrowFor(color) {
  const arrow = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1, color, 0.3, 0.18);
  arrow.line.material.depthTest = false;
  arrow.cone.material.depthTest = false;
  arrow.renderOrder = 3;
  return arrow;
}

// Point `arrow` (in the world group) from (x, y) along `yaw` [rad], `length` m long, just above the ground.
function placeArrow(arrow, x, y, yaw, length) {
  arrow.position.set(x, y, 2 * OVERLAY_Z);
  arrow.setDirection(new THREE.Vector3(Math.cos(yaw), Math.sin(yaw), 0));
  arrow.setLength(length, Math.min(0.3, 0.4 * length), Math.min(0.18, 0.25 * length));
}

renderer.domElement.addEventListener('pointerdown', (event) => {
  if (state.tool === null || event.button !== 0 || !world || state.selected === null) return;
  const p = groundPoint(event);
  if (!p) return;
  event.preventDefault();
  renderer.domElement.setPointerCapture(event.pointerId);
  const arrow = arrowFor(state.tool === 'pose' ? POSE_COLOR : GOAL_COLOR);
  world.add(arrow);
  drag = { start: p, arrow, yaw: defaultHeading() };
  placeArrow(arrow, p[0], p[1], drag.yaw, 0.8);
  needsRender = true;
});

renderer.domElement.addEventListener('pointermove', (event) => {
  if (!drag) return;
  const p = groundPoint(event);
  if (!p) return;
  const [x0, y0] = drag.start;
  const length = Math.hypot(p[0] - x0, p[1] - y0);
  if (length >= MIN_DRAG) drag.yaw = Math.atan2(p[1] - y0, p[0] - x0);
  placeArrow(drag.arrow, x0, y0, drag.yaw, Math.max(0.8, length));
  needsRender = true;
});

renderer.domElement.addEventListener('pointerup', (event) => {
  if (!drag) return;
  const p = groundPoint(event);
  const [x0, y0] = drag.start;
  if (p && Math.hypot(p[0] - x0, p[1] - y0) >= MIN_DRAG) drag.yaw = Math.atan2(p[1] - y0, p[0] - x0);
  const type = state.tool === 'pose' ? 'set_pose' : 'goal';
  const msg = { type, vehicle: state.selected, x: x0, y: y0, yaw: drag.yaw };
  send(msg);
  state.lastPoseMessage = msg;
  if (msg.type === 'goal') {
    state.goals[msg.vehicle] = [msg.x, msg.y, msg.yaw];
    showGoal(msg.vehicle, msg.x, msg.y, msg.yaw);
  } else {
    const i = (sceneMsg.vehicles || []).findIndex((v) => v.name === msg.vehicle);
    if (i >= 0) trails[i].clear();  // a teleport is no path
  }
  chooseTool(state.tool);  // done: back to orbiting, as rviz's tools
});

// Heading of a press without a drag: the selected vehicle's for set pose, 0 (east) for a goal.
function defaultHeading() {
  const s = state.vehicleStates[state.selected];
  return state.tool === 'pose' && s ? s.yaw : 0;
}

function endDrag() {
  if (!drag) return;
  world?.remove(drag.arrow);
  drag.arrow.dispose();
  drag = null;
  needsRender = true;
}

// The marker of a vehicle's goal: an arrow and a ring on the ground.
function showGoal(name, x, y, yaw) {
  let marker = goalMarkers[name];
  if (!marker) {
    marker = new THREE.Group();
    const ring = new THREE.Mesh(new THREE.RingGeometry(0.22, 0.3, 32), new THREE.MeshBasicMaterial({
      color: GOAL_COLOR, side: THREE.DoubleSide, transparent: true, opacity: 0.9, depthWrite: false,
    }));
    ring.position.z = OVERLAY_Z;
    marker.add(ring);
    marker.add(arrowFor(GOAL_COLOR));
    goalMarkers[name] = marker;
    world.add(marker);
  }
  marker.position.set(x, y, 0);
  placeArrow(marker.children[1], 0, 0, yaw, 0.8);
  marker.visible = true;
  needsRender = true;
}

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
  const target = state.rtfTarget === null ? '-' : (state.rtfTarget > 0 ? state.rtfTarget.toFixed(2) : 'max');
  return `t = ${state.time.toFixed(3)} s   ${run}   rtf ${rtf} (target ${target})   ${frameTimes.length} frames/s`;
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
    labelRenderer.render(scene3, camera);
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
