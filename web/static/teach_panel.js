// Table page: the table's reader profile at a glance: its name and photos, the "teach during
// play" switch, the photos play taught (each can be taken back) and the way to the teaching page.
// It looks again whenever the page's history or corrections change (a reveal or a correction
// may have taught the profile, in the background: so once more a moment later).
"use strict";
(function () {
  const root = document.getElementById("table");
  const card = document.getElementById("teach-card");
  if (!root || !card) return;
  const TABLE = root.dataset.tableId;
  const TOKEN = root.dataset.token;
  const $ = (id) => document.getElementById(id);

  const call = (method, path, body) => apiOrToast(method, path, body, TOKEN);

  function render(s) {
    const p = s.profile;
    $("teach-card-profile").textContent = p ? `${p.name} · ${t("teach_photos").replace("{n}", p.photos)}` +
      (p.ready ? " · " + t("teach_ready") : "") : t("teach_choose_first");
    const learn = $("teach-card-learn");
    learn.checked = s.learn;
    learn.disabled = !p || !TOKEN;
    const played = s.taught.filter((e) => e.source !== "teach").slice(0, 5);
    $("teach-card-log").replaceChildren(...played.map((e) => el("li", { "data-testid": "teach-card-entry-" + e.id },
      `${e.created.slice(11, 19)} ${t("teach_source_" + e.source)}${e.undone ? " (" + t("teach_undone") + ")" : ""} `,
      e.can_undo && TOKEN ? el("button", { "data-testid": "teach-card-undo-" + e.id, onclick: () => undo(e.id) }, "↶ " + t("undo")) : null)));
  }

  async function refresh() {
    const s = await call("GET", `/api/tables/${TABLE}/teaching`);
    if (s) render(s);
  }
  async function undo(id) {
    const s = await call("POST", `/api/tables/${TABLE}/teaching/${id}/undo`, {});
    if (s) render(s);
  }

  $("teach-card-learn").addEventListener("change", async (e) => {
    const s = await call("POST", `/api/tables/${TABLE}/teaching`, { learn: e.target.checked });
    if (s) render(s); else refresh();
  });
  let timers = [];
  const soon = () => {
    timers.forEach(clearTimeout);
    timers = [setTimeout(refresh, 400), setTimeout(refresh, 2500)];
  };
  const watch = new MutationObserver(soon);
  for (const id of ["history", "corrections"]) {
    const node = $(id);
    if (node) watch.observe(node, { childList: true });
  }
  refresh();
})();
