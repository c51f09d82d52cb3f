// A person's seat in the browser: the console of its UserInterfaceAgent (the lines its
// player hears, its status, what it may do). Buttons type the terminal's commands, as
// the server names them for each choice.
"use strict";

const base = location.pathname.replace(/\/$/, "");
let status = {view: null, options: [], deadline: null, role: null, pack: [], name: null};

async function send(text) {
  const res = await fetch(base + "/say", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify({text})});
  if (!res.ok) line(`! ${await res.text()}`);
}

function line(text) {
  const ol = $("lines");
  const refused = text.startsWith("!") || text.startsWith("[GM] Refused");
  const gm = text.startsWith("[GM]") || text.startsWith("[") || text.startsWith("-- ");
  const said = !gm && !refused && /^([^\s:]{1,20}): (.*)$/s.exec(text);
  const li = said
    ? el("li", {class: "line"}, el("span", {class: "dot", style: `background:${colour(said[1])}`}, said[1].slice(0, 2)),
         el("span", {class: "body"}, el("span", {class: "who"}, said[1]), said[2]))
    : el("li", {class: "line" + (refused ? " refused" : gm ? " system" : "")}, text);
  li.dataset.text = text;  // (the line as the player heard it)
  ol.append(li);
  ol.scrollTop = ol.scrollHeight;
}

function draw() {
  const v = status.view || {};
  const me = v.player || status.name;
  const role = v.role || status.role;
  const pack = v.pack && v.pack.length ? v.pack : status.pack;
  $("me").textContent = me ? `${me}` + (role ? `, ${role}` : "") + (pack.length ? ` (the pack: ${pack.join(", ")})` : "")
                            + (v.alive === false ? " (dead: watching)" : "") : "joining…";
  $("phase").textContent = v.day ? `Day ${v.day}, ${v.phase}` : "";
  const buttons = [];
  for (const o of status.options || []) {
    if (!o.command) continue;  // (a chat is typed)
    buttons.push(el("button", {class: `act ${o.action}`, type: "button", "data-command": o.command,
                               onclick: () => send(o.command)}, o.action + (o.target ? ` ${o.target}` : "")));
  }
  if ((status.options || []).length)
    buttons.push(el("button", {class: "act pass", type: "button", "data-command": "/pass", onclick: () => send("/pass")}, "pass"));
  $("actions").replaceChildren(...(buttons.length ? buttons : [el("p", {class: "muted"}, "Nothing to do now: listen.")]));
  const chat = (status.options || []).find((o) => o.action === "chat");
  $("text").placeholder = chat ? `say something in the ${chat.room}, or a command (/help)` : "a command (/help)";
  const votes = Object.entries(v.votes || {});
  $("living").replaceChildren(...(v.living || []).map((n) => el("li", {}, n + (n === me ? " (you)" : ""))));
  $("votes").replaceChildren(...votes.map(([a, b]) => el("li", {}, `${a} → ${b}`)));
  $("no-votes").hidden = votes.length > 0;
  $("nobody").hidden = (v.living || []).length > 0;
}

function tick() {
  const left = status.deadline === null ? null : (status.deadline - performance.now()) / 1000;
  $("timer").textContent = left === null ? "" : `${Math.max(0, left).toFixed(0)} s left`;
}

function start() {
  $("typing").onsubmit = (e) => {
    e.preventDefault();
    const text = $("text").value;
    if (!text.trim()) return;
    $("text").value = "";
    send(text);
  };
  const source = new EventSource(base + "/events");
  window.mawFrames = [];  // everything this page was sent (the tests check its secrecy)
  for (const kind of ["line", "status", "end"])
    source.addEventListener(kind, (e) => window.mawFrames.push({kind, data: JSON.parse(e.data)}));
  source.addEventListener("line", (e) => line(JSON.parse(e.data).text));
  source.addEventListener("status", (e) => {
    const s = JSON.parse(e.data);
    if (s.name) status.name = s.name;
    if (s.role) status.role = s.role;
    if (s.pack) status.pack = s.pack;
    if (s.view) status.view = s.view;
    if (s.options) status.options = s.options;
    if (s.seconds !== undefined && s.seconds !== null) status.deadline = performance.now() + 1000 * s.seconds;
    draw();
  });
  source.addEventListener("end", (e) => {
    line(`-- ${JSON.parse(e.data).why}`);
    $("status").textContent = "over";
    status.deadline = null; status.options = []; draw();
    for (const id of ["text", "send"]) $(id).disabled = true;  // (nothing goes anywhere now)
    source.close();
  });
  source.onerror = () => { if ($("status").textContent !== "over") $("status").textContent = "reconnecting…"; };
  setInterval(tick, 500);
  draw();
}

start();
