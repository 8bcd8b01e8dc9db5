// Stepping through a game with the keyboard: the arrow keys follow the page's own
// first / previous / next / last links (each ply has its URL; without JavaScript the
// links work alone). Keys typed into a field, or with a modifier, are left alone.
(function () {
  "use strict";

  var KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

  document.addEventListener("keydown", function (event) {
    var rel = KEYS[event.key];
    if (!rel || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) {
      return;
    }
    var link = document.querySelector("nav.replay a[data-replay='" + rel + "']");
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
