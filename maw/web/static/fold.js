// The observer's fold: the game log's records, in order, folded into what a watcher sees
// at that point (the players, the talk, the votes, the winner...). Pure: the page draws
// what it returns (app.js), live or in a replay, at any point of the game.
"use strict";

function fresh() {
  return {players: {}, order: [], jids: {}, phase: "", day: 0, round: 0, voteRound: 0,
          timer: null, village: [], hideout: [], votes: {}, votesKind: "", winner: null,
          board: {}, gmState: "", t: 0, records: 0, seed: null, votesOpen: true,
          candidates: [], sheriff: null, started: null, outcome: null};
}

function seat(s, name) {
  if (!s.players[name]) {
    s.players[name] = {name, alive: true, role: null, state: "", llm: null, beliefs: null,
                       input: null, calls: 0, tokens: 0, seconds: 0, decisions: 0,
                       refused: null, vote: null, death: null, gone: false, standIn: null};
    s.order.push(name);
  }
  return s.players[name];
}

function line(s, room, entry) { s[room].push({t: s.t, ...entry}); }
function note(s, text, kind = "system", room = "village") { line(s, room, {kind, text}); }

function and(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function phaseName(phase, day) {
  return {day: `Day ${day}`, vote: `Day ${day} · the vote`, whisper: `Night ${day} · the wolves whisper`,
          night: `Night ${day}`, witch: `Night ${day} · the Witch's step`,
          hunt: `Day ${day} · the Hunter's shot`, badge: `Day ${day} · the sheriff's badge`,
          last_words: `Day ${day} · last words`, candidacy: `Day ${day} · who stands for sheriff`,
          campaign: `Day ${day} · the candidates speak`, election: `Day ${day} · the sheriff's election`,
          order: `Day ${day} · the sheriff's speaking order`,
          over: "The end"}[phase] || `Day ${day}, ${phase}`;
}

// a voter's weight: werewolf-12's sheriff counts 1.5 in the day's vote, anyone else 1
function weight(voter, sheriff) { return voter === sheriff ? 1.5 : 1; }

function count(voters, sheriff) { return voters.reduce((n, v) => n + weight(v, sheriff), 0); }

function tallyText(pairs, sheriff) {
  const by = {};
  for (const [voter, target] of pairs) (by[target] ||= []).push(voter);
  return Object.entries(by)
    .sort((a, b) => count(b[1], sheriff) - count(a[1], sheriff) || a[0].localeCompare(b[0]))
    .map(([t, vs]) => `${t} ${count(vs, sheriff)} (${vs.map((v) => v === sheriff ? v + ", the sheriff: 1.5" : v).join(", ")})`)
    .join(" · ");
}

const EVENTS = {
  GameStarted(s, d) {
    for (const n of d.players) { const p = seat(s, n); p.alive = true; p.vote = null; p.death = null; }
    s.order = [...d.players, ...s.order.filter((n) => !d.players.includes(n))];  // seat order
    note(s, `Round ${s.round || 1}: ${d.players.length} players take their seats`);
  },
  RoleAssigned(s, d) { seat(s, d.player).role = d.role; },
  PhaseStarted(s, d) {
    s.phase = d.phase; s.day = d.day; s.voteRound = d.vote_round; s.votes = {}; s.votesKind = "";
    if (!d.vote_round) s.runoff = false;
    s.candidates = d.candidates || []; s.votesOpen = true;
    for (const n of s.order) { s.players[n].vote = null; s.players[n].alive = d.living.includes(n); }
    const again = s.runoff ? "runoff between" : "revote after a tie between";
    const name = phaseName(d.phase, d.day) + (d.vote_round ? ` · ${again} ${and(d.candidates)}` : "");
    note(s, name, "phase", d.audience ? "hideout" : "village");
    if (!d.audience && (d.phase === "night" || d.phase === "whisper")) note(s, name, "phase", "hideout");
  },
  Chatted(s, d) {
    line(s, d.room === "Hideout" ? "hideout" : "village", {kind: "said", speaker: d.speaker, text: d.text});
  },
  VotesOpened(s, d) {
    s.votesOpen = true;
    note(s, d.by === "talk" ? "Everyone has spoken: the votes are open" : "The talk's time is up: the votes are open");
  },
  VoteCast(s, d) {
    if (d.kind === "divine") return note(s, `${d.voter} divines ${d.target}`, "secret");
    s.votes[d.voter] = d.target; s.votesKind = d.kind;
    seat(s, d.voter).vote = d.target;
    if (d.kind === "attack") note(s, `${d.voter} wants to attack ${d.target ?? "nobody"}`, "system", "hideout");
  },
  VotesRevealed(s, d) {
    if (!d.votes.length) return;
    note(s, `${d.kind === "attack" ? "The attack votes" : "The votes"}: ${tallyText(d.votes, d.sheriff)}`, "votes",
         d.kind === "attack" ? "hideout" : "village");
  },
  Executed(s, d) {
    const p = seat(s, d.player); p.alive = false; p.death = {day: d.day, cause: "executed"};
    const drawn = d.drawn && d.drawn.length ? `: a tie between ${and(d.drawn)}, settled by chance` : "";
    note(s, `${d.player} is executed (${d.votes} vote${d.votes === 1 ? "" : "s"})${drawn}`, "death");
  },
  NoExecution(s, d) {
    note(s, d.tied && d.tied.length ? `Nobody is executed: a tie between ${and(d.tied)}` : `Nobody is executed (${d.reason})`);
  },
  Revote(s, d) {
    s.runoff = !!d.runoff;
    note(s, d.runoff ? `A tie between ${and(d.tied)}: a runoff, a vote between them alone; a second tie executes nobody`
                     : `A tie between ${and(d.tied)}: vote again`, "system", d.audience ? "hideout" : "village");
  },
  Murdered(s, d) {
    const p = seat(s, d.player); p.alive = false; p.death = {day: d.day, cause: "murdered"};
    note(s, `${d.player} was murdered in the night`, "death");
  },
  NoMurder(s) { note(s, "Nobody was murdered in the night"); },
  RoleRevealed(s, d) { seat(s, d.player).role = d.role; note(s, `${d.player} was a ${d.role}`, "system", "hideout"); },
  AttackBlocked(s, d) { note(s, `The attack on ${d.target} was blocked`, "system", "hideout"); },
  Divined(s, d) { note(s, `${d.seer} divined ${d.target}: ${d.species}`, "secret"); },
  Guarded(s, d) { note(s, `${d.bodyguard} guards ${d.target}`, "secret"); },
  MediumResult(s, d) { note(s, `${d.medium} read ${d.target}: ${d.species}`, "secret"); },
  Whispered(s, d) { note(s, `${d.speaker} whispers to ${d.target}: ${d.text}`, "secret"); },
  Acted(s, d) {
    if (d.action === "save" || d.action === "poison") {  // a Witch's potion, spent
      const p = seat(s, d.actor); p.potions = (p.potions || ["save", "poison"]).filter((x) => x !== d.action);
    }
    note(s, `${d.actor}: ${d.action} ${d.target}`, "secret");
  },
  NightResult(s, d) { note(s, `${d.actor} learns by ${d.action}: ${d.target} ${d.value}`, "secret"); },
  // werewolf-12: the Witch's potions, the Hunter's shot, the Idiot, the sheriff
  Spared(s, d) {
    seat(s, d.player).role = d.role; seat(s, d.player).spared = true;
    note(s, `${d.player} is voted out but lives: a ${d.role}, who votes no more`, "death");
  },
  Shot(s, d) {
    const p = seat(s, d.target); p.alive = false; p.death = {day: d.day, cause: "shot"};
    seat(s, d.hunter).role = "Hunter";
    note(s, `${d.hunter}, a Hunter, shoots ${d.target}`, "death");
  },
  SpeakingOrder(s, d) { note(s, `Today's speeches in turn: ${d.order.join(", ")}`); },
  Ran(s, d) { note(s, `${d.player} ${d.withdrawn ? "stands down" : "stands for sheriff"}`); },
  SheriffElected(s, d) {
    s.sheriff = d.sheriff || null;
    note(s, d.sheriff ? `${d.sheriff} is elected sheriff${d.votes.length ? ": " + tallyText(d.votes) : ""}`
                      : "No sheriff is elected", "votes");
  },
  BadgePassed(s, d) {
    s.sheriff = d.target || null;
    note(s, d.target ? `${d.sheriff} passes the sheriff's badge to ${d.target}` : `${d.sheriff} tears the badge`);
  },
  Exploded(s, d) {
    const p = seat(s, d.player); p.alive = false; p.death = {day: d.day, cause: "exploded"};
    p.role = "Werewolf";
    note(s, `${d.player} reveals itself as a werewolf and explodes: the day ends`, "death");
  },
  Passed() {},
  Overed() {},
  GameOver(s, d) {
    for (const [n, role] of d.roles) seat(s, n).role = role;
    const won = d.winner ? `${d.winner} ${d.winner.endsWith("s") ? "win" : "wins"}` : "a draw";
    note(s, `The game is over: ${won} (${d.reason})`, "phase");
  },
};

function apply(s, r) {
  s.t = r.t; s.records += 1;
  switch (r.kind) {
    case "started": s.seed = r.seed; s.started = r; break;
    case "join": seat(s, r.player); s.jids[r.jid] = r.player; break;
    case "round":
      s.round = r.round; s.winner = null; s.sheriff = null; s.outcome = null;
      for (const [n, role] of Object.entries(r.roles)) seat(s, n).role = role;
      break;
    case "timer": s.timer = {t: r.t, seconds: r.seconds}; break;
    case "event": (EVENTS[r.event] || (() => {}))(s, r.data); break;
    case "outcome":
      s.winner = {winner: r.winner, reason: r.reason, day: r.day}; s.timer = null; s.outcome = r;
      for (const [n, role] of Object.entries(r.roles)) seat(s, n).role = role;
      for (const [n, pts] of Object.entries(r.points)) s.board[n] = (s.board[n] || 0) + pts;
      break;
    case "state":
      if (r.player) seat(s, r.player).state = r.state; else s.gmState = r.state;
      break;
    case "input": {  // (no options: the same as at the player's previous question)
      if (!r.player) break;
      const p = seat(s, r.player);
      p.input = r.options === undefined && p.input ? {...r, options: p.input.options} : r;
      break;
    }
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
    case "narration": note(s, `🎙 ${r.text}`, "narration"); break;
    case "gone": seat(s, r.player).gone = true; note(s, `${r.player} left the game`); break;
    case "substituted":
      seat(s, r.player).standIn = r.decider;
      note(s, `A ${r.decider} player plays ${r.player}'s seat from the next phase on`);
      break;
    case "returned": { const p = seat(s, r.player); p.gone = false; p.standIn = null; break; }
  }
}

// "maw, 6 players, 2026-11-27 13:05, seed 4: village won on day 3", from a log's records
function gameTitle(records) {
  const started = records.find((r) => r.kind === "started");
  const round = records.find((r) => r.kind === "round");
  const over = [...records].reverse().find((r) => r.kind === "outcome");
  if (!started && !round) return "";
  const players = round ? Object.keys(round.roles).length : started.players;
  const parts = [(round || started).ruleset, `${players} players`];
  if (started && started.wall) parts.push(dateOf(started.wall));
  if (started && started.seed !== undefined) parts.push(`seed ${started.seed}`);
  const end = !over ? "unfinished" : over.winner ? `${over.winner} won on day ${over.day}` : `a draw on day ${over.day}`;
  return `${parts.join(", ")}: ${end}`;
}

function dateOf(wall) {
  const d = new Date(wall * 1000), two = (x) => String(x).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

// a question's options as the log keeps them: action -> its targets (or its room); a
// list of {action, target, room} in logs before 2026-11-25
function optionLabels(options) {
  if (Array.isArray(options)) return options.map((o) => o.action + (o.target ? ` ${o.target}` : ""));
  return Object.entries(options || {}).flatMap(([action, on]) =>
    on.length ? on.map((t) => `${action} ${t}`) : [action]);
}
