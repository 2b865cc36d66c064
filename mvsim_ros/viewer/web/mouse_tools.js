// Mouse tools, as rviz's: press on the ground where the selected vehicle (set pose) or its goal should be, drag
// towards the heading, release. The view does not orbit while a tool is in use; Escape leaves the tool.

import * as THREE from 'three';
import { state, ui } from './page_state.js';
import { send } from './connection.js';
import { GOAL_COLOR, current, showGoal } from './scene.js';
import { arrowFor, placeArrow } from './shapes.js';
import { camera, controls, renderer, requestRender, threeToRos } from './view3d.js';

const POSE_COLOR = 0x40c0ff;      // the set-pose arrow while dragging
const MIN_DRAG = 0.1;             // shorter drags [m] keep the heading (vehicle's yaw for set pose, 0 for goal)

const groundPlane = new THREE.Plane(new THREE.Vector3(0, 1, 0), 0);  // ROS z = 0, in the three.js frame
const raycaster = new THREE.Raycaster();
let drag = null;  // {start: [x, y], arrow, yaw} while a tool's drag is under way

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

// Pick `tool` ('pose' or 'goal'), or leave it when it is the one in use.
export function chooseTool(tool) {
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

// Heading of a press without a drag: the selected vehicle's for set pose, 0 (east) for a goal.
function defaultHeading() {
  const s = state.vehicleStates[state.selected];
  return state.tool === 'pose' && s ? s.yaw : 0;
}

function endDrag() {
  if (!drag) return;
  current.world?.remove(drag.arrow);
  drag.arrow.dispose();
  drag = null;
  requestRender();
}

// The tool buttons and the pointer handlers on the canvas.
export function bindMouseTools() {
  ui.toolPose.addEventListener('click', (event) => { chooseTool('pose'); event.currentTarget.blur(); });
  ui.toolGoal.addEventListener('click', (event) => { chooseTool('goal'); event.currentTarget.blur(); });

  renderer.domElement.addEventListener('pointerdown', (event) => {
    if (state.tool === null || event.button !== 0 || !current.world || state.selected === null) return;
    const p = groundPoint(event);
    if (!p) return;
    event.preventDefault();
    renderer.domElement.setPointerCapture(event.pointerId);
    const arrow = arrowFor(state.tool === 'pose' ? POSE_COLOR : GOAL_COLOR);
    current.world.add(arrow);
    drag = { start: p, arrow, yaw: defaultHeading() };
    placeArrow(arrow, p[0], p[1], drag.yaw, 0.8);
    requestRender();
  });

  renderer.domElement.addEventListener('pointermove', (event) => {
    if (!drag) return;
    const p = groundPoint(event);
    if (!p) return;
    const [x0, y0] = drag.start;
    const length = Math.hypot(p[0] - x0, p[1] - y0);
    if (length >= MIN_DRAG) drag.yaw = Math.atan2(p[1] - y0, p[0] - x0);
    placeArrow(drag.arrow, x0, y0, drag.yaw, Math.max(0.8, length));
    requestRender();
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
      const i = (current.sceneMsg.vehicles || []).findIndex((v) => v.name === msg.vehicle);
      if (i >= 0) current.trails[i].clear();  // a teleport is no path
    }
    chooseTool(state.tool);  // done: back to orbiting, as rviz's tools
  });
}
