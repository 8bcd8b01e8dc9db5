// Live pages: follow the server's change feed and refresh the content when a move lands.
//
// A page that can change names its event stream on <main> (data-live-events) with
// the feed position it was made at (data-live-after). On a change the page fetches
// itself again and swaps in the new <main>: the server renders the page, this script
// never builds HTML, and without JavaScript every page still works by reloading.
(function () {
  "use strict";

  var main = document.querySelector("main[data-live-events]");
  if (!main || !window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }

  var stream = main.getAttribute("data-live-events");
  var after = main.getAttribute("data-live-after");
  var url = stream + (stream.indexOf("?") < 0 ? "?" : "&") + "after=" + encodeURIComponent(after);
  var pending = null;
  var busy = false;
  var lastRefresh = 0;
  var MIN_INTERVAL = 2000; // a busy list refreshes at most this often (ms)

  // The sentences come from the page, in its reader's language (data-live-updated, data-live-failed).
  var status = document.querySelector("[data-live-status]");

  function say(text) {
    if (status && text) {
      status.textContent = text;
    }
  }

  function said(name) {
    return (status && status.getAttribute(name)) || "";
  }

  function typing() {
    var active = document.activeElement;
    return active && main.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName);
  }

  function refresh() {
    pending = null;
    if (typing()) {
      // Never swap the page under a reader's cursor: refresh once they leave the field.
      document.activeElement.addEventListener("blur", soon, { once: true });
      return;
    }
    if (busy) {
      pending = setTimeout(refresh, 500);
      return;
    }
    busy = true;
    lastRefresh = Date.now();
    fetch(window.location.href, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var fresh = page.querySelector("main");
        if (!fresh) {
          return;
        }
        // Keep what the reader opened (the ASCII board) open across the swap.
        var open = Array.prototype.map.call(main.querySelectorAll("details[open]"), function (d) {
          return d.className;
        });
        main.innerHTML = fresh.innerHTML;
        open.forEach(function (name) {
          var details = name && main.querySelector("details." + name.split(" ")[0]);
          if (details) {
            details.open = true;
          }
        });
        document.title = page.title;
        var summary = main.querySelector(".summary");
        var time = new Date().toLocaleTimeString(document.documentElement.lang || undefined);
        var updated = said("data-live-updated").replace("{time}", time);
        say((summary ? summary.textContent + " " : "") + updated);
        main.dispatchEvent(new CustomEvent("pbm:updated", { bubbles: true }));
      })
      .catch(function () {
        say(said("data-live-failed"));
      })
      .then(function () {
        busy = false;
      });
  }

  function soon() {
    // Several changes at once make one refresh, and a busy list does not refresh without pause.
    if (pending === null) {
      var wait = Math.max(150, lastRefresh + MIN_INTERVAL - Date.now());
      pending = setTimeout(refresh, wait);
    }
  }

  var source = new EventSource(url);
  source.addEventListener("change", soon);
  source.addEventListener("reset", soon);
  source.addEventListener("open", function () {
    main.setAttribute("data-live-connected", "true");
  });
})();
