/* The digital lei: the little JavaScript it has. Everything works without it; this adds
   1. the tablet's outbox: every tap goes into an ordered outbox kept in IndexedDB, which
      survives a reload, a crashed tab and a browser restart, and is sent strictly in order,
      each with its own idempotency key and the version it expects (the version after the tap
      before it: every recorded write adds one, see scoring/lei/services.py) and the round it
      was made in (a tap for a round that is over is refused: scoring/lei/funnel.py, RoundOver).
      A tap shows at once (pressed, in the strip); offline the scorer
      keeps tapping; the server judges each tap when it arrives, and a refusal stops the
      outbox at that tap until the scorer decides; a 429 (too many taps at once) makes it wait
      as long as the server asks, then send the same tap again. The taps are kept per person
      (the page's opaque id, scoring/lei/outbox.py): another person's page never sends them,
      names them with that person's way to send them (othersNotice), and the server refuses
      them from anyone else. Each goes with the CSRF token
      of the moment it is sent; one refused because nobody here may score any more (the login
      ended) waits, saying how to log in again; a revoked link's refusal (410) says so; a sign-out on purpose drops the
      person's taps (signedOut);
   A redraw keeps what the scorer ticked, typed, opened and focused (doing, carry); the
   strip shows only when a tap really waits (SHOW_WAITING_MS); each result is said in
   #tap-news for a screen reader;
   2. a round-ending tap's result shown for a moment, with the next round's buttons taking
      taps only after it, so a double tap records once;
   3. the service worker (scoring/lei/views.py, service_worker) that keeps the tablet page for a
      reload without wifi;
   4. the session form: tapping a club player fills the next free seat.
   The viewers' poll is static/js/poll.js, shared with the toernooi's pages. */
