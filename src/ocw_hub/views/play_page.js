"use strict";
// The play page of ocw-hub (src/ocw_hub/views/play_page.py says what it holds and why).
// It holds no rule of its own: it reads the rule set the package wrote into the page
// (DATA.rule_set, ocw_hub.play.rules.page_rules) as ocw_hub.play.rules.apply reads it.
// Every text from the data is set as textContent.
(function () {
  const DATA = JSON.parse(document.getElementById("walls").textContent);
  const R = DATA.rule_set;
  const SIZE = R.group_size;
  const $ = (id) => document.getElementById(id);
  const finished = [];  // per finished wall, its records (guess..., connections?, end)
  let next = 0;         // index of the next wall to start
  let state = null;     // the wall in play (or in its connection round)
  let timer = null;
  let downloaded = 0;   // finished walls in the last log downloaded

  // Code-point order, as Python's sorted() (not UTF-16 units, as Array.prototype.sort).
  function byCodePoint(a, b) {
    const x = Array.from(a), y = Array.from(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d !== 0) return d;
    }
    return x.length - y.length;
  }

  // SHA-256(UTF-8(salt + "\n" + sorted clues joined by "\n")) in hex: group_digest in Python.
  async function digest(salt, clues) {
    const text = salt + "\n" + clues.slice().sort(byCodePoint).join("\n");
    const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function combinations(items, k) {
    const out = [];
    const pick = (start, chosen) => {
      if (chosen.length === k) { out.push(chosen.slice()); return; }
      for (let i = start; i < items.length; i++) {
        chosen.push(items[i]); pick(i + 1, chosen); chosen.pop();
      }
    };
    pick(0, []);
    return out;
  }

  function text(el, value) { el.textContent = value; return el; }
  function make(tag, cls) { const el = document.createElement(tag); if (cls) el.className = cls; return el; }
  function seconds() { return Math.round((performance.now() - state.start) / 100) / 10; }
  function foundIndex(i) { return state.found.some((f) => f.group === i); }

  function livesLeft() {  // as WallState.lives: null while wrong guesses are free
    if (state.found.length < R.free_until && state.livesLost === 0) return null;
    return R.lives - state.livesLost;
  }

  // As log.state_record: the state after a guess, replayed and compared by the engine.
  function stateRecord(s) {
    return {
      groups_found: s.found.map((f) => f.group), guesses: s.guesses, wrong: s.wrong,
      lives_lost: s.livesLost, invalid: s.invalid, ended: s.ended,
    };
  }

  function render() {
    const grid = $("grid");
    grid.replaceChildren();
    const order = state.found.flatMap((f) => f.tiles).concat(state.left);
    for (const tile of order) {
      const button = text(make("button", "tile"), state.wall.clues[tile]);
      button.type = "button";
      button.dataset.tile = String(tile);
      const k = state.found.findIndex((f) => f.tiles.includes(tile));
      if (k >= 0) { button.classList.add("found", "g" + k); button.disabled = true; }
      else if (state.selected.includes(tile)) button.classList.add("selected");
      if (state.ended || state.busy) button.disabled = true;
      button.addEventListener("click", () => select(tile));
      grid.append(button);
    }
    const lives = livesLeft();
    $("lives").hidden = lives === null;
    $("lives").dataset.lives = lives === null ? "" : String(lives);
    text($("lives"), lives === null ? "" : R.lives_label + ": " + lives);
    $("give-up").disabled = Boolean(state.ended);
  }

  function select(tile) {
    if (state.ended || state.busy) return;
    const at = state.selected.indexOf(tile);
    if (at >= 0) state.selected.splice(at, 1); else state.selected.push(tile);
    if (state.selected.length === SIZE) guess(); else render();
  }

  async function oneAway(clues) {
    for (const three of combinations(clues, SIZE - 1)) {
      const d = await digest(state.wall.salt, three);
      if (state.wall.near.some((near, i) => !foundIndex(i) && near.includes(d))) return true;
    }
    return false;
  }

  async function guess() {
    const s = state;
    s.busy = true;
    render();
    const tiles = s.selected.slice();
    const clues = tiles.map((t) => s.wall.clues[t]);
    const d = await digest(s.wall.salt, clues);
    const near = R.one_away ? await oneAway(clues) : false;
    s.busy = false;
    s.selected = [];
    if (s !== state || s.ended) return;  // the clock ran out meanwhile: no guess
    const key = clues.slice().sort(byCodePoint).join("\n");
    const index = s.wall.digests.findIndex((g, i) => g === d && !foundIndex(i));
    const groups = s.wall.digests.length;
    let verdict, reason = null;
    if (R.repeat && s.tried.includes(key)) {  // a wrong guess made again: no guess
      verdict = "invalid";
      reason = R.repeat;
      s.invalid += 1;
      if (s.invalid >= R.max_invalid) s.ended = "frozen_invalid";
    } else if (index >= 0) {
      verdict = "correct";
      s.guesses += 1;
      lock(index, tiles);
      if (s.found.length === groups - 1) {  // the last four clues are a group by themselves
        lock(s.wall.digests.findIndex((_, i) => !foundIndex(i)), s.left.slice());
        s.ended = "solved";
      } else if (s.guesses >= R.max_guesses) s.ended = "frozen_guesses";
    } else {
      s.guesses += 1;
      s.livesLost += s.found.length >= R.free_until ? 1 : 0;
      s.wrong += 1;
      if (s.livesLost >= R.lives) s.ended = "frozen_lives";
      if (!s.ended && s.guesses >= R.max_guesses) s.ended = "frozen_guesses";
      if (R.repeat) s.tried.push(key);
      verdict = near ? "one_away" : "incorrect";
    }
    s.turn += 1;
    s.records.push({
      record: "guess", wall_id: s.wall.wall_id, turn: s.turn, clues: clues,
      invalid: reason, verdict: verdict, state: stateRecord(s), seconds: seconds(),
    });
    const said = { correct: "Right: the group is locked.", incorrect: "Not a group.",
      one_away: "One away: three of the four are a group.",
      invalid: "You made that guess before (" + reason + "): no mistake." }[verdict];
    text($("message"), said);
    $("message").dataset.verdict = verdict;
    $("message").dataset.turn = String(s.turn);
    render();
    if (s.ended) endWall();
  }

  function lock(group, tiles) {
    state.found.push({ group: group, tiles: tiles.slice() });
    state.left = state.left.filter((t) => !tiles.includes(t));
  }

  // The groups not found, from the digests: the 4-clue sets of the tiles left, tried in turn.
  async function resolve() {
    const groups = state.found.map((f) => f.tiles);
    let left = state.left.slice();
    for (let i = 0; i < state.wall.digests.length; i++) {
      if (foundIndex(i)) continue;
      for (const tiles of combinations(left, SIZE)) {
        const d = await digest(state.wall.salt, tiles.map((t) => state.wall.clues[t]));
        if (d === state.wall.digests[i]) {
          groups.push(tiles);
          left = left.filter((t) => !tiles.includes(t));
          break;
        }
      }
    }
    for (let i = 0; i < left.length; i += SIZE) groups.push(left.slice(i, i + SIZE));
    return groups.map((tiles) => tiles.map((t) => state.wall.clues[t]));
  }

  const ENDED = {
    solved: "Wall solved.", frozen_lives: R.lives_label + ": 0. The wall is frozen.",
    frozen_guesses: "Guess limit reached: the wall is frozen.", time: "Time is up: the wall is frozen.",
    frozen_invalid: "Too many guesses made again: the wall is frozen.", gave_up: "Given up.",
  };

  async function endWall() {
    const s = state;
    clearInterval(timer);
    s.selected = [];
    render();
    text($("message"), ENDED[s.ended] + (s.ended === "solved" ? "" : " The groups are shown below."));
    $("message").dataset.ended = s.ended;
    const groups = await resolve();
    s.groups = groups;
    showGroups(groups, R.connection_round);
    if (!R.connection_round) finish(s);
  }

  function showGroups(groups, ask) {
    const list = $("connection-list");
    list.replaceChildren();
    groups.forEach((clues, k) => {
      const item = make("li", "g" + k);
      const shown = make("span", "clues");
      clues.forEach((clue, i) => {
        if (i) shown.append(" · ");
        shown.append(text(make("span", "clue"), clue));
      });
      item.append(shown);
      if (ask) {
        const input = make("input");
        input.type = "text";
        input.maxLength = 200;
        input.dataset.group = String(k);
        input.setAttribute("aria-label", "Connection of group " + (k + 1));
        item.append(" ", input);
      }
      list.append(item);
    });
    text($("connections-title"), ask ? "Connections" : "The groups");
    $("connections-note").hidden = !ask;
    $("connections").hidden = false;
    $("submit-connections").hidden = !ask;
    $("submit-connections").disabled = !ask;
    if (ask) list.querySelector("input").focus();
  }

  $("submit-connections").addEventListener("click", () => {
    const s = state;
    if (!s || !s.ended || !s.groups || s.done) return;
    const answers = Array.from($("connection-list").querySelectorAll("input"), (i) => i.value.trim());
    s.records.push({ record: "connections", wall_id: s.wall.wall_id, groups: s.groups, answers: answers });
    $("submit-connections").disabled = true;
    finish(s);
  });

  function finish(s) {
    s.done = true;
    s.records.push({ record: "end", wall_id: s.wall.wall_id, reason: s.ended });
    finished.push(s.records);
    $("download").disabled = false;
    $("start").hidden = next >= DATA.walls.length;
    text($("start"), "Next wall");
    progress();
  }

  function progress() {
    text($("progress"), DATA.walls.length + " walls; " + finished.length + " finished");
  }

  function start() {
    if (state && !state.done) return;
    const wall = DATA.walls[next];
    next += 1;
    state = {
      wall: wall, left: wall.clues.map((_, i) => i), found: [], selected: [], turn: 0,
      guesses: 0, wrong: 0, livesLost: 0, invalid: 0, tried: [], ended: null, busy: false,
      records: [], start: performance.now(),
    };
    $("start").hidden = true;
    $("board").hidden = false;
    $("connections").hidden = true;
    text($("wall-id"), "Wall " + next + " of " + DATA.walls.length + " (" + wall.wall_id + ")");
    text($("message"), "Pick four clues that belong together.");
    delete $("message").dataset.verdict;
    delete $("message").dataset.turn;
    delete $("message").dataset.ended;
    render();
    if (R.clock_seconds) {
      $("clock").hidden = false;
      const tick = () => {
        const left = Math.max(0, R.clock_seconds - (performance.now() - state.start) / 1000);
        const whole = Math.ceil(left);
        text($("clock"), Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0"));
        if (left <= 0 && !state.ended) { state.ended = "time"; endWall(); }
      };
      tick();
      timer = setInterval(tick, 200);
    }
  }

  $("start").addEventListener("click", start);
  $("give-up").addEventListener("click", () => {
    if (state && !state.ended && !state.busy) { state.ended = "gave_up"; endWall(); }
  });

  $("download").addEventListener("click", () => {
    const header = {
      record: "play", version: DATA.log_version, rules: R.name, max_guesses: R.max_guesses,
      max_invalid: R.max_invalid, config: DATA.config, split: DATA.split,
      player: $("player").value.trim() || "human", player_kind: "human",
      created: new Date().toISOString(),
    };
    const lines = [header].concat(...finished).map((r) => JSON.stringify(r) + "\n");
    const url = URL.createObjectURL(new Blob(lines, { type: "application/x-ndjson" }));
    const a = make("a");
    a.href = url;
    a.download = "play-" + R.name + "-" + DATA.config + "-" + DATA.split + ".jsonl";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    downloaded = finished.length;
    text($("saved"), "log of " + finished.length + " walls downloaded");
  });
  // The page keeps nothing when closed: ask first while finished walls are not downloaded.
  window.addEventListener("beforeunload", (event) => {
    if (finished.length > downloaded) { event.preventDefault(); event.returnValue = ""; }
  });

  text($("rules"), R.summary);
  progress();
})();
