// The scene as the simulator sent it (`current`): the world group and everything in it that frames move or
// redraw (posed bodies, wheels, lidar rays and points, footprints, trails, outlines, labels, goal markers), the
// ground grid, and the layers the page can hide (roofs among them). buildScene replaces it whenever a scene
// message arrives; showTrails draws the vehicles' recent paths the simulator kept.

import * as THREE from 'three';
import { CSS2DObject } from 'three/addons/renderers/CSS2DRenderer.js';
import { LAYERS, el, state } from './page_state.js';
import { OUTLINE_WIDTH, OVERLAY_Z, Ribbon, arrowFor, decodeBase64, disposeTree, dynamicLines, dynamicPoints,
  placeArrow, srgbToLinear } from './shapes.js';
import { camera, onBeforeRender, renderer, requestRender, scene3 } from './view3d.js';

const TRAIL_SEGMENTS = 600;       // segments kept per vehicle trail (the oldest go first)
export const TRAIL_MIN_STEP = 0.05; // smallest move that adds a trail segment [m]: 600 x 0.05 = 30 m of trail
const TRAIL_WIDTH = 0.06;         // width of a trail on the ground [m]
const GRID_Z = 0.005;             // height of the ground grid [m] (above the ground, below the overlays)
const GRID_MAJOR = 5;             // a bold grid line every GRID_MAJOR cells
const LABEL_GAP_PX = 4;           // space between a vehicle's drawn size and its name label [CSS px]
const COLLISION_COLOR = 0xff3030; // vehicle outline and label while colliding
export const GOAL_COLOR = 0xffd040; // goal markers

// Everything of the current scene.
export const current = {
  world: null,        // THREE.Group, rotated -pi/2 about x: its children use ROS coordinates
  sceneMsg: null,     // the scene message shown
  posed: {},          // group name -> index -> Object3D placed from that pose table
  wheelParts: [],     // [{mount, spin}] in wheel order
  scans: [],          // per 2D lidar: {rays: THREE.LineSegments, hits: THREE.Points}
  clouds: [],         // per 3D lidar: THREE.Points
  footprints: [],     // per vehicle: Ribbon of its train's footprint (vehicles towing trailers)
  trails: [],         // per vehicle: Ribbon of its recent path
  outlines: [],       // per vehicle: {ribbon, material} of its chassis outline (red while colliding)
  labels: [],         // per vehicle: {object, element, radius} of its name label
  gridLabels: [],     // {object, element, scale} of the axis letters and the scale, kept off the vehicles
  roofs: [],          // meshes of the roofs and ceilings (horizontal planes high up; the "roofs" layer)
  goalMarkers: {},    // vehicle name -> THREE.Group (ring and arrow) of its last goal
  layerGroups: {},    // layer name -> THREE.Group (in the world group) holding that layer's objects
};

