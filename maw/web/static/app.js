// MAW's web observer: the game log's records, folded into what a watcher sees.
// The same code follows a live game (server-sent events from /events) and replays a
// finished one (/api/games/ID): a live game and its replay look the same.
"use strict";

const params = new URLSearchParams(location.search);

// ------------------------------------------------------------ the fold

function fresh() {
  return {players: {}, order: [], jids: {}, phase: "", day: 0, round: 0, timer: null,
          village: [], hideout: [], votes: {}, votesKind: "", winner: null, board: {},
          gmState: "", t: 0, records: 0};
}

function seat(s, name) {
  if (!s.players[name]) {
    s.players[name] = {name, alive: true, role: null, state: "", llm: null, beliefs: null,
                       input: null, calls: 0, tokens: 0, seconds: 0, decisions: 0,
                       refused: null, vote: null};
    s.order.push(name);
  }
  return s.players[name];
}

function say(s, line, room = "village") {
  s[room].push({t: s.t, system: true, text: line});
}

const EVENTS = {
  GameStarted(s, d) {
    for (const n of d.players) { const p = seat(s, n); p.alive = true; p.vote = null; }
    s.order = [...d.players, ...s.order.filter((n) => !d.players.includes(n))];  // seat order
    say(s, `Round ${s.round || 1} begins: ${d.players.join(", ")}`);
  },
  RoleAssigned(s, d) { seat(s, d.player).role = d.role; },
  PhaseStarted(s, d) {
    s.phase = d.phase; s.day = d.day; s.votes = {}; s.votesKind = "";
    for (const n of s.order) s.players[n].vote = null;
    for (const n of s.order) s.players[n].alive = d.living.includes(n);
    const what = d.phase === "vote" ? `revote between ${d.candidates.join(", ")}` : d.phase;
    say(s, `Day ${d.day}: ${what}`);
    if (d.phase === "night" || d.phase === "whisper") say(s, `Night ${d.day}`, "hideout");
  },
  Chatted(s, d) {
    s[d.room === "Hideout" ? "hideout" : "village"].push({t: s.t, speaker: d.speaker, text: d.text});
  },
  VotesOpened(s, d) { say(s, d.by === "talk" ? "Everyone has spoken: the votes are open"
                                             : "The votes are open"); },
  VoteCast(s, d) {
    s.votes[d.voter] = d.target; s.votesKind = d.kind;
    seat(s, d.voter).vote = d.target;
    if (d.kind !== "execute") say(s, `${d.voter} attacks ${d.target ?? "nobody"}`, "hideout");
  },
  Executed(s, d) { seat(s, d.player).alive = false; say(s, `${d.player} is executed (${d.votes} votes)`); },
  NoExecution(s, d) { say(s, `Nobody is executed (${d.reason})`); },
  Revote(s, d) { say(s, `A tie between ${d.tied.join(", ")}: vote again`); },
  Murdered(s, d) { seat(s, d.player).alive = false; say(s, `${d.player} was murdered in the night`); },
  NoMurder(s) { say(s, "Nobody was murdered in the night"); },
  RoleRevealed(s, d) { seat(s, d.player).role = d.role; },
  AttackBlocked(s, d) { say(s, `The bodyguard saved ${d.target}`, "hideout"); },
  Divined(s, d) { say(s, `${d.seer} divined ${d.target}: ${d.species}`, "hideout"); },
  MediumResult(s, d) { say(s, `${d.medium} read ${d.target}: ${d.species}`, "hideout"); },
  GameOver(s, d) { say(s, `The game is over: ${d.winner ?? "nobody"} won (${d.reason})`); },
};

