/* The tablet's service worker, served by scoring.lei.views.service_worker from the site's root so
   that its scope covers the tablet pages and signing out. It keeps:
   - the tablet pages ({{ tablet_example }}), network first: online a page is always the
     server's; offline a reload shows the copy kept at the last visit, and static/js/lei.js
     then draws the last lei it kept, with the taps still waiting in its outbox;
   - the files those pages load, network first as well.
   It never keeps the secret scorer link (it only redirects) nor any other page; a tablet page
   answered with anything but the page (logged out, link revoked, no access) is dropped from
   the copies, and signing in or out (the site's or the admin's) drops them all, with the lei
   kept in IndexedDB: a page kept for one person is never shown to the next. The taps waiting
   in IndexedDB stay, each kept for its person (static/js/lei.js): a sign-out's answer marks
   the person in a cookie (scoring/lei/outbox.py), and the next tablet page drops their taps;
   after a login that only ended, the same person signing in again sends them; another
   person's page names them and never sends them. Once the server says a page's login is
   gone, static/js/lei.js drops that page's copy here, so it is not shown offline. */
"use strict";

const COPIES = "lei-tablet-v1";
const TABLET = new RegExp("{{ tablet_pattern|escapejs }}");
const STATIC = "{{ static_prefix|escapejs }}";
const SIGNING = [{% for path in signing %}"{{ path|escapejs }}"{% if not forloop.last %}, {% endif %}{% endfor %}];
const TAPS = "{{ taps_pattern|escapejs }}"; // the tablet's POSTs, as a URLPattern path

self.addEventListener("install", (event) => {
  // Taps (POSTs under the tablet pages) go straight to the network, without waking this
  // worker: a tap never waits for it (the static routing API; where it is missing, the fetch
  // handler lets them pass). Signing in and out are POSTs elsewhere, which the worker must see.
  if (event.addRoutes) {
    event.waitUntil(
      event.addRoutes({
        condition: {requestMethod: "post", urlPattern: {pathname: TAPS}},
        source: "network",
      }).catch(() => null)
    );
  }
  self.skipWaiting();
});
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n !== COPIES).map((n) => caches.delete(n))))
      .then(() => self.clients.claim())
  );
});

function isPage(response) {
  return response.ok && response.type === "basic" && !response.redirected
    && (response.headers.get("Content-Type") || "").startsWith("text/html");
}

async function page(request, path) {
  const copies = await caches.open(COPIES);
  let response;
  try {
    response = await fetch(request);
  } catch (offline) {
    return (await copies.match(path)) || Response.error();
  }
  if (isPage(response)) {
    await copies.put(path, response.clone());
  } else {
    await copies.delete(path);
  }
  return response;
}

async function file(request) {
  const copies = await caches.open(COPIES);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") {
      await copies.put(request, response.clone());
    }
    return response;
  } catch (offline) {
    return (await copies.match(request, {ignoreSearch: true})) || Response.error();
  }
}

function forgetLei() {
  return new Promise((resolve) => {
    const open = indexedDB.open("lei-tablet", 1);
    open.onupgradeneeded = () => open.transaction.abort(); // no lei kept here: nothing to do
    open.onerror = () => resolve();
    open.onsuccess = () => {
      const tx = open.result.transaction("lei", "readwrite");
      tx.objectStore("lei").clear();
      tx.oncomplete = tx.onerror = () => { open.result.close(); resolve(); };
    };
  });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.method === "POST" && SIGNING.includes(url.pathname)) {
    event.waitUntil(Promise.all([caches.delete(COPIES), forgetLei()]));
    return;
  }
  if (request.method !== "GET") {
    return; // taps go to the network as they are: the outbox in lei.js retries them
  }
  if (request.mode === "navigate" && TABLET.test(url.pathname)) {
    event.respondWith(page(request, url.pathname));
  } else if (url.pathname.startsWith(STATIC)) {
    event.respondWith(file(request));
  }
});

// A tablet page names the files it needs offline and, on its first visit (loaded before this
// worker ran), hands over itself as the server drew it: no second request for the page.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  const paths = (data.keep || []).filter(
    (path) => typeof path === "string" && path.startsWith(STATIC)
  );
  const page = data.page;
  event.waitUntil(caches.open(COPIES).then((copies) => Promise.all([
    page && typeof page.path === "string" && TABLET.test(page.path) && typeof page.html === "string"
      ? copies.match(page.path).then((kept) => kept || copies.put(page.path, new Response(
        page.html, {headers: {"Content-Type": "text/html; charset=utf-8"}}
      )))
      : null,
    ...paths.map(async (path) => {
      if (await copies.match(path)) {
        return;
      }
      try {
        const response = await fetch(path);
        if (response.ok) {
          await copies.put(path, response);
        }
      } catch (offline) {
        // kept at the next visit
      }
    }),
  ])));
});
