// lmp-server dashboard. Plain script, no build step, nothing from the
// network but this server's own loopback routes.
"use strict";

const DRIVER = "/internal/mock/v1"; // the mock Hermes driver API (CI.md)
const MAX_ROWS = 1000;              // frame rows kept in the page

const $ = (id) => document.getElementById(id);
const state = {
  paused: false, held: [], frames: [], tasks: new Set(), types: new Set(),
  devices: new Set(), pairingFP: "", pairingExpires: 0, refreshTimer: 0, chatChosen: false,
};

async function api(method, path, body) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(path, init);
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!resp.ok) {
    throw new Error((data && data.error) || (resp.status + " " + text));
  }
  return data;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(printable(String(c))));
  return e;
}

// printable writes the characters a page would act on instead of showing
// as escapes, as lmp.Printable does for the CLI: C0 and C1 controls and DEL
// as \xNN or \u00NN, bidirectional controls (which reorder what follows
// them, and could hide or spoof a device's row) as \uNNNN. Phone-supplied
// strings (device_info, ids, frames) reach the page through el.
const unprintable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
function printable(s) {
  return s.replace(unprintable, (ch) => {
    const n = ch.charCodeAt(0);
    return n < 0x80 ? "\\x" + n.toString(16).padStart(2, "0") : "\\u" + n.toString(16).padStart(4, "0");
  });
}

const clock = (ts) => ts ? new Date(ts * 1000).toLocaleTimeString([], {hour12: false}) : "—";
const short = (id) => id ? id.slice(0, 12) : "—";

