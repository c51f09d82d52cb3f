// MAW's web observer: the game log's records, folded into what a watcher sees (fold.js),
// drawn. The same code follows a live game (server-sent events from /events) and replays a
// finished one (/api/games/ID): a live game and its replay look the same. The page
// learns the roles' sides from the server (/api/info), never from a list of its own.
"use strict";

const params = new URLSearchParams(location.search);

// ------------------------------------------------------------ drawing

let view = {records: [], upto: 0, live: false, over: false, selected: null, spectator: false,
            tab: "village", hello: null, helloAt: 0, ending: null, info: null, phases: []};
window.mawArrivals = {};

function teamOf(role) {
  const teams = (view.info && view.info.roles) || {};
  return teams[role] || "village";
}

function serverNow() {
  if (!view.hello) return 0;
  return view.hello.now + (performance.now() - view.helloAt) / 1000;
}

function secondsLeft(s) {
  if (!s.timer || s.winner) return null;
  const now = view.live && !view.over ? Math.max(serverNow(), s.t) : s.t;
  return s.timer.t + s.timer.seconds - now;
}

function fold(upto) {
  const s = fresh();
  for (let i = 0; i < upto; i++) if (view.records[i]) apply(s, view.records[i]);
  return s;
}

function draw() {
  if (view.archive) return;  // (the list of past games draws itself)
  const upto = view.live ? view.records.length : view.upto;
  const s = fold(upto);
  view.state = s;
  $("phase").textContent = s.winner ? "the end" : s.day ? phaseName(s.phase, s.day) + (s.voteRound ? (s.runoff ? " · runoff" : " · revote") : "")
                                   + (s.round > 1 ? ` (round ${s.round})` : "")
                                 : (s.order.length ? "the lobby" : (view.over ? "" : "waiting for the game"));
  $("status").textContent = view.live ? (view.over ? "game over" : "live") : (view.records.length ? "replay" : "");
  $("status").className = "pill" + (view.live && !view.over ? " live" : "");
  drawTimer();
  drawBanner(s);
  drawTable(s);
  drawTalk(s);
  drawVotes(s);
  drawMind(s);
  drawEnd(s);
  drawBoard(s);
  drawTimeline(s);
}

function drawBanner(s) {
  const end = view.ending;
  const banner = $("banner");
  let text = "";
  if (s.winner) text = `${s.winner.winner ? s.winner.winner[0].toUpperCase() + s.winner.winner.slice(1) + " won" : "A draw"} on day ${s.winner.day} (${s.winner.reason})`;
  else if (view.over && end && end.why) text = `No game: ${end.why}`;
  else if (view.over && view.live) text = "The game is over";
  banner.hidden = !text;
  banner.className = "banner" + (end && end.why && !s.winner ? " failed" : "");
  $("winner").textContent = text;
  $("replay-start").hidden = !(view.live && view.over && view.records.length);
  const link = $("replay-link");
  link.hidden = !(end && end.replay);
  if (end && end.replay) link.href = `/?game=${encodeURIComponent(end.replay)}`;
}

function drawTimer() {
  const s = view.state;
  const left = s ? secondsLeft(s) : null;
  const text = left === null ? "" : `${Math.max(0, left).toFixed(0)} s left`;
  $("timer").textContent = text;
  $("center-timer").textContent = left === null ? "" : `${Math.max(0, left).toFixed(0)}`;
}

