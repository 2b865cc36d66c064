// Keyboard teleop of the selected vehicle: W/S or up/down drive it forward/back, A/D or left/right turn it, space
// stops it, +/- change the steered speed; the command is repeated every DRIVE_REPEAT_S while a key is held and
// zeros are sent once on release. P and G pick the mouse tools (set pose, goal), Escape leaves them.

import { state, ui } from './page_state.js';
import { send } from './connection.js';
import { chooseTool } from './mouse_tools.js';
import { selectedVehicle } from './scene.js';

const DRIVE_REPEAT_S = 0.1;       // protocol.py DRIVE_REPEAT_S
const DIFF_V = 0.5;               // forward speed of a differential vehicle while W/S is held [m/s]
const DIFF_W = 1.0;               // yaw rate while A/D is held [rad/s]
const STEER_ANGLE = 0.4;          // steering angle of a steered vehicle while A/D is held [rad]
const STEER_SPEED_STEP = 0.1;     // +/- change of the steered speed [m/s]

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

// Release every held key and stop repeating; returns whether the vehicle was being driven.
export function stopDriving() {
  const wasDriving = repeatTimer !== null || held.size > 0;
  held.clear();
  if (repeatTimer !== null) clearInterval(repeatTimer);
  repeatTimer = null;
  return wasDriving;
}

// The speed of steered vehicles while W/S is held, next to the key help.
function showSpeed() {
  ui.speed.textContent = `(${state.steerSpeed.toFixed(1)} m/s)`;
}

// The key handlers, on the whole window.
export function bindKeyboard() {
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
  showSpeed();
}
