// Table page: live state over SSE, legal actions as tap-friendly choices, reveal / re-read,
// the verdict with tap-to-correct on the reveal photo, undo, score, history, odds, invite.
"use strict";
(function () {
  const root = document.getElementById("table");
  const TABLE = root.dataset.tableId;
  const GAME = root.dataset.game;
  const TOKEN = root.dataset.token;
  const $ = (id) => document.getElementById(id);

  const KIND = TableObjects.kind(GAME);
  const { faceLabel, objectLabel, compose } = KIND;
  const { testValue, chipRow } = TableObjects;

  let view = null;
  const selections = {};          // action type -> {field: JSON value}
  let manual = [];                // objects typed by hand for the pending reveal
  let manualColour = KIND.colours ? KIND.colours[0] : null;
  let odds = null;
  let ownDice = [];

  function fieldName(f) {
    // "count" is how many cards (Doubt) or dice (Pin-456): one word would not fit both in Japanese.
    return f === "count" ? t(KIND.cards ? "count_cards" : "count_dice") : fieldText(f);
  }
  const call = (method, path, body) => apiOrToast(method, path, body, TOKEN);
  function apply(result) {
    if (result && result.view) { view = result.view; render(); }
    else if (result && result.seq !== undefined) { view = result; render(); }
  }

  // --- status ---------------------------------------------------------------------------
  function describeBid(bid) {
    if (!bid) return "—";
    const face = bid.face === "wheel" ? fieldText("wheel") : bid.face;
    return LANG === "ja" ? `${face}のダイスが${bid.quantity}個` : `${bid.quantity} × "${face}"`;
  }
  function renderStatus() {
    const s = view.state, box = $("status");
    const lines = [];
    const turn = s.turn || (typeof s.parent === "string" && s.phase === "declare" ? s.parent : null);
    if (view.terminal) {
      let over = t("game_over");
      if (view.winner) over += ` — ${t("winner")}: ${view.winner}`;
      if (s.loser) over += ` — ${t("loser")}: ${s.loser}`;
      if (s.draw) over += ` — ${t("draw")}`;
      lines.push(el("p", { class: "over", "data-testid": "game-over", text: over }));
    } else if (turn) {
      lines.push(el("p", { class: "turn", "data-testid": "turn", text: `${t("turn")}: ${turn}` }));
    }
    if (GAME === "liars-dice") {
      lines.push(el("p", { "data-testid": "standing-bid", text: `${t("bid")}: ${s.bid ? s.bid.player + " — " + describeBid(s.bid) : "—"}` }));
    } else if (GAME === "doubt") {
      lines.push(el("p", { text: `${t("rank")}: ${s.rank || "—"} · ${t("pile")}: ${s.pile ?? 0}` }));
    } else if (GAME === "pin456") {
      if (s.declared) lines.push(el("p", { text: `${fieldText("declare")}: ${s.declared}` }));
      if (s.stake) lines.push(el("p", { text: `${t("stake")}: ${s.stake.amount}P · ${t("guess")}: ${s.stake.guess}` }));
      if (view.aids && view.aids.feasible_sums && view.aids.feasible_sums.length)
        lines.push(el("p", { "data-testid": "feasible-sums", text: `${t("feasible")}: ${view.aids.feasible_sums.join(", ")}` }));
    } else if (GAME === "nine-dice") {
      lines.push(...NineDice.status(view));
    }
    if (view.reading_expected) lines.push(el("p", { "data-testid": "waiting-reading", text: t("waiting_reading") }));
    box.replaceChildren(...lines);
  }

  // --- actions: every legal action, chosen field by field -----------------------------
  function fieldsOf(actions) {
    const order = [];
    for (const a of actions) for (const k of Object.keys(a)) if (k !== "type" && !order.includes(k)) order.push(k);
    order.sort((x, y) => (x === "player" ? -1 : y === "player" ? 1 : 0));
    return order;
  }
  const key = (v) => JSON.stringify(v);
  function matching(actions, sel) {
    return actions.filter((a) => Object.entries(sel).every(([f, v]) => key(a[f]) === v));
  }
  function oddsFor(type, field, action) {
    if (!odds || type !== "bid" || field !== "face") return null;
    const hit = odds.raises.find((r) => r.quantity === action.quantity && r.face === action.face);
    return hit ? hit.probability : null;
  }
  function actionGroup(type, actions) {
    const group = actionChoices(type, actions);
    if (type === "discard" && KIND.cards) {
      // The camera reads the four cards laid down; the rank then needs no choosing.
      const sel = selections[type] || {};
      const players = [...new Set(actions.map((a) => a.player))];
      const who = sel.player !== undefined ? JSON.parse(sel.player) : players.length === 1 ? players[0] : null;
      group.append(el("button", { "data-testid": "discard-camera", disabled: who === null,
        title: who === null ? t("discard_camera_pick") : null,
        text: t("discard_camera") + (who ? ` (${who})` : ""), onclick: () => discardFromCamera(who) }));
    }
    return group;
  }
  async function discardFromCamera(player) {
    toast(t("discard_camera_wait"));
    const result = await call("POST", `/api/tables/${TABLE}/discard-reading`, { player });
    if (result) { delete selections.discard; toast(t("discard_camera_done") + " " + result.cards.map(faceLabel).join(" ")); }
    apply(result);
  }
  function actionChoices(type, actions) {
    const sel = selections[type] || (selections[type] = {});
    const fields = fieldsOf(actions);
    // Drop selections that are no longer possible.
    for (const f of Object.keys(sel)) if (!matching(actions, { [f]: sel[f] }).length) delete sel[f];
    const group = el("div", { class: "action-group", "data-testid": "action-" + type });
    const allSingle = fields.every((f) => new Set(actions.map((a) => key(a[f]))).size === 1);
    // A move with nothing to choose is its button alone: a heading would say the same words again.
    if (!(actions.length === 1 && allSingle)) group.append(el("h3", { text: fieldText(type) }));
    if (actions.length === 1 && allSingle) {
      const a = actions[0];
      const who = a.player || "";
      group.append(el("button", { class: "primary", "data-testid": "do-" + type,
        text: fieldText(type) + (who ? ` (${who})` : "") + (a.fake !== undefined ? `: ${fieldText(String(a.fake))}` : ""),
        onclick: () => send(a) }));
      return group;
    }
    const chosen = {};
    for (const f of fields) {
      const pool = matching(actions, chosen).filter((a) => f in a);
      if (!pool.length) continue;
      const values = [...new Map(pool.map((a) => [key(a[f]), a])).entries()];
      if (values.length === 1) {
        chosen[f] = values[0][0];
        if (sel[f] !== undefined && sel[f] !== values[0][0]) delete sel[f];
        group.append(el("div", { class: "field" }, el("span", { text: fieldName(f) }), el("b", { text: fieldText(JSON.parse(values[0][0])) })));
        continue;
      }
      if (values.every(([v]) => typeof JSON.parse(v) === "number")) values.sort((a, b) => JSON.parse(a[0]) - JSON.parse(b[0]));
      const inPlay = type === "bid" && f === "quantity" && typeof view.state.dice_in_play === "number" ? view.state.dice_in_play : null;
      let over = 0;
      const chips = el("div", { class: "chips" });
      for (const [v, sample] of values) {
        const value = JSON.parse(v);
        const btn = el("button", { "data-testid": `choice-${type}-${f}-${testValue(value)}`, class: sel[f] === v ? "on" : "",
          onclick: () => { sel[f] = v; fields.slice(fields.indexOf(f) + 1).forEach((g) => delete sel[g]); renderActions(); } },
          f === "face" ? faceLabel(value) : fieldText(value));
        if (type === "stake" && f === "guess" && view.aids && view.aids.feasible_sums && view.aids.feasible_sums.includes(value))
          btn.classList.add("feasible");
        if (inPlay !== null && value > inPlay) {
          btn.classList.add("over");
          btn.dataset.over = "true";
          btn.title = t("over_dice").replace("{n}", inPlay);
          over += 1;
        }
        const partial = Object.fromEntries(Object.entries(chosen).map(([k, x]) => [k, JSON.parse(x)]));
        const p = oddsFor(type, f, { ...partial, [f]: value });
        if (p !== null) btn.append(el("span", { class: "pct", text: Math.round(p * 100) + "%" }));
        chips.append(btn);
      }
      group.append(el("div", { class: "field" }, el("span", { text: fieldName(f) }), chips));
      if (over) group.append(el("p", { class: "help", "data-testid": "over-note", text: t("over_dice_note").replace("{n}", inPlay) }));
      if (sel[f] === undefined) break;
      chosen[f] = sel[f];
    }
    const exact = actions.filter((a) => Object.keys(a).filter((k) => k !== "type").every((k) => chosen[k] === key(a[k]))
      && Object.keys(chosen).every((k) => k in a));
    group.append(el("button", { class: "primary", "data-testid": "send-" + type, disabled: exact.length !== 1,
      text: t("send"), onclick: () => send(exact[0]) }));
    return group;
  }
  function renderActions() {
    const box = $("actions");
    const groups = new Map();
    for (const a of view.legal_actions) {
      if (GAME === "nine-dice" && a.type === "shout") continue;  // the shout card enters shouts
      if (!groups.has(a.type)) groups.set(a.type, []);
      groups.get(a.type).push(a);
    }
    if (!groups.size) { box.replaceChildren(el("p", { class: "help", "data-testid": "no-actions", text: t("no_actions") })); return; }
    box.replaceChildren(...[...groups.entries()].map(([type, actions]) => actionGroup(type, actions)));
  }
  async function send(action) {
    const result = await call("POST", `/api/tables/${TABLE}/actions`, action);
    if (result) delete selections[action.type];
    apply(result);
  }

  // --- reveal: camera or by hand ----------------------------------------------------------
  function renderManual() {
    if (KIND.colours) chipRow($("manual-colours"), KIND.colours, KIND.colourLabel,
      (c) => { manualColour = c; renderManual(); }, "manual-colour", (c) => c === manualColour);
    chipRow($("manual-faces"), KIND.faces, faceLabel, (f) => { manual.push(compose(f, manualColour)); renderManual(); }, "manual-face");
    $("manual-list").replaceChildren(...manual.map((o, i) => el("button", { "data-testid": "manual-item-" + i,
      onclick: () => { manual.splice(i, 1); renderManual(); } }, objectLabel(o))));
  }
  function renderReveal() {
    $("reveal-card").hidden = !view.reading_expected;
    renderManual();
  }

  // --- verdict panel with tap-to-correct ----------------------------------------------------
  function hideSpoiler(reading) {
    // Nine Dice: the best hand is the puzzle; show it only once the round is decided.
    return GAME === "nine-dice" && view.state.round_open && reading.status === "verdict";
  }
  function renderVerdict() {
    const reading = view.reading;
    const panel = $("verdict-panel");
    panel.hidden = !reading;
    if (!reading) return;
    panel.dataset.readingId = reading.id;
    panel.dataset.status = reading.status;
    $("reading-status").textContent = reading.status === "verdict" ? "" : t("status_" + reading.status);
    const spoiler = hideSpoiler(reading);
    const summary = reading.verdict && !spoiler ? reading.verdict.summary[LANG] || reading.verdict.summary.en : "";
    $("verdict-summary").textContent = spoiler ? t("dice_read_open").replace("{n}", reading.objects.length) : summary;
    $("reread-prompt").hidden = reading.status !== "reread";
    $("reread-reason").textContent = reading.reason ? (reading.reason.message || reading.reason.messages[LANG]) : "";
    // Nine Dice: the dice of the best hand picked (once the round is over); else the verdict's.
    const highlight = new Set(GAME === "nine-dice" ? NineDice.highlight(view, reading)
      : reading.verdict && !spoiler ? reading.verdict.highlight || [] : []);
    if (GAME === "nine-dice") NineDice.renderBest(view, reading, renderVerdict);
    const photo = $("photo");
    photo.replaceChildren();
    if (reading.snapshot && reading.width && reading.height) {
      TableObjects.drawPhoto(photo, { src: reading.snapshot, alt: "reveal", testid: "reveal-image", width: reading.width,
        height: reading.height }, reading.objects, { label: objectLabel, highlight,
        pick: (index) => openEditor({ index }), add: (box) => openEditor({ add: box }) });
    }
    const chips = reading.objects.map((o, i) => el("button", {
      class: (highlight.has(i) ? "hl" : "") + (o.uncertain ? " unsure" : ""), "data-testid": "object-" + i,
      onclick: () => openEditor({ index: i }) }, objectLabel(o)));
    chips.push(el("button", { "data-testid": "object-add", onclick: () => openEditor({ add: [0, 0, 0, 0] }) }, "+"));
    $("objects").replaceChildren(...chips);
    // Re-read replaces the reading of the last reveal, or reads the pending one.
    $("reread-button").hidden = !((reading.status === "verdict" && reading.event_seq === view.seq - 1) || reading.status === "reread");
    $("corrections").replaceChildren(...reading.corrections.map((c) => el("li", {
      text: `${c.created.slice(11, 19)} ${c.who}: ${c.before.map(objectLabel).join(" ")} → ${c.after.map(objectLabel).join(" ")}` })));
  }
  async function saveCorrection(change) {
    const who = $("who").value.trim() || undefined;
    const result = await call("POST", `/api/tables/${TABLE}/readings/${view.reading.id}/corrections`, { who, changes: [change] });
    apply(result);
  }
  const { open: openEditor } = TableObjects.editor(KIND, {
    objects: () => view.reading.objects,
    colour: () => manualColour,
    remove: (index) => saveCorrection({ index, remove: true }),
    // Only games whose dice colours are chosen here send one: a Liar's Dice die keeps the colour read.
    save: (target, obj) => saveCorrection(target.index !== undefined
      ? { index: target.index, face: obj.face, ...(KIND.colours && !KIND.cards ? { colour: obj.colour } : {}) }
      : { add: { ...obj, box: target.add } }),
  });

  // --- score, history ---------------------------------------------------------------------------
  function renderScore() {
    const sc = view.score;
    const head = el("tr", {}, el("th", { text: t("player") }), ...sc.columns.map((c) => el("th", { text: c[LANG] || c.en })));
    const rows = sc.rows.map((r) => el("tr", { class: (r.out ? "out " : "") + (r.turn ? "turn" : ""), "data-testid": "score-" + r.player },
      el("td", { text: r.player }), ...r.values.map((v) => el("td", { text: v === true ? "★" : v === false ? "—" : String(v) }))));
    $("score").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  }
  function describeEvent(e) {
    const parts = Object.entries(e).filter(([k]) => k !== "type").map(([k, v]) => {
      if (Array.isArray(v)) return v.map((x) => (typeof x === "object" ? objectLabel(x) : faceLabel(x))).join(" ");
      if (v && typeof v === "object") return Object.entries(v).map(([a, b]) => `${a}: ${Array.isArray(b) ? b.map(faceLabel).join(" ") : fieldText(b)}`).join("; ");
      return k === "player" ? v : `${fieldName(k)} ${fieldText(v)}`;
    });
    return `${fieldText(e.type)} ${parts.join(" · ")}`;
  }
  function renderHistory() {
    // A shout's note is its whole result line; a reveal's says who lost what.
    const items = view.history.slice().reverse().map((h) => el("li", { value: h.seq + 1, "data-testid": "history-" + h.seq,
      text: h.note && h.event.type === "shout" ? (h.note[LANG] || h.note.en)
        : describeEvent(h.event) + (h.note ? " — " + (h.note[LANG] || h.note.en) : "") }));
    $("history").replaceChildren(...items);
  }

  // --- odds (Liar's Dice) -----------------------------------------------------------------------
  async function refreshOdds() {
    odds = null;
    if (GAME !== "liars-dice" || !$("odds-toggle").checked || !view || !view.state.turn) { renderOdds(); return; }
    try { odds = await api("POST", `/api/tables/${TABLE}/odds`, { dice: ownDice }); } catch (err) { odds = null; }
    renderOdds();
    renderActions();
  }
  function renderOdds() {
    $("odds-panel").hidden = !$("odds-toggle").checked;
    chipRow($("odds-faces"), TableObjects.kind("liars-dice").faces, faceLabel, (f) => { ownDice.push(f); refreshOdds(); }, "odds-face");
    $("odds-own").replaceChildren(...ownDice.map((f, i) => el("button", { "data-testid": "odds-own-" + i,
      onclick: () => { ownDice.splice(i, 1); refreshOdds(); } }, faceLabel(f))));
    let line = "";
    if (odds) {
      line = `${odds.player}: ${odds.unseen} ${t("unseen")}`;
      if (odds.bid) line += ` · ${t("odds_standing")} (${describeBid(odds.bid)}): ${(odds.bid.probability * 100).toFixed(1)}%`;
    }
    $("odds-result").textContent = line;
  }
  if (GAME === "liars-dice") {
    $("odds-box").hidden = false;
    $("odds-toggle").addEventListener("change", () => { refreshOdds(); renderActions(); });
  }

  // --- invite -----------------------------------------------------------------------------------
  async function renderInvite() {
    if (root.dataset.canInvite !== "true" || !$("qr")) return;
    try {
      const join = await api("GET", `/api/tables/${TABLE}/join`, null, TOKEN);
      $("qr").innerHTML = join.qr_svg;  // our own server's SVG (segno), no scripts in it
      $("join-url").textContent = join.url;
      $("join-url").href = join.url;
    } catch (err) { /* not the host: nothing to show */ }
  }

  // --- everything ---------------------------------------------------------------------------------
  function render() {
    root.dataset.seq = view.seq;
    renderStatus();
    renderActions();
    renderReveal();
    renderVerdict();
    renderScore();
    renderHistory();
    if (GAME === "nine-dice") NineDice.render(view, { table: TABLE, canPlay: Boolean(TOKEN),
      send: async (body) => apply(await call("POST", `/api/tables/${TABLE}/actions`, body)) });
    if (GAME === "liars-dice" && $("odds-toggle").checked) refreshOdds();
  }
  // --- the live video's words: in the page (the stream carries none), in the page's language ---------
  let camera = null;
  let lastSettled = null;
  function renderLive() {
    if (!camera) return;
    const offline = !camera.online;
    $("live").hidden = offline;
    $("live-placard").hidden = !offline;
    $("live-placard").title = camera.last_error || "";
    if (offline) {
      $("placard-head").textContent = camera.source === "none" ? t("camera_none")
        : t(camera.state === "connecting" ? "live_connecting" : "live_offline");
      $("placard-line").textContent = typeof camera.retry_in === "number" ? t("live_retry").replace("{s}", Math.round(camera.retry_in)) : "";
      $("live-caption").hidden = true;
      return;
    }
    let text = t("live_first");
    if (camera.settle === "empty") text = t("live_empty");
    else if (camera.settle === "moving") text = t("live_moving");
    else if (camera.settle === "steady") text = t("live_steady").replace("{p}", Math.round((camera.progress || 0) * 100));
    else if (camera.settle === "settled" && lastSettled)
      text = t(lastSettled.uncertain ? "live_settled_unsure" : "live_settled").replace("{n}", lastSettled.objects);
    else if (camera.settle === "settled") text = t("live_still");
    $("live-caption").textContent = text;
    $("live-caption").hidden = false;
  }
  async function pollLive() {
    // Camera events say online/offline; how still the table is comes from the server's health.
    if (document.visibilityState === "visible" && camera && camera.online) {
      try { const h = await api("GET", "/api/health"); camera = { ...camera, ...h.camera }; renderLive(); } catch (err) { /* next time */ }
    }
    setTimeout(pollLive, 1500);
  }
  function renderCamera(status) {
    camera = status;
    renderLive();
    const badge = $("camera-badge");
    badge.className = "badge " + (status.online ? "online" : "offline");
    badge.dataset.online = status.online ? "true" : "false";
    badge.textContent = `${t("camera")}: ${status.online ? t("online") : t("offline")}`;
    badge.title = status.last_error || status.source || "";
  }

  $("reveal-button").addEventListener("click", async () => {
    const result = await call("POST", `/api/tables/${TABLE}/reveal`, {});
    apply(result);
  });
  $("manual-send").addEventListener("click", async () => {
    const result = await call("POST", `/api/tables/${TABLE}/reveal`, { reading: { objects: manual } });
    if (result) manual = [];
    apply(result);
  });
  $("manual-clear").addEventListener("click", () => { manual = []; renderManual(); });
  $("reread-button").addEventListener("click", async () => {
    apply(await call("POST", `/api/tables/${TABLE}/reread`, {}));
  });
  $("undo-button").addEventListener("click", async () => {
    apply(await call("POST", `/api/tables/${TABLE}/undo`, {}));
  });

  const events = new EventSource(`/api/tables/${TABLE}/events?lang=${LANG}`);
  events.addEventListener("state", (e) => { view = JSON.parse(e.data); render(); });
  events.addEventListener("camera", (e) => renderCamera(JSON.parse(e.data)));
  events.addEventListener("settled", (e) => { lastSettled = JSON.parse(e.data); if (camera) { camera.settle = "settled"; renderLive(); } });
  events.addEventListener("verdict", (e) => {
    const r = JSON.parse(e.data).reading;
    if (r.verdict && !(GAME === "nine-dice")) toast(r.verdict.summary[LANG] || r.verdict.summary.en, "info");
  });
  events.addEventListener("deleted", () => { events.close(); location.href = "/"; });
  events.onopen = () => { $("conn").hidden = true; };
  events.onerror = () => { $("conn").hidden = false; };
  renderInvite();
  setTimeout(pollLive, 1500);
})();