function drawTable(s) {
  const table = $("table");
  // in the lobby, the seats still free: what it waits for (people, or players from elsewhere)
  const free = s.started && !s.day && !s.winner && !view.over ? Math.max(0, s.started.players - s.order.length) : 0;
  const n = s.order.length + free;
  table.classList.toggle("night", s.phase === "night" || s.phase === "whisper");
  const crowded = n > 8;  // (12 seats: short tags, or they run into their neighbours)
  table.classList.toggle("crowded", crowded);
  const width = table.clientWidth || 400;
  const size = Math.round(Math.max(30, Math.min(68, width * 2.3 / Math.max(n, 1) / 1.9)));
  table.style.setProperty("--seat", `${size}px`);
  const at = {};
  const place = (i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    return [50 + 39 * Math.cos(a), 50 + 37 * Math.sin(a)];
  };
  s.order.forEach((name, i) => { at[name] = place(i); });
  const lastSpeaker = [...s.village].reverse().find((x) => x.kind === "said");
  $("players").replaceChildren(...s.order.map((name) => {
    const p = s.players[name];
    const tags = [];
    if (p.death) {
      const when = `${p.death.cause === "murdered" ? "night" : "day"} ${p.death.day}`;
      tags.push(el("span", {class: "tag death", title: `${p.death.cause}, ${when}`},
                   crowded ? `† ${when}` : `${p.death.cause} · ${when}`));
    }
    if (p.gone) tags.push(el("span", {class: "tag left"}, "left"));
    if (s.sheriff === name) tags.push(el("span", {class: "tag sheriff", title: "the sheriff: 1.5 votes"}, "★ sheriff"));
    if (p.role === "Witch") tags.push(el("span", {class: "tag potions", title: "the Witch's potions left"},
                                         `potions: ${(p.potions || ["save", "poison"]).join(", ") || "none"}`));
    if (p.spared) tags.push(el("span", {class: "tag tied"}, "no vote"));
    if (p.standIn) tags.push(el("span", {class: "tag stand-in"}, `stand-in: ${p.standIn}`));
    if (s.candidates.includes(name) && p.alive) tags.push(el("span", {class: "tag tied"}, "tied"));
    const b = el("button", {class: "seat" + (p.alive ? "" : " dead") + (view.selected === name ? " selected" : "")
                                  + (lastSpeaker && lastSpeaker.speaker === name && lastSpeaker.t > s.t - 4 ? " speaking" : ""),
                            type: "button", "data-name": name, title: `${name}: click for its mind`},
      el("span", {class: "face"},
         el("span", {class: "avatar", style: `background:${colour(name)}`}, el("span", {class: "initials"}, name.slice(0, 2))),
         ...(p.alive ? [] : [el("span", {class: "cross", title: "dead"}, "†")])),
      el("span", {class: "name"}, name),
      el("span", {class: "role " + (p.role ? teamOf(p.role) : "")}, p.role || ""),
      el("span", {class: "tags"}, ...tags),
      el("span", {class: "vote"}, p.vote ? `→ ${p.vote}` : ""));
    b.style.left = `${at[name][0]}%`; b.style.top = `${at[name][1]}%`;
    b.onclick = () => { view.selected = name; draw(); };
    return b;
  }), ...Array.from({length: free}, (_, k) => {
    const d = el("div", {class: "seat free", title: "a free seat: the lobby waits for its player"},
                 el("span", {class: "face"}, el("span", {class: "avatar"}, "?")), el("span", {class: "name"}, "free seat"));
    const [x, y] = place(s.order.length + k);
    d.style.left = `${x}%`; d.style.top = `${y}%`;
    return d;
  }));
  const people = Math.min(free, (view.info && view.info.people) || 0);
  $("lobby-note").hidden = !free;
  $("lobby-note").textContent = !free ? "" : people === free
    ? `The lobby waits for ${free === 1 ? "1 person" : `${free} people`}: a seat link, or maw play, takes a free seat.`
    : `The lobby waits for ${free} more player${free === 1 ? "" : "s"} to join.`;
  // each vote, an arrow from the voter to its target
  const r = (size / width) * 50 + 2;
  const lines = [];
  for (const [voter, target] of Object.entries(s.votes)) {
    if (!target || !at[voter] || !at[target]) continue;
    const [x1, y1] = at[voter], [x2, y2] = at[target];
    const d = Math.hypot(x2 - x1, y2 - y1) || 1;
    const k = s.votesKind === "attack" ? "attack" : "execute";
    const ln = document.createElementNS("http://www.w3.org/2000/svg", "line");
    ln.setAttribute("x1", x1 + ((x2 - x1) * r) / d); ln.setAttribute("y1", y1 + ((y2 - y1) * r) / d);
    ln.setAttribute("x2", x2 - ((x2 - x1) * r) / d); ln.setAttribute("y2", y2 - ((y2 - y1) * r) / d);
    ln.setAttribute("class", k); ln.setAttribute("marker-end", `url(#head-${k})`);
    ln.dataset.voter = voter; ln.dataset.target = target;
    lines.push(ln);
  }
  $("arrow-lines").replaceChildren(...lines);
  $("center-phase").textContent = s.winner ? "Game over" : (s.day ? phaseName(s.phase, s.day) : (n ? "Taking seats" : "Waiting"));
  if (free) { $("center-note").textContent = `${s.order.length} of ${n} seated`; return; }
  const counts = {};
  for (const t of Object.values(s.votes)) if (t) counts[t] = (counts[t] || 0) + 1;
  const top = Object.entries(counts).sort((a, b) => b[1] - a[1])[0];
  $("center-note").textContent = s.winner ? `${s.winner.winner ? s.winner.winner + " won" : "a draw"} on day ${s.winner.day}`
    : top ? `${top[0]}: ${top[1]} vote${top[1] > 1 ? "s" : ""}` : (s.day ? `${s.order.filter((x) => s.players[x].alive).length} alive` : "");
}

