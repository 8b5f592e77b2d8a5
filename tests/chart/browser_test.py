#!/usr/bin/python3
"""browser_test.py PAGE.html OUTDIR — opens a roofline HTML page in headless Chromium (cdp.py) and
checks what a person would: no console error, no exception and no network request; hovering a
marker shows its figures in the tooltip; clicking a legend entry hides that bound's markers and
table rows (and clicking again shows them); clicking a column header sorts the table; roof labels
touch no marker, no other label and no other roof with the real fonts. Keeps light and dark PNG
screenshots in OUTDIR for a person to look at. Exit 0 pass, 1 fail, 77 skip (no chromium)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("browser_test: FAIL: " + msg)


# Every roof label as a quadrilateral (its text box through its transform), every marker and
# roof line; reports which labels overlap something. Real glyph metrics, unlike the C estimate.
LABEL_JS = r"""
(function () {
  function quad(el, pad) {
    var b = el.getBBox(), m = el.getCTM(), pts = [];
    [[b.x - pad, b.y - pad], [b.x + b.width + pad, b.y - pad],
     [b.x + b.width + pad, b.y + b.height + pad], [b.x - pad, b.y + b.height + pad]]
      .forEach(function (p) { pts.push([m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f]); });
    return pts;
  }
  function axes(q) {
    var r = [];
    for (var i = 0; i < q.length; i++) {
      var a = q[i], b = q[(i + 1) % q.length], dx = b[0] - a[0], dy = b[1] - a[1];
      if (dx || dy) r.push([-dy, dx]);
    }
    return r;
  }
  function overlap(p, q) {  /* separating axis theorem for convex polygons */
    var all = axes(p).concat(axes(q));
    for (var i = 0; i < all.length; i++) {
      var ax = all[i], pa = p.map(function (v) { return v[0] * ax[0] + v[1] * ax[1]; }),
          qa = q.map(function (v) { return v[0] * ax[0] + v[1] * ax[1]; });
      if (Math.max.apply(null, pa) <= Math.min.apply(null, qa) ||
          Math.max.apply(null, qa) <= Math.min.apply(null, pa)) return false;
    }
    return true;
  }
  var svg = document.querySelector('svg.roofline');
  var labels = Array.prototype.slice.call(svg.querySelectorAll('text.rooflabel'));
  var marks = Array.prototype.slice.call(svg.querySelectorAll('.pt, path.ridge'));
  var roofs = Array.prototype.filter.call(svg.querySelectorAll(':scope > line.roof'),
    function (l) { return getComputedStyle(l).display !== 'none'; });  /* hidden minor roofs */
  var bad = [];
  labels.forEach(function (l, i) {
    var q = quad(l, -0.5);
    marks.forEach(function (m) {
      if (overlap(q, quad(m, 0))) bad.push(l.textContent + ' / marker ' + (m.dataset.name || 'ridge'));
    });
    roofs.forEach(function (r) {
      var x1 = +r.getAttribute('x1'), y1 = +r.getAttribute('y1'),
          x2 = +r.getAttribute('x2'), y2 = +r.getAttribute('y2');
      var seg = [[x1, y1], [x2, y2], [x2 + 0.01, y2 + 0.01]];
      if (overlap(q, seg)) bad.push(l.textContent + ' / roof ' + r.dataset.name);
    });
    labels.forEach(function (o, j) {
      if (j > i && overlap(q, quad(o, -0.5))) bad.push(l.textContent + ' / ' + o.textContent);
    });
  });
  return {n: labels.length, bad: bad};
})()
"""


def rect_centre(page, selector):
    return page.eval(f"""(function () {{
        var e = document.querySelector({selector!r}); if (!e) return null;
        var r = e.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")


def main():
    html, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not os.access(cdp.CHROMIUM, os.X_OK):
        print(f"SKIPPED: {cdp.CHROMIUM} not found (scripts/install-deps installs Debian's chromium)")
        return 77
    os.makedirs(outdir, exist_ok=True)
    browser = cdp.Browser(1000, 900)
    try:
        page = browser.page()
        for domain in ("Runtime", "Log", "Network", "Page"):
            page.call(domain + ".enable")
        page.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1000, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        page.call("Page.navigate", {"url": "file://" + html})
        page.wait_event("Page.loadEventFired")
        run_checks(page, outdir)
        for e in page.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                check(False, f"exception: {p['exceptionDetails'].get('text')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                check(False, f"console {p['type']}: {p.get('args')}")
            elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                check(False, f"log {p['entry']['level']}: {p['entry'].get('text')}")
            elif m == "Network.requestWillBeSent":
                url = p["request"]["url"]
                check(url.startswith("file:") or url.startswith("data:") or url == "about:blank",
                      f"network request to {url}")
    finally:
        browser.close()
    print(f"browser_test: {len(fails)} failures; screenshots in {outdir}")
    return 1 if fails else 0


GLANCE_JS = r"""
(function () {
  var svg = document.querySelector('svg.roofline'), out = {};
  var W = svg.viewBox.baseVal.width;
  out.textOverflow = Array.prototype.filter.call(svg.querySelectorAll('text.title, text.sub'),
    function (t) { var b = t.getBBox(); return b.x < 0 || b.x + b.width > W + 0.5; }).length;
  out.titleCut = Array.prototype.some.call(svg.querySelectorAll('text.title tspan'),
    function (t, i, all) { return all.length < 3 && t.textContent.indexOf('\u2026') >= 0; });
  var ticks = Array.prototype.map.call(svg.querySelectorAll('text.tick-y'),
    function (t) { return +t.dataset.decade; });
  out.yTop = Math.max.apply(null, ticks);
  var hi = -Infinity;
  svg.querySelectorAll('line.roof.compute[data-value]').forEach(function (l) {
    if (getComputedStyle(l).display !== 'none') hi = Math.max(hi, Math.log10(+l.dataset.value));
  });
  svg.querySelectorAll('.pt').forEach(function (p) {
    var v = p.dataset.kind === 'measured' ? +p.dataset.achieved : +p.dataset.attainable;
    if (v > 0) hi = Math.max(hi, Math.log10(v));
  });
  out.yNeed = hi;
  function style(sel) {
    return Array.prototype.map.call(svg.querySelectorAll(sel), function (e) {
      var cs = getComputedStyle(e), b = e.getBBox();
      return {fill: cs.fill, stroke: cs.stroke, sw: parseFloat(cs.strokeWidth),
              w: b.width, tag: e.tagName, series: e.dataset.series, bound: e.dataset.bound};
    });
  }
  out.measured = style('.series .pt.measured');
  out.hollow = style('.series .pt.hollow');
  out.swatchMeasured = svg.querySelectorAll('.legend .swatch.measured').length;
  out.swatchHollow = svg.querySelectorAll('.legend .swatch.hollow').length;
  out.points = style('.series .pt:not(.hollow)');
  out.unlabelled = Array.prototype.filter.call(svg.querySelectorAll('.legend .note'),
    function (t) { return t.textContent.indexOf('unlabelled') >= 0; }).length;
  out.nameOnly = Array.prototype.filter.call(svg.querySelectorAll('text.rooflabel'),
    function (t) { return !/[0-9.]+ [kMGTPE]?(FLOP|B)\/s/.test(t.textContent); })
    .map(function (t) { return t.textContent; });
  out.minor = svg.querySelectorAll('line.roof.minor').length;
  out.minorShown = Array.prototype.filter.call(svg.querySelectorAll('line.roof.minor'),
    function (l) { return getComputedStyle(l).display !== 'none'; }).length;
  out.roofsShown = Array.prototype.filter.call(svg.querySelectorAll(':scope > line.roof'),
    function (l) { return getComputedStyle(l).display !== 'none'; }).length;
  return out;
})()
"""


def glance_checks(page, outdir):
    """What issue 29 asks a chart to make plain at 1x: each fails on the old rendering."""
    g = page.eval(GLANCE_JS)
    check(g["textOverflow"] == 0, f"{g['textOverflow']} title/subtitle lines run past the picture")
    check(not g["titleCut"], "the title is cut with '…' although it had lines left to wrap onto")
    # the top of the y axis: the first decade above the highest roof or point (+1/6 decade room)
    want = math.ceil(g["yNeed"] + 1 / 6 - 1e-9)
    check(g["yTop"] == want, f"y axis tops at 1e{g['yTop']:.0f}, the data and roofs need 1e{want}")
    if g["measured"]:
        # measured: solid with a light rim, at least 9 px across; estimates: open thin rings
        for m in g["measured"]:
            check(m["fill"] != "none" and m["sw"] <= 1.5 and m["w"] >= 8.9,
                  f"a measured marker is not a solid dot: {m}")
        for h in g["hollow"]:
            check(h["fill"] == "none" and h["stroke"] not in ("none", "rgb(26, 32, 44)"),
                  f"an estimate is not an open ring in its bound's colour: {h}")
        check(g["swatchMeasured"] == 1 and g["swatchHollow"] == 1,
              "the legend lacks a swatch of the measured and of the estimate marker")
    series = sorted({p["series"] for p in g["points"]})
    if len(series) > 1:
        # several series: told apart by marker shape and by hue, whatever their bound
        look = {}
        for p in g["points"]:
            if p["bound"] == "memory":
                look.setdefault(p["series"], set()).add((p["tag"], p["fill"]))
        for a in series:
            for b in series:
                if a < b and a in look and b in look:
                    ta, tb = {t for t, _ in look[a]}, {t for t, _ in look[b]}
                    fa, fb = {f for _, f in look[a]}, {f for _, f in look[b]}
                    check(not (ta & tb), f"series {a} and {b} share a marker shape {ta & tb}")
                    check(not (fa & fb), f"series {a} and {b} share a fill {fa & fb}")
    # every roof drawn has its label on the plot (A100: tf32, bf16, int8 were bare stubs)
    check(g["unlabelled"] == 0, f"{g['unlabelled']} roofs drawn without a label")
    if not g["minor"]:  # room for every figure unless the roofs crowd (a full peaks machine)
        check(not g["nameOnly"], f"roof labels without their figure: {g['nameOnly']}")
    # a full peaks machine (29 ceilings): the roofs that matter by default, the rest behind a toggle
    check(g["roofsShown"] <= 10, f"{g['roofsShown']} roofs drawn by default")
    if g["minor"]:
        check(g["minorShown"] == 0, f"{g['minorShown']} minor roofs shown before the toggle")
        x, y = rect_centre(page, "svg [data-toggle-minor]")
        page.click(x, y)
        shown = page.eval(GLANCE_JS)["minorShown"]
        check(shown == g["minor"], f"after the toggle {shown} of {g['minor']} minor roofs shown")
        page.screenshot(os.path.join(outdir, "chart-all-roofs.png"))
        page.click(x, y)


def run_checks(page, outdir):
    n_pts = page.eval("document.querySelectorAll('svg .pt').length")
    check(n_pts and n_pts > 0, "no marker in the chart")
    glance_checks(page, outdir)
    # hover: the tooltip shows the marker's name and figures
    x, y = rect_centre(page, "svg .pt.memory")
    # markers may share a place (same AI): the one on top is the one hovered
    name = page.eval(f"document.elementFromPoint({x}, {y}).closest('.pt').dataset.name")
    page.mouse("mouseMoved", x, y)
    tip = page.eval("(function(){var t=document.getElementById('rf-tip');"
                    "return t.hidden ? null : t.textContent;})()")
    check(tip is not None and name in tip and "FLOP/byte" in tip and "bound: memory" in tip,
          f"tooltip after hovering '{name}': {tip!r}")
    page.screenshot(os.path.join(outdir, "chart-hover.png"))
    page.mouse("mouseMoved", 5, 5)
    # measured points: the tooltip says which marker is the measurement, which the estimate
    if page.eval("document.querySelectorAll('svg .pt.measured').length"):
        for kind, words in (("measured", "measured (filled marker)"),
                            ("hollow", "estimate (hollow marker)")):
            x, y = rect_centre(page, "svg .pt." + kind)
            page.mouse("mouseMoved", x, y)
            got = page.eval("(function(){var t=document.getElementById('rf-tip');"
                            "return t.hidden ? null : t.textContent;})()")
            top = page.eval(f"(function(){{var e=document.elementFromPoint({x}, {y});"
                            f"e=e&&e.closest('.pt');return !!e&&e.classList.contains('{kind}');}})()")
            check(not top or (got is not None and words in got),
                  f"tooltip of a {kind} marker: {got!r}")
            page.mouse("mouseMoved", 5, 5)
        check(page.eval("document.querySelectorAll('svg line.link').length") ==
              page.eval("document.querySelectorAll('svg .pt.measured').length"),
              "one line from each estimate to its measurement")
    # network-bound points: a diamond under the network roof, the tooltip gives its network bytes
    if page.eval("document.querySelectorAll('svg .pt.network').length"):
        x, y = rect_centre(page, "svg .pt.network")
        page.mouse("mouseMoved", x, y)
        got = page.eval("(function(){var t=document.getElementById('rf-tip');"
                        "return t.hidden ? null : t.textContent;})()")
        check(got is not None and "bound: network" in got and "FLOP per network byte" in got,
              f"tooltip of a network-bound marker: {got!r}")
        check(page.eval("document.querySelector('svg .pt.network').tagName") == "polygon",
              "a network-bound marker is a diamond")
        page.mouse("mouseMoved", 5, 5)
    check(page.eval("document.getElementById('rf-tip').hidden"), "tooltip stays after leaving")
    # legend: hide the memory-bound class, then show it again
    visible = ("(function(b){return Array.prototype.filter.call(document.querySelectorAll("
               "'svg .pt.'+b),function(e){return getComputedStyle(e).display!=='none';}).length;})")
    rows = ("(function(b){return Array.prototype.filter.call(document.querySelectorAll("
            "'#rf-table tbody tr[data-bound='+b+']'),function(e){return !e.hidden;}).length;})")
    n_mem, n_cmp = page.eval(visible + "('memory')"), page.eval(visible + "('compute')")
    x, y = rect_centre(page, ".legend-item[data-toggle=memory]")
    page.click(x, y)
    check(page.eval(visible + "('memory')") == 0, "memory-bound markers still shown after a click")
    check(page.eval(visible + "('compute')") == n_cmp, "compute-bound markers hidden by mistake")
    check(page.eval(rows + "('memory')") == 0, "memory-bound table rows still shown")
    page.screenshot(os.path.join(outdir, "chart-memory-hidden.png"))
    page.click(x, y)
    check(page.eval(visible + "('memory')") == n_mem, "memory-bound markers not back")
    # sort: by AI ascending, then descending
    col = page.eval("Array.prototype.findIndex.call(document.querySelectorAll('#rf-table th'),"
                    "function(h){return h.textContent.indexOf('AI')===0;})")
    check(col is not None and col >= 0, "no AI column in the table")
    values = ("Array.prototype.map.call(document.querySelectorAll('#rf-table tbody tr'),"
              "function(r){var v=r.cells[%d].dataset.v;return v==='inf'?1e308:v===''?null:+v;})"
              % col)
    for order in ("ascending", "descending"):
        x, y = rect_centre(page, f"#rf-table th:nth-child({col + 1})")
        page.click(x, y)
        v = [a for a in page.eval(values) if a is not None]
        want = sorted(v, reverse=order == "descending")
        check(v == want, f"table not sorted {order} by AI")
        check(page.eval(f"document.querySelectorAll('#rf-table th')[{col}]"
                        ".getAttribute('aria-sort')") == order, f"aria-sort is not {order}")
    # roof labels against markers, roofs and each other, with real glyphs
    res = page.eval(LABEL_JS)
    check(not res["bad"], f"{len(res['bad'])} roof label collisions: {res['bad'][:5]}")
    print(f"browser_test: {n_pts} markers, {res['n']} roof labels placed, tooltip {tip!r}")
    page.screenshot(os.path.join(outdir, "chart-light.png"))
    page.call("Emulation.setEmulatedMedia",
              {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    page.screenshot(os.path.join(outdir, "chart-dark.png"))


if __name__ == "__main__":
    sys.exit(main())