export function posedObject(group, index) {
  if (group === 'static') return current.world;
  const posed = current.posed;
  posed[group] = posed[group] || {};
  let obj = posed[group][index];
  if (!obj) {
    obj = new THREE.Object3D();
    obj.rotation.order = 'ZYX';  // ROS roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll)
    obj.visible = false;         // until its first pose
    posed[group][index] = obj;
    current.world.add(obj);
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
  if (m.group === 'plane' || (m.group === 'static' && (m.name === 'ground' || String(m.name).startsWith('terrain:')))) {
    // Pushed back in depth: the grid and the ground ribbons just above a floor stay in front even from far away.
    material.polygonOffset = true;
    material.polygonOffsetFactor = 2;
    material.polygonOffsetUnits = 2;
  }
  const mesh = new THREE.Mesh(geometry, material);
  mesh.name = m.name || '';
  posedObject(m.group, m.index).add(mesh);
  if (m.roof) current.roofs.push(mesh);
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

// Replace the scene by the one of a scene message: its meshes, wheels, lidars, vehicles' overlays and the grid;
// goals set earlier stay for the vehicles still there.
export function buildScene(msg) {
  if (current.world) {
    scene3.remove(current.world);
    disposeTree(current.world);
  }
  const world = new THREE.Group();
  world.rotation.x = -Math.PI / 2;
  scene3.add(world);
  current.world = world;
  current.posed = {};
  current.roofs = [];
  current.sceneMsg = msg;
  const layerGroups = Object.fromEntries(LAYERS.map((name) => {
    const group = new THREE.Group();
    group.name = `layer:${name}`;
    world.add(group);
    return [name, group];
  }));
  current.layerGroups = layerGroups;
  (msg.meshes || []).forEach(buildMesh);
  current.wheelParts = (msg.wheels || []).map(buildWheel);
  // A 2D scan: faint rays and a bright dot where each ray ends.
  current.scans = (msg.lidars || []).map(() => ({
    rays: dynamicLines(THREE.LineSegments, 1024, 0x40ff90, 0.06, layerGroups.rays),
    hits: dynamicPoints(1024, 0x60ffa0, 2.5, layerGroups.rays),
  }));
  current.clouds = (msg.lidars3d || []).map(() => dynamicPoints(1024, 0x40e0ff, 0, layerGroups.points));
  const vehicles = msg.vehicles || [];
  current.footprints = vehicles.map((v) => new Ribbon(64, OUTLINE_WIDTH, new THREE.Color(accentOf(v)), 1,
    OVERLAY_Z, layerGroups.footprints));
  current.trails = vehicles.map((v) => new Ribbon(TRAIL_SEGMENTS, TRAIL_WIDTH, trailColor(accentOf(v)), 0.9,
    OVERLAY_Z, layerGroups.trails));
  current.outlines = vehicles.map(buildOutline);
  current.labels = vehicles.map(buildLabel);
  buildGrid();
  current.goalMarkers = {};
  for (const [name, goal] of Object.entries(state.goals)) {
    if (vehicles.some((v) => v.name === name)) showGoal(name, ...goal);
  }
  applyLayers();
  requestRender();
  state.sceneVersion = msg.version;
  state.vehicles = vehicles.map((v) => v.name);
  state.vehicleColors = Object.fromEntries(vehicles.map((v) => [v.name, accentOf(v)]));
  state.vehicleStates = {};
}

// A vehicle's own colour on the page (outline, trail, label, legend): distinct from every other vehicle's.
export function accentOf(v) {
  return v.accent || v.color || '#ffff00';
}

// The vehicles' recent paths of a "trails" message (protocol.py; msg: {version, paths: {name: [[x, y], ...]}} [m])
// as their trails, when it belongs to the scene shown; the frames extend them from there.
export function showTrails(msg) {
  if (!current.sceneMsg || msg.version !== current.sceneMsg.version) return;
  const paths = msg.paths || {};
  (current.sceneMsg.vehicles || []).forEach((v, i) => {
    const points = paths[v.name];
    if (!Array.isArray(points) || !current.trails[i]) return;
    current.trails[i].clear();
    for (const p of points) {
      if (Array.isArray(p) && p.length === 2) current.trails[i].extend(p[0], p[1], 0);
    }
  });
  state.trailsReceived = (state.trailsReceived || 0) + 1;
  requestRender();
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
  const outline = { holder, ribbon, fill, color: new THREE.Color(accentOf(v)), colliding: null };
  showCollision(outline, false);
  return outline;
}

export function showCollision(outline, colliding) {
  if (outline.colliding === colliding) return;
  outline.colliding = colliding;
  const normal = outline.color.clone().lerp(new THREE.Color(0xffffff), 0.5);  // lighter: it shows on a red chassis
  outline.ribbon.material.color.set(colliding ? COLLISION_COLOR : normal);
  if (outline.fill) outline.fill.visible = colliding;
}

// The name label of a vehicle, above its chassis on the page, in the vehicle's colour; placeLabels keeps it clear
// of the vehicle's drawn size.
function buildLabel(v) {
  const element = document.createElement('div');
  element.className = 'vehicle-label';
  element.dataset.vehicle = v.name;
  element.textContent = v.name;
  element.style.borderColor = accentOf(v);
  element.style.boxShadow = `inset 3px 0 0 ${accentOf(v)}`;
  const holder = document.createElement('div');  // the label plus a clear gap under it, as tall as the vehicle
  holder.className = 'vehicle-label-holder';
  holder.appendChild(element);
  const object = new CSS2DObject(holder);
  object.position.set(0, 0, v.height || 0.5);
  object.center.set(0.5, 1);
  posedObject('body', v.body).add(object);
  const radius = Math.max(0.1, ...(v.outline || []).map(([x, y]) => Math.hypot(x, y)));
  return { object, element, holder, radius, name: v.name, colliding: false };
}

// Before each drawing: the gap under every name label is the vehicle's radius as drawn now (in CSS pixels, from
// its distance to the camera), so that a label never covers its vehicle however near or far the camera is.
function placeLabels() {
  const height = renderer.domElement.clientHeight || window.innerHeight;
  const scale = height / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2));
  const at = new THREE.Vector3();
  for (const label of current.labels) {
    label.object.getWorldPosition(at);
    const depth = Math.max(1e-3, at.distanceTo(camera.position));
    const gap = `${Math.min(400, Math.ceil(label.radius * scale / depth) + LABEL_GAP_PX)}px`;
    if (label.holder.style.paddingBottom !== gap) label.holder.style.paddingBottom = gap;
  }
}
onBeforeRender(placeLabels);

