// A person's seat in the browser: the console of its UserInterfaceAgent (the lines its
// player hears, with the records they came from; its own lines; its status, what it may
// do). Buttons type the terminal's commands, as the server names them for each choice.
"use strict";

const base = location.pathname.replace(/\/$/, "");
let status = {view: null, options: [], deadline: null, role: null, pack: [], name: null};
let asking = null;         // "name" while the interface asks for the person's name
let dead = new Set();      // deaths heard since the last phase (the view follows at the next)
let ended = null;          // the round's end as heard: the winner, every role and points
let sides = {};            // each role's side (/api/info), for the end's colours

// (the interface's own question, asked before the player has a name: what is typed answers it)
const NAME_QUESTION = "Your name?";
const DEATHS = new Set(["executed", "murdered", "shot", "exploded"]);
const NIGHT = new Set(["night", "whisper", "witch"]);

async function send(text) {
  const res = await fetch(base + "/say", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify({text})});
  if (!res.ok) line({text: `! ${await res.text()}`});
}

function said(speaker, ...body) {
  return el("li", {class: "line"}, el("span", {class: "dot", style: `background:${colour(speaker)}`}, speaker.slice(0, 2)),
            el("span", {class: "body"}, el("span", {class: "who"}, speaker), ...body));
}

// one line: what the player heard is drawn from its record (a chat line is a record of
// what a player said, never guessed from the text); the interface's own lines (the help,
// /who, a refusal) are notes, kept as they are written, line by line
function line({text, heard}) {
  const ol = $("lines");
  const r = heard || {};
  let li;
  if (r.kind === "said") li = said(r.speaker, r.text);
  else if (r.kind === "whisper") li = said(r.speaker, el("span", {class: "muted"}, `whispers to ${r.to}: `), r.text);
  else {
    const refused = text.startsWith("!") || text.startsWith("[GM] Refused");
    const kind = refused ? "refused" : text.includes("\n") ? "block"
      : r.kind === "phase" ? "phase" : r.kind === "death" || DEATHS.has(r.status) ? "death"
      : r.kind === "narration" ? "narration" : "";
    li = el("li", {class: `line system ${kind}` + (!heard && text === NAME_QUESTION ? " ask" : "")}, text);
  }
  if (r.kind === "round") { dead = new Set(); ended = null; }
  if (r.kind === "death") dead.add(status.view ? status.view.player : status.name);
  if (r.kind === "result" && DEATHS.has(r.status) && r.target) dead.add(r.target);
  if (r.kind === "game_over") ended = r;
  if (!heard && text === NAME_QUESTION) asking = "name";
  li.dataset.text = text;  // (the line as the player heard it)
  ol.append(li);
  ol.scrollTop = ol.scrollHeight;
  if (heard || asking) draw();
}

