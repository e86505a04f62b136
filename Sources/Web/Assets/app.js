// SwiftCam's camera screen: live preview (WebRTC, MJPEG fallback) and every control of the command interpreter.
// No framework, nothing from the network: this file, gestures.js, index.html and style.css are all the page needs.
// The host serves its assets as they are, with no bundler; every section reads and writes the one `app` state the
// tests inspect. The gestures on the picture (focus, metering, zoom) are in gestures.js, loaded after this file.
'use strict';

const $ = (id) => document.getElementById(id);
const video = $('preview');
const mjpeg = $('mjpeg');
const stage = $('stage');

// What the page knows; tests read it too (window.swiftcam).
const app = {
  state: null,          // the last state the host pushed
  mode: 'connecting',   // 'webrtc' | 'mjpeg'
  live: false,          // the session is configured: the camera controls work and WebRTC is tried
  away: false,          // the host does not answer: the last frame stays, the page reconnects by itself
  zoom: 1,
  maxZoom: 16,
  codec: null,          // the WebRTC video's codec (H264, VP8, VP9), once it plays
  via: null,            // the WebRTC server the video comes through (`Janus …`), or null: the camera's host itself
  waitingFor: null,     // what the picture waits for, as the page says it (null once it shows)
  firstFrameMs: null,   // ms from the page's navigation to its first WebRTC frame (performance.now())
  lastFocus: null,      // {x, y} normalized, as posted
  lastExposure: null,
  recordingSince: null,
  filters: [],
  selectedFilter: null,
  replies: [],
};
window.swiftcam = app;

// ---- API ------------------------------------------------------------------------------------------------

async function api(name, body = {}) {
  const response = await fetch('/api/' + name, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin',
  });
  let json = {};
  try { json = await response.json(); } catch (_) { json = { ok: false, error: 'HTTP ' + response.status }; }
  app.replies.push(json);
  if (!json.ok) notice(json.error || ('HTTP ' + response.status));
  return json;
}

async function getJSON(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  return response.json();
}

let noticeTimer = null;
function notice(text, sticky = false) {
  const element = $('notice');
  element.textContent = text;
  element.hidden = false;
  clearTimeout(noticeTimer);
  if (!sticky) noticeTimer = setTimeout(() => { element.hidden = true; }, 4000);
}

// ---- State pushed over the WebSocket ----------------------------------------------------------------------

let socket = null;
let peer = null;
let fallbackTimer = null;
let keepAliveTimer = null;

function connect() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  socket = new WebSocket(scheme + '//' + location.host + '/ws');
  // WebRTC starts when the state says the camera is configured (applyState), not before: with no camera playing
  // there is nothing to watch, and no fallback to try.
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (_) { return; }
    switch (message.type) {
      case 'state':
        if (message.idleSeconds) keepAlive(message.idleSeconds);
        applyState(message);
        break;
      case 'offer': app.via = message.via || null; answerOffer(message.sdp); break;
      case 'ice':
        if (peer) peer.addIceCandidate({ candidate: message.candidate, sdpMLineIndex: message.sdpMLineIndex }).catch(() => {});
        break;
      case 'error':
        // No camera playing: the status banner says why there is no picture; MJPEG would fail the same way.
        if (/not running/.test(message.error)) break;
        if (app.mode !== 'mjpeg' && /WebRTC|offer/.test(message.error)) fallBack(message.error);
        else notice(message.error);
        break;
    }
  };
  socket.onclose = (event) => {
    clearInterval(keepAliveTimer);
    // 1008: the host has as many pages open as it allows; say so and try again later rather than every second.
    if (event.code === 1008) { notice(event.reason, true); setTimeout(connect, 10000); return; }
    hostAway();
    setTimeout(connect, 1000);
  };
}

