// The three.js view: renderer, label layer, lights, camera and orbit controls, drawn only when asked
// (requestRender) so that a page left open costs the machine nothing between frames. The world is ROS z-up
// (x forward, y left); rosToThree and threeToRos convert points between the two frames.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { CSS2DRenderer } from 'three/addons/renderers/CSS2DRenderer.js';
import { state, ui } from './page_state.js';

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

export const renderer = new THREE.WebGLRenderer({ antialias: !softwareRenderer() });
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setSize(window.innerWidth, window.innerHeight);
ui.view.appendChild(renderer.domElement);
// Name labels and axis letters: HTML elements placed over the canvas; they let every mouse event through.
const labelRenderer = new CSS2DRenderer();
labelRenderer.setSize(window.innerWidth, window.innerHeight);
labelRenderer.domElement.id = 'labels';
ui.view.appendChild(labelRenderer.domElement);

export const scene3 = new THREE.Scene();
scene3.background = new THREE.Color(0x1d232a);
scene3.add(new THREE.HemisphereLight(0xffffff, 0x3a3a44, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(8, 20, 6);  // three.js frame (y up)
scene3.add(sun);

export const camera = new THREE.PerspectiveCamera(50, window.innerWidth / window.innerHeight, 0.05, 2000);
camera.position.set(10, 10, 10);
export const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;

// Draw only when something changed (a frame arrived, the view moved, the window resized).
let renderWanted = true;
const beforeRender = [];  // functions called before each drawing (e.g. placing labels for the current view)

// Call `fn` before each drawing.
export function onBeforeRender(fn) {
  beforeRender.push(fn);
}

export function requestRender() {
  renderWanted = true;
}

// Draw the scene and its labels if something changed since the last drawing.
export function renderIfWanted() {
  if (controls.update()) renderWanted = true;
  if (!renderWanted) return;
  for (const fn of beforeRender) fn();
  renderer.render(scene3, camera);
  labelRenderer.render(scene3, camera);
  renderWanted = false;
}

controls.addEventListener('change', requestRender);

window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
  labelRenderer.setSize(window.innerWidth, window.innerHeight);
  requestRender();
});

// ROS (x, y, z) -> three.js (x, z, -y): what the world group's rotation does.
export const rosToThree = (x, y, z) => new THREE.Vector3(x, z, -y);
// three.js -> ROS (x, y, z).
export const threeToRos = (v) => [v.x, -v.z, v.y];

// Where a ROS world point [m] appears on the page: [x, y] in CSS pixels from the canvas' top-left corner.
state.project = (x, y, z) => {
  camera.updateMatrixWorld();
  const v = rosToThree(x, y, z).project(camera);
  const rect = renderer.domElement.getBoundingClientRect();
  return [(v.x + 1) / 2 * rect.width, (1 - v.y) / 2 * rect.height];
};
// The camera's place and the point it looks at (ROS world frame [m]) and its vertical field of view [deg].
state.cameraView = () => ({ position: threeToRos(camera.position), target: threeToRos(controls.target),
  fov: camera.fov });
