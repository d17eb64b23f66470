// Draws report.html's charts with uPlot from the JSON in #report-data, then
// records in #render-status whether every chart drew without a script
// error: data-state "ok" (data-charts: how many) or "error" (the messages).
(function () {
  "use strict";
  var status = document.getElementById("render-status");
  var errors = window.reportErrors || [];
  var charts = [];
  var drawn = 0;
  var expected = 0;
  var settled = false;

  function settle() {
    if (settled) return;
    if (errors.length) {
      settled = true;
      status.dataset.state = "error";
      status.textContent = "Chart errors:\n" + errors.join("\n");
      return;
    }
    if (drawn < expected) return;
    var blank = charts.filter(function (u) { return !(u.ctx.canvas.width > 0 && u.ctx.canvas.height > 0); });
    settled = true;
    if (blank.length) {
      status.dataset.state = "error";
      status.textContent = blank.length + " chart(s) have an empty canvas";
      return;
    }
    status.dataset.state = "ok";
    status.dataset.charts = String(charts.length);
  }

  var data;
  try {
    data = JSON.parse(document.getElementById("report-data").textContent);
  } catch (e) {
    errors.push("report data: " + e.message);
    settle();
    return;
  }

  // Latency arrives in milliseconds; print it with a unit that keeps three
  // significant digits, as the text report does.
  function fmtMs(v) {
    if (v == null || !isFinite(v)) return "–";
    var ns = v * 1e6;
    if (ns < 1e3) return Math.round(ns) + " ns";
    if (ns < 1e6) return +(ns / 1e3).toPrecision(3) + " µs";
    if (ns < 1e9) return +(ns / 1e6).toPrecision(3) + " ms";
    return +(ns / 1e9).toPrecision(3) + " s";
  }
  function fmtNum(v) {
    if (v == null || !isFinite(v)) return "–";
    if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + "k";
    return +v.toPrecision(3) + "";
  }
  function fmtPct(v) { return v == null || !isFinite(v) ? "–" : v.toFixed(2) + "%"; }
  function isPow10(v) { var l = Math.log10(v); return Math.abs(l - Math.round(l)) < 1e-9; }
  // A log axis gets a label per decade; within one decade, every split.
  function logValues(fmt) {
    return function (u, splits) {
      var decades = splits.filter(isPow10).length;
      return splits.map(function (v) { return decades >= 2 && !isPow10(v) ? "" : fmt(v); });
    };
  }
  // Grid lines on a log axis at whole decades only, when there are two or
  // more (uPlot's default adds every 2…9 multiple, too dense to read).
  function decadeSplits(u, axisIdx, min, max) {
    var out = [];
    for (var e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      var v = Math.pow(10, e);
      if (v >= min * 0.999 && v <= max * 1.001) out.push(v);
    }
    return out.length >= 2 ? out : [min, max];
  }

  // Timed fault windows shade every time chart; an instant fault is a line.
  function shadeFaults(u) {
    var ctx = u.ctx, b = u.bbox;
    data.faults.forEach(function (f) {
      var color = data.fault_colors[f.kind] || "#7f7f7f";
      var x0 = Math.max(b.left, u.valToPos(f.start_s, "x", true));
      var x1 = Math.min(b.left + b.width, u.valToPos(f.end_s, "x", true));
      ctx.save();
      if (f.end_s > f.start_s) {
        if (x1 > x0) {
          ctx.globalAlpha = 0.16;
          ctx.fillStyle = color;
          ctx.fillRect(x0, b.top, x1 - x0, b.height);
        }
      } else if (x0 >= b.left && x0 <= b.left + b.width) {
        ctx.globalAlpha = 0.8;
        ctx.fillStyle = color;
        ctx.fillRect(x0 - 1, b.top, 2, b.height);
      }
      ctx.restore();
    });
  }

  function onDraw(u) {
    if (!u._reportDrawn) {
      u._reportDrawn = true;
      drawn++;
      settle();
    }
  }

  function widthOf(el) { return Math.max(320, el.clientWidth - 10); }

  function secondsAxis() {
    return { label: "seconds since start", values: function (u, splits) { return splits.map(function (v) { return v + "s"; }); } };
  }
  function xSeries() {
    return { label: "second", value: function (u, v) { return v == null ? "–" : v.toFixed(1) + " s"; } };
  }

  function chart(el, opts, cols) {
    expected++;
    opts.width = widthOf(el);
    opts.height = opts.height || 240;
    opts.hooks = opts.hooks || {};
    opts.hooks.draw = (opts.hooks.draw || []).concat([onDraw]);
    try {
      var u = new uPlot(opts, cols, el);
      u._reportEl = el;
      charts.push(u);
    } catch (e) {
      errors.push((opts.title || "chart") + ": " + e.message);
      settle();
    }
  }

  // Connection drops shade the delivery charts, from the drop to the last
  // device's catch-up; one that took no time is a line.
  function shadeDrops(u) {
    var ctx = u.ctx, b = u.bbox, d = data.delivery;
    d.drops.forEach(function (w) {
      var x0 = Math.max(b.left, u.valToPos(w.start_s, "x", true));
      var x1 = Math.min(b.left + b.width, u.valToPos(w.end_s, "x", true));
      ctx.save();
      ctx.fillStyle = d.drop_color;
      if (x1 - x0 >= 2) {
        ctx.globalAlpha = 0.16;
        ctx.fillRect(x0, b.top, x1 - x0, b.height);
      } else if (x0 >= b.left && x0 <= b.left + b.width) {
        ctx.globalAlpha = 0.6;
        ctx.fillRect(x0 - 1, b.top, 2, b.height);
      }
      ctx.restore();
    });
  }

  function timeChart(el, title, yLabel, series, opts) {
    var cols = [data.t];
    var ser = [xSeries()];
    series.forEach(function (s) {
      cols.push(s.values);
      ser.push({ label: s.label, stroke: s.color, width: s.width || 1.5, dash: s.dash, scale: s.scale || "y",
        points: { show: data.t.length < 120 }, value: function (u, v) { return (s.fmt || fmtNum)(v); } });
    });
    var o = {
      title: title,
      scales: { x: { time: false, range: function (u, min, max) { return [0, Math.max(max || 0, data.duration)]; } } },
      series: ser,
      axes: [secondsAxis(), { label: yLabel, size: 70, values: function (u, splits) { return splits.map(series[0].fmt || fmtNum); } }],
      hooks: { drawClear: [shadeFaults] },
    };
    if (opts) opts(o);
    chart(el, o, cols);
  }

  function deliveryChart(el, title, s) {
    var d = data.delivery;
    if (!d.t.length) {
      el.textContent = title + ": no receipt was timed.";
      return;
    }
    var cols = [d.t, s.p50, s.p99, s.max];
    var ser = [xSeries()];
    [["p50", "#1c7ed6", 1.5, null], ["p99", "#f08c00", 2, null], ["max", "#495057", 1.5, [4, 3]]].forEach(function (p) {
      ser.push({ label: p[0], stroke: p[1], width: p[2], dash: p[3], points: { show: d.t.length < 120 }, value: function (u, v) { return fmtMs(v); } });
    });
    chart(el, {
      title: title,
      height: 220,
      scales: { x: { time: false, range: function (u, min, max) { return [0, Math.max(max || 0, d.end_s)]; } }, y: { distr: 3 } },
      series: ser,
      axes: [secondsAxis(), { label: "latency", size: 70, values: logValues(fmtMs), splits: decadeSplits }],
      hooks: { drawClear: [shadeFaults, shadeDrops] },
    }, cols);
  }

  function render() {
    if (data.delivery) {
      deliveryChart(document.getElementById("chart-fanout"), "fan-out — to each device's first receipt", data.delivery.fan_out);
      deliveryChart(document.getElementById("chart-full-visibility"), "full visibility — to the chat's last device", data.delivery.full_visibility);
    }

    timeChart(document.getElementById("chart-throughput"), "Operations per second", "ops/s", [
      { label: "completed", values: data.throughput.ops, color: "#1f4e99", width: 2 },
      { label: "ok", values: data.throughput.ok, color: "#2f9e44" },
      { label: "fail", values: data.throughput.fail, color: "#e8590c" },
      { label: "info (unknown outcome)", values: data.throughput.info, color: "#ae3ec9" },
    ], function (o) { o.scales.y = { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } }; });

    var titles = {
      allocate: "allocate — step 3, the counter",
      persist: "persist — step 4, the transaction",
      publish: "publish — step 5, Kafka",
      end_to_end: "end to end — from the intended start",
      service: "service — from the actual send",
      sync: "sync — reading a chat",
    };
    var grid = document.getElementById("latency-charts");
    data.latency.forEach(function (s) {
      var el = document.createElement("div");
      el.className = "chart";
      el.id = "chart-latency-" + s.step;
      grid.appendChild(el);
      timeChart(el, titles[s.step] || s.step, "latency", [
        { label: "p50", values: s.p50, color: "#1c7ed6", fmt: fmtMs },
        { label: "p99", values: s.p99, color: "#f08c00", fmt: fmtMs, width: 2 },
        { label: "max", values: s.max, color: "#495057", fmt: fmtMs, dash: [4, 3] },
      ], function (o) {
        o.height = 220;
        o.scales.y = { distr: 3 };
        o.axes[1].values = logValues(fmtMs);
        o.axes[1].splits = decadeSplits;
      });
    });

    var palette = ["#1c7ed6", "#2f9e44", "#e8590c", "#c2255c", "#7048e8", "#495057"];
    var dist = [data.distribution.x];
    var dser = [{ label: "percentile", value: function (u, v) { return v == null ? "–" : (100 * (1 - 1 / v)).toPrecision(6).replace(/\.?0+$/, "") + "%"; } }];
    data.distribution.steps.forEach(function (s, i) {
      dist.push(s.ms);
      dser.push({ label: s.step, stroke: palette[i % palette.length], width: 2, points: { show: false }, value: function (u, v) { return fmtMs(v); } });
    });
    chart(document.getElementById("chart-distribution"), {
      title: "Latency by percentile (whole run)",
      height: 300,
      scales: { x: { time: false, distr: 3 }, y: { distr: 3 } },
      series: dser,
      axes: [
        { label: "percentile", splits: decadeSplits, values: logValues(function (v) { return (100 * (1 - 1 / v)).toPrecision(6).replace(/\.?0+$/, "") + "%"; }) },
        { label: "latency", size: 70, splits: decadeSplits, values: logValues(fmtMs) },
      ],
    }, dist);

    timeChart(document.getElementById("chart-attempts"), "Attempts and retries per second", "per second", [
      { label: "retries", values: data.attempts.retries, color: "#e8590c", width: 2 },
      { label: "faults injected", values: data.attempts.faults, color: "#c92a2a" },
      { label: "duplicate sends", values: data.attempts.duplicates, color: "#7048e8" },
      { label: "transactions per persist", values: data.attempts.tx_per_persist, color: "#868e96", dash: [4, 3], scale: "tx" },
    ], function (o) {
      o.scales.y = { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } };
      o.scales.tx = { range: function (u, min, max) { return [0, Math.max(2, max * 1.2)]; } };
      o.axes.push({ scale: "tx", side: 1, label: "transactions per persist", size: 60, grid: { show: false } });
    });

    timeChart(document.getElementById("chart-gaps"), "Gap rate by allocation time", "gap rate", [
      { label: "gap rate", values: data.gaps.rate, color: "#c2255c", width: 2, fmt: fmtPct, scale: "pct" },
      { label: "gaps/s", values: data.gaps.gaps, color: "#868e96", dash: [4, 3], scale: "n" },
    ], function (o) {
      o.scales.pct = { range: function (u, min, max) { return [0, max > 0 ? max * 1.2 : 1]; } };
      o.scales.n = { range: function (u, min, max) { return [0, max > 0 ? max * 1.2 : 1]; } };
      o.axes[1].scale = "pct";
      o.axes.push({ scale: "n", side: 1, label: "gaps/s", size: 60, grid: { show: false } });
    });
  }

  try {
    render();
  } catch (e) {
    errors.push(e.message);
  }
  settle();

  window.addEventListener("resize", function () {
    charts.forEach(function (u) { u.setSize({ width: widthOf(u._reportEl), height: u.height }); });
  });
})();