// The host went (a restart, a network that dropped): the last frame stays under a banner that says so, the controls
// wait, and the viewer's peer connection is closed here (it would fail in a few seconds and fall back to MJPEG).
// The next socket's state brings everything back (`hostBack`).
function hostAway() {
  if (app.away) return;
  app.away = true;
  keepLastFrame();
  clearTimeout(fallbackTimer);
  if (peer) { peer.close(); peer = null; app.peer = null; }
  if (app.mode !== 'mjpeg') app.mode = 'connecting';
  app.live = false;
  waiting(null);
  for (const id of cameraControls) $(id).disabled = true;
  showBanner('away', 'reconnecting', 'the camera does not answer; this page comes back by itself when it does');
}

// The first state after the host came back: a WebRTC page watches again on its new socket (applyState), an MJPEG one
// asks for the stream anew (the old one ended with the host).
function hostBack() {
  app.away = false;
  if (app.mode === 'mjpeg') { mjpeg.hidden = false; mjpeg.src = '/stream.mjpg?' + Date.now(); }
}

// The picture on screen, copied to a canvas over it, until a new one arrives.
function keepLastFrame() {
  const element = app.mode === 'mjpeg' ? mjpeg : video;
  const width = element.videoWidth || element.naturalWidth, height = element.videoHeight || element.naturalHeight;
  if (!width || !height) return;
  const canvas = $('last-frame');
  canvas.width = width;
  canvas.height = height;
  try { canvas.getContext('2d').drawImage(element, 0, 0, width, height); } catch (_) { return; }
  canvas.hidden = false;
}

// What the picture waits for, said over it until the first frame (or MJPEG) shows; nothing: hidden.
function waiting(text) {
  const element = $('waiting');
  element.textContent = text || '';
  element.hidden = !text;
  app.waitingFor = text || null;
}

function showBanner(kind, title, message) {
  const banner = $('banner');
  banner.hidden = false;
  banner.className = kind;
  $('banner-title').textContent = title;
  $('banner-message').textContent = message;
}

// The host closes a socket that sends nothing for `seconds`: say "still here" three times in that span.
function keepAlive(seconds) {
  clearInterval(keepAliveTimer);
  keepAliveTimer = setInterval(() => send({ type: 'ping' }), seconds * 1000 / 3);
}

function send(object) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(object));
}

// The controls that act on the camera: usable only while the session is configured (its graph playing).
const cameraControls = ['shutter', 'record', 'filters', 'switch'];

function applyState(state) {
  if (app.away) hostBack();
  const wasLive = app.live;
  app.state = state;
  app.live = state.status === 'configured';
  app.maxZoom = state.maxZoom || 16;
  if (state.status && state.status !== 'configured') {
    showBanner(state.status, state.status, state.message.replace(/^[a-z]+: /, ''));
  } else {
    $('banner').hidden = true;
  }
  $('torch').hidden = !state.torch || !app.live;
  for (const id of cameraControls) $(id).disabled = !app.live;
  if (app.live) $('switch').disabled = (state.sources || 1) < 2;
  $('zoom').setAttribute('aria-disabled', String(!app.live));
  if (!app.live) { $('filter-panel').hidden = true; $('last-frame').hidden = true; clearTimeout(fallbackTimer); waiting(null); }
  // Watch once the camera plays: on each new socket, and again when the camera comes back to a page that never got
  // a picture (a page that had one keeps its peer connection: the host's viewer follows the graph across recovery).
  if (app.live && app.mode !== 'mjpeg' && socket && socket.readyState === WebSocket.OPEN
      && (!socket.watching || (!wasLive && app.mode === 'connecting'))) startWebRTC();
  const recording = !!state.recording;
  $('record').setAttribute('aria-pressed', String(recording));
  if (recording && !app.recordingSince) app.recordingSince = Date.now();
  if (!recording) { app.recordingSince = null; $('elapsed').textContent = 'REC'; }
  if (state.lastCapture) {
    // A still shows itself; a recording has no picture to show here, so a play sign stands for it (an empty box did).
    const still = /\.(jpe?g|png)$/i.test(state.lastCapture);
    const img = $('thumb-img');
    if (still) {
      const source = '/captures/' + encodeURIComponent(state.lastCapture);
      if (img.getAttribute('src') !== source) img.src = source;
    }
    img.hidden = !still;
    $('thumb-video').hidden = still;
  }
  if (state.filter !== undefined) markFilter(state.filter);
  // Analysis events: a marker while one is under way (motion), and the newest events, newest first.
  const active = state.activeEvents || [];
  $('event-marker').hidden = active.length === 0;
  $('event-marker').textContent = active.join(', ').toUpperCase();
  const list = $('event-list');
  list.hidden = !state.events || state.events.length === 0;
  list.textContent = '';
  for (const line of (state.events || []).slice(0, 5)) {
    const entry = document.createElement('li');
    entry.textContent = line.replace(/^event /, '');
    list.append(entry);
  }
}

