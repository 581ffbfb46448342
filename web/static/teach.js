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

  const KIND = TableObjects.kind(GAME);

  let status = null;     // GET /api/tables/<id>/teaching
  let profiles = [];     // GET /api/profiles
  let objects = [];      // the waiting photo's reading, as corrected here
  let poll = null;

  const objectLabel = KIND.objectLabel;
  const pct = (v) => (100 * v).toFixed(1) + " %";
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => values[k]);

  const call = (method, path, body) => apiOrToast(method, path, body, TOKEN);

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
    TableObjects.drawPhoto(photo, { src: pending.photo, alt: "roll", testid: "teach-image", width: pending.width,
      height: pending.height }, objects, { label: objectLabel, highlight: new Set(),
      pick: (index) => openEditor({ index }), add: (box) => openEditor({ add: box }) });
    $("objects").replaceChildren(...objects.map((o, i) => el("button", {
      class: o.uncertain ? "unsure" : "", "data-testid": "object-" + i, onclick: () => openEditor({ index: i }) }, objectLabel(o))));
  }

  function renderLog() {
    $("teach-log").replaceChildren(...status.taught.map((e) => el("li", { "data-testid": "taught-" + e.id, class: e.undone ? "undone" : "" },
      `${e.created.slice(11, 19)} ${t("teach_source_" + e.source)} ${e.undone ? "(" + t("teach_undone") + ")" : ""} `,
      e.can_undo ? el("button", { "data-testid": "taught-undo-" + e.id, onclick: () => undo(e.id) }, "↶ " + t("undo")) : null)));
  }

  // --- the correction editor (the table page's, on the waiting photo) -----------------------
  const { open: openEditor } = TableObjects.editor(KIND, {
    objects: () => objects,
    colour: () => (KIND.colours ? KIND.colours[0] : null),
    remove: (index) => { objects.splice(index, 1); renderPending(); },
    save: (target, obj) => {
      if (target.index !== undefined) {
        // A card's suit is in its face (its colour is null); a die keeps the colour read where the game has none.
        const colour = KIND.cards || KIND.colours ? { colour: obj.colour } : {};
        objects[target.index] = { ...objects[target.index], face: obj.face, ...colour, corrected: true, uncertain: false, score: 1 };
      } else {
        objects.push({ ...obj, box: target.add, score: 1, corrected: true });
      }
      renderPending();
    },
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
