/* The toernooi's pages: the little JavaScript they have besides static/js/poll.js (which
   pauses the polls of a hidden page, polls at once when it is shown again, and shows the
   [data-stale] notice while polls fail).
   1. A button with data-print prints the page (the table cards, the prize list).
   2. Tap-tap swap on a drawn series: tap a name, then another, and the swap form (two
      selects, which work without this) is sent with those two.
   3. A form sent by htmx that the server could not take, with a page of its own (the login
      ran out, or the page is older than the last login: scoring/http.py, 403), shows that
      page's words and its way back in place of the page, instead of nothing at all. */
(function () {
  "use strict";

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("[data-print]");
    if (button) {
      evt.preventDefault();
      window.print();
      return;
    }
    var pick = evt.target.closest && evt.target.closest("[data-swap-id]");
    var form = document.getElementById("swap-form");
    if (!pick || !form) { return; }
    var picked = document.querySelector('[data-swap-id][aria-pressed="true"]');
    if (picked === pick) {
      pick.setAttribute("aria-pressed", "false");
    } else if (!picked) {
      pick.setAttribute("aria-pressed", "true");
    } else {
      form.elements.a.value = picked.dataset.swapId;
      form.elements.b.value = pick.dataset.swapId;
      pick.setAttribute("aria-pressed", "true");
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });

  document.addEventListener("htmx:beforeSwap", function (evt) {
    var xhr = evt.detail.xhr;
    var content = document.getElementById("content");
    if (!xhr || xhr.status !== 403 || !content) { return; }
    if (!/id="(refusal|stale)"/.test(xhr.responseText)) { return; }
    evt.detail.shouldSwap = true;
    evt.detail.isError = false;
    evt.detail.target = content;
    evt.detail.swapOverride = "outerHTML";
    evt.detail.selectOverride = "#content";
  });
})();