(function () {
  "use strict";

  // --- 1. The outbox -------------------------------------------------------------------
  // IndexedDB in a few lines of our own rather than a vendored wrapper: two stores, an
  // ordered read and three writes; idb-keyval would add a file to keep up to date for that.
  var GUARD_MS = 600; // a round's result stays alone this long (≈ a double tap's second tap)
  var SEND_TIMEOUT_MS = 10000;
  var SHOW_WAITING_MS = 1500; // a tap unanswered this long really waits: the strip says so
  var dbPromise = null;

  function db() {
    if (!dbPromise) {
      dbPromise = new Promise(function (resolve, reject) {
        var open = indexedDB.open("lei-tablet", 1);
        open.onupgradeneeded = function () {
          // taps: one per tap not yet answered, by key; lei: the last #live per tablet page.
          open.result.createObjectStore("taps", {keyPath: "key"});
          open.result.createObjectStore("lei", {keyPath: "tablet"});
        };
        open.onsuccess = function () { resolve(open.result); };
        open.onerror = function () { reject(open.error); };
      });
    }
    return dbPromise;
  }

  function store(name, mode, work) {
    return db().then(function (conn) {
      return new Promise(function (resolve, reject) {
        var tx = conn.transaction(name, mode);
        var request = work(tx.objectStore(name));
        tx.oncomplete = function () { resolve(request && request.result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  function save(tap) { return store("taps", "readwrite", function (s) { return s.put(tap); }); }
  function forget(tap) { return store("taps", "readwrite", function (s) { return s.delete(tap.key); }); }
  function allTaps() { return store("taps", "readonly", function (s) { return s.getAll(); }); }
  function keepLei(entry) { return store("lei", "readwrite", function (s) { return s.put(entry); }); }
  function lastLei(tablet) { return store("lei", "readonly", function (s) { return s.get(tablet); }); }
  function quietly(promise) { return promise.catch(function () { return null; }); }

  var outbox = {
    tablet: location.pathname, // the tablet page the taps belong to
    taps: [], // in order; taps[0] is sent first
    version: null, // the version the server last gave this tablet
    sending: false,
    trouble: false, // a send failed since the outbox was last empty: the strip shows
    failing: false, // the last send failed (no connection): the strip says so
    stopped: false, // taps[0] was refused: wait for the scorer
    login: false, // taps[0] was refused for want of a login: wait for one, and say so
    renewed: false, // a fresh CSRF token was fetched for taps[0] after a 403
    note: "", // the server's words while the outbox waits at its asking (429)
    overdue: false, // taps[0] waited SHOW_WAITING_MS without an answer: the strip shows
    overdueTimer: null,
    attempts: 0,
    timer: null,
    seq: 0,
  };
  var guardUntil = 0;
  var lastTap = {signature: "", at: 0};
  // Where the lei stands as this tablet's taps have it (the round a tap goes into, its events,
  // its presence; moved: a round-ending tap waits) and before each waiting tap, for an undo.
  var here = {round: 1, events: 0, presence: false, moved: false, folded: [], dealer: ""};
  var steps = [];

  function roundSection() { return document.getElementById("round"); }

  function texts() {
    var box = document.getElementById("outbox");
    return box ? box.dataset : {};
  }

  // The token of the moment a tap is sent, not of the page that took it: a login (here or in
  // another tab) renews it, and Django's CSRF cookie ("csrftoken", readable by scripts) holds
  // the current one; the page's own is for a browser without that cookie.
  function csrfToken() {
    var cookie = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (cookie) { return decodeURIComponent(cookie[1]); }
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; }
    catch (e) { return ""; }
  }

  // Whose taps these are: an opaque id per account ("anon" for a scorer link without one).
  function currentPerson() { return texts().person || ""; }

  function newKey() {
    if (window.crypto && crypto.randomUUID) { return crypto.randomUUID(); }
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // What the strip calls a tap: "Toep Joop", "Laatste slag Anne met boer", "Strafpunt Bas".
  function tapLabel(form, submitter, data) {
    var source = submitter || form.querySelector("button");
    var label = source ? (source.dataset.tap || source.getAttribute("aria-label") || source.textContent) : "";
    label = label.replace(/:\s*/g, " ").replace(/\s+/g, " ").trim();
    var player = data.get("player");
    if (player && label.indexOf(player) === -1) { label += " " + player; }
    if (data.get("jack")) { label += " " + (texts().withJack || "met boer"); }
    return label;
  }

  // Capture phase on the document: htmx never sees a tap form's submit, the outbox takes it.
  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    if (!form.hasAttribute || !form.hasAttribute("data-outbox") || !roundSection()) { return; }
    evt.preventDefault();
    evt.stopPropagation();
    var submitter = evt.submitter || null;
    var now = Date.now();
    var told = document.getElementById("signed-out");
    if (told) { told.remove(); }
    // Undo stays at hand while a round's result shows (two undos at once are one, below).
    if (now < guardUntil && !form.hasAttribute("data-unguarded")) { return; }
    var data = new FormData(form, submitter);
    var fields = [];
    data.forEach(function (value, name) {
      // The key, version and sheet are the outbox's own; a form's CSRF token is the page's,
      // and the one of the moment goes with the tap when it is sent (csrfToken).
      if (["key", "version", "sheet", "csrfmiddlewaretoken"].indexOf(name) === -1) { fields.push([name, String(value)]); }
    });
    var url = form.getAttribute("action");
    var signature = url + "?" + new URLSearchParams(fields).toString();
    if (signature === lastTap.signature && now - lastTap.at < GUARD_MS) { return; }
    lastTap = {signature: signature, at: now};
    if (endsRound(form, submitter)) {
      guard(); // the answer may take longer than a double tap: the next tap waits here too
    }
    var before = here;
    var undo = form.classList.contains("round-panel__undo");
    here = undo ? back() : ahead(form, submitter, data);
    if (!undo) { steps.push(before); }
    if (here.round !== before.round) { // a new round: the last one's taps are no longer pressed
      document.querySelectorAll(".is-pressed").forEach(function (b) { b.classList.remove("is-pressed"); });
    }
    if (submitter) { submitter.classList.add("is-pressed"); }
    enqueue({tablet: outbox.tablet, person: currentPerson(), name: texts().personName || "",
             url: url, fields: fields,
             label: tapLabel(form, submitter, data), key: newKey(), at: now,
             round: before.round, before: before, after: here});
    showRound();
    // How many taps this page took: the browser tests tell a taken tap from a guarded one.
    var root = document.documentElement;
    root.dataset.tapsTaken = String(Number(root.dataset.tapsTaken || 0) + 1);
    form.reset(); // a boer ticked for this round's last trick is not the next round's
    var more = form.closest("details#more");
    if (more) { // the menu closes on its tap; focus goes to its summary, not to the body
      more.open = false;
      more.querySelector("summary").focus({preventScroll: true});
    }
  }, true);

  // What a tap does to the round as this tablet keeps it, before the server judges it: a
  // round-ending tap (the last trick, four of a kind, the fold that leaves one player in)
  // moves the panel to the next round, whose dealer the server put beside each winner button
  // (or the winner, where the winner deals). The tablet derives no score: the totals wait.
  function ahead(form, submitter, data) {
    var next = JSON.parse(JSON.stringify(here));
    var type = data.get("type");
    if (!type) { next.presence = true; return next; } // who is away, and who sits down
    var ends = endsRound(form, submitter);
    var winner = ends ? data.get("player") : "";
    if (type === "fold" && form.hasAttribute("data-player")) { next.folded.push(data.get("player")); }
    // A fold can leave one player in; so can the round's first raise, which folds whoever is
    // on the toilet (the server leaves them out of data-active: see inRound).
    if (type === "fold" || type === "knock" || type === "blind_knock") {
      var left = inRound(next).filter(function (name) { return next.folded.indexOf(name) === -1; });
      if (left.length === 1) { ends = true; winner = left[0]; }
    }
    if (!ends) { next.events += 1; return next; }
    var round = roundSection();
    var button = !here.moved && winner && document.querySelector(
      "form[data-ends-round] button[data-next-dealer][value=\"" + CSS.escape(winner) + "\"]");
    next.dealer = round && round.hasAttribute("data-winner-deals") ? winner : (button ? button.dataset.nextDealer : "");
    return {round: next.round + 1, events: 0, presence: false, moved: true, folded: [], dealer: next.dealer};
  }

  // The server marks the taps that end the round (the last-trick form, four of a kind, the
  // pot's last trick): on the form, or on the button that was tapped.
  function endsRound(form, submitter) {
    return form.hasAttribute("data-ends-round") || Boolean(submitter && submitter.hasAttribute("data-ends-round"));
  }

  // Who counts for the all-fold rule: in the round drawn, the players the engine counts
  // (data-active: not folded, not on the toilet); in a round the taps moved to, every player.
  function inRound(state) {
    var forms = document.querySelectorAll(state.moved ? "form[data-player]" : "form[data-player][data-active]");
    return Array.prototype.map.call(forms, function (form) { return form.dataset.player; });
  }

  // An undo: the lei as it was before this tablet's last waiting tap; with none waiting, the
  // round drawn loses an event, its presence, or else the round before opens again.
  function back() {
    if (steps.length) { return steps.pop(); }
    var next = JSON.parse(JSON.stringify(here));
    if (next.events > 0) { next.events -= 1; }
    else if (next.presence) { next.presence = false; }
    else if (next.round > 1) { next.round -= 1; next.events = 1; next.moved = false; }
    return next;
  }

  function readHere() {
    var round = roundSection();
    if (!round) { return; }
    here = {round: parseInt(round.dataset.round, 10) || 1, events: parseInt(round.dataset.events, 10) || 0,
            presence: round.hasAttribute("data-presence"), moved: false, folded: [], dealer: ""};
    steps = [];
  }

  // The panel as the taps have it: the round's number, its dealer, the totals waiting.
  function showRound() {
    var round = roundSection();
    var title = document.getElementById("round-title");
    if (!round || !title) { return; }
    var drawn = parseInt(round.dataset.round, 10);
    if (!title.dataset.drawn) { title.dataset.drawn = title.textContent; }
    var ahead = here.round > drawn;
    document.documentElement.toggleAttribute("data-round-moved", ahead);
    title.textContent = here.round === drawn ? title.dataset.drawn : (texts().roundWord || "").replace("{n}", here.round);
    document.querySelectorAll(".badge--deler.is-next").forEach(function (badge) { badge.remove(); });
    var name = ahead && here.dealer && document.querySelector(
      "form[data-player=\"" + CSS.escape(here.dealer) + "\"] .round-panel__player-name");
    if (name) {
      var badge = document.createElement("span");
      badge.className = "badge badge--deler is-next";
      badge.textContent = texts().deals;
      name.append(badge);
    }
    var totals = document.getElementById("totals");
    if (totals) { totals.toggleAttribute("aria-busy", ahead); }
  }

  function enqueue(tap) {
    var last = outbox.taps[outbox.taps.length - 1];
    tap.version = last ? last.version + 1 : outbox.version;
    tap.seq = ++outbox.seq;
    outbox.taps.push(tap);
    render();
    quietly(save(tap)).then(drain);
  }

  function guard() {
    guardUntil = Date.now() + GUARD_MS;
    var panel = document.getElementById("panel");
    if (panel) { panel.classList.add("is-settling"); }
    window.setTimeout(settle, GUARD_MS);
  }

  function settle() {
    var left = guardUntil - Date.now();
    if (left > 0) { window.setTimeout(settle, left); return; } // guarded again meanwhile
    var panel = document.getElementById("panel");
    if (panel) { panel.classList.remove("is-settling"); }
  }

  function drain() {
    if (outbox.sending || outbox.stopped || !outbox.taps.length) { return; }
    if (SIGNED_OUT.test(document.cookie)) { // signed out on purpose since this page opened
      outbox.stopped = true;
      location.reload(); // the page, or the login page, opens without them (start)
      return;
    }
    var tap = outbox.taps[0];
    var body = new URLSearchParams(tap.fields);
    body.delete("csrfmiddlewaretoken"); // kept with taps stored before it was left out
    body.set("key", tap.key);
    body.set("version", String(tap.version));
    if (tap.round) { body.set("round", String(tap.round)); }
    var round = roundSection();
    body.set("sheet", round ? round.dataset.sheet || "" : "");
    outbox.sending = true;
    window.clearTimeout(outbox.timer);
    var abort = new AbortController();
    var timeout = window.setTimeout(function () { abort.abort(); }, SEND_TIMEOUT_MS);
    fetch(tap.url, {
      method: "POST", body: body, credentials: "same-origin", signal: abort.signal,
      headers: {"HX-Request": "true", "HX-Current-URL": location.href, "X-CSRFToken": csrfToken(),
                "X-Lei-Person": tap.person || currentPerson()},
    }).then(function (response) {
      return response.text().then(function (text) { return {response: response, text: text}; });
    }).then(function (answer) {
      window.clearTimeout(timeout);
      outbox.sending = false;
      var outcome = answer.response.headers.get("X-Lei-Outcome");
      var status = answer.response.status;
      if (answer.response.ok && outcome) {
        answered(tap, answer.response, answer.text, outcome);
      } else if (answer.response.headers.get("X-Lei-Other-Person") === "1") {
        // Someone else signed in: nothing more goes from this page. The taps stay, kept for
        // their person; the page, reloaded as the one signed in now, names them (othersNotice).
        outbox.stopped = true;
        handOver([tap.person], []).then(function () { location.reload(); });
      } else if (answer.response.status === 410) {
        loginGone(); // the scorer link was revoked: its words, not a login it cannot give
        tap.revoked = true; // "probeer opnieuw" could only be refused again: not offered
        stop(tap, reasonOf(answer.text));
      } else if (mayNotScore(answer.response)) {
        loginNeeded();
      } else if (status === 403 && !outbox.renewed) {
        renewToken(); // no CSRF cookie (cleared): fetch the page for one, then send again
      } else if (status === 429) {
        slowDown(answer.response, answer.text);
      } else if (status === 409) {
        // The server holds this tap's key with another tap (a bug, never a resend): nothing
        // was recorded. "probeer opnieuw" sends it as a new tap, with a key of its own.
        tap.renew = true;
        stop(tap, reasonOf(answer.text));
      } else if (status >= 400 && status < 500 && status !== 408) {
        stop(tap, reasonOf(answer.text)); // logged out, link revoked: the scorer must act
      } else {
        failed();
      }
    }).catch(function () {
      window.clearTimeout(timeout);
      outbox.sending = false;
      failed();
    });
  }

  // Nobody here may score this game any more: signed out (403 naming it), sent to log in, or
  // the scorer link revoked for an account (404, as for any game it may not see).
  function mayNotScore(response) {
    var login = (texts().login || "").split("?")[0];
    return response.headers.get("X-Login-Needed") === "1" || response.status === 404
      || (response.redirected && login && new URL(response.url).pathname === login);
  }

  // The taps stay, in order, and the strip says how to go on: log in again. They are sent
  // once a login lets them through (this page retries now and then, and when it is looked at
  // again; the login link comes back to this page, which sends them when it opens).
  function loginNeeded() {
    loginGone();
    outbox.login = true;
    outbox.trouble = true;
    outbox.failing = false;
    render();
    outbox.timer = window.setTimeout(drain, 5000);
  }

  // The server said this page's login is gone: the copy the service worker keeps of it, and
  // the lei kept for a reload, are not shown offline to whoever picks the tablet up next. The
  // taps stay, for the same person's next login.
  function loginGone() {
    quietly(store("lei", "readwrite", function (s) { return s.clear(); }));
    if (window.caches) {
      quietly(caches.open("lei-tablet-v1").then(function (copies) { return copies.delete(location.pathname); }));
    }
  }

  function renewToken() {
    outbox.renewed = true;
    fetch(location.pathname, {credentials: "same-origin"}).then(function (response) {
      if (mayNotScore(response)) { loginNeeded(); } else { drain(); }
    }).catch(failed);
  }

  function answered(tap, response, text, outcome) {
    outbox.login = false;
    outbox.renewed = false;
    var version = parseInt(response.headers.get("X-Lei-Version"), 10);
    if (!isNaN(version)) { outbox.version = version; }
    if (outcome === "recorded") {
      outbox.taps.shift();
      outbox.trouble = outbox.taps.length > 0 && outbox.trouble;
      outbox.failing = false;
      outbox.note = "";
      outbox.misfit = "";
      outbox.attempts = 0;
      if (!outbox.taps.length) { outbox.oneByOne = false; }
      outbox.overdue = false; // the next tap's wait starts now
      window.clearTimeout(outbox.overdueTimer);
      outbox.overdueTimer = null;
      quietly(forget(tap));
      // The sheet is drawn from the server once the outbox is empty; until then the
      // scorer's own taps are what the tablet shows.
      if (!outbox.taps.length) { swap(response, text); } else { render(); drain(); }
      var flash = document.getElementById("round-flash");
      announce(flash && !outbox.taps.length ? flash.textContent
        : (texts().recorded || "{tap}").replace("{tap}", tap.label));
      return;
    }
    swap(response, text);
    tap.conflict = outcome === "stale" || outcome === "moved"; // the lei went on without it
    stop(tap, reasonOf(text));
  }

  function stop(tap, reason) {
    outbox.login = false;
    tap.error = reason || "";
    outbox.stopped = true;
    quietly(save(tap));
    render();
    var first = document.querySelector("[data-outbox-drop-all]");
    if (first) { first.focus(); } // throwing them all away is the default
  }

  function failed() {
    outbox.login = false;
    outbox.trouble = true;
    outbox.failing = true;
    outbox.note = "";
    outbox.attempts += 1;
    render();
    var delay = Math.min(250 * Math.pow(2, outbox.attempts), 4000);
    outbox.timer = window.setTimeout(drain, delay);
  }

  // Too many taps at once (the server's limit per scorer, scoring/lei/taplimit.py): the same
  // tap goes again, with its own key and version, once the server's Retry-After has passed;
  // meanwhile the strip says that the tablet sends them itself (the server's words ask a
  // person to try again, which here would be a second tap).
  function slowDown(response, text) {
    outbox.login = false;
    var seconds = parseInt(response.headers.get("Retry-After"), 10);
    outbox.trouble = true;
    outbox.failing = false;
    outbox.note = texts().slow || reasonOf(text);
    render();
    outbox.timer = window.setTimeout(drain, Math.max(isNaN(seconds) ? 1 : seconds, 1) * 1000);
  }

  function reasonOf(text) {
    var doc = new DOMParser().parseFromString(text, "text/html");
    var node = doc.querySelector("#refusal, #stale, h1") || doc.body;
    return (node ? node.textContent : text).replace(/\s+/g, " ").trim().slice(0, 300);
  }

  // After a refusal: send the rest again from the version the server last gave, either
  // without the refused tap or with it once more.
  function resume(dropFirst) {
    if (dropFirst && outbox.taps.length) { quietly(forget(outbox.taps.shift())); }
    var first = outbox.taps[0];
    if (first && first.renew) { // its key is another tap's: it goes as a new one
      quietly(forget({key: first.key}));
      first.key = newKey();
      delete first.renew;
    }
    // The scorer has read the reason: the strip no longer holds it, nor does the panel.
    document.querySelectorAll("#refusal, #stale").forEach(function (notice) { notice.remove(); });
    outbox.taps.forEach(function (tap, index) {
      tap.version = outbox.version + index;
      tap.error = "";
      tap.conflict = false;
      quietly(save(tap));
    });
    outbox.stopped = false;
    outbox.renewed = false;
    outbox.attempts = 0;
    render();
    drain();
  }

  // A conflict (the lei went on without these taps): throw them all away, the default, and
  // tap again on the lei as it is now; or look at them one by one (drop or try again each).
  function dropAll() {
    outbox.taps.forEach(function (tap) { quietly(forget(tap)); });
    outbox.taps = [];
    outbox.stopped = outbox.trouble = outbox.failing = outbox.oneByOne = false;
    outbox.note = outbox.misfit = "";
    document.querySelectorAll("#refusal, #stale").forEach(function (notice) { notice.remove(); });
    settled();
  }

  document.addEventListener("click", function (evt) {
    if (evt.target.closest("[data-outbox-drop]")) { resume(true); }
    else if (evt.target.closest("[data-outbox-retry]")) { resume(false); }
    else if (evt.target.closest("[data-outbox-drop-all]")) { dropAll(); }
    else if (evt.target.closest("[data-outbox-one-by-one]")) { outbox.oneByOne = true; render(); }
  });

  // --- The lei as it is now (#follow, polled as the viewers poll: static/js/poll.js) --------
  // With no tap of this tablet waiting, or the outbox stopped, the newer lei is drawn; with
  // taps waiting, the strip says when they no longer fit it.
  document.addEventListener("htmx:afterRequest", function (evt) {
    var elt = evt.detail.elt;
    var xhr = evt.detail.xhr;
    if (!elt || elt.id !== "follow" || !xhr) { return; }
    var login = (texts().login || "").split("?")[0];
    if (xhr.status === 410 || (login && xhr.responseURL && new URL(xhr.responseURL).pathname === login)) {
      loginGone(); // the server says this page's login (or link) is gone
    }
    if (xhr.status !== 200) { return; }
    if (xhr.getResponseHeader("ETag")) { elt.dataset.etag = xhr.getResponseHeader("ETag"); }
    follow(xhr.responseText);
  });

  function follow(text) {
    var template = document.createElement("template");
    template.innerHTML = text;
    var fresh = template.content.getElementById("live");
    var drawn = fresh && fresh.querySelector("#round");
    var shown = roundSection();
    var live = document.getElementById("live");
    if (!drawn || !shown || !live || outbox.sending) { return; }
    var version = parseInt(drawn.dataset.version, 10);
    var round = parseInt(drawn.dataset.round, 10);
    if (!outbox.taps.length || outbox.stopped) {
      // Versions only grow: an older answer (a poll overtaken by a tap) is not drawn.
      if (!(version > parseInt(shown.dataset.version, 10)) || Date.now() < guardUntil) { return; }
      keepEditor(fresh);
      var before = doing(live);
      live.replaceWith(fresh);
      if (window.htmx) { htmx.process(fresh); }
      settled();
      carry(fresh, before);
      return;
    }
    var first = outbox.taps[0];
    var t = texts();
    var misfit = "";
    if (first.round && first.round !== round) {
      misfit = t.misfit.replace("{round}", round).replace("{tapped}", first.round);
    } else if (first.version !== version) {
      misfit = t.changed;
    }
    if (misfit !== (outbox.misfit || "")) { outbox.misfit = misfit; render(); }
  }
  // A lei htmx drew (a corrected round, a finished game): the version the next tap expects.
  document.addEventListener("htmx:afterSettle", function (evt) {
    var target = evt.detail.target;
    if (target && (target.id === "live" || target.id === "round") && !outbox.taps.length) { settled(); }
  });
  // The forms outside the outbox (the round editor, ending the game) are sent by htmx once:
  // when that fails, say so plainly, and take it back once a request gets through.
  // Of the GETs only the round editor's opening says so (the lei's own polls fail quietly:
  // the strip says the connection is gone); a tap on "Ronde 1" did nothing, without a word.
  function formFailed(evt) {
    var box = document.getElementById("outbox");
    if (!box) { return; }
    if (evt.detail.requestConfig && evt.detail.requestConfig.verb === "get") {
      var elt = evt.detail.elt;
      if (elt && elt.closest && elt.closest(".sheet__edit")) { formNotice(box.dataset.formUnopened); }
      return;
    }
    formNotice(box.dataset.formUnsent);
  }
  function formNotice(text, login) {
    var notices = document.getElementById("notices");
    var notice = document.getElementById("form-unsent");
    if (!notices) { return; }
    if (!notice) {
      notice = document.createElement("div");
      notice.id = "form-unsent";
      notice.className = "notice notice--error";
      notice.setAttribute("role", "alert");
      notices.append(notice);
    }
    notice.textContent = text;
    var box = document.getElementById("outbox");
    if (login && box && box.dataset.login) { notice.append(" ", loginButton(box.dataset)); }
  }
  // The way on when the login ran out: log in, and back to this lei.
  function loginButton(t) {
    var link = document.createElement("a");
    link.className = "btn btn--primary";
    link.href = t.login;
    link.textContent = t.loginLink;
    return link;
  }
  ["htmx:sendError", "htmx:timeout"].forEach(function (name) { document.addEventListener(name, formFailed); });
  // A 409 (the form's key came before with other contents) is drawn where its refusal goes,
  // like any refusal; a 429 (too many taps at once) is said in the server's words.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var xhr = evt.detail.xhr;
    if (xhr.status === 409 && xhr.getResponseHeader("HX-Retarget")) {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    } else if (xhr.status === 409 || xhr.status === 429) {
      formNotice(reasonOf(xhr.responseText));
    } else if (xhr.status === 410) {
      loginGone(); // the scorer link was revoked: its words, not a login it cannot give
      formNotice(reasonOf(xhr.responseText));
    } else if (xhr.status === 403 || xhr.status === 404) {
      // The login ran out, the page is older than the last login, or the scorer link went
      // (scoring/http.py): nothing was saved, and the editor stays with what was typed.
      formNotice(reasonOf(xhr.responseText), xhr.getResponseHeader("X-Login-Needed") === "1");
    }
  });
  // What htmx itself swaps into #live (ending the game, a correction saved) keeps what the
  // person was doing too (carry).
  var swapping = null;
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    swapping = evt.detail.shouldSwap && target && (target.id === "live" || target.id === "round")
      ? {id: target.id, state: doing(target)} : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    var fresh = swapping && document.getElementById(swapping.id);
    if (fresh) { carry(fresh, swapping.state); }
    swapping = null;
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var notice = document.getElementById("form-unsent");
    if (notice && evt.detail.successful) { notice.remove(); }
  });
  window.addEventListener("online", function () {
    if (outbox.trouble) { window.clearTimeout(outbox.timer); drain(); }
  });
  // Back at the tablet after logging in elsewhere: the taps waiting for it go at once.
  document.addEventListener("visibilitychange", function () {
    if (outbox.login && document.visibilityState === "visible") { window.clearTimeout(outbox.timer); drain(); }
  });

  function swap(response, text) {
    var wanted = response.headers.get("HX-Retarget") === "#round" ? "round" : "live";
    var target = document.getElementById(wanted);
    var template = document.createElement("template");
    template.innerHTML = text;
    var fresh = template.content.getElementById(wanted);
    if (!target || !fresh) { return; }
    keepEditor(fresh);
    var before = doing(target);
    target.replaceWith(fresh);
    if (window.htmx) { htmx.process(fresh); }
    settled();
    carry(fresh, before); // after settled: the buttons shown are the ones left to focus
  }

  // --- What a person is doing survives every redraw --------------------------------------
  // A redraw (a tap's answer, another tablet's change, a poll) draws #live or #round anew from
  // the server. What the scorer had ticked, typed, opened or focused in the old one is carried
  // into the new one, control by control: a boer ticked while the last tap was on its way is
  // still ticked for the last trick of that round (never of another round), "Meer" stays open,
  // focus stays on the control (or near it: its form, else the round's title).
  function formKey(form) {
    if (!form) { return ""; }
    var type = form.querySelector("input[type=hidden][name=type]");
    return [form.getAttribute("action") || "", type ? type.value : "", form.dataset.player || "", form.id || ""].join("|");
  }

  function controlKey(el) {
    if (!el || !el.tagName) { return ""; }
    if (el.tagName === "SUMMARY") { return "summary|" + detailsKey(el.parentElement); }
    if (el.tagName === "BUTTON") { return "button|" + formKey(el.form) + "|" + el.name + "=" + el.value; }
    if (el.type === "hidden" || (!el.name && !el.id)) { return ""; }
    return el.id ? "#" + el.id : formKey(el.form) + "|" + el.name + (el.type === "radio" ? "=" + el.value : "");
  }

  function detailsKey(details) {
    if (!details) { return ""; }
    var summary = details.querySelector("summary");
    return details.id || (summary ? summary.getAttribute("aria-label") || summary.textContent.trim() : "");
  }

  function shown(el) { return Boolean(el && el.getClientRects().length); }

  function doing(root) {
    var round = root.id === "round" ? root : root.querySelector("#round");
    var state = {round: round ? round.dataset.round : "", fields: [], open: [], focus: "", near: ""};
    root.querySelectorAll("input, select, textarea").forEach(function (field) {
      var key = controlKey(field);
      if (!key || field.closest("#editor")) { return; } // the editor is kept whole (keepEditor)
      if (field.type === "checkbox" || field.type === "radio") {
        if (field.checked !== field.defaultChecked) { state.fields.push({key: key, checked: field.checked}); }
      } else if (field.tagName === "SELECT") {
        if (Array.prototype.some.call(field.options, function (o) { return o.selected !== o.defaultSelected; })) {
          state.fields.push({key: key, value: field.value});
        }
      } else if (field.value !== field.defaultValue) {
        state.fields.push({key: key, value: field.value});
      }
    });
    root.querySelectorAll("details[open]").forEach(function (details) {
      if (!details.closest("#editor")) { state.open.push(detailsKey(details)); }
    });
    var active = document.activeElement;
    if (active && root.contains(active)) {
      state.focus = controlKey(active);
      state.near = formKey(active.form || (active.closest && active.closest("form")));
    }
    return state;
  }

  function carry(fresh, state) {
    var round = fresh.id === "round" ? fresh : fresh.querySelector("#round");
    var sameRound = Boolean(round) && round.dataset.round === state.round;
    var controls = fresh.querySelectorAll("button, summary, input, select, textarea");
    function find(key, visible) {
      return Array.prototype.find.call(controls, function (el) {
        return controlKey(el) === key && (!visible || shown(el));
      });
    }
    if (sameRound) { // what was ticked or typed for this round, and only for it
      state.fields.forEach(function (field) {
        var el = find(field.key, false);
        if (!el) { return; }
        if ("checked" in field) { el.checked = field.checked; } else { el.value = field.value; }
      });
    }
    fresh.querySelectorAll("details").forEach(function (details) {
      if (state.open.indexOf(detailsKey(details)) !== -1) { details.open = true; }
    });
    if (!state.focus && !state.near) { return; }
    var target = find(state.focus, true);
    if (!target && state.near) {
      var form = Array.prototype.find.call(fresh.querySelectorAll("form"), function (f) {
        return formKey(f) === state.near && shown(f);
      });
      target = form && Array.prototype.find.call(form.querySelectorAll("button, summary, input, select"), shown);
    }
    if (!target) { target = fresh.querySelector("#round-title, #panel h2"); }
    if (target) { target.focus({preventScroll: true}); }
  }

  // Each tap's result, said once in a polite live region (the strip speaks only when taps
  // really wait; refusals are alerts of their own).
  function announce(text) {
    var news = document.getElementById("tap-news");
    if (!news || !text) { return; }
    news.textContent = "";
    window.setTimeout(function () { news.textContent = text.replace(/\s+/g, " ").trim(); }, 50);
  }

  // A round correction being typed (#editor, drawn into the lei by its own request) stays
  // open when the lei around it is drawn anew: another tablet's tap, this tablet's taps
  // arriving. Saving it closes it; saved at a version gone by, it comes back with its rows
  // and says so (scoring/lei/correction_views.py).
  function keepEditor(fresh) {
    var open = document.querySelector("#live #editor:not(:empty)");
    var empty = fresh.querySelector("#editor");
    if (open && empty) { empty.replaceWith(open); }
  }

  // After the page was drawn or an answer swapped in.
  function settled() {
    var round = roundSection();
    if (!round) { return; }
    outbox.version = parseInt(round.dataset.version, 10);
    readHere();
    showRound();
    // A round just ended: its result has its moment. Any other answer (an undo that opened
    // the round again) is the panel to tap on at once.
    if (document.getElementById("round-flash")) { guard(); } else { guardUntil = 0; settle(); }
    var live = document.getElementById("live");
    if (live) {
      var html = live.outerHTML;
      if (live.querySelector("#editor:not(:empty)")) { // kept open (keepEditor), not kept here
        var copy = live.cloneNode(true);
        var closed = document.createElement("div");
        closed.id = "editor";
        copy.querySelector("#editor").replaceWith(closed);
        html = copy.outerHTML;
      }
      quietly(keepLei({tablet: outbox.tablet, person: currentPerson(), version: outbox.version,
                       html: html}));
    }
    render();
  }

  // The strip, and the offline buttons (CSS: html[data-outbox-state]) while taps wait.
  function render() {
    var box = document.getElementById("outbox");
    var taps = outbox.taps;
    // A tap shows at once, before its answer: the strip and the offline buttons while any waits.
    var waiting = taps.length > 0;
    document.documentElement.dataset.tapsWaiting = String(taps.length); // for the browser tests
    var state = outbox.stopped ? "stopped" : outbox.trouble ? "waiting" : "sending";
    if (waiting) { document.documentElement.setAttribute("data-outbox-state", state); }
    else { document.documentElement.removeAttribute("data-outbox-state"); }
    if (!waiting) {
      window.clearTimeout(outbox.overdueTimer);
      outbox.overdueTimer = null;
      outbox.overdue = false;
    }
    // A tap answered at once reads as normal: the strip shows only when a tap really waits
    // (unanswered for SHOW_WAITING_MS, no connection, refused, a login needed).
    var said = waiting && (outbox.overdue || outbox.trouble || outbox.stopped || outbox.login
      || Boolean(outbox.note) || Boolean(outbox.misfit));
    if (waiting && !said && !outbox.overdueTimer) {
      outbox.overdueTimer = window.setTimeout(function () {
        outbox.overdueTimer = null;
        if (outbox.taps.length) { outbox.overdue = true; render(); }
      }, SHOW_WAITING_MS);
    }
    if (!box) { return; }
    box.replaceChildren();
    box.hidden = !said;
    if (!said) { return; }
    var t = box.dataset;
    if (outbox.stopped && taps[0].conflict && taps.length > 1 && !outbox.oneByOne) {
      box.append(conflictList(taps, t)); // the list names every tap: no line of them above it
      return;
    }
    var head = document.createElement("p");
    head.className = "outbox__taps";
    var count = document.createElement("strong");
    count.textContent = taps.length === 1 ? t.one : t.many.replace("{n}", taps.length);
    head.append(count, ": ");
    taps.forEach(function (tap, index) {
      var item = document.createElement("span");
      item.className = "outbox__tap" + (index === 0 && outbox.stopped ? " outbox__tap--refused" : "");
      item.textContent = tap.label;
      if (index) { head.append(" · "); }
      head.append(item);
    });
    box.append(head);
    if (outbox.login) {
      var login = document.createElement("div"); // the refusal's place, with a link for a button
      login.className = "outbox__refused";
      login.setAttribute("role", "alert");
      var ask = document.createElement("p");
      ask.append(document.createElement("strong"));
      ask.firstChild.textContent = ((taps.length === 1 ? t.loginOne : t.loginMany) || "").replace("{n}", taps.length);
      var way = document.createElement("div");
      way.className = "cluster";
      way.append(loginButton(t));
      login.append(ask, way);
      box.append(login);
    } else if (outbox.stopped) {
      var refused = document.createElement("div");
      refused.className = "outbox__refused";
      refused.setAttribute("role", "alert");
      var why = document.createElement("p");
      var what = document.createElement("strong");
      what.textContent = taps[0].label;
      why.append(what, " — ", taps[0].error || t.stopped);
      var drop = document.createElement("button");
      drop.type = "button";
      drop.className = "btn btn--danger";
      drop.setAttribute("data-outbox-drop", "");
      drop.textContent = t.drop;
      var retry = document.createElement("button");
      retry.type = "button";
      retry.className = "btn";
      retry.setAttribute("data-outbox-retry", "");
      retry.textContent = t.retry;
      var actions = document.createElement("div");
      actions.className = "cluster";
      actions.append(drop);
      if (!taps[0].revoked) { actions.append(retry); }
      refused.append(why, actions);
      box.append(refused);
    } else {
      var note = document.createElement("p");
      note.className = "outbox__note";
      note.textContent = outbox.note || outbox.misfit || (outbox.failing ? t.waiting : t.sending);
      if (document.documentElement.hasAttribute("data-round-moved")) { note.textContent += " " + t.movedOn; }
      box.append(note);
    }
  }

  // The lei went on without these taps: every waiting tap in one list, with its round, and
  // what to do with them all. A tap is only ever sent for the round it was made in.
  function conflictList(taps, t) {
    var round = roundSection();
    var now = round ? parseInt(round.dataset.round, 10) : 0;
    var refused = document.createElement("div");
    refused.className = "outbox__refused outbox__conflict";
    refused.setAttribute("role", "alert");
    var why = document.createElement("p");
    var what = document.createElement("strong");
    what.textContent = taps[0].label;
    why.append(what, " — ", taps[0].error || t.stopped);
    var intro = document.createElement("p");
    intro.textContent = t.conflict.replace("{round}", now);
    var list = document.createElement("ol");
    list.className = "outbox__list";
    taps.forEach(function (tap) {
      var item = document.createElement("li");
      item.textContent = (tap.round ? t.roundWord.replace("{n}", tap.round) + ": " : "") + tap.label;
      if (tap.round && tap.round < now) {
        var past = document.createElement("em");
        past.textContent = " — " + t.past;
        item.append(past);
      }
      list.append(item);
    });
    var actions = document.createElement("div");
    actions.className = "cluster";
    // "probeer opnieuw" is one step further, with each tap (one by one).
    [["btn btn--primary", "data-outbox-drop-all", t.dropAll], ["btn", "data-outbox-one-by-one", t.oneByOne]].forEach(function (spec) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = spec[0];
      button.setAttribute(spec[1], "");
      button.textContent = spec[2];
      actions.append(button);
    });
    refused.append(why, intro, list, actions);
    return refused;
  }

  // A tablet page opened: the last lei this tablet had when the page is older (a reload
  // from the service worker's copy), then the taps still waiting, in order.
  function start() {
    var round = roundSection();
    if (!round || !document.querySelector("form[data-outbox]")) { return; }
    // The page as the server drew it, before anything here changes it: the service worker's
    // copy on a first visit (asking the server for the page again would cost a page).
    var drawn = "<!doctype html>\n" + document.documentElement.outerHTML;
    outbox.version = parseInt(round.dataset.version, 10);
    var person = currentPerson();
    var before = null; // whose the kept pages, lei and taps were
    try { before = localStorage.getItem("lei-person"); localStorage.setItem("lei-person", person); }
    catch (e) { /* no storage: the taps' own person still keeps them apart */ }
    var changed = before !== null && before !== person;
    var out = signedOut();
    var gone = out.concat(changed ? [before] : []);
    (gone.length ? handOver(gone, out) : Promise.resolve([])).then(function (dropped) {
      register(drawn, gone.length > 0);
      var own = dropped.filter(function (tap) { return tap.person === person; }).length;
      if (own && out.indexOf(person) !== -1) { signedOutNotice(own); }
      return quietly(lastLei(outbox.tablet));
    }).then(function (kept) {
      var live = document.getElementById("live");
      if (kept && kept.person === person && live && kept.version > outbox.version) {
        var template = document.createElement("template");
        template.innerHTML = kept.html;
        var fresh = template.content.getElementById("live");
        if (fresh) { live.replaceWith(fresh); if (window.htmx) { htmx.process(fresh); } }
      }
      return quietly(allTaps());
    }).then(function (stored) {
      var mine = [];
      var others = [];
      (stored || []).forEach(function (tap) {
        if (tap.person === undefined) { tap.person = person; } // kept before taps had a person
        if (tap.tablet !== outbox.tablet) { return; }
        // Someone else's: never sent from this page, kept for them and named (othersNotice).
        if (tap.person !== person) { others.push(tap); } else { mine.push(tap); }
      });
      others.sort(function (a, b) { return a.seq - b.seq || a.at - b.at; });
      othersNotice(others);
      mine.sort(function (a, b) { return a.seq - b.seq || a.at - b.at; });
      var sent = outbox.taps.slice(); // tapped while the store was being read
      outbox.taps = mine.concat(sent.filter(function (tap) {
        return !mine.some(function (m) { return m.key === tap.key; });
      }));
      outbox.seq = outbox.taps.reduce(function (max, tap) { return Math.max(max, tap.seq || 0); }, 0);
      settled();
      var last = mine[mine.length - 1];
      if (last && last.after && !mine[0].error) { // the round the waiting taps had reached
        here = last.after;
        steps = mine.map(function (tap) { return tap.before; });
        showRound();
      }
      if (mine.length) {
        outbox.trouble = outbox.failing = true; // they waited through a reload: say so
        outbox.stopped = Boolean(mine[0].error);
        render();
        drain();
      }
    });
  }

  // Someone else uses this browser now (signed in as another person, or signed out where the
  // service worker did not see it), or these people signed out on purpose: their kept pages
  // and lei go. The taps of those who signed out on purpose (``drop``) go too, for the notice;
  // the taps of a login that only ended stay, kept for that person and named to the next one.
  function handOver(people, drop) {
    var dropped = [];
    var gone = [
      quietly(store("lei", "readwrite", function (s) { return s.clear(); })),
      quietly(allTaps()).then(function (stored) {
        dropped = (stored || []).filter(function (tap) {
          return drop.indexOf(tap.person) !== -1 || tap.person === undefined;
        });
        return Promise.all(dropped.map(function (tap) { return quietly(forget(tap)); }));
      }),
    ];
    if (window.caches) { gone.push(quietly(caches.delete("lei-tablet-v1"))); }
    return Promise.all(gone).then(function () { return dropped; });
  }

  // Who signed out here on purpose (the site's or the admin's logout: scoring/lei/outbox.py
  // marks it in a cookie), read once: their taps are not to be sent by a later login. A login
  // that only ended leaves no mark, and its taps wait for the next one.
  var SIGNED_OUT = /(?:^|;\s*)lei-signed-out=([^;]+)/;
  function signedOut() {
    var mark = document.cookie.match(SIGNED_OUT);
    if (!mark) { return []; }
    var secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = "lei-signed-out=; Max-Age=0; Path=/; SameSite=Lax" + secure;
    return mark[1].split(".");
  }

  function signedOutNotice(count) {
    var notices = document.getElementById("notices");
    var t = texts();
    if (!notices) { return; }
    var notice = document.createElement("div");
    notice.id = "signed-out";
    notice.className = "notice";
    notice.setAttribute("role", "status");
    notice.textContent = ((count === 1 ? t.signedOutOne : t.signedOutMany) || "").replace("{n}", count);
    notices.append(notice);
  }

  // Taps another person made on this tablet, waiting for that person: said, with their name,
  // never sent under this person's name; that person sends them by logging in here again, or
  // whoever holds the tablet throws them away, in words.
  function othersNotice(taps) {
    var notices = document.getElementById("notices");
    document.querySelectorAll(".others-taps").forEach(function (old) { old.remove(); });
    if (!notices || !taps.length) { return; }
    var t = texts();
    var people = [];
    taps.forEach(function (tap) { if (people.indexOf(tap.person) === -1) { people.push(tap.person); } });
    people.forEach(function (who) {
      var theirs = taps.filter(function (tap) { return tap.person === who; });
      var name = theirs[theirs.length - 1].name || t.someone || "";
      var notice = document.createElement("div");
      notice.className = "notice notice--warn stack others-taps";
      notice.setAttribute("role", "alert");
      var what = document.createElement("p");
      var count = document.createElement("strong");
      count.textContent = ((theirs.length === 1 ? t.othersOne : t.othersMany) || "")
        .replace("{n}", theirs.length).replace("{name}", name);
      what.append(count, " ", (t.othersWay || "").replace("{name}", name));
      var list = document.createElement("p");
      list.className = "others-taps__list";
      list.textContent = theirs.map(function (tap) { return tap.label; }).join(" · ");
      var login = document.createElement("a");
      login.className = "btn btn--primary";
      login.href = t.login;
      login.textContent = (t.othersLogin || "").replace("{name}", name);
      var drop = document.createElement("button");
      drop.type = "button";
      drop.className = "btn btn--danger";
      drop.textContent = t.othersDrop;
      drop.addEventListener("click", function () {
        Promise.all(theirs.map(function (tap) { return quietly(forget(tap)); })).then(function () {
          notice.remove();
        });
      });
      var way = document.createElement("div");
      way.className = "cluster";
      way.append(login, drop);
      notice.append(what, list, way);
      notices.append(notice);
    });
  }

  // --- 3. The service worker -------------------------------------------------------------
  function register(drawn, handedOver) {
    var box = document.getElementById("outbox");
    var url = box && box.dataset.worker;
    if (!url || !("serviceWorker" in navigator)) { return; }
    var first = !navigator.serviceWorker.controller; // else the worker kept it as it passed
    navigator.serviceWorker.register(url, {scope: "/"}).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      // The files this page needs offline, and on a first visit the page itself.
      var files = [];
      document.querySelectorAll("script[src], link[rel=stylesheet], link[rel=icon]").forEach(function (el) {
        files.push(el.getAttribute("src") || el.getAttribute("href"));
      });
      var page = first || handedOver ? {path: location.pathname, html: drawn} : null;
      if (registration.active) { registration.active.postMessage({keep: files, page: page}); }
    }).catch(function () { /* no worker (private window): the outbox works without it */ });
  }

  document.addEventListener("DOMContentLoaded", start);

  // The session form: tap club players in seating order.
  document.addEventListener("click", function (evt) {
    var chip = evt.target.closest("[data-seat-name]");
    if (chip) {
      var seats = Array.prototype.slice.call(document.querySelectorAll("input[name^='seat_']"));
      var name = chip.getAttribute("data-seat-name");
      if (seats.some(function (s) { return s.value.trim().toLowerCase() === name.toLowerCase(); })) { return; }
      var free = seats.find(function (s) { return !s.value.trim(); });
      if (free) { free.value = name; free.dispatchEvent(new Event("input", {bubbles: true})); }
      return;
    }
    if (evt.target.closest("[data-clear-seats]")) {
      document.querySelectorAll("input[name^='seat_']").forEach(function (s) { s.value = ""; });
      document.dispatchEvent(new Event("input"));
    }
  });

  // The dealer list says who sits on each seat.
  function dealerNames() {
    var dealer = document.querySelector("select[name='dealer']");
    if (!dealer) { return; }
    Array.prototype.forEach.call(dealer.options, function (option) {
      if (!option.dataset.seat) { option.dataset.seat = option.textContent; }
      var seat = document.querySelector("input[name='seat_" + option.value + "']");
      var name = seat && seat.value.trim();
      option.textContent = name ? option.dataset.seat + " — " + name : option.dataset.seat;
    });
  }
  document.addEventListener("input", dealerNames);
  document.addEventListener("DOMContentLoaded", function () {
    dealerNames();
    var clear = document.querySelector("[data-clear-seats]");
    if (clear) { clear.hidden = false; }
  });
})();