function chatLine(x) {
  if (x.kind === "said") {
    return el("li", {class: "line"}, el("span", {class: "dot", style: `background:${colour(x.speaker)}`}, x.speaker.slice(0, 2)),
              el("span", {class: "body"}, el("span", {class: "who"}, x.speaker), x.text));
  }
  return el("li", {class: `line system ${x.kind}`}, x.kind === "secret" ? `🔒 ${x.text}` : x.text);
}

function drawTalk(s) {
  const hideout = s.hideout.some((x) => x.kind !== "phase");
  $("tab-hideout").hidden = !hideout;
  if (!hideout && view.tab === "hideout") view.tab = "village";
  for (const room of ["village", "hideout"]) {
    const ol = $(room);
    ol.hidden = view.tab !== room;
    $(`tab-${room}`).classList.toggle("active", view.tab === room);
    const follow = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 30;
    ol.replaceChildren(...(s[room].length ? s[room].map(chatLine)
      : [el("li", {class: "line system"}, "Nothing said yet: the talk shows here as it comes.")]));
    if (follow || !view.live) ol.scrollTop = ol.scrollHeight;
  }
}

function drawVotes(s) {
  const tally = {};
  for (const [voter, target] of Object.entries(s.votes)) if (target) (tally[target] ||= []).push(voter);
  // (the day's vote: a sheriff's counts 1.5; the attack's, every wolf's 1)
  const sheriff = s.votesKind === "attack" ? null : s.sheriff;
  const rows = Object.entries(tally).sort((a, b) => count(b[1], sheriff) - count(a[1], sheriff));
  const most = rows.length ? count(rows[0][1], sheriff) : 1;
  $("votes-kind").textContent = s.votesKind === "attack" ? "the wolves' attack" : (rows.length ? `day ${s.day}` : "");
  $("no-votes").hidden = rows.length > 0;
  $("no-votes").textContent = s.day && !s.votesOpen ? "The votes open after the talk." : "No votes yet.";
  $("tally").tBodies[0].replaceChildren(...rows.map(([target, voters]) => el("tr", {},
    el("td", {}, target), el("td", {class: "bar"}, el("span", {style: `width:${(100 * count(voters, sheriff) / most).toFixed(0)}%`})),
    el("td", {class: "num"}, count(voters, sheriff)), el("td", {class: "voters"}, voters.join(", ")))));
}

function promptText(messages) {
  return messages.map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
}

