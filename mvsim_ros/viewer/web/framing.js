// Where the camera looks: the world's <gui> camera (or the whole world) for the first scene, a view fitted to
// the vehicles at the first frame, explicit views (setView), and following the selected vehicle.

import * as THREE from 'three';
import { state, ui } from './page_state.js';
import { current, selectedBody, vehicleSize } from './scene.js';
import { camera, controls, requestRender, rosToThree } from './view3d.js';

const VIEW_MIN_DISTANCE = 5;      // closest default camera distance to the vehicles [m]
const VIEW_MAX_DISTANCE = 40;     // farthest default camera distance to the vehicles [m]

let followed = null;     // position (three.js frame) of the followed vehicle at the last frame
let viewFramed = false;  // the default view was fitted to the vehicles (after the first frame)
let initialViewDone = false;

// For the first scene only: the world's <gui> camera when it has one; otherwise the whole world first, then (at
// the first frame, frameVehiclesOnce) a view fitted to the vehicles.
export function initialView(gui) {
  if (initialViewDone) return;
  initialViewDone = true;
  setView({
    distance: gui.cam_distance, azimuth: gui.cam_azimuth, elevation: gui.cam_elevation, fov: gui.fov,
    target: gui.cam_point_to,
  });
  if (gui.follow_vehicle) ui.follow.checked = true;
  viewFramed = Boolean(gui.from_world || gui.follow_vehicle);
}

// At the first frame (unless the world's <gui> placed the camera): a view fitted to the vehicles.
export function frameVehiclesOnce() {
  if (viewFramed) return;
  viewFramed = true;
  frameVehicles(state.vehicleStates);
}

// Look at the vehicles from where all of them fit in the view (VIEW_MIN_DISTANCE..VIEW_MAX_DISTANCE away, from the
// -y side so that x points right and y away, 55 degrees up), so that they are big enough to recognise.
function frameVehicles(states) {
  const rows = Object.values(states);
  if (!rows.length) return;
  const xs = rows.map((r) => r.x), ys = rows.map((r) => r.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const radius = 0.5 * Math.hypot(x1 - x0, y1 - y0) + vehicleSize() + 0.5;
  const gui = (current.sceneMsg && current.sceneMsg.gui) || {};
  const fov = typeof gui.fov === 'number' && gui.fov > 0 ? gui.fov : THREE.MathUtils.degToRad(50);
  const fit = radius / Math.tan(0.5 * Math.min(fov, fov * camera.aspect));
  setView({
    distance: Math.min(VIEW_MAX_DISTANCE, Math.max(VIEW_MIN_DISTANCE, fit)), azimuth: -Math.PI / 2,
    elevation: THREE.MathUtils.degToRad(55), fov, target: [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0],
  });
}
state.frameVehicles = () => frameVehicles(state.vehicleStates);

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