function draw() {
  const v = status.view || {};
  const me = v.player || status.name;
  const role = v.role || status.role;
  const pack = v.pack && v.pack.length ? v.pack : status.pack;
  $("me").textContent = me ? `${me}` + (role ? `, ${role}` : "") + (pack.length ? ` (the pack: ${pack.join(", ")})` : "")
                            + (v.alive === false || dead.has(me) ? " (dead: watching)" : "") : "joining…";
  const night = NIGHT.has(v.phase) && !ended;
  $("phase").textContent = ended ? "the end" : !v.day ? "" : night ? `Night ${v.day}`
    : `Day ${v.day}` + (v.phase === "day" ? "" : `, ${v.phase}`);
  document.body.classList.toggle("night", night);
  const buttons = [];
  for (const o of status.options || []) {
    if (!o.command) continue;  // (a chat is typed)
    buttons.push(el("button", {class: `act ${o.action}`, type: "button", "data-command": o.command,
                               onclick: () => send(o.command)}, o.action + (o.target ? ` ${o.target}` : "")));
  }
  if ((status.options || []).length)  // (/ready, or /pass: done for now; a day ends once all have voted and are)
    buttons.push(el("button", {class: "act pass", type: "button", "data-command": "/ready", onclick: () => send("/ready"),
                               title: "done for now: the day ends once everyone has voted and is ready; anything you do after takes it back"},
                    "ready"));
  $("actions").replaceChildren(...(buttons.length ? buttons : [el("p", {class: "muted"}, "Nothing to do now: listen.")]));
  $("choices").hidden = !!ended || !(status.view || (status.options || []).length);  // (not in the lobby)
  const chat = (status.options || []).find((o) => o.action === "chat");
  $("text").placeholder = asking === "name" ? "your name, then Enter"
    : chat ? `talk in the ${chat.room}, or /help` : "a command (/help)";
  const votes = Object.entries(v.votes || {});
  const living = (v.living || []).filter((n) => !dead.has(n));
  $("living").replaceChildren(...living.map((n) => el("li", {}, n + (n === me ? " (you)" : ""))));
  const gone = (v.players || []).filter((n) => !living.includes(n));
  $("dead").textContent = gone.length ? `Dead: ${gone.join(", ")}` : "";
  $("votes").replaceChildren(...votes.map(([a, b]) => el("li", {}, `${a} → ${b}`)));
  $("no-votes").hidden = votes.length > 0;
  $("nobody").hidden = (v.living || []).length > 0;
  drawEnd(me);
}

// the end of the round: who won, and every player's role and points
function drawEnd(me) {
  $("end").hidden = !ended;
  if (!ended) return;
  const w = ended.winner;
  $("end-winner").textContent = (w ? `${w[0].toUpperCase()}${w.slice(1)} won` : "Nobody won") + ` (${ended.reason}).`;
  $("end-winner").className = "end-winner" + (w ? ` winner-${w}` : "");
  $("end-table").tBodies[0].replaceChildren(...Object.entries(ended.roles).map(([n, role]) => {
    const points = ended.points[n] || 0;
    return el("tr", {class: n === me ? "me" : "", "data-name": n},
              el("td", {}, n + (n === me ? " (you)" : "")),
              el("td", {class: `role-${sides[role] || "village"}`}, role),
              el("td", {class: "num"}, points));
  }));
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
  fetch("/api/info").then((r) => r.json()).then((info) => { sides = info.roles || {}; draw(); })
    .catch(() => {});  // (colours only)
  const source = new EventSource(base + "/events");
  window.mawFrames = [];  // everything this page was sent (the tests check its secrecy)
  for (const kind of ["line", "status", "end"])
    source.addEventListener(kind, (e) => window.mawFrames.push({kind, data: JSON.parse(e.data)}));
  source.addEventListener("line", (e) => line(JSON.parse(e.data)));
  source.addEventListener("status", (e) => {
    const s = JSON.parse(e.data);
    if (s.name) { status.name = s.name; asking = null; }
    if (s.role) status.role = s.role;
    if (s.pack) status.pack = s.pack;
    if (s.view) {
      // a new phase's view knows the deaths heard before it
      if (!status.view || s.view.day !== status.view.day || s.view.phase !== status.view.phase) dead = new Set();
      status.view = s.view; asking = null;
    }
    if (s.options) status.options = s.options;
    if (s.seconds !== undefined && s.seconds !== null) status.deadline = performance.now() + 1000 * s.seconds;
    draw();
  });
  source.addEventListener("end", (e) => {
    line({text: `-- ${JSON.parse(e.data).why}`});
    $("status").textContent = "over";
    status.deadline = null; status.options = []; draw();
    for (const id of ["text", "send"]) $(id).disabled = true;  // (nothing goes anywhere now)
    source.close();
  });
  source.onerror = () => { if ($("status").textContent !== "over") $("status").textContent = "reconnecting…"; };
  setInterval(tick, 500);
  window.addEventListener("resize", () => { $("lines").scrollTop = $("lines").scrollHeight; });
  draw();
}

start();