// Where the scale ("1 m grid") may be written [m], in order of preference: by the origin, else clear of it.
const SCALE_SPOTS = [[0, -0.35], [0, -1.6], [-1.6, -0.35], [1.6, -1.6], [-1.6, -1.6], [0, -3]];
const GRID_LABEL_CLEARANCE = 0.4;  // least distance [m] between a grid label and a vehicle's drawn radius

// Before each drawing: the scale goes to the first of SCALE_SPOTS clear of every vehicle, and an axis letter on
// a vehicle fades, so that none of them covers a vehicle.
function placeGridLabels() {
  const vehicles = (current.sceneMsg && current.sceneMsg.vehicles) || [];
  const near = ([x, y]) => vehicles.some((v, i) => {
    const s = state.vehicleStates[v.name];
    return s && Math.hypot(s.x - x, s.y - y) < current.labels[i].radius + GRID_LABEL_CLEARANCE;
  });
  for (const label of current.gridLabels || []) {
    if (label.scale) {
      const spot = SCALE_SPOTS.find((p) => !near(p)) || SCALE_SPOTS[SCALE_SPOTS.length - 1];
      label.object.position.set(spot[0], spot[1], 0.05);
    } else {
      const opacity = near([label.object.position.x, label.object.position.y]) ? '0.15' : '';
      if (label.element.style.opacity !== opacity) label.element.style.opacity = opacity;
    }
  }
}
onBeforeRender(placeGridLabels);

export function showLabelCollision(label, colliding) {
  if (label.colliding === colliding) return;
  label.colliding = colliding;
  label.element.classList.toggle('colliding', colliding);
  label.element.textContent = colliding ? `${label.name} \u26a0 collision` : label.name;
}

// Ground grid (1 m cells, a bold line every GRID_MAJOR m) over the static world, the world's x and y axes at the
// origin with their letters, and the scale written at the origin.
function buildGrid() {
  const world = current.world;
  const group = current.layerGroups.grid;
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
  const letters = [['x', 1.15, 0, 'axis-x'], ['y', 0, 1.15, 'axis-y'], ['1 m grid', ...SCALE_SPOTS[0], 'scale']];
  current.gridLabels = letters.map(([text, x, y, cls]) => {
    const element = document.createElement('div');
    element.className = `axis-label ${cls}`;
    element.textContent = text;
    const object = new CSS2DObject(element);
    object.position.set(x, y, 0.05);
    group.add(object);
    return { object, element, scale: cls === 'scale' };
  });
  state.grid = { cells, cellSize: 1, centre: [cx, cy] };
}

