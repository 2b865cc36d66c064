// Drawing helpers of the scene: meshes decoded from the scene message, line and point sets whose contents change
// every frame, flat ribbons on the ground (trails, outlines, footprints) and arrows (poses, goals). Coordinates are
// ROS (x forward, y left, z up) in the frame of the object they are added to.

import * as THREE from 'three';

export const OUTLINE_WIDTH = 0.035;      // width of the vehicle outlines and footprints on the ground [m]
export const OVERLAY_Z = 0.02;           // height of footprints and trails above the ground [m]

export function decodeBase64(text) {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes.buffer;
}

export function srgbToLinear(c) {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

export function disposeTree(root) {
  root.traverse((obj) => {
    if (obj.isCSS2DObject) obj.element.remove();  // labels live in the DOM, not in the WebGL scene
    if (obj.geometry) obj.geometry.dispose();
    if (obj.material) (Array.isArray(obj.material) ? obj.material : [obj.material]).forEach((m) => m.dispose());
  });
}

export function dynamicLines(kind, capacity, color, opacity, parent) {
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
export function dynamicPoints(capacity, color, pixels, parent) {
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
export class Ribbon {
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

export function setPositions(obj, count, fill) {
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

export function arrowFor(color) {
  const arrow = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1, color, 0.3, 0.18);
  arrow.line.material.depthTest = false;
  arrow.cone.material.depthTest = false;
  arrow.renderOrder = 3;
  return arrow;
}

// Point `arrow` (in the world group) from (x, y) along `yaw` [rad], `length` m long, just above the ground.
export function placeArrow(arrow, x, y, yaw, length) {
  arrow.position.set(x, y, 2 * OVERLAY_Z);
  arrow.setDirection(new THREE.Vector3(Math.cos(yaw), Math.sin(yaw), 0));
  arrow.setLength(length, Math.min(0.3, 0.4 * length), Math.min(0.18, 0.25 * length));
}
