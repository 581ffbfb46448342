// Teaching page: choose or manage the table's reader profile, read a roll, confirm it or tap a
// die on the photo to correct it first (the table page's editor), see how well the profile
// reads rolls held out from its teaching, and take back any photo taught.
"use strict";
(function () {
  const root = document.getElementById("teach");
  const TABLE = root.dataset.tableId;
  const GAME = root.dataset.game;
  const TOKEN = root.dataset.token;
  const HOST = root.dataset.host === "true";
  const $ = (id) => document.getElementById(id);

  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const KINDS = {
    "liars-dice": { faces: ["wheel", "2", "3", "4", "5", "6"], colours: null },
    "pin456": { faces: ["1", "2", "3", "4", "5", "6"], colours: null },
    "nine-dice": { faces: ["プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "フ", "カ"], colours: ["white", "black", "blue", "green"] },
    "doubt": { faces: RANKS, colours: Object.keys(SUITS), cards: true },
  };
  const KIND = KINDS[GAME];

  let status = null;     // GET /api/tables/<id>/teaching
  let profiles = [];     // GET /api/profiles
  let objects = [];      // the waiting photo's reading, as corrected here
  let editor = null;     // {index} or {add: box}
  let poll = null;

  const faceLabel = (face) => face === "wheel" ? fieldText("wheel")
    : KIND.cards && face && SUITS[face.slice(-1)] ? face.slice(0, -1) + SUITS[face.slice(-1)] : face;
  const objectLabel = (o) => KIND.cards ? faceLabel(o.face) : (o.colour && KIND.colours ? fieldText(o.colour) + " " : "") + faceLabel(o.face);
  const testValue = (v) => String(v).replace(/[^\w\-]/g, (c) => "u" + c.codePointAt(0).toString(16));
  const pct = (v) => (100 * v).toFixed(1) + " %";
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => values[k]);

  async function call(method, path, body) {
    try {
      return await api(method, path, body, TOKEN);
    } catch (err) {
      toast(err.message);
      return null;
    }
  }

  async function refresh() {
    const [s, p] = await Promise.all([call("GET", `/api/tables/${TABLE}/teaching`), call("GET", "/api/profiles")]);
    if (p) profiles = p;
    if (s) show(s);
  }

  function show(s) {
    const fresh = !status || !s.pending || !status.pending || status.pending.id !== s.pending.id;
    status = s;
    if (fresh) objects = s.pending ? s.pending.objects.map((o) => ({ ...o })) : [];
    render();
    clearTimeout(poll);
    const held = s.profile && s.profile.held_out;
    if (held && (held.computing || !held.current)) poll = setTimeout(refresh, 1500);
  }

  function render() {
    const pid = status.profile ? status.profile.id : "";
    $("profile-select").replaceChildren(el("option", { value: "", text: t("teach_none") }),
      ...profiles.map((p) => el("option", { value: p.id, selected: p.id === pid, text: `${p.name} (${p.photos})` })));
    $("profile-select").value = pid;
    if (HOST) {
      $("profile-export").hidden = !pid;
      $("profile-export").href = pid ? `/api/profiles/${pid}/export` : "#";
      $("profile-delete").hidden = !pid;
    }
    $("learn-toggle").checked = status.learn;
    renderScore();
    renderPending();
    renderLog();
  }

  function renderScore() {
    const p = status.profile;
    const rule = status.ready_when;
    $("teach-photos").textContent = p ? fill(t("teach_photos"), { n: p.photos }) : t("teach_choose_first");
    const held = p && p.held_out;
    let line = p ? t("teach_held_out_none") : "";
    if (held && held.accuracy !== undefined && held.accuracy !== null) {
      line = fill(t("teach_held_out"), { acc: pct(held.accuracy), wrong: pct(held.confidently_wrong), dice: held.dice });
      if (!held.current) line += " " + t("teach_measuring");
    } else if (held && (held.computing || !held.current)) line = t("teach_measuring");
    $("teach-held-out").textContent = line;
    const ready = $("teach-ready");
    ready.dataset.ready = p && p.ready ? "true" : "false";
    ready.textContent = !p ? "" : p.ready ? t("teach_ready")
      : fill(t("teach_not_ready"), { photos: rule.photos, acc: pct(rule.accuracy), wrong: pct(rule.confidently_wrong) });
  }

  function renderPending() {
    const pending = status.pending;
    $("teach-pending").hidden = !pending;
    $("teach-read").disabled = !status.profile;
    const photo = $("photo");
    photo.replaceChildren();
    if (!pending) { $("objects").replaceChildren(); return; }
    photo.append(el("img", { src: pending.photo, alt: "roll", "data-testid": "teach-image" }));
    const size = (v, total) => (100 * v / total) + "%";
    objects.forEach((o, i) => {
      const [x1, y1, x2, y2] = o.box;
      const state = (o.uncertain ? " unsure" : "") + (o.corrected ? " fixed" : "");
      const outline = el("div", { class: "outline" + state, "data-testid": "object-outline-" + i }, el("span", { class: "tag" }, objectLabel(o)));
      Object.assign(outline.style, { left: size(x1, pending.width), top: size(y1, pending.height),
        width: size(x2 - x1, pending.width), height: size(y2 - y1, pending.height) });
      const box = el("div", { class: "box" + state, "data-testid": "object-box-" + i, role: "button", title: objectLabel(o),
        "aria-label": objectLabel(o), onclick: (e) => { e.stopPropagation(); openEditor({ index: nearest(e, i) }); } });
      Object.assign(box.style, { left: size((x1 + x2) / 2, pending.width), top: size((y1 + y2) / 2, pending.height),
        width: size(x2 - x1, pending.width), height: size(y2 - y1, pending.height) });
      photo.append(outline, box);
    });
    photo.onclick = (e) => {
      // A die the reader missed: tap where it lies to add it, with the size of the others.
      const r = photo.getBoundingClientRect();
      const cx = (e.clientX - r.left) / r.width * pending.width, cy = (e.clientY - r.top) / r.height * pending.height;
      const sizes = objects.map((o) => o.box[2] - o.box[0]).sort((a, b) => a - b);
      const half = (sizes.length ? sizes[sizes.length >> 1] : pending.width * 0.06) / 2;
      openEditor({ add: [cx - half, cy - half, cx + half, cy + half].map((v) => Math.round(v * 10) / 10) });
    };
    $("objects").replaceChildren(...objects.map((o, i) => el("button", {
      class: o.uncertain ? "unsure" : "", "data-testid": "object-" + i, onclick: () => openEditor({ index: i }) }, objectLabel(o))));
  }

  function nearest(e, fallback) {
    const pending = status.pending;
    const r = $("photo").getBoundingClientRect();
    const x = (e.clientX - r.left) / r.width * pending.width, y = (e.clientY - r.top) / r.height * pending.height;
    let best = fallback, bestD = Infinity;
    objects.forEach((o, k) => {
      const d = Math.hypot((o.box[0] + o.box[2]) / 2 - x, (o.box[1] + o.box[3]) / 2 - y);
      if (d < bestD) { best = k; bestD = d; }
    });
    return best;
  }

  function renderLog() {
    $("teach-log").replaceChildren(...status.taught.map((e) => el("li", { "data-testid": "taught-" + e.id, class: e.undone ? "undone" : "" },
      `${e.created.slice(11, 19)} ${t("teach_source_" + e.source)} ${e.undone ? "(" + t("teach_undone") + ")" : ""} `,
      e.can_undo ? el("button", { "data-testid": "taught-undo-" + e.id, onclick: () => undo(e.id) }, "↶ " + t("undo")) : null)));
  }

  // --- the correction editor (the table page's, on the waiting photo) -----------------------
  function openEditor(target) {
    editor = { ...target, face: null, colour: KIND.colours ? KIND.colours[0] : null };
    if (target.index !== undefined) {
      const o = objects[target.index];
      if (KIND.cards) { editor.face = o.face.slice(0, -1); editor.colour = o.face.slice(-1); }
      else { editor.face = o.face; editor.colour = o.colour || editor.colour; }
    }
    $("editor-delete").hidden = target.index === undefined;
    renderEditor();
    $("editor").hidden = false;
  }
  function chipRow(box, values, label, onpick, prefix, isOn) {
    box.replaceChildren(...values.map((v) => el("button", { "data-testid": `${prefix}-${testValue(v)}`, class: isOn(v) ? "on" : "",
      onclick: () => onpick(v) }, label(v))));
  }
  function renderEditor() {
    if (KIND.colours) chipRow($("editor-colours"), KIND.colours, (c) => (KIND.cards ? SUITS[c] : fieldText(c)),
      (c) => { editor.colour = c; renderEditor(); }, "editor-colour", (c) => c === editor.colour);
    chipRow($("editor-faces"), KIND.faces, faceLabel, (f) => { editor.face = f; renderEditor(); }, "editor-face", (f) => f === editor.face);
    $("editor-save").disabled = !editor.face;
  }
  $("editor-cancel").addEventListener("click", () => { $("editor").hidden = true; });
  $("editor-delete").addEventListener("click", () => {
    objects.splice(editor.index, 1);
    $("editor").hidden = true;
    renderPending();
  });
  $("editor-save").addEventListener("click", () => {
    const kind = KIND.cards ? "card" : "die";
    const face = KIND.cards ? editor.face + editor.colour : editor.face;
    const colour = KIND.cards ? null : KIND.colours ? editor.colour : undefined;
    if (editor.index !== undefined) {
      const o = objects[editor.index];
      objects[editor.index] = { ...o, face, ...(colour !== undefined ? { colour } : {}), corrected: true, uncertain: false, score: 1 };
    } else {
      objects.push({ kind, face, colour: colour === undefined ? null : colour, box: editor.add, score: 1, corrected: true });
    }
    $("editor").hidden = true;
    renderPending();
  });

  // --- actions ----------------------------------------------------------------------------------
  async function readRoll() {
    $("teach-read").disabled = true;
    $("teach-wait").hidden = false;
    const s = await call("POST", `/api/tables/${TABLE}/teaching/read`, {});
    $("teach-wait").hidden = true;
    $("teach-read").disabled = false;
    if (s) show(s);
  }
  async function confirm() {
    $("teach-confirm").disabled = true;
    const sent = objects.map(({ alternatives, ...o }) => o);
    const s = await call("POST", `/api/tables/${TABLE}/teaching/confirm`, { photo: status.pending.id, objects: sent });
    $("teach-confirm").disabled = false;
    if (s) { await refreshProfiles(); show(s); }
  }
  async function undo(id) {
    const s = await call("POST", `/api/tables/${TABLE}/teaching/${id}/undo`, {});
    if (s) { await refreshProfiles(); show(s); }
  }
  async function refreshProfiles() {
    const p = await call("GET", "/api/profiles");
    if (p) profiles = p;
  }
  async function choose(pid) {
    const s = await call("POST", `/api/tables/${TABLE}/teaching`, { profile: pid || null });
    if (s) show(s); else render();
  }

  $("teach-read").addEventListener("click", readRoll);
  $("teach-confirm").addEventListener("click", confirm);
  $("teach-discard").addEventListener("click", () => { status.pending = null; objects = []; renderPending(); });
  $("profile-select").addEventListener("change", (e) => choose(e.target.value));
  $("learn-toggle").addEventListener("change", async (e) => {
    const s = await call("POST", `/api/tables/${TABLE}/teaching`, { learn: e.target.checked });
    if (s) show(s);
  });
  if (HOST) {
    $("profile-create").addEventListener("click", async () => {
      const name = $("profile-name").value.trim();
      const p = name ? await call("POST", "/api/profiles", { name }) : null;
      if (!name) toast(t("teach_new_name"));
      if (p) { $("profile-name").value = ""; await refreshProfiles(); await choose(p.id); }
    });
    $("profile-rename").addEventListener("click", async () => {
      const name = $("profile-name").value.trim();
      if (!status.profile || !name) return toast(status.profile ? t("teach_new_name") : t("teach_choose_first"));
      if (await call("POST", `/api/profiles/${status.profile.id}/rename`, { name })) { $("profile-name").value = ""; refresh(); }
    });
    $("profile-delete").addEventListener("click", async () => {
      if (!status.profile || !window.confirm(t("teach_delete_confirm"))) return;
      if (await call("DELETE", `/api/profiles/${status.profile.id}`)) refresh();
    });
    $("profile-import").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      const response = await fetch(`/api/profiles/import?lang=${LANG}`, { method: "POST", body: file,
        headers: { "Content-Type": "application/zip", "Accept-Language": LANG } });
      const data = await response.json().catch(() => null);
      e.target.value = "";
      if (!response.ok) return toast((data && data.error && data.error.message) || response.statusText);
      await refreshProfiles();
      await choose(data.id);
    });
  }
  refresh();
})();