setInterval(() => {
  if (!app.recordingSince) return;
  const seconds = Math.floor((Date.now() - app.recordingSince) / 1000);
  $('elapsed').textContent = String(Math.floor(seconds / 60)).padStart(2, '0') + ':' + String(seconds % 60).padStart(2, '0');
}, 250);

// ---- Live picture: WebRTC, MJPEG when that fails -----------------------------------------------------------

function startWebRTC() {
  if (app.mode === 'mjpeg') return;
  if (!window.RTCPeerConnection) { fallBack('this browser has no WebRTC'); return; }
  if (peer) peer.close();
  peer = new RTCPeerConnection({ iceServers: [] });   // no STUN/TURN: nothing leaves the host's network
  app.peer = peer;
  peer.ontrack = (event) => {
    if (event.receiver && 'playoutDelayHint' in event.receiver) event.receiver.playoutDelayHint = 0;
    if (event.receiver && 'jitterBufferTarget' in event.receiver) event.receiver.jitterBufferTarget = 0;
    video.srcObject = event.streams[0] || new MediaStream([event.track]);
    video.play().catch(() => {});
  };
  peer.onicecandidate = (event) => {
    if (event.candidate) send({ type: 'ice', candidate: event.candidate.candidate, sdpMLineIndex: event.candidate.sdpMLineIndex });
  };
  peer.onconnectionstatechange = () => {
    if (!peer) return;
    if (peer.connectionState === 'failed') fallBack('the WebRTC connection failed');
    else if (peer.connectionState === 'connected' && app.mode === 'connecting') waiting('connected: waiting for the first frame');
  };
  app.mode = 'connecting';
  socket.watching = true;
  waiting('connecting to the camera (WebRTC)');
  app.packetsSeen = 0;
  armFallback(6000, Date.now());
  send({ type: 'watch', codecs: receivableCodecs() });
}

