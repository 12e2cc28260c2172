// The bot page's rating history: one line per tournament (mu) with its mu ± 3 sigma band, drawn
// by the vendored Chart.js.
"use strict";
(function () {
  const history = JSON.parse(document.getElementById("rating-data").textContent);
  const colours = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];
  const datasets = [];
  Object.entries(history).forEach(([tournament, points], i) => {
    const c = colours[i % colours.length];
    datasets.push({label: tournament + " (mu)", data: points.map((p) => ({x: p.x, y: p.mu})), borderColor: c,
      backgroundColor: c, pointRadius: 0, borderWidth: 2, tension: 0.1});
    datasets.push({label: tournament + " mu+3σ", data: points.map((p) => ({x: p.x, y: p.high})), borderColor: "transparent",
      backgroundColor: c + "22", pointRadius: 0, fill: "+1"});
    datasets.push({label: tournament + " mu−3σ", data: points.map((p) => ({x: p.x, y: p.low})), borderColor: "transparent",
      backgroundColor: c + "22", pointRadius: 0, fill: false});
  });
  new Chart(document.getElementById("rating-chart"), {
    type: "line",
    data: {datasets},
    options: {
      animation: false, parsing: true, responsive: true, maintainAspectRatio: false,
      scales: {x: {type: "linear", title: {display: true, text: "rated game of the tournament"}},
        y: {title: {display: true, text: "rating"}}},
      plugins: {legend: {labels: {filter: (item) => item.text.endsWith("(mu)")}}},
    },
  });
})();