function drawMind(s) {
  const p = view.selected && s.players[view.selected];
  $("mind").hidden = !p;
  $("mind-hint").hidden = !!p || !s.order.length;
  if (!p) return;
  $("mind-name").textContent = p.name;
  // a live game's watcher is sent no mind (unless the host allows a spectator): say so,
  // rather than show the sections empty
  const secret = view.live && !view.over && !view.spectator;
  const facts = [["alive", p.alive ? "yes" : `no (${p.death ? p.death.cause + " on day " + p.death.day : "dead"})`],
                 ["role", p.role || "hidden"]];
  if (p.state) facts.push(["thinking", p.state]);
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
  if (p.calls) facts.push(["model", `${p.calls} calls, ${p.tokens} tokens, ${p.seconds.toFixed(1)} s`]);
  if (s.board[p.name] !== undefined) facts.push(["points", s.board[p.name]]);
  $("mind-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  const b = p.beliefs ? p.beliefs.beliefs : {};
  const rows = Object.entries(b).sort((x, y) => y[1] - x[1]);
  $("mind-secret").hidden = !secret;
  $("mind-secret").textContent = "Its role, beliefs, questions and prompts show once the game is over"
    + (view.hello && view.hello.spectator_allowed ? ", or now with the spectator switch." : ".");
  $("beliefs-box").hidden = !rows.length;
  $("beliefs").tBodies[0].replaceChildren(...rows.map(([n, v]) =>
    el("tr", {}, el("td", {}, n), el("td", {class: "bar"}, el("span", {style: `width:${(100 * v).toFixed(0)}%`})),
       el("td", {class: "num"}, `${(100 * v).toFixed(0)}%`))));
  const opts = p.input ? optionLabels(p.input.options) : [];
  $("question-box").hidden = !opts.length;
  $("mind-options").textContent = opts.join(", ");
  // the model's side, where there is one: its last prompt and raw answer
  const prompts = r && r.prompts ? r.prompts : [];
  const last = prompts.length ? prompts[prompts.length - 1] : null;
  $("prompt-box").hidden = !last;
  $("mind-prompt").textContent = last ? promptText(last) : "";
  $("mind-prompt-size").textContent = last ? `${last.length} messages, ${promptText(last).length} characters` : "";
  const answers = r && r.answers ? r.answers : (r && r.answer ? [r.answer] : []);
  $("answer-box").hidden = !answers.length;
  $("mind-answer").textContent = answers.length ? answers[answers.length - 1] : "";
}

// the end of a round: every player's role, how it fared and its points
function drawEnd(s) {
  const o = s.outcome;
  $("end-box").hidden = !o;
  if (!o) return;
  $("end-table").tBodies[0].replaceChildren(...s.order.filter((n) => n in o.roles).map((n) => {
    const p = s.players[n];
    // (a line may break after the cause, never inside "night 2")
    const fate = p.death ? `${p.death.cause}, ${p.death.cause === "murdered" ? "night" : "day"}\u00a0${p.death.day}`
                         : p.gone ? "left the game" : "survived";
    return el("tr", {"data-name": n}, el("td", {}, n), el("td", {class: `role-${teamOf(o.roles[n])}`}, o.roles[n]),
              el("td", {class: "fate"}, fate), el("td", {class: "num"}, o.points[n] ?? 0));
  }));
}

function drawBoard(s) {
  // a tournament's standings over its games, else this game's points over its rounds
  // (one round: the end's table has its points)
  const standings = view.info && view.info.standings;
  const board = standings || (s.round > 1 ? Object.entries(s.board).sort((a, b) => b[1] - a[1]) : []);
  $("board-box").hidden = !board.length;
  $("board-title").textContent = standings ? "Tournament standings" : "Leaderboard";
  $("board").tBodies[0].replaceChildren(...board
    .map(([n, pts]) => el("tr", {}, el("td", {}, n), el("td", {class: "num"}, pts))));
}

// ------------------------------------------------------------ the timeline

// the phases of the game: where each starts in the records, for the timeline
function phasesOf(records) {
  const out = [];
  records.forEach((r, i) => {
    if (r.kind === "event" && r.event === "PhaseStarted" && !r.data.vote_round && !r.data.audience)
      out.push({i, t: r.t, day: r.data.day, phase: r.data.phase});
    if (r.kind === "outcome") out.push({i, t: r.t, day: r.day, phase: "over"});
  });
  return out;
}

// where a replay opens: the first phase, the players seated
function opening() {
  const first = view.phases[0];
  return first ? first.i + 1 : Math.min(view.records.length, 1);
}

function drawTimeline(s) {
  const show = !view.live || view.over;
  $("replay").hidden = !show || !view.records.length;
  if ($("replay").hidden) return;
  view.phases = phasesOf(view.records);
  const upto = view.live ? view.records.length : view.upto;
  const end = view.records.length ? view.records[view.records.length - 1].t : 0;
  const strip = $("phases");
  if (strip.dataset.count !== String(view.phases.length)) {
    strip.dataset.count = String(view.phases.length);
    strip.replaceChildren(...view.phases.map((ph, k) => {
      const next = view.phases[k + 1];
      const b = el("button", {type: "button", class: ph.phase === "night" || ph.phase === "whisper" ? "night" : "",
                              title: phaseName(ph.phase, ph.day), "data-i": ph.i},
                   {day: `D${ph.day}`, vote: `V${ph.day}`, whisper: `W${ph.day}`, night: `N${ph.day}`, over: "end"}[ph.phase] || ph.phase);
      b.style.flexGrow = String(Math.max(1, Math.round(((next ? next.t : end) - ph.t) * 10)));
      b.onclick = () => goTo(ph.i + 1);
      return b;
    }));
  }
  const current = view.phases.filter((ph) => ph.i < upto).length - 1;
  [...strip.children].forEach((b, k) => {
    b.classList.toggle("done", k < current); b.classList.toggle("now", k === current);
  });
  $("slider").max = view.records.length; $("slider").value = upto;
  const events = view.records.slice(0, upto).filter((r) => r.kind === "event").length;
  const total = view.records.filter((r) => r.kind === "event").length;
  $("position").textContent = `${s.day ? phaseName(s.phase, s.day) : "before the game"} · event ${events} of ${total} · ${s.t.toFixed(1)} s`;
  $("position").dataset.upto = String(upto);
}

function goTo(upto) {
  if (view.live) { view.live = false; if (view.source) view.source.close(); }
  view.upto = Math.max(0, Math.min(view.records.length, upto));
  draw();
}

// the next (or, with step -1, the last) record that changes what the page shows
function nextEvent(step) {
  let i = view.upto;
  const shown = (r) => r && (r.kind === "event" || r.kind === "outcome");
  if (step > 0) { while (i < view.records.length && !shown(view.records[i])) i++; return i + 1; }
  i -= 1;
  while (i > 0 && !shown(view.records[i - 1])) i--;
  return Math.max(opening(), i);
}

function phaseJump(step) {
  const starts = view.phases.map((ph) => ph.i + 1);
  if (step > 0) return starts.find((x) => x > view.upto) ?? view.records.length;
  const before = starts.filter((x) => x < view.upto);
  return before.length ? before[before.length - 1] : opening();
}

let playing = null;
function playLabel(icon, word) { $("play").replaceChildren(icon, el("span", {class: "long"}, word)); }
function play() {
  if (playing) { clearInterval(playing); playing = null; playLabel("▶", " play"); return; }
  if (view.live) goTo(opening());
  if (view.upto >= view.records.length) view.upto = opening();
  playLabel("⏸", " pause");
  let clock = view.upto ? view.records[view.upto - 1].t : 0;
  playing = setInterval(() => {
    clock += 0.1 * Number($("speed").value);
    while (view.upto < view.records.length && view.records[view.upto].t <= clock) view.upto++;
    draw();
    if (view.upto >= view.records.length) play();
  }, 100);
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
  view.info = {...view.info, ...(await (await fetch("/api/info")).json())};
  redraw();
  if (view.info.title && view.info.live_id !== view.liveId) follow(view.spectator);
  else setTimeout(nextGame, 1000);
}

function follow(spectator) {
  if (view.info) view.liveId = view.info.live_id;
  if (view.source) view.source.close();
  view.records = []; view.live = true; view.over = false; view.ending = null;
  view.spectator = spectator;
  $("phases").dataset.count = "";
  // (one of a server's games: ?watch=ID; else the page's one live game)
  const query = new URLSearchParams();
  if (spectator) query.set("spectator", "1");
  if (params.get("watch")) query.set("game", params.get("watch"));
  const source = new EventSource("/events" + (String(query) ? "?" + query : ""));
  view.source = source;
  source.addEventListener("hello", (e) => {
    const h = JSON.parse(e.data);
    view.hello = h; view.helloAt = performance.now();
    $("title").textContent = h.title;
    $("spectator-box").hidden = !h.spectator_allowed || h.over;
    $("spectator").checked = h.spectator;
  });
  source.addEventListener("record", (e) => {
    const {i, r} = JSON.parse(e.data);
    window.mawArrivals[i] = Date.now();  // (benchmarks/web_observer.py: update delays)
    view.records[i] = r;
    redraw();
  });
  source.addEventListener("reveal", (e) => {
    for (const {i, r} of JSON.parse(e.data).records) view.records[i] = r;
    redraw();
  });
  source.addEventListener("end", (e) => {
    view.over = true; view.ending = JSON.parse(e.data || "{}"); source.close(); redraw();
    if (view.info && view.info.tournament) setTimeout(nextGame, 1000);
    $("spectator-box").hidden = true;  // (the game is over: everything was revealed)
    $("live-link").hidden = true;
  });
  source.onerror = () => { if (!view.over) $("status").textContent = "reconnecting…"; };
}

async function replay(id) {
  const res = await fetch(`/api/games/${encodeURI(id)}`);
  if (!res.ok) { $("title").textContent = `no game ${id}`; return; }
  view.records = (await res.json()).records;
  view.live = false; view.over = true;
  view.phases = phasesOf(view.records);
  view.upto = opening();
  $("title").textContent = gameTitle(view.records) || id;
  $("title").title = id;  // (the log's file, under the archive's folder)
  document.title = `MAW: ${$("title").textContent}`;
  draw();
}

async function archive() {
  view.archive = true;
  $("archive-link").hidden = true;
  $("archive").hidden = false;
  $("game").hidden = true;
  $("phase").textContent = "";
  $("title").textContent = "past games";
  const games = (await (await fetch("/api/games")).json()).games;
  // (each cell says what it is: on a phone a row is a card, its cells labelled)
  const cell = (label, attrs, ...children) => el("td", {...attrs, "data-label": label}, ...children);
  const rows = games.map((g) => el("tr", {"data-id": g.id},
    cell("date", {}, g.date), cell("seed", {class: "num"}, g.seed ?? ""), cell("ruleset", {}, g.ruleset),
    cell("players", {class: "players", title: g.players.join(", ")}, g.players.length ? `${g.players.length}: ${g.players.join(", ")}` : "none (the lobby never filled)"),
    cell("winner", {class: `winner-${g.winner}`}, g.winner), cell("days", {class: "num"}, g.days),
    cell("length", {class: "num"}, `${g.seconds.toFixed(1)} s`),
    cell("", {}, el("a", {href: `/?game=${encodeURIComponent(g.id)}`, class: "replay-link"}, "replay"))));
  const body = $("games").tBodies[0];
  const filter = () => {
    const words = $("search").value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every((w) => text.includes(w));
      shown += !row.hidden;
    }
    $("count").textContent = `${shown} of ${rows.length} game${rows.length === 1 ? "" : "s"}`;
  };
  body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", {colSpan: 8}, "No game logs here yet: play one with maw game."))]));
  $("search").oninput = filter;
  filter();
}