function apply(s, r) {
  s.t = r.t; s.records += 1;
  switch (r.kind) {
    case "started": break;
    case "join": seat(s, r.player); s.jids[r.jid] = r.player; break;
    case "round":
      s.round = r.round; s.winner = null;
      for (const [n, role] of Object.entries(r.roles)) seat(s, n).role = role;
      break;
    case "timer": s.timer = {t: r.t, seconds: r.seconds, at: r.arrived}; break;
    case "event": (EVENTS[r.event] || (() => {}))(s, r.data); break;
    case "outcome":
      s.winner = {winner: r.winner, reason: r.reason, day: r.day}; s.timer = null;
      for (const [n, role] of Object.entries(r.roles)) seat(s, n).role = role;
      for (const [n, pts] of Object.entries(r.points)) s.board[n] = (s.board[n] || 0) + pts;
      break;
    case "state":
      if (r.player) seat(s, r.player).state = r.state; else s.gmState = r.state;
      break;
    case "input": if (r.player) seat(s, r.player).input = r; break;
    case "llm": {
      const p = seat(s, r.player);
      p.llm = r; p.calls += r.calls || 0; p.tokens += r.tokens || 0;
      p.seconds += r.seconds || 0; p.decisions += 1;
      break;
    }
    case "beliefs": seat(s, r.player).beliefs = r; break;
    case "msg":
      if (r.type === "refuse" && s.jids[r.to]) seat(s, s.jids[r.to]).refused = r.body.reason;
      break;
  }
}

// ------------------------------------------------------------ drawing

let view = {records: [], upto: 0, live: false, over: false, selected: null, spectator: false};
window.mawArrivals = {};

function secondsLeft(s) {
  if (!s.timer) return null;
  if (view.live && s.timer.at !== undefined)
    return s.timer.seconds - (performance.now() - s.timer.at) / 1000;
  return s.timer.t + s.timer.seconds - s.t;
}

function draw() {
  const s = fresh();
  const upto = view.live ? view.records.length : view.upto;
  for (let i = 0; i < upto; i++) if (view.records[i]) apply(s, view.records[i]);
  view.state = s;
  $("phase").textContent = s.day ? `Day ${s.day}, ${s.phase}` + (s.round > 1 ? ` (round ${s.round})` : "")
                                 : (s.order.length ? "lobby" : "waiting for the game");
  drawTimer();
  $("status").textContent = view.live ? (view.over ? "game over" : "live") : "replay";
  $("status").className = view.live && !view.over ? "live" : "";

  const list = $("players");
  list.replaceChildren(...s.order.map((n) => {
    const p = s.players[n];
    const li = el("li", {class: "player" + (p.alive ? "" : " dead") + (view.selected === n ? " selected" : ""),
                         "data-name": n},
                  el("span", {class: "name"}, n),
                  el("span", {class: "role"}, p.role || ""),
                  el("span", {class: "vote"}, p.vote ? `→ ${p.vote}` : ""));
    li.onclick = () => { view.selected = n; draw(); };
    return li;
  }));
  const w = $("winner");
  w.hidden = !s.winner;
  if (s.winner) w.textContent = `${s.winner.winner ? s.winner.winner + " won" : "a draw"} on day ${s.winner.day} (${s.winner.reason})`;
  // a tournament's standings over its games, else this game's points over its rounds
  const board = view.info && view.info.standings ? view.info.standings
                                                 : Object.entries(s.board).sort((a, b) => b[1] - a[1]);
  $("board-title").textContent = view.info && view.info.standings ? "Tournament standings" : "Leaderboard";
  $("board").tBodies[0].replaceChildren(...board
    .map(([n, pts]) => el("tr", {}, el("td", {}, n), el("td", {class: "num"}, pts))));

  for (const room of ["village", "hideout"]) {
    const ol = $(room);
    const follow = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 20;
    ol.replaceChildren(...s[room].map((line) => line.system
      ? el("li", {class: "line system"}, line.text)
      : el("li", {class: "line"}, el("b", {}, line.speaker + ": "), line.text)));
    if (follow) ol.scrollTop = ol.scrollHeight;
  }
  $("hideout-box").hidden = !s.hideout.some((line) => !line.system || line.text.includes(" attacks "));

  const tally = {};
  for (const [voter, target] of Object.entries(s.votes)) (tally[target ?? "nobody"] ||= []).push(voter);
  $("votes-kind").textContent = s.votesKind;
  $("tally").tBodies[0].replaceChildren(...Object.entries(tally).sort((a, b) => b[1].length - a[1].length)
    .map(([target, voters]) => el("tr", {}, el("td", {}, target), el("td", {class: "num"}, voters.length),
                                     el("td", {class: "voters"}, voters.join(", ")))));
  drawMind(s);
  if (!view.live) {
    $("slider").max = view.records.length; $("slider").value = view.upto;
    $("position").textContent = `${view.upto} / ${view.records.length} records, t = ${s.t.toFixed(1)} s`;
  }
}

