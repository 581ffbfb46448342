// Nine Dice at the table: players shout aloud, and the shouts are entered in the order heard.
// On the laptop: tap who shouted, then the hand (two taps). On a player's own phone (joined
// with the table's QR code, "This phone is ..."): tap "Shout!" as you shout, then the hand
// (two taps); the tap's time goes with it, so shouts are scored in the order tapped.
// Each shout comes back scored in one line; the reward colour is asked only when a
// colour-choosing shout wins; the best hands are shown only once the round is over.
"use strict";
const NineDice = (function () {
  const GRADES = ["白", "黒", "青", "3色", "2色"];
  const WORDS = ["プラス", "ベガス", "ブラフ", "ブベラ"];
  let who = null;      // laptop: the player tapped first
  let buzzedAt = null; // phone: when "Shout!" was tapped (this phone's clock, ms)
  let buzzedRound = 0; // ... in which round (a buzz never carries over to the next roll)
  let picked = 0;      // which best hand's dice are outlined on the photo
  let pickedRoll = null;

  const testValue = (v) => String(v).replace(/[^\w\-]/g, (c) => "u" + c.codePointAt(0).toString(16));
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  const meKey = (table) => "tableref-me-" + table;
  function me(table) { try { return localStorage.getItem(meKey(table)) || ""; } catch (e) { return ""; } }
  function setMe(table, name) { try { localStorage.setItem(meKey(table), name); } catch (e) { /* private mode */ } }

  function roundNumber(s) { return (s.rounds || []).length + (s.round_open ? 1 : 0); }
  function shouted(s) { return new Set((s.shouts || []).map((x) => x.player)); }

  // --- the status card ----------------------------------------------------------------
  function status(view) {
    const s = view.state, out = [];
    if (view.terminal) return out;
    if (s.round_open) {
      out.push(el("p", { class: "turn", "data-testid": "round-status", text: fill(t("round_open"), { n: roundNumber(s) }) }));
      const done = (s.shouts || []).map((x) => `${x.player} ${x.correct ? "✓" : "✗"}`);
      if (done.length) out.push(el("p", { "data-testid": "round-shouted", text: `${t("round_shouted")}: ${done.join(", ")}` }));
      const left = s.players.map((p) => p.name).filter((n) => !shouted(s).has(n));
      out.push(el("p", { "data-testid": "round-waiting", text: `${t("round_waiting")}: ${left.join(", ") || "—"}` }));
    } else {
      const last = (s.rounds || [])[s.rounds.length - 1];
      if (last) {
        const text = last.winner ? fill(t("round_won"), { n: s.rounds.length, player: last.winner, hand: last.hand })
          : fill(t("round_void"), { n: s.rounds.length });
        out.push(el("p", { class: "turn", "data-testid": "round-status", text }));
      }
      out.push(el("p", { "data-testid": "round-next", text: t("round_roll") }));
    }
    out.push(el("p", { class: "help", text: fill(t("round_target"), { n: s.target }) }));
    return out;
  }

  // --- the best hands, once the round is over --------------------------------------------
  function formations(view, reading) {
    if (view.state.round_open || !reading || !reading.verdict || reading.status !== "verdict") return [];
    return (reading.verdict.round && reading.verdict.round.formations) || [];
  }
  function highlight(view, reading) {
    const all = formations(view, reading);
    if (pickedRoll !== reading.id) { pickedRoll = reading.id; picked = 0; }
    return all.length ? all[Math.min(picked, all.length - 1)].dice : [];
  }
  function renderBest(view, reading, rerender) {
    const box = document.getElementById("best-hands");
    if (!box) return;
    const all = formations(view, reading);
    box.hidden = !all.length;
    if (!all.length) { box.replaceChildren(); return; }
    const chips = all.map((f, i) => el("button", { class: i === Math.min(picked, all.length - 1) ? "on" : "",
      "data-testid": "best-hand-" + i, onclick: () => { picked = i; rerender(); } },
      f.hand + (f.dice.length ? ` (${f.dice.length})` : "")));
    box.replaceChildren(el("span", { class: "help", text: t("best_hands") }), el("div", { class: "chips" }, ...chips));
  }

  // --- the shout card ------------------------------------------------------------------
  function handGrid(view, onpick) {
    const tenDice = (view.state.dice || []).length > 9;
    const hands = ((view.aids && view.aids.hands) || []).filter((h) => tenDice || !h.expansion);
    const names = new Set(hands.map((h) => h.hand));
    const fixed = hands.filter((h) => !GRADES.some((g) => h.hand.startsWith(g)));
    const button = (hand) => el("button", { "data-testid": "shout-hand-" + testValue(hand), onclick: () => onpick(hand) }, hand);
    const grid = el("div", { class: "hand-grid", "data-testid": "shout-hands" });
    for (const g of GRADES) for (const w of WORDS) if (names.has(g + w)) grid.append(button(g + w));
    return [el("div", { class: "chips fixed-hands" }, ...fixed.map((h) => button(h.hand))), grid];
  }
  function render(view, ctx) {
    const card = document.getElementById("shout-card");
    if (!card) return;
    const s = view.state;
    const claim = view.aids && view.aids.claim;
    const lines = (view.aids && view.aids.shout_lines) || [];
    const parts = [el("h2", { text: t("shout_title") })];
    if (lines.length) {
      parts.push(el("ol", { class: "shout-lines", "data-testid": "shout-lines" }, ...lines.map((l, i) => el("li", {
        class: l.correct ? "right" : "wrong", "data-testid": "shout-line-" + i, text: l.text[LANG] || l.text.en }))));
    }
    const mine = me(ctx.table);
    if (!s.round_open || roundNumber(s) !== buzzedRound) buzzedAt = null;
    const buzzed = (view.aids && view.aids.buzzed) || [];
    if (buzzed.length && s.round_open) parts.push(el("p", { class: "notice", "data-testid": "shout-buzzed",
      text: fill(t("shout_buzzed"), { players: buzzed.join(", ") }) }));
    if (claim) {
      parts.push(el("div", { class: "claim", "data-testid": "shout-claim" },
        el("p", { text: fill(t("shout_colour"), { player: claim.player, hand: claim.hand }) }),
        el("div", { class: "row" }, ...["white", "black", "blue"].map((c) => el("button", {
          class: "token " + c, "data-testid": "claim-colour-" + c, disabled: !ctx.canPlay,
          onclick: () => ctx.send({ type: "shout", player: claim.player, hand: claim.hand, colour: c }) }, fieldText(c))))));
    } else if (s.round_open && ctx.canPlay && !view.terminal) {
      const open = s.players.map((p) => p.name).filter((n) => !shouted(s).has(n));
      const select = el("select", { "data-testid": "shout-me", onchange: (e) => { setMe(ctx.table, e.target.value); who = null; buzzedAt = null; render(view, ctx); } },
        el("option", { value: "", text: t("shout_me_none") }), ...s.players.map((p) => el("option", { value: p.name, text: p.name })));
      select.value = mine;
      parts.push(el("label", { class: "who-am-i" }, t("shout_me") + " ", select));
      if (!mine) {
        if (!open.includes(who)) who = null;
        parts.push(el("p", { class: "help", text: t("shout_help") }));
        parts.push(el("div", { class: "field" }, el("span", { text: t("shout_who") }), el("div", { class: "chips" },
          ...open.map((n) => el("button", { class: who === n ? "on" : "", "data-testid": "shout-player-" + testValue(n),
            onclick: () => { who = n; render(view, ctx); } }, n)))));
        if (who) {
          parts.push(el("div", { class: "field" }, el("span", { text: t("shout_hand") }),
            ...handGrid(view, (hand) => { const player = who; who = null; ctx.send({ type: "shout", player, hand }); })));
        }
      } else if (open.includes(mine)) {
        if (buzzedAt === null) {
          // The first tap holds Mina's place in the order at once; the hand follows.
          parts.push(el("button", { class: "primary big buzz", "data-testid": "shout-buzz",
            onclick: () => { buzzedAt = Date.now(); buzzedRound = roundNumber(s); render(view, ctx);
              ctx.send({ type: "shout", player: mine, tapped_at: buzzedAt, sent_at: Date.now() }); } }, t("shout_buzz")));
          parts.push(el("p", { class: "help", text: t("shout_buzz_help") }));
        } else {
          const at = buzzedAt;
          parts.push(el("div", { class: "field" }, el("span", { text: `${mine} — ${t("shout_hand")}` }),
            ...handGrid(view, (hand) => { buzzedAt = null; ctx.send({ type: "shout", player: mine, hand, tapped_at: at, sent_at: Date.now() }); })));
          parts.push(el("button", { "data-testid": "shout-cancel", onclick: () => { buzzedAt = null; render(view, ctx);
            ctx.send({ type: "shout", player: mine, cancel: true }); } }, t("shout_cancel")));
        }
      }
    }
    card.hidden = false;
    card.replaceChildren(...parts);
  }
  return { render, status, highlight, renderBest };
})();
