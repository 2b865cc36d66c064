// The side panel and the readout: vehicle and camera selectors, follow and layer check boxes, run-state and view
// buttons, the vehicles' colour legend, the selected vehicle's state, the camera image and the status line.

import * as THREE from 'three';
import { LAYERS, el, state, ui } from './page_state.js';
import { send } from './connection.js';
import { fitVehicles, fitWorld, forgetFollowed } from './framing.js';
import { stopDriving } from './keyboard.js';
import { accentOf, applyLayers, current, selectedVehicle } from './scene.js';

let imageUrl = null;     // object URL of the camera image shown

// Fill the vehicle and camera selectors from a scene message, keeping the selections that still exist.
export function fillSelectors(msg) {
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
  fillLegend(msg.vehicles || []);
}

// The legend: a swatch of each vehicle's colour and its name.
function fillLegend(vehicles) {
  ui.legend.replaceChildren(...vehicles.map((v) => {
    const item = document.createElement('span');
    item.className = 'legend-item';
    item.dataset.vehicle = v.name;
    const swatch = document.createElement('span');
    swatch.className = 'legend-swatch';
    swatch.style.background = accentOf(v);
    item.append(swatch, v.name);
    return item;
  }));
}

// Ask for the chosen camera's images (or none); hide the image when none is chosen.
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

// Ask again for the chosen camera's images (after a reconnection).
export function resendCamera() {
  if (ui.camera.value !== '') send({ type: 'camera', index: Number(ui.camera.value) });
}

// Show a camera image (header of its binary message, its bytes as a Blob) when it is the chosen camera's.
export function showImage(header, blob) {
  if (ui.camera.value === '' || Number(ui.camera.value) !== header.camera) return;
  state.images += 1;
  const old = imageUrl;
  imageUrl = URL.createObjectURL(blob);
  ui.image.src = imageUrl;
  ui.image.hidden = false;
  if (old) URL.revokeObjectURL(old);
}

// The selected vehicle's state in the readout panel (values as the simulation's frame gives them, rounded).
export function showReadout() {
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

// The status line: connection, simulated time, run state, real-time factor and frames received per second.
export function statusText(framesPerSecond) {
  if (!state.connected) return 'disconnected: reconnecting…';
  if (state.time === null) return 'waiting for the simulation…';
  const run = state.paused ? 'paused' : 'running';
  const rtf = Number.isFinite(state.rtf) ? state.rtf.toFixed(2) : '-';
  const target = state.rtfTarget === null ? '-' : (state.rtfTarget > 0 ? state.rtfTarget.toFixed(2) : 'max');
  return `t = ${state.time.toFixed(3)} s   ${run}   rtf ${rtf} (target ${target})   ${framesPerSecond} frames/s`;
}

// The panel's controls: what each selector, check box and button does.
export function bindPanels() {
  ui.vehicle.addEventListener('change', () => {
    stopDriving();
    state.selected = ui.vehicle.value;
    forgetFollowed();
    showReadout();
    ui.vehicle.blur();
  });
  for (const name of LAYERS) {
    el(`layer-${name}`).addEventListener('change', (event) => { applyLayers(); event.currentTarget.blur(); });
  }
  ui.follow.addEventListener('change', () => { forgetFollowed(); ui.follow.blur(); });
  ui.camera.addEventListener('change', () => { chooseCamera(); ui.camera.blur(); });
  el('fit-world').addEventListener('click', (event) => { fitWorld(); event.currentTarget.blur(); });
  el('fit-vehicles').addEventListener('click', (event) => { fitVehicles(); event.currentTarget.blur(); });
  for (const action of ['pause', 'play', 'step', 'reset']) {
    el(action).addEventListener('click', (event) => {
      send(action === 'step' ? { type: 'control', action, steps: 1 } : { type: 'control', action });
      if (action === 'reset') for (const t of current.trails) t.clear();
      event.currentTarget.blur();
    });
  }
}