// a server's Hall: its games as they change, each with what one may do (join it, watch it,
// replay it), and the form to create one; joining or creating opens a seat (/hall), whose
// page plays the game
async function hall() {
  $("hall").hidden = false;
  const name = $("hall-name");
  name.value = localStorage.getItem("maw-name") || "";
  name.oninput = () => localStorage.setItem("maw-name", name.value.trim());
  const needName = () => {
    if (name.value.trim()) return false;
    $("hall-note").textContent = "Your name first: the others see it at the table.";
    name.focus();
    return true;
  };
  $("create").onsubmit = (e) => {
    if (needName()) { e.preventDefault(); return; }
    $("create-name").value = name.value.trim();
  };
  const join = (id) => {
    if (needName()) return;
    const q = new URLSearchParams({name: name.value.trim(), join: id});
    if ($("hall-ready").checked) q.set("ready", "1");
    location.href = "/hall?" + q;
  };
  const cell = (label, attrs, ...children) => el("td", {...attrs, "data-label": label}, ...children);
  const state = (t) => ({open: `open: starts in ${Math.round(t.starts_in)} s, or when all are ready`,
    running: "playing", finished: t.result, failed: `failed: ${t.result}`, closed: `closed: ${t.result}`})[t.state];
  let first = true;
  const drawn = new Map();  // each game's row as drawn, and what it showed
  const refresh = async () => {
    let got;
    try { got = await (await fetch("/api/hall")).json(); }
    catch (e) { $("hall-note").textContent = "the server does not answer"; return; }
    if (first) {
      first = false;
      $("create-ruleset").replaceChildren(...got.rulesets.map((r) => el("option", {value: r}, r)));
      $("create-fill").replaceChildren(...got.fills.map((f) => el("option", {value: f}, f)));
    }
    // a row is drawn again only when its game changed (its countdown is only set): a
    // button is never replaced under a person's finger
    const rows = got.tables.map((t) => {
      const mine = t.people.some((p) => p.toLowerCase() === name.value.trim().toLowerCase());
      const sig = JSON.stringify({...t, starts_in: 0, mine});
      const kept = drawn.get(t.id);
      if (kept && kept.sig === sig) { kept.state.textContent = state(t); return kept.row; }
      const people = t.people.length ? t.people.map((p) => t.ready.includes(p)
        ? el("span", {class: "ready", title: "ready"}, `${p} ✓`) : el("span", {}, p)) : ["nobody yet"];
      const act = t.state === "open" && mine ? el("span", {class: "muted"}, "you sit here")
        : t.state === "open" && t.people.length < t.players
        ? el("button", {type: "button", onclick: () => join(t.id)}, "join")
        : t.live ? el("a", {href: `/?watch=${t.id}`, class: "watch-link"}, "watch")
        : t.replay ? el("a", {href: `/?game=${encodeURIComponent(t.replay)}`, class: "replay-link"}, "replay") : "";
      const stateCell = cell("state", {class: `state-${t.state}`}, state(t));
      const row = el("tr", {"data-id": t.id}, cell("game", {}, t.id), cell("ruleset", {}, t.ruleset),
        cell("seats", {class: "num"}, `${t.people.length} of ${t.players} (${t.fill} fill the rest)`
          + (t.aiwolf ? `; AIWolf agents ${t.agents.length} of ${t.aiwolf}` + (t.aiwolf_url && t.state === "open" ? ` at ${t.aiwolf_url}` : "") : "")),
        cell("people", {}, ...people.flatMap((p, i) => i ? [", ", p] : [p])),
        stateCell, cell("", {}, act));
      drawn.set(t.id, {sig, row, state: stateCell});
      return row;
    });
    const body = $("hall-games").tBodies[0];
    const now = [...body.children];
    if (!rows.length) body.replaceChildren(el("tr", {}, el("td", {colSpan: 6}, "No games yet: create one below.")));
    else if (rows.length !== now.length || rows.some((r, i) => r !== now[i])) body.replaceChildren(...rows);
  };
  await refresh();
  setInterval(refresh, 1000);
}

