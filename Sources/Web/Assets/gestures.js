// SwiftCam's camera screen, the gestures on the picture: tap to focus, long-press to meter, pinch and wheel to zoom.
// Loaded after app.js, whose state (`app`), helpers (`$`, `api`, `pictureRect`) and picture (`stage`) it uses; app.js
// calls nothing here, so a gesture made before this file runs is simply not seen.

const pointers = new Map();
let pinch = null;
let press = null;

stage.addEventListener('pointerdown', (event) => {
  if (!app.live) return;   // no camera to focus, meter or zoom
  stage.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  if (pointers.size === 2) {
    clearTimeout(press && press.timer);
    press = null;
    pinch = { distance: spread(), zoom: app.zoom };
    return;
  }
  const point = { x: event.clientX, y: event.clientY };
  press = { point, long: false, timer: setTimeout(() => { if (press) { press.long = true; meter(point); } }, 550) };
});

stage.addEventListener('pointermove', (event) => {
  if (!pointers.has(event.pointerId)) return;
  pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  if (pinch && pointers.size === 2) {
    setZoom(pinch.zoom * spread() / Math.max(pinch.distance, 1), false);
  } else if (press && Math.hypot(event.clientX - press.point.x, event.clientY - press.point.y) > 12) {
    clearTimeout(press.timer);
    press = null;
  }
});

function endPointer(event) {
  pointers.delete(event.pointerId);
  if (pinch) {
    if (pointers.size < 2) { sendZoom(); pinch = null; }
    return;
  }
  if (press) {
    clearTimeout(press.timer);
    if (!press.long && event.type === 'pointerup') focusAt(press.point);
    press = null;
  }
}
stage.addEventListener('pointerup', endPointer);
stage.addEventListener('pointercancel', endPointer);

function spread() {
  const [a, b] = [...pointers.values()];
  return Math.hypot(a.x - b.x, a.y - b.y);
}

function normalized(point) {
  const rect = pictureRect();
  const x = Math.min(1, Math.max(0, (point.x - rect.left) / rect.width));
  const y = Math.min(1, Math.max(0, (point.y - rect.top) / rect.height));
  return { x: Math.round(x * 10000) / 10000, y: Math.round(y * 10000) / 10000 };
}

function showRing(point, kind) {
  const ring = $('ring');
  ring.hidden = true;
  ring.className = kind;
  ring.style.left = point.x + 'px';
  ring.style.top = point.y + 'px';
  void ring.offsetWidth;  // restart the animation
  ring.hidden = false;
  clearTimeout(showRing.timer);
  showRing.timer = setTimeout(() => { ring.hidden = true; }, 1500);
}

function focusAt(point) {
  const at = normalized(point);
  app.lastFocus = at;
  showRing(point, 'focus');
  api('focus', at);
}

function meter(point) {
  const at = normalized(point);
  app.lastExposure = at;
  showRing(point, 'exposure');
  api('exposure', at);
}

let zoomTimer = null;
function setZoom(factor, post = true) {
  app.zoom = Math.min(app.maxZoom, Math.max(1, factor));
  $('zoom').textContent = app.zoom.toFixed(1) + '×';
  if (post) { clearTimeout(zoomTimer); zoomTimer = setTimeout(sendZoom, 120); }
}

async function sendZoom() {
  const reply = await api('zoom', { factor: Math.round(app.zoom * 100) / 100 });
  const match = reply.ok && /zoom ([0-9.]+)/.exec(reply.reply || '');
  if (match) { app.zoom = parseFloat(match[1]); $('zoom').textContent = app.zoom.toFixed(1) + '×'; }
}

stage.addEventListener('wheel', (event) => {
  event.preventDefault();
  if (!app.live) return;
  setZoom(app.zoom * Math.exp(-event.deltaY / 500));
}, { passive: false });

