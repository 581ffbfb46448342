// The dice and cards of a reading, as the table page (the reveal photo) and the teaching page
// (the photo waiting to be taught) show and correct them: each game's faces and colours and
// their labels, the photo with an outline and a tap target for each object, and the correction
// editor's chips. One copy, so a tap corrects the same way on both pages.
"use strict";
const TableObjects = (function () {
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const KINDS = {
    "liars-dice": { faces: ["wheel", "2", "3", "4", "5", "6"], colours: null },
    "pin456": { faces: ["1", "2", "3", "4", "5", "6"], colours: null },
    "nine-dice": { faces: ["プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "フ", "カ"], colours: ["white", "black", "blue", "green"] },
    "doubt": { faces: RANKS, colours: Object.keys(SUITS), cards: true },
  };

  // A value as it may stand in a data-testid (the tests name chips by it).
  const testValue = (v) => String(v).replace(/[^\w\-]/g, (c) => "u" + c.codePointAt(0).toString(16));

  // What a game's objects are: {faces, colours, cards} and the labels and objects made of them.
  function kind(game) {
    const k = KINDS[game];
    const faceLabel = (face) => {
      if (face === "wheel") return fieldText("wheel");
      if (k.cards && face && SUITS[face.slice(-1)]) return face.slice(0, -1) + SUITS[face.slice(-1)];
      return face;
    };
    return {
      ...k,
      faceLabel,
      colourLabel: (c) => (k.cards ? SUITS[c] : fieldText(c)),
      objectLabel: (o) => (k.cards ? faceLabel(o.face) : (o.colour && k.colours ? fieldText(o.colour) + " " : "") + faceLabel(o.face)),
      // A card's suit is part of its face; a die's colour counts only where the game has colours.
      compose: (face, colour) => (k.cards ? { kind: "card", face: face + colour, colour: null }
        : { kind: "die", face, colour: k.colours ? colour : null }),
    };
  }

  function chipRow(box, values, label, onpick, testPrefix, isOn) {
    box.replaceChildren(...values.map((v) => el("button", { "data-testid": `${testPrefix}-${testValue(v)}`,
      class: isOn && isOn(v) ? "on" : "", onclick: () => onpick(v) }, label(v))));
  }

  // Where a tap on the photo lies, in the picture's pixels.
  function tapAt(photo, e, picture) {
    const r = photo.getBoundingClientRect();
    return [(e.clientX - r.left) / r.width * picture.width, (e.clientY - r.top) / r.height * picture.height];
  }

  function nearest(photo, e, picture, objects, fallback) {
    // Tap targets of dice side by side overlap (44 px around small dice): the die whose
    // centre is nearest the tap is the one meant.
    const [x, y] = tapAt(photo, e, picture);
    let best = fallback, bestD = Infinity;
    objects.forEach((o, k) => {
      const d = Math.hypot((o.box[0] + o.box[2]) / 2 - x, (o.box[1] + o.box[3]) / 2 - y);
      if (d < bestD) { best = k; bestD = d; }
    });
    return best;
  }

  // The photo ``picture`` ({src, alt, testid, width, height}) into ``photo`` with each object
  // outlined (``highlight``: the indices to mark) and a tap target over it: a tap opens
  // ``pick(index)``; a tap on nothing ``add(box)``, a box of the others' size where it lies (a
  // die the reader missed).
  function drawPhoto(photo, picture, objects, { label, highlight, pick, add }) {
    photo.replaceChildren(el("img", { src: picture.src, alt: picture.alt, "data-testid": picture.testid }));
    const pct = (v, total) => (100 * v / total) + "%";
    objects.forEach((o, i) => {
      const [x1, y1, x2, y2] = o.box;
      const state = (highlight.has(i) ? " hl" : "") + (o.uncertain ? " unsure" : "") + (o.corrected ? " fixed" : "");
      const outline = el("div", { class: "outline" + state, "data-testid": "object-outline-" + i },
        el("span", { class: "tag" }, label(o)));
      Object.assign(outline.style, { left: pct(x1, picture.width), top: pct(y1, picture.height),
        width: pct(x2 - x1, picture.width), height: pct(y2 - y1, picture.height) });
      const box = el("div", { class: "box" + state, "data-testid": "object-box-" + i, title: label(o), role: "button",
        "aria-label": label(o), onclick: (e) => { e.stopPropagation(); pick(nearest(photo, e, picture, objects, i)); } });
      Object.assign(box.style, { left: pct((x1 + x2) / 2, picture.width), top: pct((y1 + y2) / 2, picture.height),
        width: pct(x2 - x1, picture.width), height: pct(y2 - y1, picture.height) });
      photo.append(outline, box);
    });
    photo.onclick = (e) => {
      const [cx, cy] = tapAt(photo, e, picture);
      const sizes = objects.map((o) => o.box[2] - o.box[0]).filter((w) => w > 0).sort((a, b) => a - b);
      const half = (sizes.length ? sizes[sizes.length >> 1] : picture.width * 0.06) / 2;
      add([cx - half, cy - half, cx + half, cy + half].map((v) => Math.round(v * 10) / 10));
    };
  }

  // The page's correction editor (#editor: face and colour chips, save, delete, cancel) for
  // the objects ``objects()``. ``open({index})`` corrects one, ``open({add: box})`` adds one
  // (its colour first ``colour()``); save calls ``save(target, object)`` with the editor's
  // face and colour composed, delete ``remove(index)``; the editor is closed first.
  function editor(k, { objects, colour, save, remove }) {
    const $ = (id) => document.getElementById(id);
    let target = null;  // {index, face, colour} or {add: box, face, colour}
    function render() {
      if (k.colours) chipRow($("editor-colours"), k.colours, k.colourLabel,
        (c) => { target.colour = c; render(); }, "editor-colour", (c) => c === target.colour);
      chipRow($("editor-faces"), k.faces, k.faceLabel, (f) => { target.face = f; render(); }, "editor-face", (f) => f === target.face);
      $("editor-save").disabled = !target.face;
    }
    function open(what) {
      target = { ...what, face: null, colour: colour() };
      if (what.index !== undefined) {
        const o = objects()[what.index];
        if (k.cards) { target.face = o.face.slice(0, -1); target.colour = o.face.slice(-1); }
        else { target.face = o.face; target.colour = o.colour || target.colour; }
      }
      $("editor-delete").hidden = what.index === undefined;
      $("editor").dataset.index = what.index === undefined ? "" : what.index;
      render();
      $("editor").hidden = false;
    }
    $("editor-cancel").addEventListener("click", () => { $("editor").hidden = true; });
    $("editor-delete").addEventListener("click", () => { $("editor").hidden = true; remove(target.index); });
    $("editor-save").addEventListener("click", () => {
      $("editor").hidden = true;
      save(target, k.compose(target.face, target.colour));
    });
    return { open };
  }

  return { kind, testValue, chipRow, drawPhoto, editor };
})();
