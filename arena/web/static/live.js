// The tournament page while a run plays: poll the progress endpoint and update the line and the
// bar in place; once the run has ended, reload once for the final standings.
"use strict";
(function () {
  const box = document.getElementById("progress");
  const url = box.dataset.url;
  const status = document.getElementById("progress-status");
  const text = document.getElementById("progress-text");
  const bar = document.getElementById("progress-bar");
  async function poll() {
    try {
      const response = await fetch(url, {cache: "no-store"});
      if (!response.ok) throw new Error(String(response.status));
      const p = await response.json();
      text.textContent = p.matches + (p.planned ? " of " + p.planned : "") + " matches, " + p.games + " games";
      if (bar) bar.value = p.matches;
      status.textContent = p.status;
      status.className = "status status-" + p.status;
      box.dataset.games = String(p.games);
      if (p.status !== "running") { window.location.reload(); return; }
    } catch (e) {
      status.textContent = "running (no answer from the server)";
    }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();
