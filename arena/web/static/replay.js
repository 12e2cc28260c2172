// The replay viewer: draws one frame of a stored game (arena/web/replay.py made the frames by
// replaying the record through the rules engine) as cards, and steps through the frames.
// Every text from the record goes in with textContent, never as markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const frames = data.frames;
  const names = data.names;
  const game = data.game;
  const $ = (id) => document.getElementById(id);
  let index = 0;
  let view = "all"; // "all" or a seat number as a string

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  const CARD_NAMES = data.cards || {}; // each game's own (Game.card_names)

  function card(code) {
    const c = el("span", "card", code);
    c.dataset.card = code;
    const special = CARD_NAMES[code];
    if (special) { c.title = special; c.classList.add("special"); }
    if (code === "K") c.classList.add("king");
    return c;
  }

  function backs(count) {
    const box = el("span", "cards");
    for (let i = 0; i < count; i++) box.appendChild(el("span", "card back", ""));
    return box;
  }

  function cards(list) {
    const box = el("span", "cards");
    for (const code of list) box.appendChild(card(code));
    return box;
  }

  function name(seat) {
    return seat >= 0 && seat < names.length ? names[seat] : String(seat);
  }

  const SEAT_KEYS = new Set(["seat", "target", "author", "from", "to", "starter", "winner", "next"]);

  function value(k, v) {
    if (v === null || v === undefined) return null;
    if (SEAT_KEYS.has(k) && Number.isInteger(v)) return name(v);
    if (k === "places" && Array.isArray(v)) return v.map((p, s) => name(s) + ":" + p).join(" ");
    if (Array.isArray(v)) return "[" + v.map((x) => (typeof x === "object" ? JSON.stringify(x) : x)).join(" ") + "]";
    if (typeof v === "object") return JSON.stringify(v);
    return String(v);
  }

  function describe(obj, skip) {
    const parts = [];
    for (const [k, v] of Object.entries(obj)) {
      if (skip.includes(k)) continue;
      if (k === "private") {
        const seen = (v.to || []).map(name).join(",");
        const hidden = Object.entries(v).filter(([x]) => x !== "to").map(([x, y]) => x + "=" + value(x, y)).join(" ");
        parts.push("(seen by " + seen + " only: " + hidden + ")");
        continue;
      }
      const text = value(k, v);
      if (text !== null) parts.push(k + "=" + text);
    }
    return parts.join(" ");
  }

  // An event as the chosen view saw it: the omniscient view has every hidden part; a seat sees
  // the redaction the engine made for it (arena.games.base.redact, done in Python).
  function eventFor(i) {
    if (view === "all") return data.events[i];
    const red = data.redacted[String(i)];
    return red ? red[Number(view)] : data.events[i];
  }

  function table() {
    const f = frames[index];
    const t = f.table;
    const seat = view === "all" ? null : Number(view);
    const hands = f.hands;
    const turn = f.to_move ? f.to_move.seat : null;

    // The centre: the meter or the draw pile, the discard, whose turn, the direction.
    const center = $("center");
    center.replaceChildren();
    if (game === "reactor") {
      const meter = el("div", "meter");
      meter.appendChild(el("span", "meter-label", "meter"));
      meter.appendChild(el("span", "meter-value", t.meter)).id = "meter";
      const gauge = el("div", "gauge");
      const fill = el("div", "gauge-fill");
      fill.style.width = Math.min(100, (t.meter / 99) * 100) + "%";
      if (t.meter > 89) fill.classList.add("hot");
      gauge.appendChild(fill);
      meter.appendChild(gauge);
      center.appendChild(meter);
      const info = el("div", "info");
      info.appendChild(el("span", "direction", t.direction === 1 ? "direction ↻ left (seat+1)" : "direction ↺ right (seat−1)")).id = "direction";
      info.appendChild(el("span", "", "round " + t.round + " · play " + t.play + " of " + (t.required + t.bonus) +
        (t.pending ? " · next owes two plays" : "")));
      center.appendChild(info);
      const plays = el("div", "pile-box");
      plays.appendChild(el("span", "label", "this round's plays"));
      const row = el("span", "cards");
      for (const p of t.plays) {
        const c = card(p.card);
        c.title = name(p.seat) + " → meter " + p.meter + (p.value ? " (as " + p.value + ")" : "");
        row.appendChild(c);
      }
      plays.appendChild(row);
      plays.id = "discard";
      center.appendChild(plays);
      const pile = el("div", "pile-box");
      pile.appendChild(el("span", "label", "draw pile"));
      pile.appendChild(el("span", "pile-count", t.pile)).id = "pile-count";
      if (seat === null) pile.appendChild(cards(f.pile.slice(0, 12))).classList.add("pile-cards");
      center.appendChild(pile);
      if (t.revealed) {
        const rev = el("div", "pile-box");
        rev.appendChild(el("span", "label", "revealed (round " + t.revealed.round + "): " + name(t.revealed.seat)));
        rev.appendChild(cards(t.revealed.hand));
        center.appendChild(rev);
      }
    } else if (game === "powder-keg") {
      const pile = el("div", "pile-box");
      pile.appendChild(el("span", "label", "draw pile"));
      pile.appendChild(el("span", "pile-count", t.pile)).id = "pile-count";
      pile.appendChild(el("span", "muted", " cards, " + t.kings + " King(s) in it"));
      if (seat === null) {
        const top = el("div", "pile-order");
        top.appendChild(el("span", "label", "top first:"));
        top.appendChild(cards(f.pile));
        top.id = "pile-order";
        pile.appendChild(top);
      }
      center.appendChild(pile);
      const discard = el("div", "pile-box");
      discard.appendChild(el("span", "label", "discard (" + t.discard.length + ")"));
      discard.appendChild(cards(t.discard.slice(-16)));
      discard.id = "discard";
      center.appendChild(discard);
      const info = el("div", "info");
      info.appendChild(el("span", "", "turns owed T=" + t.T + (t.D ? " · doubled" : "") + " · direction ↻ clockwise (seat+1)")).id = "direction";
      info.appendChild(el("span", "muted", "out of the game: " + t.removed.K + " King(s), " + t.removed.Bk + " bucket(s)"));
      if (t.chain) info.appendChild(el("span", "chain", "open play: " + name(t.chain.author) + " " + t.chain.play + " " +
        t.chain.cards.join(" ") + (t.chain.target !== null ? " → " + name(t.chain.target) : "") +
        (t.chain.vetoes.length ? " · vetoed by " + t.chain.vetoes.map(name).join(", ") : "")));
      if (t.favour) info.appendChild(el("span", "", "favour: " + name(t.favour.from) + " asks " + name(t.favour.to)));
      if (t.insert) info.appendChild(el("span", "", "a doused King goes back: index " + t.insert.min + "–" + t.insert.max));
      center.appendChild(info);
    } else {
      // A game this viewer has no table for: its public table as data, and the pile's order.
      const table = el("pre", "table-data", JSON.stringify(t, null, 1));
      table.id = "table-data";
      center.appendChild(table);
      if (seat === null && f.pile.length) center.appendChild(cards(f.pile)).id = "pile-order";
    }

    // The seats: name, tokens or state, hand (face up where this view may see it).
    const seats = $("seats");
    seats.replaceChildren();
    for (let s = 0; s < names.length; s++) {
      const box = el("div", "seat");
      box.id = "seat-" + s;
      if (s === turn) box.classList.add("to-move");
      if (s === seat) box.classList.add("viewer-seat");
      const out = game === "reactor" ? !t.active[s] : Array.isArray(t.active) && !t.active.includes(s);
      if (out) box.classList.add("out");
      const head = el("div", "seat-head");
      head.appendChild(el("span", "seat-no", "seat " + s));
      head.appendChild(el("b", "", name(s)));
      if (s === turn) head.appendChild(el("span", "turn", "to move" + (f.to_move ? " (" + f.to_move.kind + ")" : "")));
      box.appendChild(head);
      if (game === "reactor") {
        const tok = el("div", "tokens", "");
        for (let i = 0; i < t.tokens[s]; i++) tok.appendChild(el("span", "token", "●"));
        tok.appendChild(el("span", "muted", " " + t.tokens[s] + " token(s)"));
        box.appendChild(tok);
      } else if (game === "powder-keg") {
        box.appendChild(el("div", "muted", (t.eliminated.includes(s) ? "blown up" : t.forfeited.includes(s) ? "forfeited" : "in play")));
        const scores = (data.match || {}).scores;
        if (scores) {
          const pts = el("div", "tokens", "");
          pts.id = "points-" + s;
          for (let i = 0; i < scores[s]; i++) pts.appendChild(el("span", "token", "★"));
          pts.appendChild(el("span", "muted", " " + scores[s] + (data.points ? " of " + data.points : "") + " point(s) before this game"));
          box.appendChild(pts);
        }
      }
      const hand = el("div", "hand");
      hand.id = "hand-" + s;
      if (seat === null || seat === s) {
        hand.appendChild(cards(hands[s]));
        hand.dataset.shown = "cards";
      } else {
        hand.appendChild(backs(t.hand_sizes[s]));
        hand.dataset.shown = "backs";
      }
      hand.appendChild(el("span", "muted small", " " + t.hand_sizes[s] + " card(s)"));
      box.appendChild(hand);
      seats.appendChild(box);
    }

    // The decision that led here, and (in a seat's view, at its turn) its request and answer.
    const d = f.decision;
    const dec = $("decision");
    dec.replaceChildren();
    if (d) {
      const line = el("p", "", "decision " + (index - 1) + ": " + name(d.seat) + " → " + describe(d.action, []) +
        (d.auto ? " (its only legal action, applied by the referee)" : "") + (d.ms !== undefined ? " · " + d.ms + " ms" : "") +
        (d.fault ? " · fault: " + d.fault : ""));
      dec.appendChild(line);
    } else {
      dec.appendChild(el("p", "muted", "the deal, before the first decision"));
    }
    const req = $("request");
    req.replaceChildren();
    if (seat !== null) {  // its decision here, and any cover poll it was asked before it
      for (const sd of data.seat_decisions[seat][String(index)] || []) {
        req.appendChild(el("h4", "", (sd.cover ? "A cover poll " + name(seat) + " was asked before decision " :
          "What " + name(seat) + " was shown at decision ") + sd.number + " (" + sd.decision + ")"));
        if (!sd.asked) {
          req.appendChild(el("p", "muted", sd.action.type === "forfeit" ? "not asked: it forfeited" :
            "not asked: its one legal action was applied (it learns it from its next request)"));
        } else {
          const ev = el("ul", "shown-events");
          for (const e of sd.events) ev.appendChild(el("li", "", e.type + ": " + describe(e, ["type"])));
          if (sd.events.length) { req.appendChild(el("p", "label", "events since its last request")); req.appendChild(ev); }
          req.appendChild(el("p", "label", "legal actions (" + sd.legal.length + ")"));
          const legal = el("ul", "legal");
          for (const a of sd.legal) {
            const li = el("li", "", describe(a, []));
            if (JSON.stringify(a) === JSON.stringify(sd.action)) li.classList.add("chosen");
            legal.appendChild(li);
          }
          req.appendChild(legal);
          const obs = el("details", "");
          obs.appendChild(el("summary", "", "the observation, as sent"));
          // null: the observation was this frame's table and the seat's hand, checked when the
          // page was made (arena/web/replay.py), and is rebuilt from them here.
          const shown = sd.observation || Object.assign({}, f.table, {seat: seat, hand: hands[seat]},
            game === "powder-keg" ? {decision: sd.decision} : {});
          obs.appendChild(el("pre", "", JSON.stringify(shown, null, 1)));
          req.appendChild(obs);
        }
        req.appendChild(el("p", "answer", "answered: " + describe(sd.action, []) + (sd.ms !== null && sd.ms !== undefined ? " in " + sd.ms + " ms" : "") +
          (sd.fault ? " · fault: " + sd.fault : "")));
      }
    }

    // The event log: everything up to this frame; this step's events marked.
    const log = $("log");
    log.replaceChildren();
    const start = index > 0 ? frames[index - 1].log : 0;
    let current = null;
    for (let i = 0; i < f.log; i++) {
      const e = eventFor(i);
      const li = el("li", i >= start ? "now" : "", e.type + ": " + describe(e, ["type"]));
      log.appendChild(li);
      if (i >= start && current === null) current = li;
    }
    (current || log.lastElementChild)?.scrollIntoView({block: "nearest"});

    $("slider").value = String(index);
    $("step").textContent = index + " / " + (frames.length - 1);
  }

  function go(i) {
    index = Math.max(0, Math.min(frames.length - 1, i));
    table();
  }

  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(index - 1));
  $("next").addEventListener("click", () => go(index + 1));
  $("last").addEventListener("click", () => go(frames.length - 1));
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("view").addEventListener("change", (e) => { view = e.target.value; table(); });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
    if (e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowRight") { go(index + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(index - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(frames.length - 1); e.preventDefault(); }
  });
  go(0);
})();
