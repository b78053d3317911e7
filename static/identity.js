// The player of an embedded table, when the browser keeps no cookie for it.
//
// In a frame on another site a browser that blocks third-party cookies never sends ours
// back, so every request would start a new player ("You have no game yet").  The page
// carries the player's signed token (data-player-token); this script keeps it in the
// frame's own storage and sends it with every htmx request as X-Player-Token, which the
// server takes before the cookie.  Chromium gives a third-party frame storage partitioned
// by the top-level site even when third-party cookies are blocked (so the token is kept
// per embedding site, like a partitioned cookie); where storage is refused altogether the
// token still lives in this page's memory for as long as the frame is open.  A custom
// header cannot be sent by another site's page (that takes a CORS preflight this server
// never grants), so a request carrying it needs no CSRF token.
(function () {
  "use strict";

  const KEY = "hearts-player";
  const HEADER = "X-Player-Token";
  const holder = document.querySelector("[data-player-token]");
  if (!holder) return;

  function storage() {
    try {
      const s = window.localStorage;
      s.getItem(KEY);  // throws where the browser refuses storage to this frame
      return s;
    } catch (e) {
      return null;
    }
  }

  const store = storage();
  let token = null;
  try { token = store && store.getItem(KEY); } catch (e) { token = null; }

  function keep(value) {
    if (!value) return;
    token = value;
    try { if (store) store.setItem(KEY, value); } catch (e) { /* memory only */ }
  }

  document.addEventListener("htmx:configRequest", (event) => {
    if (token) event.detail.headers[HEADER] = token;
  });
  document.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail && event.detail.xhr;
    const fresh = xhr && xhr.getResponseHeader(HEADER);
    if (fresh) keep(fresh);  // a renewed token, or the first one of a new player
  });

  const drawnFor = holder.dataset.playerToken;
  if (token && token !== drawnFor && holder.dataset.playerNew === "1") {
    // the page was drawn for a new player because no cookie came back: show the kept
    // player's table instead (htmx sends the kept token with this request)
    document.addEventListener("DOMContentLoaded", () => {
      const table = document.getElementById("table");
      if (!table || !window.htmx) return;
      const url = (document.body.dataset.tableUrl || "/table") + "?embed=true";
      window.htmx.ajax("GET", url, { target: "#table", swap: "outerHTML" });
    });
  } else {
    keep(drawnFor);
  }
})();
