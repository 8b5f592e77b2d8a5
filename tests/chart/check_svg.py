#!/usr/bin/python3
"""check_svg.py CHART.svg RESULT.json [RESULT2.json ...] — checks a roofline SVG against the
results it was drawn from (the JSON of `roofline analyze --json`): it parses as XML, holds exactly
one marker per plottable row of every result (bound known, FLOPs > 0), each marker's data-*
figures match the row, and each marker sits where its data-ai / data-attainable fall on the axes
(read back from the decade tick labels). Roofs are checked against the axes the same way. Python
standard library only. Exit 0 when all checks pass, 1 with one line per failure otherwise."""
import json
import math
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
TOL = 0.02  # pixels: positions are written with 2 decimals
fails = []


def fail(msg):
    fails.append(msg)


def classes(e):
    return (e.get("class") or "").split()


def num(s):
    return math.inf if s == "inf" else float(s)


def axis_fit(ticks):
    """Linear map decade -> pixel from (decade, pixel) pairs; checks they are evenly spaced."""
    ticks.sort()
    if len(ticks) < 2:
        fail("fewer than 2 ticks on an axis")
        return None
    (d0, p0), (d1, p1) = ticks[0], ticks[-1]
    k = (p1 - p0) / (d1 - d0)
    for d, p in ticks:
        if abs(p0 + (d - d0) * k - p) > TOL:
            fail(f"tick {d} at {p} is not on the decade scale")
    return lambda v: p0 + (v - d0) * k, ticks


def main():
    svg, results = sys.argv[1], sys.argv[2:]
    root = ET.parse(svg).getroot()
    if root.tag != NS + "svg":
        fail("root element is not <svg>")
    xt = [(float(t.get("data-decade")), float(t.get("x"))) for t in root.iter(NS + "text")
          if "tick-x" in classes(t)]
    yt = [(float(t.get("data-decade")), float(t.get("y"))) for t in root.iter(NS + "text")
          if "tick-y" in classes(t)]
    fx, xt = axis_fit(xt)
    fy, yt = axis_fit(yt)
    xmin, xmax = fx(xt[0][0]), fx(xt[-1][0])
    ymin, ymax = fy(yt[-1][0]), fy(yt[0][0])  # pixels: y grows downward
    marks = [e for e in root.iter() if "pt" in classes(e)]
    expected = []
    for k, path in enumerate(results):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for row in doc["rows"]:
            if row["bound"] != "undefined" and row["flops"] > 0:
                expected.append((k, row))
                if "measured" in row:  # a filled marker at the achieved FLOP/s, and a link
                    expected.append((k, dict(row, kind="measured")))
    if len(marks) != len(expected):
        fail(f"{len(marks)} markers for {len(expected)} plottable rows")
    by_key = {}
    for k, row in expected:
        by_key.setdefault((str(k), row["name"], row.get("kind", "estimate")), []).append(row)
    n_measured = sum(1 for _, row in expected if row.get("kind") == "measured")
    links = [e for e in root.iter(NS + "line") if "link" in classes(e)]
    if len(links) != n_measured:
        fail(f"{len(links)} estimate-to-measurement lines for {n_measured} measured points")
    for m in marks:
        name, series = m.get("data-name"), m.get("data-series")
        kind = "measured" if "measured" in classes(m) else "estimate"
        if n_measured and kind == "estimate" and "hollow" not in classes(m):
            fail(f"marker '{name}': an estimate in a chart with measurements must be hollow")
        rows = by_key.get((series, name, kind))
        if not rows:
            fail(f"marker '{name}' (series {series}) matches no row")
            continue
        row = rows.pop(0)
        ai, att = num(m.get("data-ai")), num(m.get("data-attainable"))
        if float(m.get("data-flops")) != row["flops"] or float(m.get("data-bytes")) != row["bytes"]:
            fail(f"marker '{name}': data-flops/bytes differ from the row")
        if row["ai"] is None:
            if not math.isinf(ai):
                fail(f"marker '{name}': data-ai {ai} for a row with no bytes")
        elif abs(ai - row["ai"]) > 1e-9 * abs(row["ai"]):
            fail(f"marker '{name}': data-ai {ai} != {row['ai']}")
        if m.get("data-bound") != row["bound"]:
            fail(f"marker '{name}': bound {m.get('data-bound')} != {row['bound']}")
        # one series: the shape is the bound; several: the shape is the series (circle, square,
        # then polygons) and the bound is the class, so two series never share a shape
        if len(results) == 1:
            want = {"memory": "circle", "compute": "rect"}[row["bound"]]
        else:
            want = ("circle", "rect")[int(series)] if int(series) < 2 else "polygon"
        if m.tag != NS + want:
            fail(f"marker '{name}' (series {series}, {row['bound']}-bound) must be a {want}")
        if row["bound"] not in classes(m):
            fail(f"marker '{name}': class does not name its bound {row['bound']}")
        if m.tag == NS + "circle":
            cx, cy = float(m.get("cx")), float(m.get("cy"))
        elif m.tag == NS + "rect":
            cx = float(m.get("x")) + float(m.get("width")) / 2
            cy = float(m.get("y")) + float(m.get("height")) / 2
        else:
            pts = [tuple(map(float, p.split(","))) for p in m.get("points").split()]
            cx, cy = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
        ex = xmax if math.isinf(ai) else fx(math.log10(ai))
        if kind == "measured":
            att = row["measured"]["achieved_flops_per_s"]
            if abs(num(m.get("data-achieved")) - att) > 1e-9 * att:
                fail(f"marker '{name}': data-achieved differs from the row")
        ey = fy(math.log10(att))
        if m.get("data-clamped"):
            ex, ey = min(max(ex, xmin), xmax), min(max(ey, ymin), ymax)
        if abs(cx - ex) > TOL or abs(cy - ey) > TOL:
            fail(f"marker '{name}' at ({cx}, {cy}), expected ({ex:.2f}, {ey:.2f})")
    for ln in root.iter(NS + "line"):
        c = classes(ln)
        if "roof" not in c or ln.get("data-value") is None:
            continue
        v = math.log10(float(ln.get("data-value")))
        x1, y1, x2, y2 = (float(ln.get(a)) for a in ("x1", "y1", "x2", "y2"))
        for x, y in ((x1, y1), (x2, y2)):
            dec_x = xt[0][0] + (x - xmin) / (xmax - xmin) * (xt[-1][0] - xt[0][0])
            want_y = fy(v) if "compute" in c else fy(v + dec_x)
            if abs(y - want_y) > 2 * TOL:
                fail(f"roof {ln.get('data-name')}: point ({x}, {y}) is off its line ({want_y:.2f})")
    for f in fails:
        print("check_svg: " + f)
    print(f"check_svg: {len(marks)} markers, {len(xt)} x ticks, {len(yt)} y ticks, "
          f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