async function fingerprint(secret) {
  const sum = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  return Array.from(new Uint8Array(sum).slice(0, 4), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Pairing ------------------------------------------------------------------

async function mintPairing() {
  const ttl = Number($("ttl").value) || 0;
  $("qr-state").textContent = "minting…";
  try {
    const p = await api("POST", "/dashboard/pair", ttl > 0 ? {ttl} : {});
    $("qr").innerHTML = p.svg; // SVG made by this server from the payload
    $("qr-json").textContent = p.qr;
    state.pairingExpires = p.expires_at;
    state.pairingFP = crypto.subtle ? await fingerprint(p.token) : "";
    showExpiry();
  } catch (e) {
    $("qr-state").textContent = "could not mint a pairing code: " + e.message;
  }
}

function showExpiry() {
  if (!state.pairingExpires) return;
  const left = Math.round(state.pairingExpires - Date.now() / 1000);
  const s = $("qr-state");
  if (s.dataset.used === state.pairingFP) return;
  if (left <= 0) {
    s.textContent = "expired: mint a new code";
    $("qr").classList.add("void");
  } else {
    $("qr").classList.remove("void");
    s.textContent = "works once; expires at " + clock(state.pairingExpires) + " (in " + left + " s)";
  }
}

function pairingUsed() {
  $("qr-state").dataset.used = state.pairingFP;
  $("qr-state").textContent = "used: a device paired with this code; mint a new one for another device";
  $("qr").classList.add("void");
}

// Devices ------------------------------------------------------------------

async function refreshDevices() {
  const [list, activity] = await Promise.all([api("GET", "/internal/devices"), api("GET", "/dashboard/activity")]);
  const rows = $("device-rows");
  rows.replaceChildren();
  if (!list.devices.length) {
    rows.append(el("tr", {}, el("td", {colspan: 7}, "no paired device yet: scan the code")));
  }
  for (const d of list.devices) {
    const a = activity[d.device_id] || {conns: []};
    const st = d.revoked_at ? "revoked" : d.online > 0 ? "online" : "offline";
    if (!state.devices.has(d.device_id)) {
      state.devices.add(d.device_id);
      $("f-device").append(el("option", {value: d.device_id}, d.device_id + " (" + (d.model || "?") + ")"));
    }
    const revoke = el("button", {type: "button", "aria-label": "Revoke " + d.device_id, onclick: () => revokeDevice(d.device_id)}, "Revoke");
    if (d.revoked_at) revoke.disabled = true;
    rows.append(el("tr", {"data-device": d.device_id, "data-state": st},
      el("td", {}, el("code", {}, d.device_id)),
      el("td", {}, [d.model, d.os].filter(Boolean).join(" · ") || "—"),
      el("td", {}, el("span", {class: "badge " + st}, st + (d.online > 0 ? " (" + d.online + ")" : ""))),
      el("td", {}, clock(a.last_seen)),
      el("td", {}, a.last_seq || 0),
      el("td", {}, a.conns.length ? a.conns.map((c) => "#" + c).join(" ") : "—"),
      el("td", {}, revoke)));
  }
}

async function revokeDevice(id) {
  try {
    await api("POST", "/internal/devices/" + encodeURIComponent(id) + "/revoke");
    $("play-state").textContent = "revoked " + id + ": its connections are closed";
  } catch (e) {
    $("play-state").textContent = "revoke failed: " + e.message;
  }
  refreshSoon();
}

// Scenarios ----------------------------------------------------------------

async function loadScenarios() {
  const list = await api("GET", DRIVER + "/scenarios");
  const ul = $("scenario-list");
  ul.replaceChildren();
  for (const sc of list.scenarios) {
    const argNames = sc.usage.split(/\s+/).slice(1).join(" ");
    const input = el("input", {type: "text", id: "args-" + sc.name, placeholder: argNames || "no arguments", "aria-describedby": "desc-" + sc.name});
    if (!argNames) input.disabled = true;
    ul.append(el("li", {},
      el("button", {type: "button", class: "play", "data-scenario": sc.name, onclick: () => play(sc.name, input.value)}, sc.name),
      el("label", {for: "args-" + sc.name, class: "sr-only"}, "arguments of " + sc.name),
      input,
      el("span", {id: "desc-" + sc.name, class: "hint"}, sc.description)));
  }
}

async function play(name, args) {
  const task = $("chat").value;
  $("play-state").textContent = "playing " + name + "…";
  try {
    const r = await api("POST", DRIVER + "/play", {scenario: name, args: args.trim() ? args.trim().split(/\s+/) : [], task_id: task});
    addTask(r.task_id);
    $("play-state").textContent = name + " playing in " + r.task_id + (r.run_id ? " (run " + r.run_id + ")" : "");
  } catch (e) {
    $("play-state").textContent = name + ": " + e.message;
  }
}

function addTask(id) {
  if (!id || state.tasks.has(id)) return;
  state.tasks.add(id);
  $("chat").append(el("option", {value: id}, id));
}

// followChat selects the chat a phone last talked in, until the user picks
// one: the adapter shows phones the turns of such chats only (note 19).
function followChat(f) {
  if (state.chatChosen || !f.task_id) return;
  if ((f.dir === "in" && f.type === "session.send") || (f.dir === "out" && (f.type || "").startsWith("run."))) {
    $("chat").value = f.task_id;
  }
}

// Approvals ----------------------------------------------------------------

async function refreshApprovals() {
  const list = (await api("GET", "/dashboard/approvals")).approvals;
  const ul = $("approval-list");
  ul.replaceChildren();
  if (!list.length) ul.append(el("li", {}, "none pending"));
  for (const a of list) {
    const group = el("div", {role: "group", "aria-label": "Answer " + a.command});
    for (const c of a.choices) {
      group.append(el("button", {type: "button", class: c === "deny" ? "danger" : "", "data-choice": c,
        onclick: () => resolveApproval(a.approval_id, c)}, c));
    }
    ul.append(el("li", {"data-approval": a.approval_id},
      el("code", {}, a.command), " ", el("span", {class: "hint"}, "in " + a.task_id + (a.description ? " — " + a.description : "")), group));
  }
}

async function resolveApproval(id, choice) {
  try {
    await api("POST", "/dashboard/approvals/" + encodeURIComponent(id), {choice});
  } catch (e) {
    $("play-state").textContent = "answer failed: " + e.message;
  }
  refreshSoon();
}

// Hermes calls -------------------------------------------------------------

async function refreshCalls() {
  const calls = (await api("GET", DRIVER + "/calls")).calls;
  const rows = $("call-rows");
  rows.replaceChildren();
  for (const c of calls.slice(-200).reverse()) {
    rows.append(el("tr", {"data-call": c.name},
      el("td", {}, c.seq), el("td", {}, clock(c.at)), el("td", {}, el("code", {}, c.name)),
      el("td", {}, el("pre", {}, JSON.stringify(c.args))),
      el("td", {}, c.result === undefined ? "" : JSON.stringify(c.result))));
  }
}

// Frames -------------------------------------------------------------------

function matches(f) {
  const dev = $("f-device").value, typ = $("f-type").value.trim(), task = $("f-task").value.trim();
  return (!dev || f.device === dev) && (!typ || (f.type || "").includes(typ)) && (!task || (f.task_id || "").includes(task));
}

function frameRow(f) {
  const tr = el("tr", {class: f.dir, "data-type": f.type || "", "data-device": f.device || "", "data-conn": f.conn},
    el("td", {}, clock(f.at)), el("td", {}, short(f.device)),
    el("td", {"aria-label": f.dir === "in" ? "from the phone" : "to the phone"}, f.dir === "in" ? "→ in" : "← out"),
    el("td", {}, f.type || "?"), el("td", {}, f.task_id || ""), el("td", {}, f.seq ?? ""),
    el("td", {}, el("code", {}, f.text)));
  tr.hidden = !matches(f);
  return tr;
}

function addFrame(f) {
  if (f.task_id) addTask(f.task_id);
  followChat(f);
  if (f.type && !state.types.has(f.type)) {
    state.types.add(f.type);
    $("known-types").append(el("option", {value: f.type}));
  }
  if (f.type === "hello" && state.pairingFP && f.text.includes(":" + state.pairingFP)) pairingUsed();
  if (f.device) nameConnection(f.conn, f.device);
  state.frames.push(f);
  if (state.frames.length > MAX_ROWS) state.frames.shift();
  if (state.paused) {
    state.held.push(f);
    $("frame-state").textContent = "paused: " + state.held.length + " new frames held";
    return;
  }
  const rows = $("frame-rows");
  rows.prepend(frameRow(f));
  while (rows.childElementCount > MAX_ROWS) rows.lastElementChild.remove();
}

// nameConnection names the device on a connection's earlier frames: a
// pairing hello carries only a token, its hello.ok the device.
function nameConnection(conn, device) {
  for (const g of state.frames) if (g.conn === conn && !g.device) g.device = device;
  for (const tr of $("frame-rows").querySelectorAll('tr[data-conn="' + conn + '"][data-device=""]')) {
    tr.dataset.device = device;
    tr.children[1].textContent = short(device);
  }
}

function applyFilter() {
  const rows = $("frame-rows").children;
  const list = state.frames.slice(-rows.length).reverse();
  for (let i = 0; i < rows.length && i < list.length; i++) rows[i].hidden = !matches(list[i]);
}

function togglePause() {
  state.paused = !state.paused;
  $("pause").setAttribute("aria-pressed", String(state.paused));
  $("pause").textContent = state.paused ? "Resume" : "Pause";
  if (!state.paused) {
    const rows = $("frame-rows");
    for (const f of state.held) rows.prepend(frameRow(f));
    while (rows.childElementCount > MAX_ROWS) rows.lastElementChild.remove();
    state.held = [];
    $("frame-state").textContent = "";
  }
}

// Live updates -------------------------------------------------------------

async function refresh() {
  state.refreshTimer = 0;
  try {
    await Promise.all([refreshDevices(), refreshApprovals(), refreshCalls()]);
  } catch (e) {
    $("conn-state").textContent = "server unreachable: " + e.message;
  }
}

function refreshSoon() {
  if (!state.refreshTimer) state.refreshTimer = setTimeout(refresh, 200);
}

function follow() {
  const es = new EventSource("/dashboard/events");
  es.addEventListener("open", () => { $("conn-state").textContent = "live"; });
  es.addEventListener("error", () => { $("conn-state").textContent = "reconnecting…"; });
  es.addEventListener("frame", (ev) => { addFrame(JSON.parse(ev.data)); refreshSoon(); });
  es.addEventListener("lost", (ev) => { $("frame-state").textContent = ev.data + " frames not shown: the page fell behind"; });
}

document.addEventListener("DOMContentLoaded", () => {
  $("pair-new").addEventListener("click", mintPairing);
  $("chat").addEventListener("change", () => { state.chatChosen = true; });
  $("pause").addEventListener("click", togglePause);
  $("clear-frames").addEventListener("click", () => { state.frames = []; state.held = []; $("frame-rows").replaceChildren(); });
  $("clear-calls").addEventListener("click", async () => { await api("DELETE", DRIVER + "/calls"); refresh(); });
  $("frame-filter").addEventListener("submit", (e) => e.preventDefault());
  for (const id of ["f-device", "f-type", "f-task"]) $(id).addEventListener("input", applyFilter);
  setInterval(() => { showExpiry(); refresh(); }, 2000); // online state, expiry
  mintPairing();
  loadScenarios().catch((e) => { $("play-state").textContent = "no scenarios: " + e.message; });
  refresh();
  follow();
});
