/* The polls of the pages people watch (the viewer's sheet, the toernooi's series and TV), one
   mechanism for all of them:
   1. A polled element marked data-poll-visible asks nothing while the page is hidden (a phone
      in a pocket, a background tab), and polls at once when it is shown again: its hx-trigger
      lists the "shown" event besides its "every Ns". htmx's own trigger filter
      [document.visibilityState === 'visible'] would do the first half, but htmx evaluates
      filters as code, which the CSP (script-src 'self', no eval) forbids.
   2. A polled element with data-etag sends it as If-None-Match, and a 304 leaves the page as it
      is: an unchanged sheet costs the server one query and no drawing (scoring/lei/views.py).
   3. A poll that fails (pub wifi) shows the page's [data-stale] notice until one gets through
      again: what the page shows may be behind, and whoever watches it should know. */
(function () {
  "use strict";

  function watched(elt) {
    return elt && elt.hasAttribute && elt.hasAttribute("data-poll-visible");
  }

  document.addEventListener("htmx:beforeRequest", function (evt) {
    if (watched(evt.detail && evt.detail.elt) && document.visibilityState !== "visible") {
      evt.preventDefault();
    }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible" || !window.htmx) { return; }
    document.querySelectorAll("[data-poll-visible]").forEach(function (elt) {
      htmx.trigger(elt, "shown");
    });
  });

  document.addEventListener("htmx:configRequest", function (evt) {
    var elt = evt.detail.elt;
    if (evt.detail.verb === "get" && elt.dataset && elt.dataset.etag) {
      evt.detail.headers["If-None-Match"] = elt.dataset.etag;
    }
  });
  document.addEventListener("htmx:beforeSwap", function (evt) {
    if (evt.detail.xhr && evt.detail.xhr.status === 304) { evt.detail.shouldSwap = false; }
  });

  function stale(on) {
    document.querySelectorAll("[data-stale]").forEach(function (notice) { notice.hidden = !on; });
  }
  ["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach(function (name) {
    document.addEventListener(name, function (evt) {
      if (watched(evt.detail && evt.detail.elt)) { stale(true); }
    });
  });
  // Before the swap: the polled element is replaced (outerHTML), and an event on the old one
  // after that no longer reaches the document.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    if (xhr && xhr.status < 400 && watched(evt.detail.elt)) { stale(false); }
  });
})();
