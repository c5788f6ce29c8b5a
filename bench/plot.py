#!/usr/bin/env python3
"""Draws PNG plots (matplotlib, Agg: no display needed) of benchmark and tuning results.

  plot.py ratio OURS.jsonl... --peers PEERS.jsonl [--peers ...] -o ratio.png
      from `w8a8 bench --json` files (one per granularity; compare.py --save writes them) and
      peers.py output: one panel per granularity, the speed ratio ours / peer (the peer's time
      over ours: above 1 ours is faster) of every shape against each peer of that granularity,
      shapes grouped by layer (N, K), M along each group, the geometric mean in the legend.

  plot.py heatmap DB|CSV --n N --k K [--scale A,B] [--dtype e4m3|int8] -o heatmap.png
      from a tuning database (its measurement_rows view) or a CSV with the same columns
      (`w8a8 cache export FILE.csv`, .csv.gz too): TFLOP/s (2·M·N·K / median, M = the bucket)
      of the --top configs (rows) in each M bucket (columns) of one (N, K) and problem class,
      from the verified "ok" measurements, the fastest of repeated ones. Each bucket's fastest
      is outlined; the configs drawn are each bucket's fastest, then second fastest, … (--order).

Exit 2 on a usage error, or when matplotlib or the input is missing.
"""
import argparse
import csv
import gzip
import io
import math
import os
import sqlite3
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
import rows  # noqa: E402

SQLITE_MAGIC = b"SQLite format 3\0"
DPI = 110
RATIO_TICKS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
MAX_LABELLED_CELLS = 800
# the measurement_rows columns a heat map reads
HEAT_COLUMNS = ("device_name", "arch", "a_type", "b_type", "out_type", "bias_type", "a_scale",
                "b_scale", "azp", "n", "k", "m_bucket", "family", "config", "median_us",
                "verified", "status")  # beyond this the heat map's cells carry no numbers


class UsageError(Exception):
    pass