async function start() {
  $("mind-close").onclick = () => { view.selected = null; draw(); };
  $("spectator").onchange = (e) => follow(e.target.checked);
  $("play").onclick = play;
  $("step").onclick = () => goTo(nextEvent(1));
  $("back").onclick = () => goTo(nextEvent(-1));
  $("next-phase").onclick = () => goTo(phaseJump(1));
  $("prev-phase").onclick = () => goTo(phaseJump(-1));
  $("replay-start").onclick = () => goTo(opening());
  $("slider").oninput = (e) => goTo(Number(e.target.value));
  $("tab-village").onclick = () => { view.tab = "village"; draw(); };
  $("tab-hideout").onclick = () => { view.tab = "hideout"; draw(); };
  window.addEventListener("resize", redraw);
  setInterval(() => { if (view.state && view.live && !view.over) drawTimer(); }, 500);
  const info = await (await fetch("/api/info")).json();
  view.info = info;
  $("archive-link").hidden = !info.archive;
  $("hall-link").hidden = !info.hall;
  if (params.get("game")) { $("game").hidden = false; await replay(params.get("game")); }
  else if (params.get("watch")) { $("game").hidden = false; follow(false); }
  else if (info.live && !params.get("archive")) {
    $("game").hidden = false;
    if (info.tournament) {
      view.liveId = null; nextGame();
      setInterval(async () => {  // the standings as the games are recorded
        try { view.info = {...view.info, standings: (await (await fetch("/api/info")).json()).standings}; redraw(); }
        catch (e) { /* the tournament is over: the page keeps what it has */ }
      }, 2000);
    }
    else follow(false);
  }
  else {
    $("live-link").hidden = !info.live;
    const atHall = info.hall && !params.get("archive");
    await archive();
    if (atHall) { $("title").textContent = "the Hall"; await hall(); }
  }
}

start();