function drawTimer() {
  const s = view.state;
  const left = s ? secondsLeft(s) : null;
  $("timer").textContent = left === null || s.winner ? "" : `${Math.max(0, left).toFixed(0)} s left`;
}

function promptText(messages) {
  return messages.map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
}

function drawMind(s) {
  const p = view.selected && s.players[view.selected];
  $("mind").hidden = !p;
  $("mind-hint").hidden = !!p;
  if (!p) return;
  $("mind-name").textContent = p.name;
  const facts = [["alive", p.alive ? "yes" : "no"], ["role", p.role || "hidden"],
                 ["FSM state", p.state || "?"]];
  const r = p.llm;
  if (r) {
    facts.push(["last decision", `${r.outcome}` + (r.decider ? ` (${r.decider})` : "")]);
    if (r.action) facts.push(["action", r.action]);
    if (r.intent) facts.push(["intent", r.intent]);
    if (r.error) facts.push(["error", r.error]);
    if (r.caught && r.caught.length) facts.push(["caught", r.caught.join("; ")]);
    if (r.beliefs_error) facts.push(["beliefs error", r.beliefs_error]);
  }
  if (p.refused) facts.push(["last refusal", p.refused]);
  facts.push(["model", `${p.calls} calls, ${p.tokens} tokens, ${p.seconds.toFixed(1)} s`]);
  if (s.board[p.name] !== undefined) facts.push(["points", s.board[p.name]]);
  $("mind-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  const b = p.beliefs ? p.beliefs.beliefs : {};
  $("beliefs").tBodies[0].replaceChildren(...Object.entries(b).sort((x, y) => y[1] - x[1]).map(([n, v]) =>
    el("tr", {}, el("td", {}, n), el("td", {class: "bar"}, el("span", {style: `width:${(100 * v).toFixed(0)}%`})),
       el("td", {class: "num"}, `${(100 * v).toFixed(0)}%`))));
  if (p.beliefs) $("beliefs").caption || $("beliefs").createCaption();
  if ($("beliefs").caption) $("beliefs").caption.textContent = p.beliefs ? `day ${p.beliefs.day}, ${p.beliefs.phase}` : "";
  const opts = p.input ? p.input.options.map((o) => o.action + (o.target ? ` ${o.target}` : "")) : [];
  $("mind-options").textContent = opts.length ? opts.join(", ") : "(none yet)";
  const prompts = r && r.prompts ? r.prompts : [];
  const last = prompts.length ? prompts[prompts.length - 1] : null;
  $("mind-prompt").textContent = last ? promptText(last) : (r ? "(not in this log)" : "(no model: a rule player)");
  $("mind-prompt-size").textContent = last ? `${last.length} messages, ${promptText(last).length} characters` : "";
  const answers = r && r.answers ? r.answers : (r && r.answer ? [r.answer] : []);
  $("mind-answer").textContent = answers.length ? answers[answers.length - 1] : "";
}

let pending = false;
function redraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; draw(); });
}

// ------------------------------------------------------------ live, replay, archive

// a tournament: when its game is over, the page follows the next one
async function nextGame() {
  view.info = await (await fetch("/api/info")).json();
  redraw();
  if (view.info.title && view.info.live_id !== view.liveId) follow(view.spectator);
  else setTimeout(nextGame, 1000);
}

