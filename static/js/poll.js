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
      again: what the page shows may be behind, and whoever watches it should know.
   4. Push: where the page says the server pushes (<body data-push="/stroom/">), a polled element
      marked data-push gets its part over Server-Sent Events instead (scoring/push/views.py) and
      its own polls are held back. The stream is opened again with the last version it got
      (?last=, as Last-Event-ID would), closed while the page is hidden, and given up after it
      failed three times (an error, or no sign of life: a proxy that holds the events back):
      then the element polls as before. While a stream fails the page shows its [data-stale]
      notice, until the stream or a poll gets through. Given up is not for good: a minute
      later (then two, four, up to ten) the stream is tried once more while the polls go on,
      and taken back when it says hello, so that a streams' server that was restarted gets
      its viewers back instead of their polls. "stale" from the server (what it could not
      draw: a revoked link, a game thrown away) fetches the part once, and polls for good. */
(function () {
  "use strict";

  function watched(elt) {
    return elt && elt.hasAttribute && elt.hasAttribute("data-poll-visible");
  }

  var FAILURES = 3;      // a stream that failed this often in a row: poll instead
  var QUIET_MS = 40000;  // no event (the server pings every 15 s) this long: a failure
  var PROBE_MS = 60000;  // polling since: try the stream again (doubled each time it fails)
  var PROBE_MAX_MS = 600000;
  // By the element's id: {source, last, failures, timer, probing, probeMs, probeTimer, given}.
  var streams = {};

  function pushUrl() { return document.body && document.body.getAttribute("data-push"); }

  function pushed(elt) {
    var s = elt && elt.id && streams[elt.id];
    return !!(s && s.failures < FAILURES && !s.probing);
  }

  var HELLO_MS = 10000;  // a stream whose first event has not come by then: a failure

  function alive(id, ms) {
    var s = streams[id];
    clearTimeout(s.timer);
    s.timer = setTimeout(function () { failed(id); }, ms || QUIET_MS);
  }

  function failed(id) {
    var s = streams[id];
    if (!s) { return; }
    s.failures += 1;
    close(id);
    var elt = document.getElementById(id);
    if (!elt || !elt.hasAttribute("data-push")) {
      // Its part came without data-push (a series that ended): nothing is pushed there any
      // more, nor tried again, and a notice now would stay for good.
      s.failures = FAILURES;
      s.probing = false;
      return;
    }
    // A probe that fails says nothing: the polls keep the page as it is meant to be.
    if (!s.probing) { stale(true); }
    if (s.failures < FAILURES && !s.probing) {
      setTimeout(function () { open(id); }, 1000 * s.failures);
      return;
    }
    s.failures = FAILURES;
    s.probing = false;
    if (window.htmx) { htmx.trigger(elt, "shown"); }  // polling from now on, at once
    clearTimeout(s.probeTimer);
    s.probeTimer = setTimeout(function () { probe(id); }, s.probeMs);
    s.probeMs = Math.min(s.probeMs * 2, PROBE_MAX_MS);
  }

  function probe(id) {
    var s = streams[id];
    if (!s || s.given) { return; }
    s.probing = true;  // the polls go on until the stream says hello
    open(id);
  }

  function close(id) {
    var s = streams[id];
    clearTimeout(s.timer);
    if (s.source) { s.source.close(); s.source = null; }
  }

  function open(id) {
    var s = streams[id];
    var elt = document.getElementById(id);
    if (!elt || !elt.hasAttribute("data-push") || (s.failures >= FAILURES && !s.probing) ||
        s.source || document.visibilityState !== "visible" || !window.EventSource) { return; }
    var url = pushUrl() + "?deel=" + encodeURIComponent(elt.getAttribute("hx-get")) +
      (s.last ? "&last=" + encodeURIComponent(s.last) : "");
    var source = new EventSource(url);
    s.source = source;
    alive(id, HELLO_MS);
    source.addEventListener("hello", function () {
      alive(id);
      s.failures = 0;
      s.probing = false;
      s.probeMs = PROBE_MS;
      stale(false);
    });
    source.addEventListener("ping", function () { alive(id); });
    source.addEventListener("part", function (evt) {
      alive(id);
      s.last = evt.lastEventId;
      var target = document.getElementById(id);
      if (target && window.htmx) { htmx.swap(target, evt.data, {swapStyle: "outerHTML"}); }
      stale(false);
      target = document.getElementById(id);
      if (!target || !target.hasAttribute("data-push")) {
        // The part is no longer pushed (a TV board that got more pages turns them by its
        // polls; a series that ended): the stream would hold those polls back.
        close(id);
        s.failures = FAILURES;
      }
    });
    source.addEventListener("stale", function () {
      close(id);
      s.failures = FAILURES;  // what the server could not draw, the page's own poll answers
      s.probing = false;
      s.given = true;
      clearTimeout(s.probeTimer);
      var target = document.getElementById(id);
      if (target && window.htmx) { htmx.trigger(target, "shown"); }
    });
    source.onerror = function () {
      // The browser would try again by itself; counting the tries is ours.
      if (s.source === source) { failed(id); }
    };
  }

  function startStreams() {
    if (!pushUrl() || !window.EventSource) { return; }  // no stream: the element polls
    document.querySelectorAll("[data-poll-visible][data-push]").forEach(function (elt) {
      if (!elt.id) { return; }
      if (!streams[elt.id]) {
        streams[elt.id] = {source: null, last: "", failures: 0, timer: 0, probing: false,
                           probeMs: PROBE_MS, probeTimer: 0, given: false};
      }
      open(elt.id);
    });
  }
  document.addEventListener("DOMContentLoaded", startStreams);
  window.addEventListener("pagehide", function () { Object.keys(streams).forEach(close); });

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (!watched(elt)) { return; }
    if (document.visibilityState !== "visible" || pushed(elt)) { evt.preventDefault(); }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") {
      Object.keys(streams).forEach(close);
      return;
    }
    startStreams();
    if (!window.htmx) { return; }
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
    // A poll that was under way when the element's stream came back (its hello) may answer
    // with an older version than the stream has pushed since: the stream has the element now.
    if (watched(evt.detail.elt) && pushed(evt.detail.elt)) { evt.detail.shouldSwap = false; }
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