def pyplot():
    """matplotlib.pyplot on the Agg backend; UsageError when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise UsageError(f"matplotlib is not importable ({e}); pip install matplotlib") from None
    return plt


def save_png(fig, path):
    """The figure as a PNG of at most 256 colours (Pillow, which matplotlib depends on): a
    third of the bytes of a full-colour one, the same to the eye, small enough to commit."""
    from PIL import Image
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    buffer.seek(0)
    image = Image.open(buffer).convert("RGB")
    median_cut = getattr(Image, "Quantize", Image).MEDIANCUT  # Pillow < 9.1: Image.MEDIANCUT
    image.quantize(colors=256, method=median_cut).save(path, optimize=True)


# ---- ratio ---------------------------------------------------------------------------------

def ratio_series(our_paths, peer_paths, vs):
    """[(granularity, [shapes], {peer: [ratio or None per shape]})], granularities in the order
    their files came, peers in rows.PEERS order, only peers with at least one ratio."""
    peer_timed = []
    for path in peer_paths:
        peer_timed += rows.load(path)[0]
    ours_by_granularity = {}
    for path in our_paths:
        timed, _ = rows.load(path)
        mine = [r for r in timed if r["provider"] == rows.OURS]
        if not mine:
            raise UsageError(f"{path} has no timed rows of provider '{rows.OURS}'")
        for row in mine:
            ours_by_granularity.setdefault(rows.granularity(row), {})[rows.shape_of(row)] = row
        # cublaslt rows of `w8a8 bench` are peers of the same granularity
        peer_timed += [dict(r, _granularity=rows.granularity(r)) for r in timed
                       if r["provider"] != rows.OURS]
    series = []
    for granularity, mine in ours_by_granularity.items():
        candidates = rows.by_provider(r for r in peer_timed
                                      if r.get("_granularity", granularity) == granularity)
        shapes = sorted(mine, key=rows.shape_order)
        ratios = {}
        for peer in rows.peers_of(granularity):
            if (vs and peer not in vs) or peer not in candidates:
                continue
            joined = {j[0]: j[3] for j in rows.join(mine, candidates[peer])}
            if joined:
                ratios[peer] = [joined.get(s) for s in shapes]
        series.append((granularity, shapes, ratios))
    return series


def draw_ratio(args):
    series = ratio_series(args.ours, args.peers, args.vs)
    if not any(ratios for _, _, ratios in series):
        raise UsageError("no shape is timed by both ours and a peer of its granularity")
    plt = pyplot()
    shapes_max = max(len(shapes) for _, shapes, _ in series)
    fig, axes = plt.subplots(len(series), 1, squeeze=False,
                             figsize=(max(8.5, 0.2 * shapes_max + 4.0), 2.9 * len(series)))
    for ax, (granularity, shapes, ratios) in zip(axes[:, 0], series):
        draw_ratio_panel(ax, granularity, shapes, ratios)
    fig.suptitle(args.title or "w8a8jit speed ratio ours / peer (> 1: ours faster)", fontsize=10)
    fig.tight_layout()
    save_png(fig, args.output)
    plt.close(fig)
    return args.output


def peer_colour(peer):
    """One colour per peer in every panel and every plot."""
    return f"C{rows.KNOWN_PEERS.index(peer) % 10}" if peer in rows.KNOWN_PEERS else "black"


def draw_ratio_panel(ax, granularity, shapes, ratios):
    if not ratios:
        ax.text(0.5, 0.5, f"{granularity}: no peer times these shapes", ha="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return
    groups = []  # (first index, last index, (N, K))
    for i, (m, n, k) in enumerate(shapes):
        if groups and groups[-1][2] == (n, k):
            groups[-1][1] = i
        else:
            groups.append([i, i, (n, k)])
    for peer, values in ratios.items():
        # one line per (N, K) group: a break between layers, not a slope across them
        xs, ys = [], []
        for first, last, _ in groups:
            xs += list(range(first, last + 1)) + [math.nan]
            ys += [v if v is not None else math.nan for v in values[first:last + 1]] + [math.nan]
        mean = rows.geomean(v for v in values if v is not None)
        ax.plot(xs, ys, marker="o", markersize=3.5, linewidth=1, color=peer_colour(peer),
                label=f"{peer}\n(geomean {mean:.2f})")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    low = min(v for vs in ratios.values() for v in vs if v is not None)
    high = max(v for vs in ratios.values() for v in vs if v is not None)
    ticks = [t for t in RATIO_TICKS if low / 1.2 <= t <= high * 1.2] or [1.0]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([str(m) for m, _, _ in shapes], fontsize=6)
    ax.set_xlim(-0.6, len(shapes) - 0.4)
    for first, last, (n, k) in groups:
        if first:
            ax.axvline(first - 0.5, color="grey", linewidth=0.5)
        ax.text((first + last) / 2, 1.0, f"N={n} K={k}", transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=6)
    ax.set_xlabel("M", fontsize=7, labelpad=1)
    ax.set_ylabel(f"{granularity}: ours / peer", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="y", linewidth=0.3)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.005, 1.0), borderaxespad=0)


# ---- heatmap -------------------------------------------------------------------------------

def measurement_rows(path):
    """Every row of a tuning database's measurement_rows view, or of a CSV (.gz) with its
    columns, as dicts of strings and numbers."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    if head == SQLITE_MAGIC:
        try:
            # read-only: a tuning database is never created or changed here
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            db.row_factory = sqlite3.Row
            return [dict(r) for r in db.execute("SELECT * FROM measurement_rows")]
        except sqlite3.Error as e:
            raise UsageError(f"{path}: {e}") from None
    opener = gzip.open if head[:2] == b"\x1f\x8b" else open
    try:
        with opener(path, "rt", newline="") as f:
            reader = csv.DictReader(io.StringIO(f.read()), skipinitialspace=True)
            found = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise UsageError(f"{path} is neither a tuning database nor a CSV: {e}") from None
    missing = [c for c in HEAT_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise UsageError(f"{path} is neither a tuning database nor a CSV of its "
                         f"measurement_rows (no column {', '.join(missing)})")
    return found


def heat_cells(args, measurements):
    """{(family, config): {m_bucket: best TFLOP/s}} of the chosen (N, K) and problem class,
    and the device named by the rows."""
    a_scale, b_scale = args.scale
    wanted = {"n": str(args.n), "k": str(args.k), "a_scale": a_scale, "b_scale": b_scale,
              "a_type": args.dtype, "b_type": args.dtype, "out_type": args.out_dtype,
              "bias_type": "none", "azp": "none", "status": "ok", "verified": "1"}
    chosen = [r for r in measurements if all(str(r.get(c)) == v for c, v in wanted.items())]
    if args.device:
        chosen = [r for r in chosen if args.device in str(r.get("device_name", ""))]
    if not chosen:
        where = f" on '{args.device}'" if args.device else ""
        raise UsageError(f"no verified ok measurement of N={args.n} K={args.k} {args.dtype} "
                         f"{a_scale},{b_scale} out {args.out_dtype}{where}"
                         + available(measurements))
    devices = sorted({f"{r.get('device_name')} ({r.get('arch')})" for r in chosen})
    if len(devices) > 1:
        raise UsageError(f"the rows come from {len(devices)} devices ({'; '.join(devices)}): "
                         "choose one with --device")
    cells = {}
    for r in chosen:
        if args.family and r["family"] != args.family:
            continue
        m_bucket, median_us = int(r["m_bucket"]), float(r["median_us"])
        tflops = 2.0 * m_bucket * args.n * args.k / median_us / 1e6
        row = cells.setdefault((r["family"], r["config"]), {})
        row[m_bucket] = max(row.get(m_bucket, 0.0), tflops)
    if not cells:
        raise UsageError(f"no measurement of family '{args.family}' for that key")
    return cells, devices[0]


def available(measurements):
    keys = sorted({(int(r["n"]), int(r["k"]), r["a_type"], r["a_scale"], r["b_scale"])
                   for r in measurements if "n" in r and str(r.get("status")) == "ok"})
    if not keys:
        return " (the input has none at all)"
    listed = ", ".join(f"{n}x{k} {t} {a},{b}" for n, k, t, a, b in keys[:12])
    return f" (it has N x K: {listed}{' …' if len(keys) > 12 else ''})"


def choose_configs(cells, top, order):
    """The configs to draw, in rows, and the buckets. balanced: each bucket's fastest, then
    each one's second fastest, … in turn until top are chosen, so every M bucket shows its
    leaders (the large buckets, where many configs come within a few percent, would fill the
    rows otherwise); absolute: the top by best TFLOP/s in any bucket. Rows are grouped by the
    bucket where a config comes closest to the fastest (small M first), fastest first."""
    buckets = sorted({b for row in cells.values() for b in row})
    best = {b: max(row.get(b, 0.0) for row in cells.values()) for b in buckets}
    if order == "absolute":
        picked = sorted(cells, key=lambda c: max(cells[c].values()), reverse=True)[:top]
    else:
        ranked = {b: sorted((c for c in cells if b in cells[c]), key=lambda c: -cells[c][b])
                  for b in buckets}
        picked, place = [], 0
        while len(picked) < min(top, len(cells)):
            for b in buckets:
                if place < len(ranked[b]) and ranked[b][place] not in picked \
                        and len(picked) < top:
                    picked.append(ranked[b][place])
            place += 1

    def home(config):
        return min(cells[config], key=lambda b: (-cells[config][b] / best[b], b))
    picked.sort(key=lambda c: (home(c), -cells[c][home(c)] / best[home(c)]))
    return picked, buckets, best


def short_labels(configs):
    """Row labels without the key=value pairs every drawn config of a family shares; those are
    returned per family for a footnote."""
    parsed = {c: [tuple(p.split("=", 1)) if "=" in p else (p, "") for p in c[1].split(",")]
              for c in configs}
    shared = {}
    for family in {f for f, _ in configs}:
        of_family = [parsed[c] for c in configs if c[0] == family]
        if len(of_family) > 1:
            common = set(of_family[0]).intersection(*map(set, of_family[1:]))
            shared[family] = [p for p in of_family[0] if p in common]
    labels = []
    for c in configs:
        kept = [p for p in parsed[c] if p not in shared.get(c[0], [])]
        labels.append(f"{c[0]}  " + ",".join(f"{k}={v}" if v else k for k, v in kept))
    return labels, shared


def draw_heatmap(args):
    cells, device = heat_cells(args, measurement_rows(args.input))
    configs, buckets, best = choose_configs(cells, args.top, args.order)
    plt = pyplot()
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.patches import Rectangle
    values = [[cells[c].get(b, math.nan) for b in buckets] for c in configs]
    if args.relative:
        values = [[v / best[b] for v, b in zip(row, buckets)] for row in values]
        norm, unit = Normalize(vmin=0.0, vmax=1.0), "fraction of the bucket's fastest"
    else:
        present = [v for row in values for v in row if not math.isnan(v)]
        norm, unit = LogNorm(vmin=min(present), vmax=max(present)), "TFLOP/s"
    labels, shared = short_labels(configs)
    label_chars = max(len(s) for s in labels)
    fig, ax = plt.subplots(figsize=(max(8.5, 1.6 + 0.046 * label_chars + 0.55 * len(buckets)),
                                    1.9 + 0.2 * len(configs)))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#dddddd")  # not measured
    image = ax.imshow(values, aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
    ax.set_xticks(range(len(buckets)))
    ax.set_xticklabels([str(b) for b in buckets], fontsize=7)
    ax.set_xlabel("M bucket", fontsize=8)
    ax.set_yticks(range(len(configs)))
    ax.set_yticklabels(labels, fontsize=6, family="monospace")
    if len(configs) * len(buckets) <= MAX_LABELLED_CELLS:
        for i, c in enumerate(configs):
            for j, b in enumerate(buckets):
                t = cells[c].get(b)
                if t is None:
                    continue
                text = f"{t:.0f}" if t >= 10 else f"{t:.1f}"
                shade = norm(values[i][j])
                ax.text(j, i, text, ha="center", va="center", fontsize=5.5,
                        color="black" if shade > 0.6 else "white")
                if t == best[b]:
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                           edgecolor="red", linewidth=1.2))
    bar = fig.colorbar(image, ax=ax, fraction=0.025, pad=0.01, aspect=40)
    bar.set_label(unit, fontsize=7)
    bar.ax.tick_params(labelsize=6)
    scale = args.scale[0] if args.scale[0] == args.scale[1] else ",".join(args.scale)
    ax.set_title(args.title or f"TFLOP/s per config and M bucket: N={args.n} K={args.k} "
                 f"{args.dtype} {scale} scales, out {args.out_dtype} — {device}\n"
                 f"top {len(configs)} of {len(cells)} configs ({args.order} order); "
                 "red: each bucket's fastest; grey: not measured", fontsize=8)
    if shared:
        note = "; ".join(f"{f} rows share " + ",".join(f"{k}={v}" for k, v in pairs)
                         for f, pairs in sorted(shared.items()) if pairs)
        fig.text(0.01, 0.005, note, fontsize=6, ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    save_png(fig, args.output)
    plt.close(fig)
    return args.output


# ---- the command ---------------------------------------------------------------------------

def scale_pair(text):
    kinds = text.split(",")
    kinds = kinds * 2 if len(kinds) == 1 else kinds
    if len(kinds) != 2 or not all(k in ("tensor", "row", "block") for k in kinds):
        raise argparse.ArgumentTypeError(f"'{text}' is not tensor, row, block or A,B of those")
    return tuple(kinds)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="plot.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", metavar="{ratio,heatmap}")
    sub.required = True
    r = sub.add_parser("ratio", help="per-shape speed ratio ours / each peer")
    r.add_argument("ours", nargs="+", metavar="OURS.jsonl", help="`w8a8 bench --json` output")
    r.add_argument("--peers", action="append", required=True, metavar="PEERS.jsonl",
                   help="bench/peers.py output (repeatable)")
    r.add_argument("--vs", default="", metavar="LIST",
                   help="only these peers, comma-separated (default: every one with data)")
    r.add_argument("--title", default=None)
    r.add_argument("-o", "--output", required=True, metavar="FILE.png")
    h = sub.add_parser("heatmap", help="TFLOP/s per config x M bucket of one (N, K)")
    h.add_argument("input", metavar="DB|CSV", help="tuning database, or CSV(.gz) of its rows")
    h.add_argument("--n", type=int, required=True)
    h.add_argument("--k", type=int, required=True)
    h.add_argument("--scale", type=scale_pair, default=("tensor", "tensor"), metavar="A,B",
                   help="scale kinds of A and B (default tensor)")
    h.add_argument("--dtype", default="e4m3", choices=("e4m3", "e5m2", "int8"))
    h.add_argument("--out-dtype", default="bf16", choices=("bf16", "fp16", "fp32"))
    h.add_argument("--device", default=None, help="rows whose device name contains this")
    h.add_argument("--family", default=None, help="only this kernel family")
    h.add_argument("--top", type=int, default=40, help="configs drawn (default 40)")
    h.add_argument("--order", choices=("balanced", "absolute"), default="balanced",
                   help="pick configs bucket by bucket, fastest first (balanced, the default), "
                        "or by their best TFLOP/s in any bucket (absolute)")
    h.add_argument("--relative", action="store_true",
                   help="colour by fraction of the bucket's fastest, not TFLOP/s")
    h.add_argument("--title", default=None)
    h.add_argument("-o", "--output", required=True, metavar="FILE.png")
    args = ap.parse_args(argv)
    if args.command == "ratio":
        args.vs = [p for p in args.vs.split(",") if p]
        unknown = [p for p in args.vs if p not in rows.KNOWN_PEERS]
        if unknown:
            ap.error(f"--vs: unknown peer '{','.join(unknown)}' "
                     f"(known: {', '.join(rows.KNOWN_PEERS)})")
    elif args.top < 1 or args.n < 1 or args.k < 1:
        ap.error("--n, --k and --top must be at least 1")
    folder = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(folder):
        ap.error(f"-o: no folder {folder}")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        path = draw_ratio(args) if args.command == "ratio" else draw_heatmap(args)
    except (UsageError, rows.RowsError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    print(f"plot: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
