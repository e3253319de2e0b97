// clipperd gallery: keeps the stage, progress, clip count, credits and error
// of projects still in flight up to date by polling /ui/progress.
(function () {
  "use strict";
  var every = 3000;

  function inFlight() {
    return Array.prototype.slice.call(document.querySelectorAll('[data-project-id][data-in-flight="true"]'));
  }

  function show(el, p) {
    var set = function (sel, text) {
      var n = el.querySelector(sel);
      if (n) { n.textContent = text; }
    };
    set(".stage", p.stage);
    set(".clip-count", String(p.clips));
    set(".credits", String(p.credits));
    var bar = el.querySelector("progress");
    if (bar) { bar.value = p.percent; bar.hidden = !p.inFlight; }
    // A list row holds its error; on a project page it follows the line.
    var next = el.nextElementSibling;
    var err = el.querySelector(".error") || (next && next.classList.contains("error") ? next : null);
    if (err) { err.textContent = p.error; err.hidden = !p.error; }
    el.setAttribute("data-in-flight", p.inFlight ? "true" : "false");
    // A project page shows its clips once the project has ended.
    if (!p.inFlight && el.hasAttribute("data-reload-when-done")) { window.location.reload(); }
  }

  function poll() {
    var rows = inFlight();
    if (rows.length === 0) { return; }
    var ids = rows.map(function (r) { return r.getAttribute("data-project-id"); });
    fetch("/ui/progress?ids=" + encodeURIComponent(ids.join(",")), { credentials: "same-origin", cache: "no-store" })
      .then(function (res) {
        if (res.status === 401) { window.location.assign("/ui/login"); return null; }
        return res.ok ? res.json() : null;
      })
      .then(function (body) {
        if (body && body.projects) {
          body.projects.forEach(function (p) {
            rows.forEach(function (r) { if (r.getAttribute("data-project-id") === p.id) { show(r, p); } });
          });
        }
        window.setTimeout(poll, every);
      })
      .catch(function () { window.setTimeout(poll, every); });
  }

  document.addEventListener("DOMContentLoaded", function () { window.setTimeout(poll, every); });
})();
