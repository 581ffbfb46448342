// Shared helpers: texts in the page's language, JSON API calls, the error toast.
"use strict";
const I18N = JSON.parse(document.getElementById("i18n").textContent);
const LANG = I18N.lang;

function t(key) {
  const entry = I18N.strings[key] || I18N.fields[key];
  return entry ? (entry[LANG] || entry.en) : key;
}

function fieldText(value) {
  const entry = I18N.fields[String(value)];
  return entry ? (entry[LANG] || entry.en) : String(value);
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

let toastTimer = null;
function toast(message, kind) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = "toast" + (kind ? " " + kind : "");
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

// ``api`` for a page's buttons: a refusal is told in the toast and gives null, the page
// staying as it was.
async function apiOrToast(method, path, body, token) {
  try {
    return await api(method, path, body, token);
  } catch (err) {
    toast(err.message);
    return null;
  }
}

class ApiError extends Error {
  constructor(status, error) { super(error.message); this.status = status; this.code = error.code; this.error = error; }
}

async function api(method, path, body, token) {
  const headers = { "Accept": "application/json", "Accept-Language": LANG };
  const init = { method, headers };
  if (method !== "GET") {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body || {});
  }
  if (token) headers["X-Table-Token"] = token;
  const sep = path.includes("?") ? "&" : "?";
  const response = await fetch(path + sep + "lang=" + LANG, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || { code: "http_" + response.status, message: response.statusText };
    throw new ApiError(response.status, error);
  }
  return data;
}
