// The page's interactive timelines (tools/apfplot/timelines.py writes the data and inlines
// this file after uPlot). One uPlot chart per replica and level (seats and queue; rejections
// and wait) and per client (rates; latency), every run of the page overlaid with its own
// dash, the scenario's marks drawn as dashed vertical lines. All charts share the time
// axis: a zoom or pan on one is applied to all. Tested by tests/ci/page_test.sh (headless
// Chromium: the charts' canvases exist and no script error was recorded).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("timelines-data").textContent);
  var root = document.getElementById("timelines-root");
  var charts = [];
  var syncing = false;
  var DASHES = [[], [7, 4], [2, 3], [10, 3, 2, 3]];

  function clock(seconds) {
    if (seconds == null) return "";
    var minutes = Math.floor(seconds / 60);
    var rest = +(seconds - minutes * 60).toFixed(3);
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  function number(value) {
    if (value == null) return "–";
    return Math.abs(value) >= 100 ? value.toFixed(0) : +value.toPrecision(3) + "";
  }

  function seconds(value) {
    if (value == null) return "–";
    return value < 1 ? +(value * 1000).toPrecision(3) + " ms" : +value.toPrecision(3) + " s";
  }

  // The first and last instants of every run, so that zooming out stops at the run's ends.
  var bounds = [Infinity, -Infinity];
  function widen(t) {
    if (t.length === 0) return;
    bounds[0] = Math.min(bounds[0], t[0]);
    bounds[1] = Math.max(bounds[1], t[t.length - 1]);
  }
  data.levels.concat(data.clients).forEach(function (chart) {
    chart.runs.forEach(function (run) { if (run) widen(run.t); });
  });
  if (!isFinite(bounds[0])) bounds = [0, 1];
  if (bounds[1] <= bounds[0]) bounds[1] = bounds[0] + 1;

  function setAllX(min, max, from) {
    if (syncing) return;
    syncing = true;
    charts.forEach(function (chart) {
      if (chart !== from) chart.setScale("x", {min: min, max: max});
    });
    syncing = false;
  }

  function clampRange(min, max) {
    var span = Math.min(max - min, bounds[1] - bounds[0]);
    if (min < bounds[0]) { min = bounds[0]; max = min + span; }
    if (max > bounds[1]) { max = bounds[1]; min = max - span; }
    return [min, max];
  }

  // The mouse wheel zooms around the pointer; Shift+drag (or a middle-button drag) pans.
  function zoomAndPan(u) {
    u.over.addEventListener("wheel", function (event) {
      event.preventDefault();
      var rect = u.over.getBoundingClientRect();
      var at = u.posToVal(event.clientX - rect.left, "x");
      var min = u.scales.x.min, max = u.scales.x.max;
      var factor = event.deltaY < 0 ? 0.8 : 1.25;
      var span = Math.max((max - min) * factor, 1e-3);
      var share = (at - min) / (max - min);
      var range = clampRange(at - share * span, at - share * span + span);
      u.setScale("x", {min: range[0], max: range[1]});
    }, {passive: false});
    u.root.addEventListener("mousedown", function (event) {
      if (!(event.shiftKey || event.button === 1) || !u.over.contains(event.target)) return;
      event.preventDefault();
      event.stopPropagation();
      var startX = event.clientX, min = u.scales.x.min, max = u.scales.x.max;
      var perPixel = (max - min) / u.over.getBoundingClientRect().width;
      function move(e) {
        var shift = (startX - e.clientX) * perPixel;
        var range = clampRange(min + shift, max + shift);
        u.setScale("x", {min: range[0], max: range[1]});
      }
      function up() {
        document.removeEventListener("mousemove", move);
        document.removeEventListener("mouseup", up);
      }
      document.addEventListener("mousemove", move);
      document.addEventListener("mouseup", up);
    }, true);
  }

  function drawMarks(u) {
    if (data.marks.length === 0) return;
    var ctx = u.ctx, ratio = window.devicePixelRatio || 1;
    ctx.save();
    ctx.strokeStyle = "#555";
    ctx.fillStyle = "#333";
    ctx.lineWidth = ratio;
    ctx.setLineDash([4 * ratio, 4 * ratio]);
    ctx.font = (11 * ratio) + "px system-ui, sans-serif";
    data.marks.forEach(function (mark) {
      if (mark.at < u.scales.x.min || mark.at > u.scales.x.max) return;
      var x = Math.round(u.valToPos(mark.at, "x", true));
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.fillText(mark.label, x + 3 * ratio, u.bbox.top + 12 * ratio);
    });
    ctx.restore();
  }

  // One chart: `lines` are {key, label, colour, scale}; each is drawn once per run.
  function chart(parent, title, chartData, lines, scales) {
    var tables = [];
    var series = [{label: "time", value: function (u, v) { return clock(v); }}];
    chartData.runs.forEach(function (run, r) {
      if (!run) return;
      var table = [run.t];
      lines.forEach(function (line) {
        table.push(run[line.key]);
        series.push({
          label: (data.runs.length > 1 ? data.runs[r].letter + " " : "") + line.label,
          stroke: line.colour,
          width: 1.5,
          dash: DASHES[r % DASHES.length],
          scale: line.scale,
          spanGaps: false,
          value: function (u, v) { return scales[line.scale].format(v); },
        });
      });
      tables.push(table);
    });
    // Null (an interval with nothing to report) stays a gap in the overlaid runs too.
    var joined = tables.length === 1 ? tables[0] : uPlot.join(tables, tables.map(function (t) {
      return t.map(function () { return 1; });
    }));
    var element = document.createElement("div");
    element.className = "timeline";
    parent.appendChild(element);
    var axes = [{values: function (u, ticks) { return ticks.map(clock); }}];
    var scaleOptions = {x: {time: false, range: function (u, min, max) { return [min, max]; }}};
    Object.keys(scales).forEach(function (name, i) {
      scaleOptions[name] = {auto: true, range: function (u, min, max) {
        return [Math.min(0, min), max > 0 ? max * 1.05 : 1];
      }};
      axes.push({
        scale: name, label: scales[name].label, side: i === 0 ? 3 : 1,
        grid: {show: i === 0},
        values: function (u, ticks) { return ticks.map(scales[name].format); },
        size: 60,
      });
    });
    var u = new uPlot({
      title: title,
      width: Math.max(320, element.clientWidth || 600),
      height: 240,
      scales: scaleOptions,
      series: series,
      axes: axes,
      cursor: {sync: {key: "apfsim"}, drag: {x: true, y: false}},
      legend: {live: true},
      hooks: {
        setScale: [function (u, key) {
          if (key !== "x") return;
          // The range shown, on the chart's element: tests/ci/page_test.sh reads it.
          element.setAttribute("data-x-min", String(+u.scales.x.min.toFixed(3)));
          element.setAttribute("data-x-max", String(+u.scales.x.max.toFixed(3)));
          setAllX(u.scales.x.min, u.scales.x.max, u);
        }],
        draw: [drawMarks],
        ready: [zoomAndPan],
      },
    }, joined, element);
    charts.push(u);
  }

  var seatScales = {y: {label: "seats, requests", format: number}};
  var rejectScales = {y: {label: "per second", format: number},
                      w: {label: "wait p99", format: seconds}};
  var clientScales = {y: {label: "per second", format: number}};
  var latencyScales = {l: {label: "latency p99", format: seconds}};
  data.levels.forEach(function (level) {
    var heading = document.createElement("h3");
    heading.textContent = level.level + " on " + level.replica;
    root.appendChild(heading);
    var group = document.createElement("div");
    group.className = "timeline-group";
    root.appendChild(group);
    chart(group, level.level + " on " + level.replica + ": seats and queue", level, [
      {key: "executing", label: "executing seats", colour: "#1f77b4", scale: "y"},
      {key: "currentCL", label: "currentCL", colour: "#2ca02c", scale: "y"},
      {key: "nominalCL", label: "nominalCL", colour: "#999999", scale: "y"},
      {key: "waiting", label: "waiting requests", colour: "#ff7f0e", scale: "y"},
    ], seatScales);
    chart(group, level.level + " on " + level.replica + ": dispatched, rejected, wait", level, [
      {key: "dispatched", label: "dispatched/s", colour: "#1f77b4", scale: "y"},
      {key: "rejected", label: "rejected/s", colour: "#d62728", scale: "y"},
      {key: "waitP99", label: "wait p99", colour: "#9467bd", scale: "w"},
    ], rejectScales);
  });
  data.clients.forEach(function (client) {
    var heading = document.createElement("h3");
    heading.textContent = "client " + client.client;
    root.appendChild(heading);
    var group = document.createElement("div");
    group.className = "timeline-group";
    root.appendChild(group);
    chart(group, client.client + ": calls and answers", client, [
      {key: "calls", label: "calls/s", colour: "#1f77b4", scale: "y"},
      {key: "attempts", label: "attempts/s", colour: "#17becf", scale: "y"},
      {key: "http429", label: "429s/s", colour: "#d62728", scale: "y"},
      {key: "failed", label: "failed/s", colour: "#8c564b", scale: "y"},
    ], clientScales);
    chart(group, client.client + ": latency", client, [
      {key: "latencyP99", label: "latency p99", colour: "#9467bd", scale: "l"},
    ], latencyScales);
  });

  // index.html#t=FROM-TO (seconds) opens the timelines zoomed to that stretch: a link to
  // the seconds that matter.
  var wanted = /^#t=([0-9.]+)-([0-9.]+)$/.exec(window.location.hash);
  if (wanted && charts.length > 0 && +wanted[1] < +wanted[2]) {
    charts[0].setScale("x", {min: +wanted[1], max: +wanted[2]});
    root.scrollIntoView();
  }

  window.addEventListener("resize", function () {
    charts.forEach(function (u) {
      var width = u.root.parentNode.clientWidth;
      if (width > 0) u.setSize({width: width, height: 240});
    });
  });
  document.body.setAttribute("data-timelines", String(charts.length));
})();
