// mvsim viewer page: draws the simulator's scene with three.js, labels the vehicles, shows the selected one's
// state, drives it from the keyboard and places it (or a goal for it) with the mouse.
// Wire protocol: mvsim_ros/viewer/protocol.py (scene JSON, binary frames and images; drive/steer/control/camera/
// set_pose/goal). The world is ROS z-up (x forward, y left): everything simulated lives under one group rotated
// -pi/2 about x.
//
// This module starts the page; each job is a module of its own:
//   page_state.js   the page's state (window.mvsimViewer), its elements, problems shown on the page
//   view3d.js       three.js renderer, camera, orbit controls, drawing on request, ROS <-> three.js frames
//   shapes.js       drawing helpers: decoded meshes, dynamic lines and points, ground ribbons, arrows
//   scene.js        the scene message built into the view, the grid, layers, goal markers
//   framing.js      where the camera looks: first view (fit world), fitted to the vehicles, following one
//   frames.js       binary frames and images applied to the scene
//   panels.js       selectors, check boxes, buttons, readout, camera image, status line
//   keyboard.js     keyboard teleop of the selected vehicle
//   mouse_tools.js  set pose and goal with the mouse
//   connection.js   the WebSocket to the simulator

import { report, state, ui } from './page_state.js';
import { connect } from './connection.js';
import { initialView } from './framing.js';
import { applyFrame, framesPerSecond, onBinary, takePendingFrame } from './frames.js';
import { bindKeyboard } from './keyboard.js';
import { bindMouseTools } from './mouse_tools.js';
import { bindPanels, fillSelectors, resendCamera, statusText } from './panels.js';
import { buildScene } from './scene.js';
import { renderIfWanted, requestRender } from './view3d.js';

const STATUS_PERIOD_MS = 200;     // the status line is rewritten at most this often [ms]

// A scene message: the view, the selectors, the legend and (for the first one) the camera follow it.
function onJson(msg) {
  if (msg.type !== 'scene') return;
  buildScene(msg);
  fillSelectors(msg);
  initialView(msg);
}

// Render loop: apply the newest frame only, then draw.
let lastStatus = 0;

function animate() {
  requestAnimationFrame(animate);
  const frame = takePendingFrame();
  if (frame) {
    try {
      applyFrame(frame);
      requestRender();
      state.rendered += 1;
    } catch (err) {
      report(err);
    }
  }
  renderIfWanted();
  const now = performance.now();
  if (now - lastStatus > STATUS_PERIOD_MS) {
    ui.status.textContent = statusText(framesPerSecond());
    lastStatus = now;
  }
}

bindPanels();
bindKeyboard();
bindMouseTools();
connect({ onOpen: resendCamera, onJson, onBinary });
animate();
