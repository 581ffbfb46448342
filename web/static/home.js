// Home page: create a table (game, players in seat order, options) or import a game log.
"use strict";
(function () {
  const form = document.getElementById("create-form");
  if (!form) return;
  const players = document.getElementById("players");
  const game = document.getElementById("game");
  const SEATS = { "liars-dice": [2, 6], "nine-dice": [2, 5], "doubt": [2, 5], "pin456": [2, 2] };

  function addPlayer(name) {
    const n = players.children.length + 1;
    const input = el("input", { type: "text", maxlength: "32", value: name || "", placeholder: t("player") + " " + n,
                                "data-testid": "player-input-" + n, required: true });
    const remove = el("button", { type: "button", "data-testid": "remove-player-" + n, text: "✕", title: t("remove"),
                                  onclick: () => { li.remove(); renumber(); } });
    const li = el("li", {}, el("span", { class: "seat" }, input, remove));  // one line: the "✕" stays by its name
    players.append(li);
  }
  function renumber() {
    [...players.children].forEach((li, i) => {
      li.querySelector("input").setAttribute("data-testid", "player-input-" + (i + 1));
      li.querySelector("button").setAttribute("data-testid", "remove-player-" + (i + 1));
    });
  }
  function showOptions() {
    for (const box of document.querySelectorAll("#options [data-game]")) box.hidden = box.dataset.game !== game.value;
    const [lo, hi] = SEATS[game.value];
    while (players.children.length < lo) addPlayer();
    while (players.children.length > hi) players.lastElementChild.remove();
    document.getElementById("add-player").disabled = players.children.length >= hi;
  }
  function options() {
    const out = {};
    const box = document.querySelector(`#options [data-game="${game.value}"]`);
    if (!box) return out;
    for (const input of box.querySelectorAll("input, select")) {
      if (input.type === "checkbox") { if (input.checked) out[input.name] = true; }
      else if (input.value !== "") out[input.name] = /^\d+$/.test(input.value) ? Number(input.value) : input.value;
    }
    return out;
  }
  document.getElementById("add-player").addEventListener("click", () => { addPlayer(); showOptions(); });
  game.addEventListener("change", showOptions);
  players.addEventListener("click", () => setTimeout(showOptions, 0));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const names = [...players.querySelectorAll("input")].map((i) => i.value.trim());
    try {
      const out = await api("POST", "/api/tables", { game: game.value, players: names, options: options() });
      location.href = "/t/" + out.table.id;
    } catch (err) { toast(err.message); }
  });
  document.getElementById("import-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    document.getElementById("import-name").textContent = file ? file.name : t("import_none");
  });
  document.getElementById("import-button").addEventListener("click", async () => {
    const file = document.getElementById("import-file").files[0];
    if (!file) return;
    let doc;
    try { doc = JSON.parse(await file.text()); } catch (err) { toast("JSON: " + err.message); return; }
    try {
      const out = await api("POST", "/api/import", doc);
      location.href = "/t/" + out.table.id;
    } catch (err) {
      toast(err.message + (err.error && err.error.event !== undefined && err.error.event !== null ? ` (#${err.error.event})` : ""));
    }
  });
  addPlayer(); addPlayer();
  showOptions();
})();