// The video codecs this browser's WebRTC takes, in its order of preference (`H264`, `VP8`): the host hands the page to
// a WebRTC server (Janus) only in a codec the browser takes.
function receivableCodecs() {
  if (!window.RTCRtpReceiver || !RTCRtpReceiver.getCapabilities) return [];
  const names = (RTCRtpReceiver.getCapabilities('video') || { codecs: [] }).codecs.map((c) => c.mimeType.replace(/^video\//, ''));
  return names.filter((name, index) => /^[A-Za-z0-9.-]{1,32}$/.test(name) && !/^(rtx|red|ulpfec|flexfec-03)$/i.test(name)
    && names.indexOf(name) === index).slice(0, 32);
}

// MJPEG takes over when WebRTC shows nothing within 6 s, unless its connection is delivering (packets arrive, the
// first frame is on its way): then it waits on, saying so, for up to 30 s in all.
function armFallback(delay, since) {
  clearTimeout(fallbackTimer);
  fallbackTimer = setTimeout(async () => {
    if (app.mode !== 'connecting' || !peer) return;
    const received = await packetsReceived(peer);
    if (app.mode !== 'connecting') return;
    if (received > (app.packetsSeen || 0) && Date.now() - since < 30000) {
      app.packetsSeen = received;
      waiting(`waiting for the first frame (${received} packets so far)`);
      armFallback(2000, since);
      return;
    }
    fallBack(`WebRTC showed no picture within ${Math.round((Date.now() - since) / 1000)} s`);
  }, delay);
}

// The video packets the peer connection has received so far.
async function packetsReceived(connection) {
  let packets = 0;
  try {
    for (const report of (await connection.getStats()).values()) {
      if (report.type === 'inbound-rtp' && report.kind === 'video') packets += report.packetsReceived || 0;
    }
  } catch (_) { /* closed meanwhile */ }
  return packets;
}

async function answerOffer(sdp) {
  if (!peer) return;
  if (app.mode === 'connecting') waiting('negotiating the video');
  try {
    await peer.setRemoteDescription({ type: 'offer', sdp });
    const answer = await peer.createAnswer();
    await peer.setLocalDescription(answer);
    send({ type: 'answer', sdp: answer.sdp });
  } catch (error) {
    fallBack('WebRTC negotiation failed: ' + error);
  }
}

video.addEventListener('playing', () => {
  if (app.mode === 'mjpeg') return;
  app.mode = 'webrtc';
  if (app.firstFrameMs === null) app.firstFrameMs = Math.round(performance.now());
  clearTimeout(fallbackTimer);
  $('last-frame').hidden = true;
  waiting(null);
  readCodec();
});

// The codec this page's video arrives in (the one its answer chose), from the receiver's statistics: `H264`, `VP8`, `VP9`.
async function readCodec() {
  if (!peer) return;
  const stats = await peer.getStats();
  for (const report of stats.values()) {
    if (report.type === 'inbound-rtp' && report.kind === 'video' && report.codecId && stats.get(report.codecId)) {
      app.codec = stats.get(report.codecId).mimeType.replace(/^video\//, '');
    }
  }
}

// A stream that cannot be read shows nothing rather than a broken image: its last frame stays while the host is away,
// and goes when the state says the camera stopped.
mjpeg.addEventListener('error', () => { keepLastFrame(); mjpeg.hidden = true; });
mjpeg.addEventListener('load', () => { $('last-frame').hidden = true; waiting(null); });

function fallBack(reason) {
  if (app.mode === 'mjpeg' || !app.live) return;   // no camera: the banner says why, MJPEG would show nothing either
  clearTimeout(fallbackTimer);
  app.mode = 'mjpeg';
  if (peer) { peer.close(); peer = null; }
  send({ type: 'unwatch' });
  video.hidden = true;
  mjpeg.hidden = false;
  mjpeg.src = '/stream.mjpg';
  waiting('waiting for the MJPEG stream');
  notice('Showing MJPEG: ' + reason, true);
}

// The element showing the picture and the rectangle the picture fills in it (object-fit: contain).
function pictureRect() {
  const element = app.mode === 'mjpeg' ? mjpeg : video;
  const box = element.getBoundingClientRect();
  const width = (app.mode === 'mjpeg' ? mjpeg.naturalWidth : video.videoWidth) || box.width;
  const height = (app.mode === 'mjpeg' ? mjpeg.naturalHeight : video.videoHeight) || box.height;
  const scale = Math.min(box.width / width, box.height / height);
  const shownWidth = width * scale, shownHeight = height * scale;
  return { left: box.left + (box.width - shownWidth) / 2, top: box.top + (box.height - shownHeight) / 2, width: shownWidth, height: shownHeight };
}

// ---- Buttons --------------------------------------------------------------------------------------------

async function shutter() {
  if ($('shutter').disabled) return;   // the space bar too
  $('shutter').classList.add('flash');
  setTimeout(() => $('shutter').classList.remove('flash'), 150);
  await api('snap');
}
$('shutter').addEventListener('click', shutter);
document.addEventListener('keydown', (event) => {
  if (event.code === 'Space' && !event.target.closest('input, textarea')) { event.preventDefault(); shutter(); }
});

$('switch').addEventListener('click', () => api('switch'));

$('torch').addEventListener('click', async () => {
  const on = $('torch').getAttribute('aria-pressed') !== 'true';
  const reply = await api('torch', { on });
  if (reply.ok) $('torch').setAttribute('aria-pressed', String(on));
});

$('mirror').addEventListener('click', async () => {
  const on = $('mirror').getAttribute('aria-pressed') !== 'true';
  const reply = await api('mirror', { on });
  if (reply.ok) $('mirror').setAttribute('aria-pressed', String(on));
});

$('record').addEventListener('click', async () => {
  const recording = $('record').getAttribute('aria-pressed') === 'true';
  const reply = await api('record', { action: recording ? 'stop' : 'start' });
  if (reply.ok) notice(reply.reply);
});

// ---- Stats overlay --------------------------------------------------------------------------------------

let statsTimer = null;
$('stats-toggle').addEventListener('click', () => {
  const shown = $('stats').hidden;
  $('stats').hidden = !shown;
  $('stats-toggle').setAttribute('aria-pressed', String(shown));
  clearInterval(statsTimer);
  if (shown) { refreshStats(); statsTimer = setInterval(refreshStats, 1000); }
});

async function refreshStats() {
  const reply = await getJSON('/api/stats');
  if (!reply.ok) { $('stats').textContent = reply.error; return; }
  const s = reply.stats, v = reply.viewers || {};
  const codecs = Object.entries(reply.webrtcCodecs || {}).filter(([, n]) => n > 0).map(([c, n]) => `${c} ${n}`).join(', ');
  $('stats').textContent = [
    `fps      ${s.fpsOut.toFixed(1)} (in ${s.fpsIn.toFixed(1)})`,
    `drops    queue ${s.queueDrops}  qos ${s.qosDrops}  source ${s.sourceDrops}`,
    `filter   ${s.filterMeanMs.toFixed(2)} ms (max ${s.filterMaxMs.toFixed(2)})`,
    `viewers  webrtc ${v.webrtc || 0}${codecs ? ' (' + codecs + ')' : ''}  mjpeg ${v.mjpeg || 0}`,
    ...Object.entries(reply.live || {}).map(([name, e]) => `encoder  ${name} ${e.codec}: ${e.subscribers} subscriber(s), ${e.framesEncoded} frames${e.failure ? ' — ' + e.failure : ''}`),
    `video    ${app.mode}${app.mode === 'webrtc' && app.codec ? ' ' + app.codec : ''}${app.mode === 'webrtc' && app.via ? ' via ' + app.via : ''}`,
    `chain    ${s.chain || 'none'}`,
    ...(s.cameras || []).map((line) => `camera   ${line.replace(/^camera /, '')}`),
  ].join('\n');
}

// ---- Filter picker --------------------------------------------------------------------------------------

$('filters').addEventListener('click', async () => {
  if (!app.filters.length) app.filters = (await getJSON('/api/filters')).filters || [];
  renderFilters();
  $('filter-panel').hidden = false;
});
document.querySelectorAll('[data-close]').forEach((button) => {
  button.addEventListener('click', () => { $(button.dataset.close).hidden = true; });
});

function renderFilters() {
  const list = $('filter-list');
  list.textContent = '';
  const none = document.createElement('button');
  none.textContent = 'none';
  none.dataset.name = '';
  none.addEventListener('click', () => chooseFilter(null));
  list.append(none);
  for (const filter of app.filters) {
    if (filter.parameters.some((p) => p.kind === 'file')) continue;   // LUT files are chosen on the host
    const button = document.createElement('button');
    button.textContent = filter.name;
    button.title = filter.summary;
    button.dataset.name = filter.name;
    button.addEventListener('click', () => chooseFilter(filter));
    list.append(button);
  }
  markFilter(app.state ? app.state.filter : '');
}

function markFilter(chain) {
  const name = (chain || '').split(/\s|\|/)[0] || '';
  document.querySelectorAll('#filter-list button').forEach((button) => {
    button.setAttribute('aria-pressed', String(button.dataset.name === name));
  });
}

function chooseFilter(filter) {
  app.selectedFilter = filter;
  const params = $('filter-params');
  params.textContent = '';
  if (filter) {
    for (const parameter of filter.parameters) {
      const label = document.createElement('label');
      const name = document.createElement('span');
      name.textContent = parameter.key;
      name.title = parameter.summary;
      const slider = document.createElement('input');
      slider.type = 'range';
      slider.min = parameter.min;
      slider.max = parameter.max;
      // A power of ten about a hundredth of the range, so the default (and every round value) is a step: a step of
      // range/100 put vignette's radius=1 between steps, and the slider applied 0.991 while showing 1.
      const step = parameter.kind === 'integer' ? 1 : Math.pow(10, Math.floor(Math.log10((parameter.max - parameter.min) / 100)));
      const places = Math.max(0, -Math.round(Math.log10(step)));
      slider.step = step;
      slider.value = parameter.default;
      slider.dataset.key = parameter.key;
      slider.dataset.places = places;
      const output = document.createElement('output');
      const shown = (value) => (parameter.unit ? `${value} ${parameter.unit}` : String(value));
      output.textContent = shown(sliderValue(slider));
      slider.addEventListener('input', () => { output.textContent = shown(sliderValue(slider)); applyFilterSoon(); });
      label.append(name, slider, output);
      params.append(label);
    }
  }
  applyFilter();
}

/// A slider's value as the number it stands for, without a float's tail (0.1 + 90 steps of 0.01 is 1.0000000000000002).
function sliderValue(slider) { return parseFloat(Number(slider.value).toFixed(Number(slider.dataset.places || 0))); }

let filterTimer = null;
function applyFilterSoon() { clearTimeout(filterTimer); filterTimer = setTimeout(applyFilter, 80); }

function applyFilter() {
  const filter = app.selectedFilter;
  if (!filter) { markFilter(''); return api('filter', { chain: '' }); }
  const values = [...document.querySelectorAll('#filter-params input')].map((input) => `${input.dataset.key}=${sliderValue(input)}`);
  markFilter(filter.name);
  return api('filter', { chain: [filter.name, ...values].join(' ') });
}

// ---- Gallery --------------------------------------------------------------------------------------------

$('thumb').addEventListener('click', openGallery);
$('gallery-close').addEventListener('click', () => { $('gallery').hidden = true; });
$('viewer-close').addEventListener('click', () => { $('viewer').hidden = true; $('viewer-body').textContent = ''; });

async function openGallery() {
  const items = (await getJSON('/api/gallery')).items || [];
  const grid = $('grid');
  grid.textContent = '';
  $('gallery-empty').hidden = items.length > 0;
  for (const item of items) {
    const tile = document.createElement('button');
    tile.title = item.name;
    if (item.kind === 'still') {
      const img = document.createElement('img');
      img.loading = 'lazy';
      img.src = item.url;
      img.alt = item.name;
      tile.append(img);
    } else {
      const label = document.createElement('span');
      label.className = 'video-tile';
      label.textContent = '▶ ' + item.name;
      tile.append(label);
    }
    if (item.event) {
      const tag = document.createElement('span');
      tag.className = 'event-tag';
      tag.textContent = item.event;
      tile.append(tag);
    }
    tile.addEventListener('click', () => openItem(item));
    grid.append(tile);
  }
  $('gallery').hidden = false;
}

function openItem(item) {
  const body = $('viewer-body');
  body.textContent = '';
  const element = document.createElement(item.kind === 'still' ? 'img' : 'video');
  element.src = item.url;
  if (item.kind !== 'still') element.controls = true;
  body.append(element);
  $('download').href = item.url;
  $('download').setAttribute('download', item.name);
  $('viewer').hidden = false;
}

// ---- Start ----------------------------------------------------------------------------------------------

getJSON('/api/status').then(applyState).catch(() => {});
connect();