function follow(spectator) {
  if (view.info) view.liveId = view.info.live_id;
  if (view.source) view.source.close();
  view.records = []; view.live = true; view.over = false;
  view.spectator = spectator;
  const source = new EventSource("/events" + (spectator ? "?spectator=1" : ""));
  view.source = source;
  source.addEventListener("hello", (e) => {
    const h = JSON.parse(e.data);
    $("title").textContent = h.title;
    $("spectator-box").hidden = !h.spectator_allowed;
    $("spectator").checked = h.spectator;
  });
  source.addEventListener("record", (e) => {
    const {i, r} = JSON.parse(e.data);
    window.mawArrivals[i] = Date.now();  // (benchmarks/web_observer.py: update delays)
    if (r.kind === "timer") r.arrived = performance.now();
    view.records[i] = r;
    redraw();
  });
  source.addEventListener("reveal", (e) => {
    for (const {i, r} of JSON.parse(e.data).records) view.records[i] = r;
    redraw();
  });
  source.addEventListener("end", () => {
    view.over = true; source.close(); redraw();
    if (view.info && view.info.tournament) setTimeout(nextGame, 1000);
    $("spectator-box").hidden = true;  // (the game is over: everything was revealed)
    $("live-link").hidden = true;
  });
  source.onerror = () => { if (!view.over) $("status").textContent = "reconnecting…"; };
}

async function replay(id) {
  const res = await fetch(`/api/games/${encodeURI(id)}`);
  if (!res.ok) { $("status").textContent = `no game ${id}`; return; }
  view.records = (await res.json()).records;
  view.live = false; view.upto = 0;
  $("title").textContent = id;
  $("replay").hidden = false;
  draw();
}

let playing = null;
function play() {
  if (playing) { clearInterval(playing); playing = null; $("play").textContent = "▶ play"; return; }
  $("play").textContent = "⏸ pause";
  let clock = view.upto ? view.records[view.upto - 1].t : 0;
  playing = setInterval(() => {
    clock += 0.1 * Number($("speed").value);
    while (view.upto < view.records.length && view.records[view.upto].t <= clock) view.upto++;
    draw();
    if (view.upto >= view.records.length) play();
  }, 100);
}

async function archive() {
  $("archive").hidden = false;
  $("phase").textContent = "";
  $("game").hidden = true;
  const games = (await (await fetch("/api/games")).json()).games;
  $("games").tBodies[0].replaceChildren(...games.map((g) => el("tr", {"data-id": g.id},
    el("td", {}, g.date), el("td", {}, g.ruleset), el("td", {}, g.players.join(", ")),
    el("td", {}, g.winner), el("td", {class: "num"}, g.days), el("td", {class: "num"}, `${g.seconds.toFixed(1)} s`),
    el("td", {}, el("a", {href: `/?game=${encodeURIComponent(g.id)}`, class: "replay-link"}, "replay")))));
  if (!games.length) $("games").tBodies[0].append(el("tr", {}, el("td", {colSpan: 7}, "no game logs here")));
}

async function start() {
  $("mind-close").onclick = () => { view.selected = null; draw(); };
  $("spectator").onchange = (e) => follow(e.target.checked);
  $("play").onclick = play;
  $("step").onclick = () => { if (view.upto < view.records.length) view.upto++; draw(); };
  $("slider").oninput = (e) => { view.upto = Number(e.target.value); draw(); };
  setInterval(() => { if (view.state && view.live && !view.over) drawTimer(); }, 500);
  const info = await (await fetch("/api/info")).json();
  view.info = info;
  if (params.get("game")) { view.info = null; $("game").hidden = false; await replay(params.get("game")); }
  else if (info.live && !params.get("archive")) {
    $("game").hidden = false;
    $("archive-link").hidden = !info.archive;
    if (info.tournament) {
      view.liveId = null; nextGame();
      setInterval(async () => {  // the standings as the games are recorded
        try { view.info = {...view.info, standings: (await (await fetch("/api/info")).json()).standings}; redraw(); }
        catch (e) { /* the tournament is over: the page keeps what it has */ }
      }, 2000);
    }
    else follow(false);
  }
  else { $("live-link").hidden = !info.live; await archive(); }
}

start();
