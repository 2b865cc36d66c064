// The page's state and its elements: `state` (exposed as window.mvsimViewer for tests and debugging), `ui` (the
// page's controls by role), the layers the page can hide, and `report` (problems shown on the page).

// Layers the page can hide: checkbox id suffix -> what it shows.
export const LAYERS = ['rays', 'points', 'trails', 'footprints', 'labels', 'grid', 'roofs'];

export const state = {
  frames: 0,            // frames received
  rendered: 0,          // frames applied to the view
  images: 0,            // camera images received
  sceneVersion: null,   // version of the scene shown
  time: null,           // simulated time of the newest applied frame [s]
  paused: null,
  rtf: null,
  selected: null,       // name of the selected (driven) vehicle
  vehicles: [],         // vehicle names of the scene
  vehicleColors: {},    // vehicle name -> its '#rrggbb' on the page (outline, trail, label, legend)
  trailsReceived: 0,    // "trails" messages applied (the vehicles' paths kept by the simulator)
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

export const el = (id) => document.getElementById(id);

export const ui = {
  view: el('view'), vehicle: el('vehicle'), follow: el('follow'), camera: el('camera'), status: el('status'),
  error: el('error'), image: el('camera-image'), speed: el('speed'), readout: el('readout'),
  legend: el('legend'), toolPose: el('tool-pose'), toolGoal: el('tool-goal'), toolHint: el('tool-hint'),
};

// Show a problem on the page (and keep it in state.errors).
export function report(err) {
  const text = String(err && err.stack ? err.stack.split('\n')[0] : err);
  state.errors.push(text);
  ui.error.hidden = false;
  ui.error.textContent = text;
}
