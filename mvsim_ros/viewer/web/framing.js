// Where the camera looks: for the first scene the world's <gui> camera when the world sets one, else the whole
// world ("fit world"); views fitted to the world or to the vehicles on request, explicit views (setView), and
// following the selected vehicle.

import * as THREE from 'three';
import { state, ui } from './page_state.js';
import { current, selectedBody, vehicleSize } from './scene.js';
import { camera, controls, requestRender, rosToThree } from './view3d.js';

const VIEW_MIN_DISTANCE = 5;      // closest default camera distance to the vehicles [m]
const VIEW_MAX_DISTANCE = 40;     // farthest default camera distance to the vehicles [m]
const WORLD_ELEVATION = THREE.MathUtils.degToRad(65);  // how far up the "fit world" view looks from [rad]
const WORLD_MARGIN = 1.08;        // the "fit world" view leaves this much room around the world's content

let followed = null;     // position (three.js frame) of the followed vehicle at the last frame
let initialViewDone = false;

// For the first scene only: the world's <gui> camera (cam_distance, cam_azimuth, cam_elevation, fov,
// cam_point_to) when the world sets one (`from_world`), following its follow_vehicle when it names one; otherwise
// the whole world (fitWorld).
export function initialView(msg) {
  if (initialViewDone) return;
  initialViewDone = true;
  const gui = msg.gui || {};
  if (gui.from_world) {
    setView({
      distance: gui.cam_distance, azimuth: gui.cam_azimuth, elevation: gui.cam_elevation, fov: gui.fov,
      target: gui.cam_point_to,
    });
    if (gui.follow_vehicle) ui.follow.checked = true;
  } else {
    fitWorld();
  }
}

// The vertical field of view [rad]: the world's <gui> one, or 50 degrees.
function sceneFov() {
  const gui = (current.sceneMsg && current.sceneMsg.gui) || {};
  return typeof gui.fov === 'number' && gui.fov > 0 ? gui.fov : THREE.MathUtils.degToRad(50);
}

// Look at the whole world's content (the scene's `bounds`: vehicles, blocks, walls, planes, occupancy grids, with
// room for the vehicles' size) from the -y side, WORLD_ELEVATION up, from as near as all of it fits in the page.
export function fitWorld() {
  const bounds = current.sceneMsg && current.sceneMsg.bounds;
  const [[bx0, by0], [bx1, by1]] = Array.isArray(bounds) && bounds.length === 2 ? bounds : [[-1, -1], [1, 1]];
  const pad = vehicleSize();
  const [x0, y0, x1, y1] = [bx0 - pad, by0 - pad, bx1 + pad, by1 + pad];
  const fov = sceneFov();
  const target = [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0];
  const corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(([x, y]) => rosToThree(x, y, 0));
  // From the distance where the bounding circle fits, move in (or out) until the corners just fit: the largest
  // normalised device coordinate of a corner scales about as 1 / distance.
  const horizontal = 2 * Math.atan(Math.tan(0.5 * fov) * camera.aspect);
  let distance = Math.max(VIEW_MIN_DISTANCE, 0.5 * Math.hypot(x1 - x0, y1 - y0) / Math.tan(0.5 * Math.min(fov,
    horizontal)));
  for (let k = 0; k < 6; k += 1) {
    setView({ distance, azimuth: -Math.PI / 2, elevation: WORLD_ELEVATION, fov, target });
    camera.updateMatrixWorld();
    const reach = Math.max(...corners.map((c) => {
      const v = c.clone().project(camera);
      return v.z > 1 ? Infinity : Math.max(Math.abs(v.x), Math.abs(v.y));
    }));
    if (!Number.isFinite(reach)) { distance *= 2; continue; }
    const next = Math.max(VIEW_MIN_DISTANCE, distance * reach * WORLD_MARGIN);
    if (Math.abs(next - distance) < 0.01 * distance) break;
    distance = next;
  }
}
state.fitWorld = fitWorld;

// Look at the vehicles from where all of them fit in the view (VIEW_MIN_DISTANCE..VIEW_MAX_DISTANCE away, from the
// -y side so that x points right and y away, 55 degrees up), so that they are big enough to recognise.
function frameVehicles(states) {
  const rows = Object.values(states);
  if (!rows.length) return;
  const xs = rows.map((r) => r.x), ys = rows.map((r) => r.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const radius = 0.5 * Math.hypot(x1 - x0, y1 - y0) + vehicleSize() + 0.5;
  const fov = sceneFov();
  const fit = radius / Math.tan(0.5 * Math.min(fov, fov * camera.aspect));
  setView({
    distance: Math.min(VIEW_MAX_DISTANCE, Math.max(VIEW_MIN_DISTANCE, fit)), azimuth: -Math.PI / 2,
    elevation: THREE.MathUtils.degToRad(55), fov, target: [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0],
  });
}
export const fitVehicles = () => frameVehicles(state.vehicleStates);
state.frameVehicles = fitVehicles;

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
  requestRender();
}
state.setView = setView;

// With "follow" checked, move the camera and its target along with the selected vehicle.
export function followSelected() {
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

// Start following afresh (another vehicle selected, follow switched): the next frame centres it.
export function forgetFollowed() {
  followed = null;
}
