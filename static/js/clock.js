/* The round timer of a series played "at a time" (scoring/toernooi/clock.py), on the TV and
   the organiser's series page. The server draws each [data-clock] with the seconds left at
   that moment (data-seconds-left); this counts down from when the element arrived, by the
   browser's monotonic clock, so every TV agrees with the server's end time whatever its own
   clock says. A poll brings a fresh element (the TV's board is swapped whole) and so sets
   the count right again. At zero the "time is up" line shows. No eval, no inline code: the
   CSP. */
(function () {
  "use strict";

  var arrived = new WeakMap();

  // m:ss under an hour, h:mm:ss from an hour on (clock_text in scoring/toernooi/clock.py).
  function text(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    var ss = (rest < 10 ? "0" : "") + rest;
    if (hours) { return hours + ":" + (minutes < 10 ? "0" : "") + minutes + ":" + ss; }
    return minutes + ":" + ss;
  }

  function tick() {
    var now = performance.now();
    document.querySelectorAll("[data-clock]").forEach(function (clock) {
      if (!arrived.has(clock)) { arrived.set(clock, now); }
      var sent = parseInt(clock.getAttribute("data-seconds-left"), 10) || 0;
      var left = Math.max(0, sent - Math.floor((now - arrived.get(clock)) / 1000));
      var shown = clock.querySelector("[data-clock-text]");
      var label = text(left);
      if (shown && shown.textContent !== label) { shown.textContent = label; }
      var up = clock.querySelector("[data-clock-up]");
      if (up) { up.hidden = left > 0; }
      clock.classList.toggle("clock--up", left === 0);
    });
  }

  document.addEventListener("htmx:afterSettle", tick);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", tick);
  } else {
    tick();
  }
  window.setInterval(tick, 250);
})();