// Show each layer as its checkbox says.
export function applyLayers() {
  for (const name of LAYERS) {
    const box = el(`layer-${name}`);
    if (box) state.layers[name] = box.checked;
  }
  for (const [name, group] of Object.entries(current.layerGroups)) group.visible = state.layers[name];
  for (const outline of current.outlines) outline.holder.visible = state.layers.footprints;
  for (const roof of current.roofs) roof.visible = state.layers.roofs;
  for (const label of current.labels) label.object.visible = state.layers.labels;
  requestRender();
}

// Is the collision cue of vehicle `name` shown (its outline red and filled, its label marked)?
state.collisionShown = (name) => {
  const i = state.vehicles.indexOf(name);
  if (i < 0 || !current.outlines[i]) return null;
  const o = current.outlines[i];
  return {
    outline: o.ribbon.material.color.getHex() === COLLISION_COLOR && Boolean(o.fill && o.fill.visible),
    label: current.labels[i].element.classList.contains('colliding'),
  };
};

// What a layer draws now: {shown: is it visible on the page, items: how many of its objects have something to
// draw}, for tests and debugging.
state.layerShown = (name) => {
  const { scans, clouds, trails, outlines, footprints, labels, layerGroups } = current;
  const items = {
    rays: () => scans.filter((o) => o.rays.visible).length,
    points: () => clouds.filter((o) => o.visible).length,
    trails: () => trails.filter((t) => t.mesh.visible).length,
    footprints: () => outlines.filter((o) => o.ribbon.mesh.visible).length
      + footprints.filter((f) => f.mesh.visible).length,
    labels: () => labels.length,
    grid: () => layerGroups.grid ? layerGroups.grid.children.length : 0,
    roofs: () => current.roofs.length,
  }[name];
  if (!items) return null;
  const shown = name === 'labels' ? labels.some((l) => l.holder.style.display !== 'none') && state.layers.labels
    : (name === 'roofs' ? state.layers.roofs : Boolean(layerGroups[name] && layerGroups[name].visible));
  return { shown, items: items() };
};

// The marker of a vehicle's goal: an arrow and a ring on the ground.
export function showGoal(name, x, y, yaw) {
  let marker = current.goalMarkers[name];
  if (!marker) {
    marker = new THREE.Group();
    const ring = new THREE.Mesh(new THREE.RingGeometry(0.22, 0.3, 32), new THREE.MeshBasicMaterial({
      color: GOAL_COLOR, side: THREE.DoubleSide, transparent: true, opacity: 0.9, depthWrite: false,
    }));
    ring.position.z = OVERLAY_Z;
    marker.add(ring);
    marker.add(arrowFor(GOAL_COLOR));
    current.goalMarkers[name] = marker;
    current.world.add(marker);
  }
  marker.position.set(x, y, 0);
  placeArrow(marker.children[1], 0, 0, yaw, 0.8);
  marker.visible = true;
  requestRender();
}

// The scene's entry of the selected vehicle, or null.
export function selectedVehicle() {
  if (!current.sceneMsg || state.selected === null) return null;
  return (current.sceneMsg.vehicles || []).find((v) => v.name === state.selected) || null;
}

// The posed body of the selected vehicle, or null.
export function selectedBody() {
  const v = selectedVehicle();
  return v && current.posed.body ? current.posed.body[v.body] || null : null;
}

// Largest distance [m] of a chassis corner from its vehicle's reference point, over the scene's vehicles.
export function vehicleSize() {
  let size = 0;
  for (const v of (current.sceneMsg && current.sceneMsg.vehicles) || []) {
    for (const [x, y] of v.outline || []) size = Math.max(size, Math.hypot(x, y));
  }
  return size;
}
